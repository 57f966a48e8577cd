//! Proof trees of checkmates, and their JSON form.
//!
//! The JSON form is stable and can be checked by any program that knows the rules:
//! `{"position": P, "mate_in": n, "tree": NODE}`, where an attacker NODE is
//! `{"move": M, "replies": [{"moves": [M, ...], "then": NODE}, ...]}`. `replies` is empty when
//! the move wins at once; otherwise every legal defender move appears in exactly one `moves`
//! list, the moves of one list reach the same position, and `then` is the attacker's answer
//! there — or null when that reply itself ends the game in the attacker's favour.

use serde::{Deserialize, Serialize};

use crate::moves::Move;
use crate::position::Position;

/// A checkmate with its proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofTree {
    /// The position, attacker to move.
    #[serde(with = "crate::serde_text")]
    pub position: Position,
    /// The attacker wins by its `mate_in`-th move at the latest.
    pub mate_in: u32,
    /// The attacker's first move and everything below it.
    pub tree: AttackNode,
}

/// An attacker move and every defender answer to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttackNode {
    /// The attacker's move: a check, or the winning move.
    #[serde(rename = "move", with = "crate::serde_text")]
    pub mv: Move,
    /// The defender's replies, grouped by the position they reach; empty after a winning move.
    pub replies: Vec<Reply>,
}

/// Defender moves that reach one position, and the attacker's continuation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The defender moves.
    #[serde(with = "crate::serde_text::list")]
    pub moves: Vec<Move>,
    /// The attacker's answer; `None` when the reply already ended the game in its favour.
    pub then: Option<AttackNode>,
}

impl ProofTree {
    /// The first move of the solution.
    #[must_use]
    pub fn first_move(&self) -> Move {
        self.tree.mv
    }

    /// Attacker nodes in the tree (a measure of its size).
    #[must_use]
    pub fn attacker_nodes(&self) -> usize {
        fn count(node: &AttackNode) -> usize {
            1 + node
                .replies
                .iter()
                .filter_map(|r| r.then.as_ref())
                .map(count)
                .sum::<usize>()
        }
        count(&self.tree)
    }

    /// The main line: the first move, then along the first defender group that needs the
    /// longest answer, and so on.
    #[must_use]
    pub fn main_line(&self) -> Vec<Move> {
        fn depth(node: &AttackNode) -> usize {
            1 + node
                .replies
                .iter()
                .filter_map(|r| r.then.as_ref())
                .map(depth)
                .max()
                .unwrap_or(0)
        }
        let mut line = Vec::new();
        let mut node = &self.tree;
        loop {
            line.push(node.mv);
            let longest = node
                .replies
                .iter()
                .filter_map(|r| r.then.as_ref().map(|t| (&r.moves[0], t)))
                .max_by_key(|(_, t)| depth(t));
            match longest {
                Some((reply, next)) => {
                    line.push(*reply);
                    node = next;
                }
                None => return line,
            }
        }
    }
}
