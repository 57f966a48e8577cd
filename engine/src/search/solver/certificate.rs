//! Proof certificates: a won position's proof as an AND/OR DAG that a small program checks
//! with nothing but the rules.
//!
//! Stable text format, one node per line (lines starting with `#` are comments):
//!
//! ```text
//! pentagrid-proof 1
//! root <position>
//! win <position> <move>            the winner moves <move>; the loser's position after it is a node
//! win <position> <move> five       the winner's <move> ends the game with a win
//! defend <position>                the loser to move; every reply leads to a `win` node
//! ```
//!
//! Every node's position is in canonical form (`docs/DESIGN.md` §3), its move in that position's
//! frame; positions that are symmetric images of each other are one node, so the loser's replies
//! that reach the same canonical position share it. The root's canonical form must be a `win` node.

use std::collections::HashMap;
use std::fmt::Write as _;

use thiserror::Error;

use super::exact::{SolveLimits, Solver};
use crate::board::moves::Move;
use crate::board::position::{Position, PositionKey};
use crate::board::status::Status;

/// One node of a proof DAG.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProofNode {
    /// The winner to move, with its winning move; `five` when that move ends the game.
    Win {
        /// The canonical position.
        position: Position,
        /// The winning move, in the position's frame.
        mv: Move,
        /// Whether the move wins at once.
        five: bool,
    },
    /// The loser to move: every reply must reach a `Win` node or lose at once.
    Defend {
        /// The canonical position.
        position: Position,
    },
}

impl ProofNode {
    /// The node's (canonical) position.
    #[must_use]
    pub const fn position(&self) -> Position {
        match *self {
            ProofNode::Win { position, .. } | ProofNode::Defend { position } => position,
        }
    }
}

/// A proof that the side to move in `root` wins: the root's node first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofDag {
    /// The position proved won, as asked.
    pub root: Position,
    /// The nodes, the root's canonical form first.
    pub nodes: Vec<ProofNode>,
}

/// Why no proof was produced.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProveError {
    /// The side to move does not win (or the game is over).
    #[error("the side to move does not win this position")]
    NotWon,
    /// The proof would have more nodes than allowed.
    #[error("the proof needs more than {limit} nodes (raise --max-proof-nodes)")]
    TooLarge {
        /// The node limit.
        limit: usize,
    },
    /// The solver hit its limits on a position of the proof.
    #[error("the solver could not decide {position} within its limits")]
    Unsolved {
        /// The undecided position.
        position: Position,
    },
}

/// Why a proof file is not a valid proof.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProofCheckError {
    /// A line is not in the format.
    #[error("line {line}: {reason}")]
    Format {
        /// Line number (from 1).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The root's canonical form has no `win` node.
    #[error("the root {0} has no win node")]
    RootNotWon(Position),
    /// A node's position is not in canonical form, or appears twice.
    #[error("node {0} is not canonical or is listed twice")]
    BadNode(Position),
    /// A `win` node's move is not legal.
    #[error("{mv} is not legal in {position}")]
    IllegalMove {
        /// The node's position.
        position: Position,
        /// The move.
        mv: Move,
    },
    /// A move marked `five` does not win at once.
    #[error("{mv} in {position} is marked five but does not win at once")]
    FalseFive {
        /// The node's position.
        position: Position,
        /// The move.
        mv: Move,
    },
    /// A winning move ends the game without a win, or does not lead to a `defend` node.
    #[error("after {mv} in {position} the loser's position {after} has no defend node")]
    MissingDefence {
        /// The node's position.
        position: Position,
        /// The winner's move.
        mv: Move,
        /// The position after it.
        after: Position,
    },
    /// A loser's reply ends the game other than by losing, or leads to no `win` node.
    #[error("the reply {mv} in {position} escapes: {after} has no win node")]
    MissingReply {
        /// The defend node's position.
        position: Position,
        /// The reply.
        mv: Move,
        /// The position after it.
        after: Position,
    },
}

