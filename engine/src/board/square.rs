//! Squares of the 6×6 board and their notation, `a1` (bottom-left) to `f6` (top-right).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::tables::bit_of;
use crate::board::twist::Quadrant;

/// One of the 36 squares. Index `rank * 6 + file`, so `a1` is 0 and `f6` is 35.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// Bit of each square (by index) in the quadrant-lane layout of [`crate::Bitboard`].
const SQUARE_BITS: [u8; 36] = {
    let mut out = [0u8; 36];
    let mut i = 0;
    while i < 36 {
        let (file, rank) = (i % 6, i / 6);
        out[i] = bit_of(file, 5 - rank) as u8;
        i += 1;
    }
    out
};

/// Square index of each bit of the lane layout (255 for the unused bits).
const BIT_SQUARES: [u8; 64] = {
    let mut out = [255u8; 64];
    let mut i = 0;
    while i < 36 {
        out[SQUARE_BITS[i] as usize] = i as u8;
        i += 1;
    }
    out
};

impl Square {
    /// Number of squares.
    pub const COUNT: usize = 36;

    /// The square with this index (`rank * 6 + file`), if it is below 36.
    #[must_use]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 36 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if both are below 6.
    #[must_use]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 6 && rank < 6 {
            Some(Square(rank * 6 + file))
        } else {
            None
        }
    }

    /// Index `rank * 6 + file`.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 (`a`) to 5 (`f`).
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 % 6
    }

    /// Rank, 0 (rank 1, bottom) to 5 (rank 6, top).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 / 6
    }

    /// The quadrant the square lies in.
    #[must_use]
    pub const fn quadrant(self) -> Quadrant {
        Quadrant::from_index_unchecked((SQUARE_BITS[self.0 as usize] / 16) as usize)
    }

    /// The single-bit mask of this square in the lane layout.
    #[must_use]
    pub const fn mask(self) -> u64 {
        1 << SQUARE_BITS[self.0 as usize]
    }

    /// The square of a bit position of the lane layout (must be a used bit).
    pub(crate) const fn from_bit(bit: u32) -> Square {
        let index = BIT_SQUARES[bit as usize];
        debug_assert!(index < 36);
        Square(index)
    }

    /// All squares from `a1` to `f6`.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..36).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// Why a square name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseSquareError {
    /// Nothing was given.
    #[error("empty square name")]
    Empty,
    /// The first character is not a file `a`–`f`.
    #[error("bad file {0:?} in square name: expected a letter a-f")]
    BadFile(char),
    /// The second character is not a rank `1`–`6`.
    #[error("bad rank {0:?} in square name: expected a digit 1-6")]
    BadRank(char),
    /// The rank is missing.
    #[error("square name has no rank: expected a digit 1-6 after the file")]
    MissingRank,
    /// More characters follow a complete square.
    #[error("unexpected {0:?} after square name")]
    Trailing(String),
}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut chars = s.chars();
        let file_char = chars.next().ok_or(ParseSquareError::Empty)?;
        let file = match file_char.to_ascii_lowercase() {
            c @ 'a'..='f' => c as u8 - b'a',
            _ => return Err(ParseSquareError::BadFile(file_char)),
        };
        let rank_char = chars.next().ok_or(ParseSquareError::MissingRank)?;
        let rank = match rank_char {
            c @ '1'..='6' => c as u8 - b'1',
            _ => return Err(ParseSquareError::BadRank(rank_char)),
        };
        let rest = chars.as_str();
        if !rest.is_empty() {
            return Err(ParseSquareError::Trailing(rest.to_owned()));
        }
        Ok(Square(rank * 6 + file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for square in Square::all() {
            assert_eq!(square.to_string().parse::<Square>(), Ok(square));
            assert_eq!(Square::from_bit(square.mask().trailing_zeros()), square);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("F6".parse::<Square>().unwrap().index(), 35);
    }

    #[test]
    fn quadrants_follow_the_notation() {
        let quadrant = |name: &str| name.parse::<Square>().unwrap().quadrant().number();
        assert_eq!(quadrant("a6"), 1);
        assert_eq!(quadrant("c4"), 1);
        assert_eq!(quadrant("d4"), 2);
        assert_eq!(quadrant("c3"), 3);
        assert_eq!(quadrant("f1"), 4);
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        assert_eq!("".parse::<Square>(), Err(ParseSquareError::Empty));
        assert_eq!("g1".parse::<Square>(), Err(ParseSquareError::BadFile('g')));
        assert_eq!("a7".parse::<Square>(), Err(ParseSquareError::BadRank('7')));
        assert_eq!("a".parse::<Square>(), Err(ParseSquareError::MissingRank));
        assert_eq!(
            "a1x".parse::<Square>(),
            Err(ParseSquareError::Trailing("x".into()))
        );
    }
}
