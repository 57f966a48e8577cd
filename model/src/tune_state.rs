//! Where an SPSA tuning run stands, one vocabulary for the coordinator that drives it and the
//! clients that follow it.

use serde::Serialize;

/// Where a run stands (serialized in snake case).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TuneState {
    /// Iterations are being played.
    Iterating,
    /// The follow-up SPRT match is being played.
    Verifying,
    /// Every iteration was played, and the SPRT match (if any) is over.
    Done,
    /// It was stopped.
    Stopped,
}

impl TuneState {
    /// Whether the run is over.
    #[must_use]
    pub fn finished(self) -> bool {
        matches!(self, TuneState::Done | TuneState::Stopped)
    }

    /// Its name, as `--json`, the tables and the coordinator's logs print it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TuneState::Iterating => "iterating",
            TuneState::Verifying => "verifying",
            TuneState::Done => "done",
            TuneState::Stopped => "stopped",
        }
    }
}

impl std::fmt::Display for TuneState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