impl ProofDag {
    /// The text form (see the module documentation).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = format!("pentagrid-proof 1\nroot {}\n", self.root);
        for node in &self.nodes {
            let _ = match *node {
                ProofNode::Win { position, mv, five } => {
                    writeln!(
                        out,
                        "win {position} {mv}{}",
                        if five { " five" } else { "" }
                    )
                }
                ProofNode::Defend { position } => writeln!(out, "defend {position}"),
            };
        }
        out
    }

    /// Reads the text form; checks only the format, not the proof.
    pub fn parse(text: &str) -> Result<ProofDag, ProofCheckError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let format = |line, reason: &str| ProofCheckError::Format {
            line,
            reason: reason.into(),
        };
        match lines.next() {
            Some((_, "pentagrid-proof 1")) => {}
            Some((n, _)) => return Err(format(n, "expected the header `pentagrid-proof 1`")),
            None => return Err(format(0, "empty proof")),
        }
        let (n, root_line) = lines.next().ok_or_else(|| format(0, "no root line"))?;
        let root = match root_line.split_whitespace().collect::<Vec<_>>()[..] {
            ["root", position] => parse_position(n, position)?,
            _ => return Err(format(n, "expected `root <position>`")),
        };
        let mut nodes = Vec::new();
        for (n, line) in lines {
            let node = match line.split_whitespace().collect::<Vec<_>>()[..] {
                ["win", position, mv] | ["win", position, mv, "five"] => ProofNode::Win {
                    position: parse_position(n, position)?,
                    mv: mv
                        .parse()
                        .map_err(|e| format(n, &format!("bad move: {e}")))?,
                    five: line.ends_with(" five"),
                },
                ["defend", position] => ProofNode::Defend {
                    position: parse_position(n, position)?,
                },
                _ => {
                    return Err(format(
                        n,
                        "expected `win <position> <move> [five]` or `defend <position>`",
                    ));
                }
            };
            nodes.push(node);
        }
        Ok(ProofDag { root, nodes })
    }

    /// Verifies the proof with the rules alone: the root is a `win` node; every `win` node's
    /// move is legal and either wins at once (and is marked `five`) or leaves a position with
    /// a `defend` node; every legal reply at a `defend` node loses at once or leaves a position
    /// with a `win` node. Positions only gain stones, so this is a finite well-founded proof.
    pub fn check(&self) -> Result<(), ProofCheckError> {
        let mut by_key: HashMap<PositionKey, ProofNode> = HashMap::new();
        for node in &self.nodes {
            let position = node.position();
            if position.canonical().position != position
                || by_key.insert(position.key(), *node).is_some()
            {
                return Err(ProofCheckError::BadNode(position));
            }
        }
        let lookup = |p: &Position| by_key.get(&p.canonical_key()).copied();
        if !matches!(lookup(&self.root), Some(ProofNode::Win { .. })) || self.root.is_over() {
            return Err(ProofCheckError::RootNotWon(self.root));
        }
        for node in &self.nodes {
            match *node {
                ProofNode::Win { position, mv, five } => {
                    let winner = position.side_to_move();
                    let after = position
                        .play(mv)
                        .map_err(|_| ProofCheckError::IllegalMove { position, mv })?;
                    let wins = after.status() == Status::Won(winner);
                    if five && !wins {
                        return Err(ProofCheckError::FalseFive { position, mv });
                    }
                    let defended = matches!(lookup(&after), Some(ProofNode::Defend { .. }));
                    if !five && (after.is_over() || !defended) {
                        return Err(ProofCheckError::MissingDefence {
                            position,
                            mv,
                            after,
                        });
                    }
                }
                ProofNode::Defend { position } => {
                    let winner = position.side_to_move().opponent();
                    for &mv in position.legal_moves().iter() {
                        let after = position.play_unchecked(mv);
                        let covered = match after.status() {
                            Status::Won(color) => color == winner,
                            Status::Draw => false,
                            Status::Ongoing => {
                                matches!(lookup(&after), Some(ProofNode::Win { .. }))
                            }
                        };
                        if !covered {
                            return Err(ProofCheckError::MissingReply {
                                position,
                                mv,
                                after,
                            });
                        }
                    }
                    if position.is_over() {
                        return Err(ProofCheckError::BadNode(position));
                    }
                }
            }
        }
        Ok(())
    }
}

fn parse_position(line: usize, text: &str) -> Result<Position, ProofCheckError> {
    text.parse().map_err(|e| ProofCheckError::Format {
        line,
        reason: format!("bad position {text:?}: {e}"),
    })
}

/// Builds a proof that the side to move in `position` wins, with at most `max_nodes` nodes,
/// choosing winning moves with `solver` (moves that leave the loser the fewest safe replies
/// first, to keep the DAG small).
pub fn prove(
    position: &Position,
    solver: &mut Solver,
    limits: SolveLimits,
    max_nodes: usize,
) -> Result<ProofDag, ProveError> {
    if position.is_over() {
        return Err(ProveError::NotWon);
    }
    let mut builder = Builder {
        solver,
        limits,
        max_nodes,
        seen: HashMap::new(),
        nodes: Vec::new(),
    };
    builder.win(position.canonical().position, true)?;
    Ok(ProofDag {
        root: *position,
        nodes: builder.nodes,
    })
}

struct Builder<'a> {
    solver: &'a mut Solver,
    limits: SolveLimits,
    max_nodes: usize,
    seen: HashMap<PositionKey, ()>,
    nodes: Vec<ProofNode>,
}

