//! Where a stored engine match stands, one vocabulary for the coordinator that decides it and
//! the clients that read it back.

use serde::Serialize;

/// Where a match stands (serialized in snake case: `running`, `accepted_h0`, …).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchState {
    /// Pairs are still queued or being played.
    Running,
    /// The SPRT accepted H0.
    AcceptedH0,
    /// The SPRT accepted H1.
    AcceptedH1,
    /// Every pair was played without a decision.
    Complete,
    /// It was stopped, or some pairs failed or were cancelled.
    Stopped,
}

impl MatchState {
    /// Every state.
    pub const ALL: [MatchState; 5] = [
        MatchState::Running,
        MatchState::AcceptedH0,
        MatchState::AcceptedH1,
        MatchState::Complete,
        MatchState::Stopped,
    ];

    /// Whether the match is over (every state but running).
    #[must_use]
    pub fn finished(self) -> bool {
        self != MatchState::Running
    }
}

impl std::fmt::Display for MatchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MatchState::Running => "running",
            MatchState::AcceptedH0 => "decided (H0 accepted)",
            MatchState::AcceptedH1 => "decided (H1 accepted)",
            MatchState::Complete => "complete",
            MatchState::Stopped => "stopped",
        })
    }
}
