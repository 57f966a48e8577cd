//! Threat sets on raw lane bits: the squares that complete a five, the winning placements per
//! twist, and which moves leave the opponent an immediate win — computed from line sets, not by
//! trying moves one by one.
//!
//! A twist permutes squares, so "place on `s`, then twist `t`" equals "twist `t`, then place on
//! `t(s)`". Every question about a move with twist `t` is therefore asked on the twisted board
//! (the *`t`-frame*) about a single placement, and the answer is turned back with the inverse
//! twist.

use crate::board::bitboard::Bitboard;
use crate::board::movegen::{WIN_BY_PLACEMENT, has_winning_move, winning_kind};
use crate::board::tables::{
    ANY_TURN_COVERED, ANY_TURN_ONE_MISSING, FULL, LANE, LINE_COVERED, LINE_ONE_MISSING, LINES,
};
use crate::board::twist::Twist;

#[inline(always)]
fn lane(bits: u64, q: usize) -> usize {
    ((bits >> (16 * q)) & LANE) as usize
}

#[inline(always)]
fn five(bits: u64) -> bool {
    Bitboard(bits).has_five()
}

#[inline(always)]
fn twisted(bits: u64, twist: usize) -> u64 {
    Bitboard(bits).twisted(Twist::from_index_unchecked(twist)).0
}

/// `bits` turned back from the frame of `twist` (the inverse twist is the other direction).
#[inline(always)]
fn untwisted(bits: u64, twist: usize) -> u64 {
    twisted(bits, twist ^ 1)
}

/// The empty squares whose placement completes a five for `own`: the missing cell of every line
/// holding four `own` stones and no `other` stone.
#[inline]
#[must_use]
pub(crate) fn completions(own: u64, other: u64) -> u64 {
    let (mut none_missing, mut one_missing, mut clear) = (u32::MAX, 0u32, u32::MAX);
    for q in 0..4 {
        let mine = lane(own, q);
        let full = LINE_COVERED[q][mine];
        one_missing = (one_missing & full) | (none_missing & LINE_ONE_MISSING[q][mine]);
        none_missing &= full;
        clear &= LINE_COVERED[q][!lane(other, q) & LANE as usize];
    }
    let mut lines = clear & one_missing;
    let mut squares = 0;
    while lines != 0 {
        squares |= LINES[lines.trailing_zeros() as usize] & !own;
        lines &= lines - 1;
    }
    squares
}

/// For each twist `t` (in [`Twist::ALL`] order), the empty squares `s` such that placing on `s`
/// and twisting `t` wins at once for `own` (placement fives appear under every twist). The game
/// must be ongoing.
#[must_use]
pub(crate) fn winning_placements(own: u64, other: u64) -> [u64; 8] {
    let empty = !(own | other) & FULL;
    let by_placement = completions(own, other);
    let mut out = [by_placement; 8];
    for (t, squares) in out.iter_mut().enumerate() {
        let (mine, theirs) = (twisted(own, t), twisted(other, t));
        if five(theirs) {
            continue;
        }
        *squares |= if five(mine) {
            empty
        } else {
            untwisted(completions(mine, theirs), t)
        };
    }
    out
}

/// Whether some line could hold four or five `own` stones and no `other` stone once any
/// quadrants are turned: a bound, cheaper than the exact tests, that rules out every immediate
/// win of `own` — after one twist or two — in quiet positions. `false` means none can exist.
#[inline]
#[must_use]
pub(crate) fn may_reach_four(own: u64, other: u64) -> bool {
    let (mut none_missing, mut one_missing, mut clear) = (u32::MAX, 0u32, u32::MAX);
    for q in 0..4 {
        let mine = lane(own, q);
        let full = ANY_TURN_COVERED[q][mine];
        one_missing = (one_missing & full) | (none_missing & ANY_TURN_ONE_MISSING[q][mine]);
        none_missing &= full;
        clear &= ANY_TURN_COVERED[q][!lane(other, q) & LANE as usize];
    }
    clear & (none_missing | one_missing) != 0
}

/// One move (square bit, twist index) that wins at once for `own`, if any: a placement five
/// first, else the first twist (in [`Twist::ALL`] order) that wins, on its lowest square bit.
#[must_use]
pub(crate) fn any_winning_move(own: u64, other: u64) -> Option<(u64, usize)> {
    let twist = winning_kind(Bitboard(own), Bitboard(other))?;
    if twist == WIN_BY_PLACEMENT {
        return Some((lowest(completions(own, other)), 0));
    }
    let (mine, theirs) = (twisted(own, twist), twisted(other, twist));
    let squares = if five(mine) {
        !(own | other) & FULL
    } else {
        untwisted(completions(mine, theirs), twist)
    };
    Some((lowest(squares), twist))
}

#[inline(always)]
fn lowest(bits: u64) -> u64 {
    bits & bits.wrapping_neg()
}

