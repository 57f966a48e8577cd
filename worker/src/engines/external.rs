//! An external engine program as the referee runs it: its configuration and, while it runs,
//! its process; commands asked with a deadline, and what a failure to answer one means for the
//! game (a [`ForfeitReason`]).

use std::time::{Duration, Instant};

use super::process::{EngineProcess, ProcessError};
use super::{EngineSpec, ForfeitReason};

/// An external engine: its configuration, and its process while it runs.
pub struct ExternalEngine {
    pub(super) spec: EngineSpec,
    process: Option<EngineProcess>,
    /// Standard error of processes stopped since it was last taken (a hung or crashed
    /// engine's last words belong to the game it lost).
    stopped_stderr: String,
}

impl ExternalEngine {
    /// An engine that is not started yet.
    #[must_use]
    pub fn new(spec: EngineSpec) -> ExternalEngine {
        ExternalEngine {
            spec,
            process: None,
            stopped_stderr: String::new(),
        }
    }

    /// Its configuration.
    #[must_use]
    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// Whether its process is running (as far as the referee knows).
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.process.is_some()
    }

    /// Stops the process (it is killed), keeping what it wrote to standard error.
    pub fn stop(&mut self) {
        if let Some(process) = self.process.take() {
            self.stopped_stderr.push_str(&process.finish());
        }
    }

    /// Starts the engine if it is not running and asks for its `name` and `version`, as
    /// `NAME VERSION`.
    pub fn identify(&mut self, timeout: Duration) -> Result<String, ForfeitReason> {
        let mut words = Vec::new();
        for command in ["name", "version"] {
            let answer = self.ask(command, timeout, None)?;
            words.push(answer);
        }
        Ok(words.join(" "))
    }

    pub(super) fn process(
        &mut self,
        threads: Option<usize>,
    ) -> Result<&mut EngineProcess, ForfeitReason> {
        if self.process.is_none() {
            let mut process = EngineProcess::spawn(&self.spec.command)
                .map_err(|e| ForfeitReason::Spawn(e.to_string()))?;
            if let Some(line) = threads.and_then(|t| self.spec.dialect.threads(t)) {
                let deadline = Instant::now() + Duration::from_secs(10);
                // Threads are a wish: an engine that refuses them still plays.
                let _ = process.ask(&line, deadline);
            }
            self.process = Some(process);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Sends `line` and returns the text of a `=` answer; a failure stops the process.
    pub(super) fn ask(
        &mut self,
        line: &str,
        timeout: Duration,
        threads: Option<usize>,
    ) -> Result<String, ForfeitReason> {
        let answer = self.ask_answer(line, timeout, threads)?;
        if answer.success {
            Ok(answer.text)
        } else {
            Err(ForfeitReason::Refused {
                command: command_name(line),
                reason: pentago::excerpt(&answer.text),
            })
        }
    }

    /// Sends `line` and returns its answer, `=` or `?`; a failure to answer stops the process.
    pub(super) fn ask_answer(
        &mut self,
        line: &str,
        timeout: Duration,
        threads: Option<usize>,
    ) -> Result<pentago::gtp::Answer, ForfeitReason> {
        let process = self.process(threads)?;
        match process.ask(line, Instant::now() + timeout) {
            Ok(answer) => Ok(answer),
            Err(error) => {
                let reason = failure(&error, process, line, timeout);
                self.stop();
                Err(reason)
            }
        }
    }

    pub(super) fn take_stderr(&mut self) -> String {
        let mut text = std::mem::take(&mut self.stopped_stderr);
        if let Some(process) = &self.process {
            text.push_str(&process.take_stderr());
        }
        text
    }
}

/// The reason a process failed to answer `line`.
pub(super) fn failure(
    error: &ProcessError,
    process: &mut EngineProcess,
    line: &str,
    waited: Duration,
) -> ForfeitReason {
    match error {
        ProcessError::Spawn { .. } => ForfeitReason::Spawn(error.to_string()),
        ProcessError::Exited(_) => ForfeitReason::Crashed(
            process
                .exit_status()
                .map_or_else(|| "its output closed".to_owned(), |s| s.to_string()),
        ),
        ProcessError::Timeout => ForfeitReason::Hung {
            command: command_name(line),
            waited_ms: millis(waited),
        },
        ProcessError::Malformed(_) | ProcessError::TooLong => ForfeitReason::Malformed {
            command: command_name(line),
            why: error.to_string(),
        },
    }
}

/// The command of a protocol line (its first word).
fn command_name(line: &str) -> String {
    line.split_whitespace().next().unwrap_or("").to_owned()
}

/// Whole milliseconds of `d` (saturating).
pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