impl Builder<'_> {
    fn add(&mut self, node: ProofNode) -> Result<(), ProveError> {
        if self.nodes.len() >= self.max_nodes {
            return Err(ProveError::TooLarge {
                limit: self.max_nodes,
            });
        }
        self.nodes.push(node);
        Ok(())
    }

    /// A `win` node for the canonical `position` (the winner to move), and all below it.
    fn win(&mut self, position: Position, root: bool) -> Result<(), ProveError> {
        if self.seen.insert(position.key(), ()).is_some() {
            return Ok(());
        }
        if let Some(mv) = position.winning_move() {
            return self.add(ProofNode::Win {
                position,
                mv,
                five: true,
            });
        }
        let mut candidates: Vec<(usize, Move, Position)> = position
            .legal_moves()
            .iter()
            .map(|&mv| (mv, position.play_unchecked(mv)))
            .filter(|(_, after)| !after.is_over())
            .map(|(mv, after)| (after.safe_moves().len(), mv, after))
            .collect();
        candidates.sort_by_key(|c| c.0);
        for (_, mv, after) in candidates {
            match self.solver.move_wins(&position, mv, self.limits) {
                Some(true) => {
                    self.add(ProofNode::Win {
                        position,
                        mv,
                        five: false,
                    })?;
                    return self.defend(after.canonical().position);
                }
                Some(false) => {}
                None => return Err(ProveError::Unsolved { position }),
            }
        }
        Err(if root {
            ProveError::NotWon
        } else {
            ProveError::Unsolved { position }
        })
    }

    /// A `defend` node for the canonical `position` (the loser to move), and all below it.
    fn defend(&mut self, position: Position) -> Result<(), ProveError> {
        if self.seen.insert(position.key(), ()).is_some() {
            return Ok(());
        }
        self.add(ProofNode::Defend { position })?;
        for &mv in position.legal_moves().iter() {
            let after = position.play_unchecked(mv);
            if after.status() == Status::Ongoing {
                self.win(after.canonical().position, false)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof_of(text: &str) -> ProofDag {
        let position: Position = text.parse().unwrap();
        prove(
            &position,
            &mut Solver::new(18),
            SolveLimits::default(),
            100_000,
        )
        .unwrap()
    }

    /// A reference position with a short forced win for the side to move.
    const WON: &str = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";

    #[test]
    fn produced_proofs_pass_and_survive_their_text_form() {
        let proof = proof_of(WON);
        assert_eq!(proof.check(), Ok(()));
        let text = proof.to_text();
        assert_eq!(ProofDag::parse(&text), Ok(proof.clone()));
        assert!(proof.nodes.len() > 1, "not a one-move win: {text}");
    }

    #[test]
    fn tampered_proofs_are_rejected_with_the_reason() {
        let proof = proof_of(WON);
        // A missing reply: drop a win node below a defend node.
        let at = proof
            .nodes
            .iter()
            .rposition(|n| matches!(n, ProofNode::Win { .. }))
            .unwrap();
        let mut missing = proof.clone();
        missing.nodes.remove(at);
        assert!(
            matches!(missing.check(), Err(ProofCheckError::MissingReply { .. })),
            "{:?}",
            missing.check()
        );
        // A wrong winning move at the root: one that does not lead to a defend node.
        let mut wrong = proof.clone();
        let ProofNode::Win {
            position,
            mv,
            five: false,
        } = wrong.nodes[0]
        else {
            panic!("root")
        };
        let other = position
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| {
                let after = position.play_unchecked(m);
                m != mv
                    && !after.is_over()
                    && !proof
                        .nodes
                        .iter()
                        .any(|n| n.position() == after.canonical().position)
            })
            .unwrap();
        wrong.nodes[0] = ProofNode::Win {
            position,
            mv: other,
            five: false,
        };
        assert!(matches!(
            wrong.check(),
            Err(ProofCheckError::MissingDefence { .. })
        ));
        // A false five.
        let mut false_five = proof.clone();
        false_five.nodes[0] = ProofNode::Win {
            position,
            mv,
            five: true,
        };
        assert_eq!(
            false_five.check(),
            Err(ProofCheckError::FalseFive { position, mv })
        );
        // Not the format.
        assert!(matches!(
            ProofDag::parse("proof\n"),
            Err(ProofCheckError::Format { line: 1, .. })
        ));
    }

    #[test]
    fn refuses_what_is_not_won_or_too_large() {
        let draw: Position = "xoxoxo/xoxoxo/oxoxox/oxoxox/xoxoxo/xoxox.".parse().unwrap();
        let mut solver = Solver::new(16);
        assert!(prove(&draw, &mut solver, SolveLimits::default(), 10).is_err());
        let won: Position = WON.parse().unwrap();
        assert_eq!(
            prove(&won, &mut solver, SolveLimits::default(), 1),
            Err(ProveError::TooLarge { limit: 1 })
        );
    }
}
