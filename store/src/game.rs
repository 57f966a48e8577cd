//! A stored game as the coordinator's services and its edge know it: a self-play game or one
//! game of a match pair, with its forfeit read. The store keeps it in a stable record of its
//! own and converts at its edge (`store::records`), as it does for jobs ([`crate::job`]).

use pentago::SolveMethod;
use pentagrid_model::{GameForfeit, MoveScores, MoveTimes, TimeScale};

/// A finished game: where it started, its moves, how it ended, who played, and what the
/// referee and the engines said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    /// The start position (text form, written from a checked position).
    pub start: String,
    /// The moves in order (text form, each checked legal when the game was stored).
    pub moves: Vec<String>,
    /// How it ended: `ongoing`, `black`, `white` or `draw`.
    pub result: String,
    /// Black's player (text form).
    pub black: String,
    /// White's player.
    pub white: String,
    /// How it ended early, when an external engine forfeited (`None` also for a stored
    /// forfeit that no longer reads back).
    pub forfeit: Option<GameForfeit>,
    /// Where the exact value that ended the game came from, when it was adjudicated (its
    /// result is that value's).
    pub adjudicated: Option<SolveMethod>,
    /// The end of black's external engine's standard error (empty for built-in players).
    pub stderr_black: String,
    /// The end of white's.
    pub stderr_white: String,
    /// The factor the worker multiplied the match's time limit by (1: none).
    pub time_scale: TimeScale,
    /// The time each move took (unknown for self-play games and games stored before times
    /// were kept).
    pub move_times: MoveTimes,
    /// The mover's score of each move (unknown for self-play games, games without a scoring
    /// player and games stored before scores were kept).
    pub move_scores: MoveScores,
}

impl Game {
    /// Bytes of engine text the game carries: both standard errors and the forfeit's detail.
    #[must_use]
    pub fn note_bytes(&self) -> usize {
        self.stderr_black.len()
            + self.stderr_white.len()
            + self.forfeit.as_ref().map_or(0, |f| f.detail.len())
    }
}
