//! One side's stones as a 64-bit set in quadrant lanes (see `tables` for the layout).

use std::fmt;

use crate::board::square::Square;
use crate::board::tables::{FULL, LANE, LINE_COVERED, LINE_ONE_MISSING, LOCAL_SYMMETRY, TWIST};
use crate::board::twist::{Quadrant, Twist};

/// A set of squares. Quadrant `q` occupies bits `16q..16q+9`, so a twist is one table lookup.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub(crate) u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 36 squares.
    pub const FULL: Bitboard = Bitboard(FULL);

    /// The raw lane-layout bits (stable only within one version of the engine).
    #[must_use]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Builds a set from lane-layout bits, dropping the unused ones.
    #[must_use]
    pub const fn from_bits(bits: u64) -> Bitboard {
        Bitboard(bits & FULL)
    }

    /// Whether the set holds `square`.
    #[must_use]
    pub const fn contains(self, square: Square) -> bool {
        self.0 & square.mask() != 0
    }

    /// The set with `square` added.
    #[must_use]
    pub const fn with(self, square: Square) -> Bitboard {
        Bitboard(self.0 | square.mask())
    }

    /// Number of squares in the set.
    #[must_use]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The squares of the board that are not in the set.
    #[must_use]
    pub const fn complement(self) -> Bitboard {
        Bitboard(!self.0 & FULL)
    }

    /// Union.
    #[must_use]
    pub const fn union(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 | other.0)
    }

    /// The 9-bit pattern of one quadrant (cell `3 * row + col`, row 0 at the top).
    #[must_use]
    pub const fn quadrant(self, quadrant: Quadrant) -> u16 {
        ((self.0 >> (16 * quadrant.index())) & LANE) as u16
    }

    #[inline(always)]
    const fn lane(self, q: usize) -> usize {
        ((self.0 >> (16 * q)) & LANE) as usize
    }

    /// Whether five of the set's squares lie in one of the 32 five-lines.
    #[inline]
    #[must_use]
    pub const fn has_five(self) -> bool {
        (LINE_COVERED[0][self.lane(0)]
            & LINE_COVERED[1][self.lane(1)]
            & LINE_COVERED[2][self.lane(2)]
            & LINE_COVERED[3][self.lane(3)])
            != 0
    }

    /// The set after turning one quadrant.
    #[inline]
    #[must_use]
    pub const fn twisted(self, twist: Twist) -> Bitboard {
        let shift = 16 * twist.quadrant().index();
        let lane = ((self.0 >> shift) & LANE) as usize;
        let turned = TWIST[twist.index() & 1][lane] as u64;
        Bitboard((self.0 & !(LANE << shift)) | (turned << shift))
    }

    /// Whether some five-line holds at least four of these squares and none of `blockers`:
    /// that is, whether one more stone (or none) completes a five for this side.
    #[inline]
    #[must_use]
    pub const fn has_four_open(self, blockers: Bitboard) -> bool {
        let free = self.complement_of(blockers);
        let mut clear = u32::MAX;
        let mut none_missing = u32::MAX;
        let mut one_missing_once = 0u32;
        let mut q = 0;
        while q < 4 {
            let own = self.lane(q);
            clear &= LINE_COVERED[q][free.lane(q)];
            let full = LINE_COVERED[q][own];
            let one = LINE_ONE_MISSING[q][own];
            // Lines with exactly one missing cell so far: either it was missing before and
            // this quadrant is complete, or this quadrant holds the first missing cell.
            one_missing_once = (one_missing_once & full) | (none_missing & one);
            none_missing &= full;
            q += 1;
        }
        clear & (none_missing | one_missing_once) != 0
    }

    const fn complement_of(self, blockers: Bitboard) -> Bitboard {
        Bitboard(!blockers.0 & FULL)
    }

    /// The image of the set under board symmetry `g` (see [`crate::Symmetry`]).
    #[must_use]
    pub(crate) const fn transformed(self, g: usize) -> Bitboard {
        let mut out = 0u64;
        let mut q = 0;
        while q < 4 {
            let image = LOCAL_SYMMETRY[g][self.lane(q)] as u64;
            out |= image << (16 * crate::board::tables::QUADRANT_SYMMETRY[g][q] as usize);
            q += 1;
        }
        Bitboard(out)
    }

    /// The squares of the set, lowest bit first (not in square order).
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            Some(Square::from_bit(bit))
        })
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut squares: Vec<Square> = self.squares().collect();
        squares.sort();
        f.debug_set()
            .entries(squares.iter().map(|s| s.to_string()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(squares: &[&str]) -> Bitboard {
        squares
            .iter()
            .fold(Bitboard::EMPTY, |b, s| b.with(s.parse().unwrap()))
    }

    #[test]
    fn fives_in_every_direction() {
        assert!(board(&["a1", "b1", "c1", "d1", "e1"]).has_five());
        assert!(board(&["b6", "c6", "d6", "e6", "f6"]).has_five());
        assert!(board(&["a2", "a3", "a4", "a5", "a6"]).has_five());
        assert!(board(&["a1", "b2", "c3", "d4", "e5"]).has_five());
        assert!(board(&["b1", "c2", "d3", "e4", "f5"]).has_five());
        assert!(board(&["f1", "e2", "d3", "c4", "b5"]).has_five());
        assert!(!board(&["a1", "b1", "c1", "d1", "f1"]).has_five());
        assert!(!board(&["a1", "b2", "c3", "d4"]).has_five());
        // Not a line: wraps around the edge.
        assert!(!board(&["e1", "f1", "a2", "b2", "c2"]).has_five());
    }

    #[test]
    fn clockwise_twist_moves_corner_to_corner() {
        // Quadrant 1 is a4-c6; its top-left corner a6 goes to c6 on a clockwise turn.
        let b = board(&["a6"]);
        let turned = b.twisted(Twist::new(Quadrant::ALL[0], crate::Direction::Right));
        assert_eq!(turned, board(&["c6"]));
        let back = turned.twisted(Twist::new(Quadrant::ALL[0], crate::Direction::Left));
        assert_eq!(back, b);
    }

    #[test]
    fn four_open_needs_a_free_fifth_cell() {
        let four = board(&["a1", "b1", "c1", "d1"]);
        assert!(four.has_four_open(Bitboard::EMPTY));
        // With e1 taken, a1-e1 is blocked and b1-f1 holds only three.
        assert!(!four.has_four_open(board(&["e1"])));
        assert!(four.has_four_open(board(&["f1"])));
        assert!(!board(&["a1", "b1", "c1"]).has_four_open(Bitboard::EMPTY));
        assert!(board(&["a1", "b1", "d1", "e1"]).has_four_open(board(&["f1"])));
        assert!(!board(&["a1", "b1", "d1", "e1"]).has_four_open(board(&["c1"])));
        assert!(board(&["a1", "b1", "c1", "d1", "e1"]).has_four_open(Bitboard::EMPTY));
    }

    #[test]
    fn four_open_matches_a_line_by_line_count() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let own = Bitboard::from_bits(x);
            let other = Bitboard::from_bits(x.rotate_left(23) & !own.0);
            let expected = crate::board::tables::LINES
                .iter()
                .any(|&line| line & other.0 == 0 && (line & own.0).count_ones() >= 4);
            assert_eq!(own.has_four_open(other), expected);
        }
    }
}
