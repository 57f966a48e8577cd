//! Move generation: all legal moves, immediate wins, and "safe" moves (no immediate loss).

use std::ops::Deref;

use crate::board::bitboard::Bitboard;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::square::Square;
use crate::board::tables::{LANE, LINE_COVERED, LINE_ONE_MISSING, TWIST};
use crate::board::threats;
use crate::board::twist::Twist;

/// A list of up to 288 moves on the stack.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; Move::COUNT],
    len: usize,
}

impl MoveList {
    /// An empty list.
    #[must_use]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [match Move::from_index(0) {
                Some(m) => m,
                None => unreachable!(),
            }; Move::COUNT],
            len: 0,
        }
    }

    /// Appends a move (at most 288 fit, one per distinct move).
    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }

    /// Keeps the moves for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            if keep(self.moves[i]) {
                self.moves[kept] = self.moves[i];
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];

    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|m| m.to_string()))
            .finish()
    }
}

/// Whether the side owning `own` (to move, against `other`) has a move that wins at once:
/// a placement that makes five, or a placement and twist after which only it has five.
#[inline]
#[must_use]
pub(crate) fn has_winning_move(own: Bitboard, other: Bitboard) -> bool {
    winning_kind(own, other).is_some()
}

/// How the side owning `own` can win at once: `Some(WIN_BY_PLACEMENT)` for a placement five,
/// `Some(t)` when placing and then twist `t` (the first such in [`Twist::ALL`] order) wins,
/// `None` when nothing wins.
#[inline]
#[must_use]
pub(crate) fn winning_kind(own: Bitboard, other: Bitboard) -> Option<usize> {
    // A five needs the placed stone and four more.
    if own.count() < 4 {
        return None;
    }
    // Placing before the twist at s equals placing after it at the image of s, so a twist wins
    // exactly when, on the turned board, some line holds four own stones and no other stone,
    // and the opponent has no five there. A twist changes one quadrant, so the per-quadrant
    // line sets of the other three are computed once.
    let (mut own_lanes, mut other_lanes) = ([0usize; 4], [0usize; 4]);
    let (mut full, mut one, mut clear, mut theirs) = ([0u32; 4], [0u32; 4], [0u32; 4], [0u32; 4]);
    for q in 0..4 {
        own_lanes[q] = ((own.0 >> (16 * q)) & LANE) as usize;
        other_lanes[q] = ((other.0 >> (16 * q)) & LANE) as usize;
        full[q] = LINE_COVERED[q][own_lanes[q]];
        one[q] = LINE_ONE_MISSING[q][own_lanes[q]];
        clear[q] = LINE_COVERED[q][!other_lanes[q] & LANE as usize];
        theirs[q] = LINE_COVERED[q][other_lanes[q]];
    }
    if open_four(full, one, clear) != 0 {
        return Some(WIN_BY_PLACEMENT);
    }
    for t in 0..4 {
        // Line sets over the three quadrants other than `t`.
        let (mut full_rest, mut one_rest, mut clear_rest, mut theirs_rest) =
            (u32::MAX, 0u32, u32::MAX, u32::MAX);
        for q in (0..4).filter(|&q| q != t) {
            one_rest = (one_rest & full[q]) | (full_rest & one[q]);
            full_rest &= full[q];
            clear_rest &= clear[q];
            theirs_rest &= theirs[q];
        }
        for (direction, turn) in TWIST.iter().enumerate() {
            let own_t = turn[own_lanes[t]] as usize;
            let other_t = turn[other_lanes[t]] as usize;
            if theirs_rest & LINE_COVERED[t][other_t] != 0 {
                continue;
            }
            let full_t = LINE_COVERED[t][own_t];
            let one_t = LINE_ONE_MISSING[t][own_t];
            let clear_t = LINE_COVERED[t][!other_t & LANE as usize];
            let at_most_one_missing =
                (full_rest & full_t) | (one_rest & full_t) | (full_rest & one_t);
            if clear_rest & clear_t & at_most_one_missing != 0 {
                return Some(2 * t + direction);
            }
        }
    }
    None
}

/// What [`winning_kind`] answers for a placement five.
pub(crate) const WIN_BY_PLACEMENT: usize = 8;

/// Lines with no opponent stone and at most one own stone missing, from per-quadrant sets.
#[inline(always)]
fn open_four(full: [u32; 4], one: [u32; 4], clear: [u32; 4]) -> u32 {
    let (mut none_missing, mut one_missing) = (u32::MAX, 0u32);
    for q in 0..4 {
        one_missing = (one_missing & full[q]) | (none_missing & one[q]);
        none_missing &= full[q];
    }
    clear[0] & clear[1] & clear[2] & clear[3] & (none_missing | one_missing)
}

