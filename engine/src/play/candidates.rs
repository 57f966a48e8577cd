//! Puzzle candidates aimed at mates of 2–5 moves, from a game's record (`docs/DESIGN.md` §8).
//!
//! Random late positions mostly give mates in 1 or nothing. A game record holds better places
//! to look, and a bounded checkmate probe sorts them before anyone verifies them:
//! - the *decided zone*: walking back from the end of a won game, the positions where the
//!   eventual winner is to move, as far back as the probe still finds a forced mate (the
//!   earliest is where the forced win began, and holds the longest mate);
//! - *quiet continuations*: just before the forced win began (and a few plies earlier), the
//!   positions after each quiet move (no five, no threat) of the side to move, after which the
//!   opponent mates in 2 or more: the mistakes the game did not make, and their punishment.
//!
//! A mate in 1 is kept only where it is instructive ([`instructive_mate_in_one`]).

use std::collections::HashMap;

use crate::board::movegen::{WIN_BY_PLACEMENT, is_check, winning_kind};
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::search::solver::{MateProbe, MateSearch};

/// Moves of the eventual winner walked back from the end of a won game.
pub const DECIDED_MOVES: usize = 6;
/// Positions before the forced win began whose quiet continuations are searched.
pub const CONTINUATION_ROOTS: usize = 2;
/// Quiet continuations kept per searched position (the longest mates first).
pub const CONTINUATIONS_PER_ROOT: usize = 3;
/// Probe answers a finder remembers before it forgets them all (about 24 bytes each).
pub const PROBE_MEMO_ENTRIES: usize = 1 << 20;
/// Positions the finder's checkmate search remembers before it forgets them all (a finder
/// may be kept across many requests; about 32 bytes each).
const MATE_MEMO_POSITIONS: usize = 1 << 21;

/// What a bounded probe says of a candidate, with the side to move attacking.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Prospect {
    /// It wins at once, and the win is instructive ([`instructive_mate_in_one`]).
    InstructiveMateInOne,
    /// It wins at once, plainly.
    PlainMateInOne,
    /// Its shortest mate has this many moves (at least 2).
    Mate(u32),
    /// The probe's budget ran out: only a full search can tell.
    Unknown,
    /// No mate within the asked length.
    NoMate,
}

impl Prospect {
    /// Whether a verifier should see the candidate (plain mates in 1 and mateless positions
    /// are not worth it; an instructive mate in 1 is, within the caller's share for them).
    #[must_use]
    pub const fn worth_verifying(self) -> bool {
        !matches!(self, Prospect::PlainMateInOne | Prospect::NoMate)
    }
}

/// One candidate found in a game record.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameCandidate {
    /// The position (the side to move attacks).
    pub position: Position,
    /// The ply of the game it comes from: the position before that ply's move, or, for a
    /// quiet continuation, after `instead` was played in its place.
    pub ply: usize,
    /// The quiet move played instead of the game's move at `ply`, for a continuation.
    pub instead: Option<Move>,
    /// What the probe found.
    pub prospect: Prospect,
}

/// Whether the side to move's immediate win is instructive: no placement alone makes five, so
/// the win needs its twist — and the twist must also keep the opponent from a five of their own
/// (a twist that completes both fives only draws). `false` without an immediate win.
#[must_use]
pub fn instructive_mate_in_one(position: &Position) -> bool {
    let (own, other) = position.sides();
    !position.is_over() && winning_kind(own, other).is_some_and(|kind| kind != WIN_BY_PLACEMENT)
}

/// Finds candidates in game records with a bounded checkmate probe; keep one to reuse what the
/// probe learned.
///
/// A finder remembers its probes' answers by canonical position (up to
/// [`PROBE_MEMO_ENTRIES`]), so one kept across rounds of mining the same games and book
/// probes each position once: the probe is most of mining's cost. A symmetric image of a
/// probed position gets the same answer (an exact mate length or the absence of one is the
/// same for every image; an `Unknown` is the first image's).
pub struct CandidateFinder {
    mates: MateSearch,
    /// Longest mate wanted (the probe's depth).
    max_moves: u32,
    /// Nodes one probe may search.
    probe_nodes: u64,
    memo: HashMap<u64, Prospect>,
}

impl CandidateFinder {
    /// A finder for mates of at most `max_moves` moves, probing at most `probe_nodes` nodes.
    #[must_use]
    pub fn new(max_moves: u32, probe_nodes: u64) -> CandidateFinder {
        CandidateFinder {
            mates: MateSearch::new(),
            max_moves,
            probe_nodes,
            memo: HashMap::new(),
        }
    }

    /// Whether this finder probes for mates of at most `max_moves` moves with `probe_nodes`
    /// nodes (so its remembered answers serve such a search).
    #[must_use]
    pub fn probes(&self, max_moves: u32, probe_nodes: u64) -> bool {
        self.max_moves == max_moves && self.probe_nodes == probe_nodes
    }

