//! How a refereed game between engine programs ended early, and what the engines wrote on the
//! side: reported by workers, checked by the coordinator, stored with the match's pairs.

use std::fmt;
use std::str::FromStr;

use pentago::{Color, SolveMethod};
use thiserror::Error;

use crate::{MoveScores, MoveTimes, TimeScale};

/// Why an external engine lost a game without it being played out. Text form (stable, stored):
/// the names [`LossReason::name`] gives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LossReason {
    /// The program could not be started.
    Spawn,
    /// The process ended.
    Crash,
    /// No answer at all, long after its time; the process was killed.
    Hang,
    /// An answer after its time and the margin.
    Time,
    /// An answer outside the protocol, or a move that does not read.
    Malformed,
    /// A move that is not legal in the position.
    Illegal,
    /// A `?` to a command it must accept.
    Refused,
    /// It resigned.
    Resigned,
}

impl LossReason {
    /// Every reason, in a fixed order.
    pub const ALL: [LossReason; 8] = [
        LossReason::Spawn,
        LossReason::Crash,
        LossReason::Hang,
        LossReason::Time,
        LossReason::Malformed,
        LossReason::Illegal,
        LossReason::Refused,
        LossReason::Resigned,
    ];

    /// The stable name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            LossReason::Spawn => "spawn",
            LossReason::Crash => "crash",
            LossReason::Hang => "hang",
            LossReason::Time => "time",
            LossReason::Malformed => "malformed",
            LossReason::Illegal => "illegal",
            LossReason::Refused => "refused",
            LossReason::Resigned => "resigned",
        }
    }
}

impl fmt::Display for LossReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A loss reason name that is not known.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "unknown loss reason {0:?}: expected spawn, crash, hang, time, malformed, illegal, refused \
     or resigned"
)]
pub struct ParseLossReasonError(pub String);

impl FromStr for LossReason {
    type Err = ParseLossReasonError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        LossReason::ALL
            .into_iter()
            .find(|r| r.name() == text)
            .ok_or_else(|| ParseLossReasonError(pentago::excerpt(text)))
    }
}

/// Longest forfeit detail and engine stderr kept per game side, in bytes.
pub const MAX_NOTE_BYTES: usize = 8 * 1024 + 64;

/// The end of `text`, at most [`MAX_NOTE_BYTES`] bytes of it (cut at a character boundary).
#[must_use]
pub fn clip_note(text: String) -> String {
    if text.len() <= MAX_NOTE_BYTES {
        return text;
    }
    let mut start = text.len() - MAX_NOTE_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_owned()
}

/// A game lost by a forfeit: who lost, why, and the referee's words on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameForfeit {
    /// The side that lost.
    pub loser: Color,
    /// Why.
    pub reason: LossReason,
    /// What exactly happened, for people (e.g. the illegal move).
    pub detail: String,
}

/// What a match game leaves besides its moves: the forfeit that ended it, if any, where the
/// exact value that adjudicated it came from, if it was (its result is that value's), and the
/// end of each external engine's standard error (black, white; empty for built-in players), the
/// time scale the worker played it under (1 unless the coordinator scales time controls), and
/// the time each move took and the mover's score of each move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameNote {
    /// The forfeit that ended the game.
    pub forfeit: Option<GameForfeit>,
    /// The source of the exact value that ended the game (`Table` or `Midsolver`).
    pub adjudicated: Option<SolveMethod>,
    /// Standard error, black's then white's.
    pub stderr: [String; 2],
    /// The factor the worker multiplied the match's time limit by (refereed games only).
    pub time_scale: TimeScale,
    /// The time each move took (empty: not measured, as by older workers).
    pub move_times: MoveTimes,
    /// The mover's score of each move (empty: none known, as from older workers).
    pub move_scores: MoveScores,
}

impl GameNote {
    /// Whether there is nothing to record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.forfeit.is_none()
            && self.adjudicated.is_none()
            && self.time_scale.is_one()
            && !self.move_times.is_known()
            && !self.move_scores.is_known()
            && self.stderr.iter().all(String::is_empty)
    }

    /// Whether it says more than an adjudication: a forfeit, engine text or a time scale, which
    /// only a refereed game leaves.
    #[must_use]
    pub fn is_refereed(&self) -> bool {
        self.forfeit.is_some()
            || self.stderr.iter().any(|s| !s.is_empty())
            || !self.time_scale.is_one()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_reasons_round_trip_their_names() {
        for reason in LossReason::ALL {
            assert_eq!(reason.name().parse::<LossReason>(), Ok(reason));
        }
        assert!("slow".parse::<LossReason>().is_err());
        assert!(GameNote::default().is_empty());
        let long = format!("é{}", "x".repeat(MAX_NOTE_BYTES - 1));
        let clipped = clip_note(long);
        assert_eq!(clipped, "x".repeat(MAX_NOTE_BYTES - 1));
        assert_eq!(clip_note("short".into()), "short");
    }
}
