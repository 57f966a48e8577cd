//! Checkmate search: wins by continuous checks (`docs/DESIGN.md` §5), with proof trees.
//!
//! A *check* is a move after which the mover would have an immediate win if it moved again. A
//! checkmate in n: every attacker move is a check or the final winning move, the defender may
//! answer with any legal move, and the attacker wins by its n-th move at the latest.

use std::collections::HashMap;

use crate::board::children::{Children, distinct_moves};
use crate::board::movegen::is_check;
use crate::board::moves::Move;
use crate::board::position::{Position, PositionKey};
use crate::board::status::Status;

use super::proof::{AttackNode, ProofTree, Reply};

/// Most attacker moves a checkmate search looks at.
pub const MAX_MATE_MOVES: u32 = 15;

/// What is known of a position with the attacker to move.
#[derive(Copy, Clone, Default)]
struct Known {
    /// Shortest mate found (0: none found yet).
    mate: u8,
    /// No mate within this many moves.
    none_within: u8,
}

/// What a bounded checkmate probe ([`MateSearch::probe`]) found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MateProbe {
    /// The shortest checkmate has this many attacker moves.
    Mate(u32),
    /// No checkmate within the asked length.
    NoneWithin,
    /// The node budget ran out first.
    Unknown,
}

/// A checkmate searcher; keep one to reuse what it learned.
pub struct MateSearch {
    known: HashMap<u64, Known>,
    children: Children,
    nodes: u64,
    /// The search gives up (answers "no mate") past this many nodes; `u64::MAX` outside probes.
    limit: u64,
    /// Whether the limit was hit since the probe began: "no mate" answers are then unproven.
    aborted: bool,
}

impl Default for MateSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl MateSearch {
    /// A searcher with nothing learned.
    #[must_use]
    pub fn new() -> MateSearch {
        MateSearch {
            known: HashMap::new(),
            children: Children::new(),
            nodes: 0,
            limit: u64::MAX,
            aborted: false,
        }
    }

    /// Positions visited so far.
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The shortest checkmate of at most `max_moves` attacker moves (the side to move attacks),
    /// with its proof tree.
    pub fn find(&mut self, position: &Position, max_moves: u32) -> Option<ProofTree> {
        let max_moves = max_moves.min(MAX_MATE_MOVES);
        if position.is_over() {
            return None;
        }
        let length = (1..=max_moves).find(|&n| self.attacker_mates(position, n))?;
        let tree = self.build(position, length);
        Some(ProofTree {
            position: *position,
            mate_in: length,
            tree,
        })
    }

    /// The length of the shortest checkmate of at most `max_moves` attacker moves, searching
    /// at most about `max_nodes` positions (a cheap filter for callers that ask often).
    pub fn probe(&mut self, position: &Position, max_moves: u32, max_nodes: u64) -> MateProbe {
        if position.is_over() {
            return MateProbe::NoneWithin;
        }
        self.limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let mut answer = MateProbe::NoneWithin;
        for n in 1..=max_moves.min(MAX_MATE_MOVES) {
            if self.attacker_mates(position, n) {
                answer = MateProbe::Mate(n);
                break;
            }
            if self.aborted {
                answer = MateProbe::Unknown;
                break;
            }
        }
        self.limit = u64::MAX;
        self.aborted = false;
        answer
    }

    /// Every first move that mates within `max_moves`, with the length of its shortest mate,
    /// in legal order. Moves that reach the same position are listed separately.
    pub fn mating_moves(&mut self, position: &Position, max_moves: u32) -> Vec<(Move, u32)> {
        let max_moves = max_moves.min(MAX_MATE_MOVES);
        if position.is_over() {
            return Vec::new();
        }
        let mover = position.side_to_move();
        let mut out = Vec::new();
        for &mv in position.legal_moves().iter() {
            let child = position.play_unchecked(mv);
            if child.status() == Status::Won(mover) {
                out.push((mv, 1));
            } else if !child.is_over()
                && is_check(&child)
                && let Some(n) = (1..max_moves).find(|&n| self.defender_loses(&child, n))
            {
                out.push((mv, n + 1));
            }
        }
        out
    }

