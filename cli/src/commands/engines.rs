//! The external engine options of the commands that start workers (`pentagrid worker`, and
//! `--local` and `pentagrid run`, whose workers run in this process): which engine programs
//! the workers may run, by name, from this command line or a file — never from the network.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use pentagrid_worker::EngineSettings;
use pentagrid_worker::engines::{EngineSpec, parse_engines_file};

/// The external engines workers started by this command may run.
#[derive(Args, Clone, Default)]
pub struct EngineArgs {
    /// An engine program workers may run, as `NAME=COMMAND ARGS…` (or
    /// `NAME:DIALECT=COMMAND ARGS…`, dialect `pentagrid` or `morat`; the arguments are split
    /// on spaces, no quoting); matches name it `engine:NAME`. Repeatable.
    #[arg(long = "engine", value_name = "NAME=COMMAND")]
    pub engines: Vec<EngineSpec>,
    /// A file of engines, one `NAME=COMMAND ARGS…` per line; empty lines and lines starting
    /// with `#` are skipped.
    #[arg(long, value_name = "PATH")]
    pub engines_file: Option<PathBuf>,
    /// Milliseconds an engine may take past its time before it loses on time.
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub engine_margin: u64,
    /// Start every engine afresh for each game (by default a process serves both games of a
    /// pair, reset with `clear_board`).
    #[arg(long)]
    pub engine_restart: bool,
}

impl EngineArgs {
    /// Whether any engine is named.
    pub fn any(&self) -> bool {
        !self.engines.is_empty() || self.engines_file.is_some()
    }

    /// The engines from the command line and the file, with the referee's settings.
    pub fn settings(&self) -> Result<EngineSettings> {
        let mut specs = self.engines.clone();
        if let Some(path) = &self.engines_file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the engines file {}", path.display()))?;
            specs.extend(
                parse_engines_file(&text)
                    .with_context(|| format!("in the engines file {}", path.display()))?,
            );
        }
        Ok(EngineSettings {
            specs,
            margin: Duration::from_millis(self.engine_margin),
            restart: self.engine_restart,
            ..EngineSettings::default()
        })
    }
}