    /// Checkmate nodes searched so far.
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.mates.nodes()
    }

    /// What a probe says of `position` as a puzzle for the side to move.
    pub fn prospect(&mut self, position: &Position) -> Prospect {
        if position.is_over() {
            return Prospect::NoMate;
        }
        if position.has_immediate_win() {
            return if instructive_mate_in_one(position) {
                Prospect::InstructiveMateInOne
            } else {
                Prospect::PlainMateInOne
            };
        }
        let key = position.canonical_key().bits();
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        self.mates.forget_beyond(MATE_MEMO_POSITIONS);
        let prospect = match self.mates.probe(position, self.max_moves, self.probe_nodes) {
            MateProbe::Mate(n) => Prospect::Mate(n),
            MateProbe::NoneWithin => Prospect::NoMate,
            MateProbe::Unknown => Prospect::Unknown,
        };
        if self.memo.len() >= PROBE_MEMO_ENTRIES {
            self.memo.clear();
        }
        self.memo.insert(key, prospect);
        prospect
    }

    /// The candidates of a game from `start` through `moves` worth verifying, with at least
    /// `min_stones` stones: the decided zone, earliest first, then the quiet continuations of
    /// the [`CONTINUATION_ROOTS`] positions before it where the loser was to move (of the last
    /// such positions for a game without a winner). Moves that do not play stop the record.
    pub fn from_game(
        &mut self,
        start: &Position,
        moves: &[Move],
        min_stones: u32,
    ) -> Vec<GameCandidate> {
        let mut positions = vec![*start];
        for &mv in moves {
            let Ok(next) = positions[positions.len() - 1].play(mv) else {
                break;
            };
            positions.push(next);
        }
        let last = positions.len() - 1;
        let winner = match positions[last].status() {
            Status::Won(winner) => Some(winner),
            _ => None,
        };
        let mut found = Vec::new();
        // Walk back over the winner's turns while a forced mate is still found.
        let mut decided = last;
        if let Some(winner) = winner {
            let turns = (0..last)
                .rev()
                .filter(|&ply| positions[ply].side_to_move() == winner)
                .take(DECIDED_MOVES);
            for ply in turns {
                let prospect = self.prospect(&positions[ply]);
                if matches!(prospect, Prospect::NoMate) {
                    break;
                }
                decided = ply;
                found.push((ply, prospect));
            }
        }
        let mut out: Vec<GameCandidate> = found
            .into_iter()
            .rev()
            .filter(|&(ply, prospect)| {
                prospect.worth_verifying() && positions[ply].stone_count() >= min_stones
            })
            .map(|(ply, prospect)| GameCandidate {
                position: positions[ply],
                ply,
                instead: None,
                prospect,
            })
            .collect();
        // The loser's turns just before the forced win began (any side's in a drawn game).
        let roots = (0..decided)
            .rev()
            .filter(|&ply| winner.is_none_or(|w| positions[ply].side_to_move() != w))
            .filter(|&ply| {
                !positions[ply].is_over() && positions[ply].stone_count() + 1 >= min_stones
            })
            .take(CONTINUATION_ROOTS);
        for ply in roots {
            for (mv, position, prospect) in self.quiet_continuations(&positions[ply]) {
                out.push(GameCandidate {
                    position,
                    ply,
                    instead: Some(mv),
                    prospect,
                });
            }
        }
        out
    }

    /// The positions after quiet moves of the side to move in `position` (no five, no threat
    /// of one) from which the opponent mates in 2 or more, once per position up to symmetry:
    /// at most [`CONTINUATIONS_PER_ROOT`], the longest mates first, then in legal order.
    pub fn quiet_continuations(&mut self, position: &Position) -> Vec<(Move, Position, Prospect)> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for &mv in position.legal_moves().iter() {
            let child = position.play_unchecked(mv);
            if child.is_over() || is_check(&child) || child.has_immediate_win() {
                continue;
            }
            let key = child.canonical_key();
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            if let Prospect::Mate(n) = self.prospect(&child) {
                out.push((mv, child, Prospect::Mate(n)));
            }
        }
        out.sort_by_key(|&(_, _, prospect)| match prospect {
            Prospect::Mate(n) => std::cmp::Reverse(n),
            _ => std::cmp::Reverse(0),
        });
        out.truncate(CONTINUATIONS_PER_ROOT);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::player::Player;
    use crate::play::selfplay::play_game;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    /// Black mates in 2: e1-1R, then any defence, then the five (main line e6-4L b2-1R).
    const MATE_IN_TWO: &str = "oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x";

    #[test]
    fn a_placement_five_is_plain_and_a_twist_only_five_instructive() {
        // Black completes a1–e1 by placing e1: no twist needed.
        let placement = pos("....../....../....../....../oooo../xxxx..");
        assert!(placement.has_immediate_win());
        assert!(!instructive_mate_in_one(&placement));
        // Black's a1 b1 c1 and f2: only f1 and a clockwise turn of quadrant 4 (f1 to d1, f2
        // to e1) make five; no placement does.
        let twist_only = pos("oooo../....../....../....../.....x/xxx...");
        assert_eq!(twist_only.winning_moves().len(), 1);
        assert_eq!(twist_only.winning_moves()[0], mv("f1-4R"));
        assert!(instructive_mate_in_one(&twist_only));
        let mut finder = CandidateFinder::new(3, 100_000);
        assert_eq!(finder.prospect(&placement), Prospect::PlainMateInOne);
        assert_eq!(finder.prospect(&twist_only), Prospect::InstructiveMateInOne);
        assert!(!Prospect::PlainMateInOne.worth_verifying());
        assert!(Prospect::InstructiveMateInOne.worth_verifying());
        assert!(!instructive_mate_in_one(&Position::START));
    }

    #[test]
    fn the_prospect_of_a_mate_in_two_is_its_length() {
        let mut finder = CandidateFinder::new(4, 1_000_000);
        assert_eq!(finder.prospect(&pos(MATE_IN_TWO)), Prospect::Mate(2));
        assert_eq!(finder.prospect(&Position::START), Prospect::NoMate);
        // Too short a search for the mate: the candidate is not thrown away.
        assert_eq!(
            CandidateFinder::new(4, 1).prospect(&pos(MATE_IN_TWO)),
            Prospect::Unknown
        );
        assert!(Prospect::Mate(2).worth_verifying());
        assert!(Prospect::Unknown.worth_verifying());
    }

    #[test]
    fn the_decided_zone_starts_where_the_forced_win_began() {
        let start = pos(MATE_IN_TWO);
        let line = [mv("e1-1R"), mv("e6-4L"), mv("b2-1R")];
        let mut finder = CandidateFinder::new(5, 1_000_000);
        let found = finder.from_game(&start, &line, 0);
        // Ply 0 holds the mate in 2; ply 2's five is a placement (no twist needed), so it is
        // left out; nothing came before the forced win, so there are no continuations.
        assert_eq!(
            found,
            vec![GameCandidate {
                position: start,
                ply: 0,
                instead: None,
                prospect: Prospect::Mate(2),
            }]
        );
        assert!(!instructive_mate_in_one(
            &start.play(line[0]).unwrap().play(line[1]).unwrap()
        ));
        // Too few stones: nothing.
        assert!(finder.from_game(&start, &line, 21).is_empty());
        // An unfinished record has no decided zone.
        assert!(
            finder
                .from_game(&start, &line[..2], 0)
                .iter()
                .all(|c| c.instead.is_some())
        );
    }

    #[test]
    fn quiet_continuations_are_quiet_moves_that_allow_a_real_mate() {
        let mut finder = CandidateFinder::new(3, 20_000);
        let mut continuations = 0;
        for seed in 1..=6 {
            let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
            let mut positions = vec![game.start];
            for &m in &game.moves {
                positions.push(positions[positions.len() - 1].play(m).unwrap());
            }
            for candidate in finder.from_game(&game.start, &game.moves, 0) {
                let before = positions[candidate.ply];
                let Some(quiet) = candidate.instead else {
                    // Decided-zone candidates are the game's own positions, the winner to move.
                    assert_eq!(candidate.position, before);
                    assert!(candidate.prospect.worth_verifying());
                    continue;
                };
                continuations += 1;
                let after = before.play(quiet).unwrap();
                assert_eq!(after, candidate.position);
                assert!(!after.is_over() && !is_check(&after) && !after.has_immediate_win());
                let Prospect::Mate(n) = candidate.prospect else {
                    panic!("continuations are kept for their mates");
                };
                let proof = MateSearch::new().find(&after, 3).expect("the mate is real");
                assert_eq!(proof.mate_in, n);
                assert!(n >= 2);
            }
        }
        assert!(continuations > 0, "some quiet move allows a mate");
    }

    #[test]
    fn a_finder_probes_each_position_once_up_to_symmetry() {
        let mut finder = CandidateFinder::new(3, 1_000_000);
        let position = pos("oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x");
        assert_eq!(finder.prospect(&position), Prospect::Mate(2));
        let nodes = finder.nodes();
        assert!(nodes > 0);
        for symmetry in crate::board::symmetry::Symmetry::ALL {
            let image = symmetry.apply(&position);
            assert_eq!(finder.prospect(&image), Prospect::Mate(2));
        }
        assert_eq!(finder.nodes(), nodes, "the images were not probed again");
        assert!(finder.probes(3, 1_000_000) && !finder.probes(4, 1_000_000));
    }
}