    /// A first move that mates within `max_moves` and reaches none of the positions `skip`
    /// (canonical keys), with the length of its shortest mate; `None` when there is none. Each
    /// position the first moves reach is searched once up to symmetry, and the search stops at
    /// the first mate found: what [`MateSearch::mating_moves`] would list beyond `skip`, at a
    /// fraction of the cost when a puzzle's solution is to be shown not to be the only mate.
    pub fn other_mating_move(
        &mut self,
        position: &Position,
        max_moves: u32,
        skip: &[PositionKey],
    ) -> Option<(Move, u32)> {
        let max_moves = max_moves.min(MAX_MATE_MOVES);
        if position.is_over() {
            return None;
        }
        let mover = position.side_to_move();
        for mv in distinct_moves(position, skip) {
            let child = position.play_unchecked(mv);
            if child.status() == Status::Won(mover) {
                return Some((mv, 1));
            }
            if !child.is_over()
                && is_check(&child)
                && let Some(n) = (1..max_moves).find(|&n| self.defender_loses(&child, n))
            {
                return Some((mv, n + 1));
            }
        }
        None
    }

    /// Forgets what it learned once its memory holds more than `max_known` positions (for a
    /// searcher kept for a long time).
    pub(crate) fn forget_beyond(&mut self, max_known: usize) {
        if self.known.len() > max_known {
            self.known.clear();
        }
    }

    /// Whether the side to move mates within `n` moves, forgetting what it learned once its
    /// memory holds more than `max_known` positions (for callers that ask very often).
    pub(crate) fn mates_within(&mut self, position: &Position, n: u32, max_known: usize) -> bool {
        self.forget_beyond(max_known);
        self.attacker_mates(position, n)
    }

    /// Whether the attacker (to move) mates within `n` moves.
    fn attacker_mates(&mut self, position: &Position, n: u32) -> bool {
        self.nodes += 1;
        if self.nodes > self.limit {
            self.aborted = true;
        }
        if n == 0 || self.aborted {
            return false;
        }
        if position.has_immediate_win() {
            return true;
        }
        if n == 1 {
            return false;
        }
        let key = position.key().0;
        let known = self.known.get(&key).copied().unwrap_or_default();
        if known.mate != 0 && u32::from(known.mate) <= n {
            return true;
        }
        if u32::from(known.none_within) >= n {
            return false;
        }
        let found = self
            .checks(position)
            .into_iter()
            .any(|child| self.defender_loses(&child, n - 1));
        // A found mate is proven even after an abort (aborts only answer "no"); a miss is not.
        if !found && self.aborted {
            return false;
        }
        let entry = self.known.entry(key).or_default();
        if found {
            entry.mate = if entry.mate == 0 {
                n as u8
            } else {
                entry.mate.min(n as u8)
            };
        } else {
            entry.none_within = entry.none_within.max(n as u8);
        }
        found
    }

    /// The positions after the attacker's checks (the defender to move, no immediate win for it).
    fn checks(&mut self, position: &Position) -> Vec<Position> {
        let mut children = Vec::new();
        self.children.collect(position, false, &mut children);
        children
            .into_iter()
            .map(|(_, child)| child)
            .filter(|child| !child.is_over() && is_check(child) && !child.has_immediate_win())
            .collect()
    }

    /// Whether every defender reply (the defender is to move in `position`) loses to a mate
    /// within `n` attacker moves.
    fn defender_loses(&mut self, position: &Position, n: u32) -> bool {
        self.nodes += 1;
        if position.has_immediate_win() {
            return false;
        }
        let defender = position.side_to_move();
        let mut replies = Vec::new();
        self.children.collect(position, false, &mut replies);
        // Replies after which the attacker cannot win at once are the hard ones: try them first.
        let mut hard = Vec::new();
        for (_, after) in replies {
            match after.status() {
                Status::Ongoing if after.has_immediate_win() => {}
                Status::Ongoing => hard.push(after),
                Status::Won(winner) if winner != defender => {}
                _ => return false,
            }
        }
        hard.iter().all(|after| self.attacker_mates(after, n))
    }

