//! Log output on standard error: human-readable text (coloured only on a terminal) or one JSON
//! object per line for log shippers. `RUST_LOG` picks what is logged. A log line that cannot be
//! written (the reader of standard error went away, a full disk) is dropped: a service never
//! stops, nor panics, because nobody reads its log.

use std::io::{self, IsTerminal, Write};

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
    // The subscriber's own report of a failed write goes to standard error with `eprintln!`,
    // which panics when that fails too: off, and the writer never reports a failure anyway.
    let builder = tracing_subscriber::fmt()
        .with_writer(|| LogWriter(io::stderr()))
        .log_internal_errors(false)
        .with_env_filter(filter);
    match format {
        LogFormat::Text => builder.with_ansi(io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().with_current_span(true).init(),
    }
}

/// Standard error for log lines: a failed write is dropped (there is nowhere left to say so).
struct LogWriter<W>(W);

impl<W: Write> Write for LogWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // What did not get through is dropped; the caller never sees a failure to report.
        let _ = self.0.write_all(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream whose reader went away.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_stream_swallows_log_lines() {
        let mut writer = LogWriter(Closed);
        assert_eq!(writer.write(b"a line\n").unwrap(), 7);
        writer.flush().unwrap();
        let mut kept = LogWriter(Vec::new());
        kept.write_all(b"kept\n").unwrap();
        assert_eq!(kept.0, b"kept\n");
    }
}
