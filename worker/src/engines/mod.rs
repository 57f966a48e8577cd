//! External engine programs as players: which programs a worker may run (by name, from its
//! own configuration — a command never comes over the network), the processes, the protocol
//! dialects, and the referee that plays games between them and built-in players.

mod dialect;
mod external;
mod pair;
mod process;
mod referee;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use dialect::{BadMove, Dialect, ParseDialectError, morat_move, parse_morat_move};
pub use external::ExternalEngine;
pub use pair::{EngineSettings, EngineStartError, IDENTIFY_TIMEOUT, PairError, RefereedPair};
pub use pentago::{ParseTimeLimitError, TimeLimit};
pub use process::{EngineProcess, MAX_ANSWER_LINE, ProcessError, STDERR_KEPT};
pub use referee::{Contestant, Forfeit, ForfeitReason, RefereeError, RefereeOptions, RefereedGame};

/// A program and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// An engine a worker may run: `NAME[:DIALECT]=PROGRAM ARGS…` (stable text form; the
/// arguments are split on whitespace, without quoting), e.g.
/// `pg=pentagrid gtp --threads 1` or `morat:morat=/opt/morat/pentagod -t 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name matches refer to (`engine:NAME`).
    pub name: String,
    /// How it talks.
    pub dialect: Dialect,
    /// What to run.
    pub command: EngineCommand,
}

pub use pentago::{MAX_ENGINE_NAME, valid_engine_name};

/// An engine text that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseEngineSpecError {
    /// No `=`.
    #[error("engine {0:?} must be NAME=COMMAND ARGS… (or NAME:DIALECT=COMMAND ARGS…)")]
    Form(String),
    /// A name with other characters than letters, digits, `_`, `-` and `.`, or too long.
    #[error("engine name {0:?} must be 1 to 64 letters, digits, _, - or .")]
    Name(String),
    /// An unknown dialect.
    #[error(transparent)]
    Dialect(#[from] ParseDialectError),
    /// Nothing to run.
    #[error("engine {0:?} has no command")]
    NoCommand(String),
}

impl FromStr for EngineSpec {
    type Err = ParseEngineSpecError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (head, command) = text
            .split_once('=')
            .ok_or_else(|| ParseEngineSpecError::Form(pentago::excerpt(text)))?;
        let (name, dialect) = match head.trim().split_once(':') {
            Some((name, dialect)) => (name, dialect.parse()?),
            None => (head.trim(), Dialect::Pentagrid),
        };
        if !valid_engine_name(name) {
            return Err(ParseEngineSpecError::Name(pentago::excerpt(name)));
        }
        let mut words = command.split_whitespace().map(str::to_owned);
        let program = words
            .next()
            .ok_or_else(|| ParseEngineSpecError::NoCommand(name.to_owned()))?;
        Ok(EngineSpec {
            name: name.to_owned(),
            dialect,
            command: EngineCommand {
                program,
                args: words.collect(),
            },
        })
    }
}

/// A line of an engines file that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {error}")]
pub struct EnginesFileError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub error: ParseEngineSpecError,
}

/// The engines of an engines file: one [`EngineSpec`] per line; empty lines and lines
/// starting with `#` are skipped.
pub fn parse_engines_file(text: &str) -> Result<Vec<EngineSpec>, EnginesFileError> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(line, text)| {
            text.parse()
                .map_err(|error| EnginesFileError { line, error })
        })
        .collect()
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if self.dialect != Dialect::Pentagrid {
            write!(f, ":{}", self.dialect)?;
        }
        write!(f, "={}", self.command.program)?;
        for arg in &self.command.args {
            write!(f, " {arg}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_files_skip_comments_and_name_the_bad_line() {
        let specs =
            parse_engines_file("# engines\n\npg=pentagrid gtp\n  m:morat=/opt/m -t 1\n").unwrap();
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].to_string(), "m:morat=/opt/m -t 1");
        let error = parse_engines_file("pg=pentagrid gtp\n# x\nbroken\n").unwrap_err();
        assert_eq!(error.line, 3);
        assert!(matches!(error.error, ParseEngineSpecError::Form(_)));
    }

    #[test]
    fn engine_specs_parse_and_print() {
        let spec: EngineSpec = "pg=pentagrid gtp  --threads 1".parse().unwrap();
        assert_eq!(spec.name, "pg");
        assert_eq!(spec.dialect, Dialect::Pentagrid);
        assert_eq!(spec.command.program, "pentagrid");
        assert_eq!(spec.command.args, ["gtp", "--threads", "1"]);
        assert_eq!(spec.to_string(), "pg=pentagrid gtp --threads 1");
        let morat: EngineSpec = "morat:morat=/opt/morat/pentagod".parse().unwrap();
        assert_eq!(morat.dialect, Dialect::Morat);
        assert_eq!(morat.to_string().parse::<EngineSpec>().unwrap(), morat);
        for bad in [
            "pentagrid gtp",
            "=x",
            "a b=x",
            "x:gnugo=x",
            "x=",
            "x=  ",
            &format!("{}=x", "n".repeat(65)),
        ] {
            assert!(bad.parse::<EngineSpec>().is_err(), "{bad}");
        }
    }
}