impl Position {
    /// All legal moves, by square then twist (`1R 1L … 4L`); none when the game is over.
    /// A placement that wins at once appears with all eight twists, as the notation allows.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.is_over() {
            return list;
        }
        let empty = self.empty();
        for square in Square::all().filter(|&s| empty.contains(s)) {
            for twist in Twist::ALL {
                list.push(Move::new(square, twist));
            }
        }
        list
    }

    /// Whether the side to move can win with its next move (the game must be ongoing).
    #[must_use]
    pub fn has_immediate_win(&self) -> bool {
        let (own, other) = self.sides();
        has_winning_move(own, other)
    }

    /// The first legal move (in legal order) that wins at once for the side to move, if any.
    #[must_use]
    pub fn winning_move(&self) -> Option<Move> {
        if !self.has_immediate_win() {
            return None;
        }
        self.winning_moves().first().copied()
    }

    /// The legal moves that win at once for the side to move, in legal order.
    #[must_use]
    pub fn winning_moves(&self) -> MoveList {
        let (own, other) = self.sides();
        if self.is_over() || !has_winning_move(own, other) {
            return MoveList::new();
        }
        moves_of(&threats::winning_placements(own.0, other.0))
    }

    /// Whether playing `mv` leaves the opponent without an immediate win: the move ends the game
    /// other than by losing, or the opponent then has no winning move.
    #[must_use]
    pub fn is_safe(&self, mv: Move) -> bool {
        let (own, other) = self.sides();
        threats::is_safe_move(own.0, other.0, mv.square().mask(), mv.twist().index())
    }

    /// The legal moves after which the opponent cannot win at once (see [`Position::is_safe`]),
    /// in legal order.
    #[must_use]
    pub fn safe_moves(&self) -> MoveList {
        if self.is_over() {
            return MoveList::new();
        }
        let (own, other) = self.sides();
        moves_of(&threats::safe_placements(own.0, other.0))
    }
}

/// The moves `(s, t)` with `s` in `by_twist[t]`, in legal order (square, then twist).
fn moves_of(by_twist: &[u64; 8]) -> MoveList {
    let mut list = MoveList::new();
    let any = by_twist.iter().fold(0, |a, &b| a | b);
    for square in Square::all().filter(|s| any & s.mask() != 0) {
        for twist in Twist::ALL {
            if by_twist[twist.index()] & square.mask() != 0 {
                list.push(Move::new(square, twist));
            }
        }
    }
    list
}

/// Whether the player who just moved into `position` threatens to win at once.
pub(crate) fn is_check(position: &Position) -> bool {
    let (to_move, just_moved) = position.sides();
    has_winning_move(just_moved, to_move)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Color;
    use crate::board::status::Status;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    #[test]
    fn start_has_288_moves() {
        let moves = Position::START.legal_moves();
        assert_eq!(moves.len(), 288);
        assert_eq!(moves[0].to_string(), "a1-1R");
        assert_eq!(moves[287].to_string(), "f6-4L");
    }

    #[test]
    fn finished_games_have_no_moves() {
        let won = pos("....../....../....../....../oooo../xxxxx.");
        assert!(won.legal_moves().is_empty());
    }

    #[test]
    fn immediate_win_by_placement() {
        let p = pos("....../....../....../....../oooo../xxxx..");
        assert!(p.has_immediate_win());
        let wins = p.winning_moves();
        assert_eq!(wins.len(), 8);
        assert!(wins.iter().all(|m| m.square().to_string() == "e1"));
    }

    #[test]
    fn immediate_win_by_twist_only() {
        // White's d2 blocks a2-e2; turning quadrant 4 clockwise carries it away and brings
        // black's e1 to d2, completing the row.
        let p = pos("....../.o..../o...../o...../xxxox./o...x.");
        assert_eq!(p.side_to_move(), Color::Black);
        assert!(!p.black().has_four_open(p.white()));
        assert!(p.has_immediate_win());
        let wins: Vec<String> = p.winning_moves().iter().map(|m| m.to_string()).collect();
        // Every empty square then 4R, and e3-4L, which lands the new stone on d2 itself.
        assert_eq!(wins.len(), 27, "{wins:?}");
        assert!(wins.iter().all(|m| m.ends_with("4R") || m == "e3-4L"));
    }

    #[test]
    fn a_win_spoilt_by_the_opponent_five_does_not_count() {
        // Turning quadrant 4 clockwise gives black a2-e2 but also white a1-e1: only a draw.
        let p = pos("xx..../....../....../....o./xxxoxo/ooo.xo");
        assert_eq!(p.side_to_move(), Color::Black);
        assert!(!p.has_immediate_win());
        assert!(p.winning_moves().is_empty());
        assert_eq!(
            p.play("a5-4R".parse().unwrap()).unwrap().status(),
            Status::Draw
        );
    }

    #[test]
    fn safe_moves_avoid_giving_a_win() {
        // White threatens f1 after b1-e1; only taking f1 (with any twist) holds.
        let p = pos("x...../x...../x...../....../....../xoooo.");
        let safe = p.safe_moves();
        assert_eq!(safe.len(), 8);
        for &mv in safe.iter() {
            assert_eq!(mv.square().to_string(), "f1");
            assert!(!p.play(mv).unwrap().has_immediate_win());
        }
        let careless: Move = "b6-2R".parse().unwrap();
        assert!(!p.is_safe(careless));
        assert!(!safe.contains(&careless));
    }
}
