//! Log output on standard error: human-readable text (coloured only on a terminal) or one JSON
//! object per line for log shippers. `RUST_LOG` picks what is logged.

use std::io::IsTerminal;

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Text for people; ANSI colours only when standard error is a terminal.
    #[default]
    Text,
    /// One JSON object per line, with the event's fields and its spans.
    Json,
}

/// Installs the global subscriber; `default_level` applies when `RUST_LOG` is unset or invalid.
pub fn init(format: LogFormat, default_level: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().with_current_span(true).init(),
    }
}