/// Whether placing `square` (one bit, empty) for `own` and twisting `twist` leaves `other`
/// without an immediate win: the move wins or draws at once, fills the board, or the opponent
/// then has no winning move.
#[inline]
#[must_use]
pub(crate) fn is_safe_move(own: u64, other: u64, square: u64, twist: usize) -> bool {
    let placed = own | square;
    if five(placed) {
        return true;
    }
    let (mine, theirs) = (twisted(placed, twist), twisted(other, twist));
    match (five(mine), five(theirs)) {
        (_, true) => five(mine),
        (true, false) => true,
        (false, false) => {
            mine | theirs == FULL || !has_winning_move(Bitboard(theirs), Bitboard(mine))
        }
    }
}

/// For each twist `t`, the empty squares `s` such that the move `(s, t)` is safe for `own`
/// (see [`is_safe_move`]). The game must be ongoing.
#[must_use]
pub(crate) fn safe_placements(own: u64, other: u64) -> [u64; 8] {
    let empty = !(own | other) & FULL;
    let by_placement = completions(own, other);
    let mut out = [0u64; 8];
    for (t, squares) in out.iter_mut().enumerate() {
        let (mine, theirs) = (twisted(own, t), twisted(other, t));
        let free = twisted(empty, t);
        let safe_here = if five(mine) {
            // Five for me after the twist alone: a win or (both fives) a draw.
            free
        } else if five(theirs) {
            // Only a placement that gives me five too makes it a draw.
            completions(mine, theirs)
        } else {
            completions(mine, theirs) | blocking_placements(mine, theirs, free)
        };
        *squares = untwisted(safe_here, t) | by_placement;
    }
    out
}

/// On a board where neither side has five and `theirs` is about to move, the squares of `free`
/// on which one more `mine` stone leaves `theirs` no immediate win (filling the board counts:
/// the game is then drawn). Every such square must stop one particular win of theirs, by taking
/// its square or by giving me five in its frame, so only those few candidates are tried.
fn blocking_placements(mine: u64, theirs: u64, free: u64) -> u64 {
    if free & (free - 1) == 0 {
        return free;
    }
    let candidates = match winning_kind(Bitboard(theirs), Bitboard(mine)) {
        None => return free,
        // A placement five is stopped only by taking its square.
        Some(WIN_BY_PLACEMENT) => completions(theirs, mine),
        // Their win with twist `u` is stopped by taking its square or by a five of mine there.
        Some(u) => {
            let (their_turned, my_turned) = (twisted(theirs, u), twisted(mine, u));
            untwisted(
                completions(their_turned, my_turned) | completions(my_turned, their_turned),
                u,
            )
        }
    };
    let mut safe = 0;
    let mut rest = candidates & free;
    while rest != 0 {
        let x = lowest(rest);
        rest ^= x;
        if !has_winning_move(Bitboard(theirs), Bitboard(mine | x)) {
            safe |= x;
        }
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::Position;
    use pentagrid_gamekit::seeded_rng;
    use rand::RngExt;

    fn bits(squares: &[&str]) -> u64 {
        squares
            .iter()
            .fold(0, |b, s| b | s.parse::<crate::Square>().unwrap().mask())
    }

    #[test]
    fn completions_are_the_missing_cells_of_open_fours() {
        let four = bits(&["a1", "b1", "c1", "d1"]);
        assert_eq!(completions(four, 0), bits(&["e1"]));
        assert_eq!(completions(four, bits(&["e1"])), 0);
        // b1-f1 needs both e1 and f1, so only a1-e1 counts.
        assert_eq!(
            completions(bits(&["a1", "b1", "d1", "e1"]), 0),
            bits(&["c1"])
        );
        let diagonal = bits(&["a1", "b2", "d4", "e5"]);
        assert_eq!(completions(diagonal, 0), bits(&["c3"]));
    }

    #[test]
    fn may_reach_four_never_misses_a_win_after_one_or_two_twists() {
        let mut rng = seeded_rng(9, 9);
        let mut pruned = 0;
        for _ in 0..3_000 {
            let mut position = Position::START;
            while !position.is_over() {
                let (own, other) = position.sides();
                let (own, other) = (own.0, other.0);
                for side in [(own, other), (other, own)] {
                    if may_reach_four(side.0, side.1) {
                        continue;
                    }
                    pruned += 1;
                    assert!(!has_winning_move(Bitboard(side.0), Bitboard(side.1)));
                    for t in 0..8 {
                        let (a, b) = (twisted(side.0, t), twisted(side.1, t));
                        assert!(!five(a) && !has_winning_move(Bitboard(a), Bitboard(b)));
                    }
                }
                let legal = position.legal_moves();
                position = position.play_unchecked(legal[rng.random_range(0..legal.len())]);
            }
        }
        assert!(pruned > 10_000, "{pruned}");
    }
}
