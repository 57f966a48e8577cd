//! Proof trees of checkmates, and their JSON form.
//!
//! The JSON form is stable and can be checked by any program that knows the rules:
//! `{"position": P, "mate_in": n, "tree": NODE}`, where an attacker NODE is
//! `{"move": M, "replies": [{"moves": [M, ...], "then": NODE}, ...]}`. `replies` is empty when
//! the move wins at once; otherwise every legal defender move appears in exactly one `moves`
//! list, the moves of one list reach the same position, and `then` is the attacker's answer
//! there — or null when that reply itself ends the game in the attacker's favour.

use serde::{Deserialize, Serialize};

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::status::Status;

use crate::board::movegen::is_check;

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
    /// Checks the proof against the rules: each attacker move is legal and a check (or wins at
    /// once), every defender move is covered exactly once by a group whose moves reach one
    /// position, replies that end the game are attacker wins, and the attacker wins within
    /// `mate_in` moves. For trees from untrusted sources (a worker's result).
    pub fn check(&self) -> Result<(), String> {
        check_attack(&self.position, &self.tree, self.mate_in)
    }

    /// The first move of the solution.
    #[must_use]
    pub fn first_move(&self) -> Move {
        self.tree.mv
    }

    /// Defender reply groups in the tree: how much a solver must see (a puzzle's difficulty
    /// counts them).
    #[must_use]
    pub fn reply_groups(&self) -> u32 {
        fn count(node: &AttackNode) -> u32 {
            node.replies
                .iter()
                .map(|reply| 1 + reply.then.as_ref().map_or(0, count))
                .sum()
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

fn check_attack(position: &Position, node: &AttackNode, budget: u32) -> Result<(), String> {
    if budget == 0 {
        return Err("the mate is longer than mate_in".into());
    }
    let attacker = position.side_to_move();
    let after = position
        .play(node.mv)
        .map_err(|e| format!("{} in {position}: {e}", node.mv))?;
    if node.replies.is_empty() {
        return match after.status() {
            Status::Won(winner) if winner == attacker => Ok(()),
            _ => Err(format!(
                "{} in {position} has no replies but does not win",
                node.mv
            )),
        };
    }
    if after.is_over() {
        return Err(format!(
            "{} in {position} ends the game without winning",
            node.mv
        ));
    }
    if !is_check(&after) {
        return Err(format!("{} in {position} is not a check", node.mv));
    }
    let legal = after.legal_moves();
    let mut covered = Vec::with_capacity(legal.len());
    for reply in &node.replies {
        let first = *reply.moves.first().ok_or("an empty reply group")?;
        let reached = after
            .play(first)
            .map_err(|e| format!("{first} in {after}: {e}"))?;
        for &mv in &reply.moves {
            if after.play(mv).ok() != Some(reached) {
                return Err(format!(
                    "{mv} and {first} in {after} reach different positions"
                ));
            }
            if covered.contains(&mv) {
                return Err(format!("{mv} in {after} is answered twice"));
            }
            covered.push(mv);
        }
        match (&reply.then, reached.status()) {
            (None, Status::Won(winner)) if winner == attacker => {}
            (None, _) => return Err(format!("{first} in {after} is left unanswered")),
            (Some(_), status) if status.is_over() => {
                return Err(format!("{first} in {after} ends the game; nothing follows"));
            }
            (Some(next), _) => check_attack(&reached, next, budget - 1)?,
        }
    }
    if covered.len() != legal.len() {
        return Err(format!(
            "{} of {} defender moves in {after} are answered",
            covered.len(),
            legal.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::solver::MateSearch;

    #[test]
    fn found_proofs_check_and_broken_ones_do_not() {
        let position: Position = "oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x".parse().unwrap();
        let proof = MateSearch::new().find(&position, 4).unwrap();
        assert_eq!(proof.check(), Ok(()));
        let mut short = proof.clone();
        short.mate_in = 1;
        assert!(short.check().unwrap_err().contains("longer"));
        let mut dropped = proof.clone();
        dropped.tree.replies.pop();
        assert!(dropped.check().unwrap_err().contains("answered"));
        let mut unanswered = proof.clone();
        unanswered.tree.replies[0].then = None;
        assert!(unanswered.check().is_err());
        let mut wrong_move = proof;
        wrong_move.tree.mv = Move::from_index(0).unwrap();
        assert!(wrong_move.check().is_err());
    }
}
