//! What a search returns: move tables (in the asker's frame, from the mover's point of view),
//! the best move, the principal variation, and speed figures.

use serde::{Deserialize, Serialize};

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::value::Value;

/// Statistics of one move (or group of moves reaching the same position) of a table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveStats {
    /// The move that stands for the group (the first in legal order).
    #[serde(rename = "move", with = "crate::serde_text")]
    pub mv: Move,
    /// The other moves merged with it: they reach the same position (or, from a symmetric
    /// position, a symmetric image of it).
    #[serde(with = "crate::serde_text::list")]
    pub also: Vec<Move>,
    /// Simulations through the move.
    pub games: u64,
    /// Simulations won by the player making the move.
    pub wins: u64,
    /// Drawn simulations.
    pub draws: u64,
    /// The exact value of the move for the player making it, when the search proved it.
    pub proven: Option<Value>,
}

impl MoveStats {
    /// `(wins + draws / 2) / games`, or 0 without games.
    #[must_use]
    pub fn win_rate(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / self.games as f64
        }
    }

    /// Ordering key for "best": proven wins, then by games, proven losses last.
    pub(crate) fn rank(&self) -> (i8, u64, u64) {
        (
            proof_class(self.proven),
            self.games,
            self.wins * 2 + self.draws,
        )
    }
}

/// Proven wins before unproven moves before proven losses.
pub(crate) fn proof_class(proof: Option<Value>) -> i8 {
    match proof {
        Some(Value::Win) => 2,
        Some(Value::Loss) => 0,
        _ => 1,
    }
}

/// The move table of one position of the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeTable {
    /// The position (in the asker's frame: reached by the listed moves from the root).
    #[serde(with = "crate::serde_text")]
    pub position: Position,
    /// Simulations that went through the position.
    pub visits: u64,
    /// Its moves, most simulated first.
    pub moves: Vec<MoveStats>,
}

/// The outcome of a UCT search ([`crate::search()`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SearchResult {
    /// The searched position.
    #[serde(with = "crate::serde_text")]
    pub position: Position,
    /// The root's moves, most simulated first.
    pub moves: Vec<MoveStats>,
    /// The move to play: a proven win if there is one, else the most simulated move that is
    /// not a proven loss.
    #[serde(with = "crate::serde_text::option")]
    pub best: Option<Move>,
    /// Principal variation: the best move, then the most simulated replies down the tree.
    #[serde(with = "crate::serde_text::list")]
    pub pv: Vec<Move>,
    /// The root's exact value for the side to move, when the search proved it.
    pub value: Option<Value>,
    /// Simulations run.
    pub simulations: u64,
    /// Simulations already at the root when the search started: the work of earlier searches
    /// kept in the tree ([`crate::KeptSearch`]); 0 for a fresh search. The move tables count
    /// them too.
    #[serde(default)]
    pub reused: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// Move records in all trees together.
    pub tree_nodes: u64,
    /// Trees searched in parallel.
    pub threads: usize,
    /// Tables of the positions with at least the requested number of visits (root included).
    pub tables: Vec<NodeTable>,
}

impl SearchResult {
    /// Simulations per second.
    #[must_use]
    pub fn simulations_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.simulations as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The root table's row for the best move.
    #[must_use]
    pub fn best_stats(&self) -> Option<&MoveStats> {
        self.best
            .and_then(|best| self.moves.iter().find(|m| m.mv == best))
    }
}