    /// The proof tree of a mate within `n` from `position` (which must have one).
    fn build(&mut self, position: &Position, n: u32) -> AttackNode {
        if let Some(mv) = position.winning_move() {
            return AttackNode {
                mv,
                replies: Vec::new(),
            };
        }
        // The check that mates fastest, first in legal order among equals.
        let mut choice = None;
        'search: for k in 1..n {
            for &mv in position.legal_moves().iter() {
                let child = position.play_unchecked(mv);
                if !child.is_over() && is_check(&child) && self.defender_loses(&child, k) {
                    choice = Some((mv, child, k));
                    break 'search;
                }
            }
        }
        let (mv, child, k) = choice.expect("a mate exists within n");
        let replies = crate::board::children::move_groups(&child, false)
            .into_iter()
            .map(|moves| {
                let after = child.play_unchecked(moves[0]);
                let then = if after.is_over() {
                    None
                } else {
                    Some(self.build_within(&after, k))
                };
                Reply { moves, then }
            })
            .collect();
        AttackNode { mv, replies }
    }

    fn build_within(&mut self, position: &Position, n: u32) -> AttackNode {
        let shortest = (1..=n)
            .find(|&k| self.attacker_mates(position, k))
            .expect("the defender's replies all lose");
        self.build(position, shortest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    #[test]
    fn mate_in_one_is_the_winning_move() {
        let p = pos("....../....../....../....../oooo../xxxx..");
        let proof = MateSearch::new().find(&p, 1).unwrap();
        assert_eq!(proof.mate_in, 1);
        assert!(proof.tree.replies.is_empty());
        assert_eq!(proof.first_move().square().to_string(), "e1");
    }

    #[test]
    fn mate_in_two_is_found_and_not_shorter() {
        let p = pos("oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x");
        let mut search = MateSearch::new();
        assert!(search.find(&p, 1).is_none());
        let proof = search.find(&p, 4).unwrap();
        assert_eq!(proof.mate_in, 2);
        let after = p.play(proof.first_move()).unwrap();
        assert!(is_check(&after));
        // Every defender move is listed once.
        let listed: usize = proof.tree.replies.iter().map(|r| r.moves.len()).sum();
        assert_eq!(listed, after.legal_moves().len());
        let all = search.mating_moves(&p, 2);
        assert!(all.iter().any(|&(m, n)| m == proof.first_move() && n == 2));
    }

    #[test]
    fn a_probe_answers_within_its_budget_and_agrees_with_the_search() {
        let p = pos("oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x");
        let mut search = MateSearch::new();
        assert_eq!(search.probe(&p, 4, 1_000_000), MateProbe::Mate(2));
        assert_eq!(search.probe(&p, 1, 1_000_000), MateProbe::NoneWithin);
        // One node is not enough to settle a mate in 2 from scratch.
        assert_eq!(MateSearch::new().probe(&p, 4, 1), MateProbe::Unknown);
        // An aborted probe leaves nothing false behind: the full search still finds the mate.
        let mut reused = MateSearch::new();
        assert_eq!(reused.probe(&p, 4, 1), MateProbe::Unknown);
        assert_eq!(reused.find(&p, 4).map(|t| t.mate_in), Some(2));
        assert_eq!(
            MateSearch::new().probe(&Position::START, 3, 1_000_000),
            MateProbe::NoneWithin
        );
    }

    #[test]
    fn no_mate_from_the_start() {
        assert!(MateSearch::new().find(&Position::START, 4).is_none());
        assert!(
            MateSearch::new()
                .mating_moves(&Position::START, 4)
                .is_empty()
        );
    }

    #[test]
    fn another_mating_move_is_found_exactly_when_mating_moves_lists_one() {
        use crate::play::player::Player;
        use crate::play::selfplay::play_game;
        let mut checked = 0;
        for seed in 0..60 {
            let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
            let mut p = game.start;
            for &mv in game.moves.iter().take(20) {
                p = p.play(mv).unwrap();
            }
            if p.is_over() {
                continue;
            }
            let all = MateSearch::new().mating_moves(&p, 3);
            let groups: Vec<PositionKey> = all
                .iter()
                .map(|(mv, _)| p.play_unchecked(*mv).canonical_key())
                .collect();
            // Skipping nothing finds a mate when there is one, of a listed length.
            let found = MateSearch::new().other_mating_move(&p, 3, &[]);
            assert_eq!(found.is_some(), !all.is_empty(), "{p}");
            if let Some(found) = found {
                assert!(all.contains(&found), "{p}: {found:?} not in {all:?}");
            }
            // Skipping the first mate's position finds another only where another exists.
            if let Some(first) = groups.first() {
                let other = MateSearch::new().other_mating_move(&p, 3, &[*first]);
                let others = groups.iter().any(|key| key != first);
                assert_eq!(other.is_some(), others, "{p}");
                if let Some((mv, _)) = other {
                    assert_ne!(p.play_unchecked(mv).canonical_key(), *first);
                }
                checked += 1;
            }
        }
        assert!(checked >= 5, "only {checked} positions with a mate");
    }
}
