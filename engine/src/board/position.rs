//! Positions: the stones on the board, their notation, the rules of a move, and the game status.
//!
//! The notation (`docs/DESIGN.md` §2) is read with [`str::parse`] and written by `Display`; bad
//! input is a [`ParsePositionError`] that says what is wrong, never a panic:
//!
//! ```
//! use pentago::{Color, Position};
//!
//! let start: Position = "start".parse()?;
//! assert_eq!(start, Position::START);
//! assert_eq!(start.to_string(), "....../....../....../....../....../......");
//!
//! let position: Position = "....../....../..x.../...o../....x./......".parse()?;
//! assert_eq!(position.stone_count(), 3);
//! assert_eq!(position.side_to_move(), Color::White); // black has one more
//!
//! assert!("xx..../....../....../....../....../......".parse::<Position>().is_err()); // counts
//! assert!("....../......".parse::<Position>().is_err()); // two ranks, not six
//! # Ok::<(), pentago::ParsePositionError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::bitboard::Bitboard;
use crate::board::color::Color;
use crate::board::moves::{Move, MoveNotation};
use crate::board::square::Square;
use crate::board::status::Status;
use crate::board::tables::{FULL, TERNARY};
use crate::board::twist::Twist;

/// A Pentago position: which squares hold black and white stones. The side to move follows from
/// the counts, and a position in which someone has five is a finished game, so the two sets are
/// the whole state. Copying it (16 bytes) is the undo mechanism.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Position {
    black: Bitboard,
    white: Bitboard,
}

/// An exact 60-bit identity of a position: per quadrant, the cells read as base-3 digits
/// (0 empty, 1 black, 2 white; cell `3 * row + col` weighs `3^cell`), quadrant `q` in bits
/// `16q..16q+15`. Unlike a hash it never collides. Stable: stored keys use this encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionKey(pub u64);

/// Why a position text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// Not six ranks separated by `/`.
    #[error(
        "position has {0} ranks: expected 6 ranks separated by '/', from rank 6 down to rank 1"
    )]
    RankCount(usize),
    /// A rank is not six characters long.
    #[error("rank {rank} has {length} characters: expected 6 (one per file a-f)")]
    RankLength {
        /// The rank number (6 is the first written).
        rank: u8,
        /// How many characters it had.
        length: usize,
    },
    /// A character other than `x`, `o`, `.`.
    #[error(
        "unknown character {character:?} on {square}: expected x (black), o (white) or . (empty)"
    )]
    Character {
        /// The square where it stands.
        square: Square,
        /// The character found.
        character: char,
    },
    /// The stone counts cannot arise in a game.
    #[error(
        "impossible stone counts: {black} black and {white} white (black moves first, so black has as many stones as white or one more)"
    )]
    Counts {
        /// Black stones.
        black: u32,
        /// White stones.
        white: u32,
    },
    /// A key that is not a valid encoding.
    #[error("invalid position key {0:#x}")]
    Key(u64),
}

/// Why a move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PlayError {
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(Status),
    /// The square is taken.
    #[error("{0} is already occupied")]
    Occupied(Square),
    /// The twist was left out but the placement does not win.
    #[error("{0} has no twist, which is only allowed when the placement alone makes five")]
    MissingTwist(Square),
}

impl Position {
    /// The empty board, black to move.
    pub const START: Position = Position {
        black: Bitboard::EMPTY,
        white: Bitboard::EMPTY,
    };

    /// A position from its two sets of stones, checked: disjoint, and counts that can arise.
    pub fn from_bitboards(
        black: Bitboard,
        white: Bitboard,
    ) -> Result<Position, ParsePositionError> {
        let (b, w) = (black.count(), white.count());
        if black.0 & white.0 != 0 || !(b == w || b == w + 1) {
            return Err(ParsePositionError::Counts { black: b, white: w });
        }
        Ok(Position { black, white })
    }

    /// Black's stones.
    #[must_use]
    pub const fn black(&self) -> Bitboard {
        self.black
    }

    /// White's stones.
    #[must_use]
    pub const fn white(&self) -> Bitboard {
        self.white
    }

    /// The stones of one colour.
    #[must_use]
    pub const fn stones(&self, color: Color) -> Bitboard {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// All occupied squares.
    #[must_use]
    pub const fn occupied(&self) -> Bitboard {
        self.black.union(self.white)
    }

    /// All empty squares.
    #[must_use]
    pub const fn empty(&self) -> Bitboard {
        self.occupied().complement()
    }

    /// Number of stones on the board (the ply number of the next move, from 0).
    #[must_use]
    pub const fn stone_count(&self) -> u32 {
        self.occupied().count()
    }

    /// The colour whose turn it is (by the counts; meaningful while the game is ongoing).
    #[must_use]
    pub const fn side_to_move(&self) -> Color {
        if self.black.count() == self.white.count() {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The stones at `square`, if any.
    #[must_use]
    pub const fn stone_at(&self, square: Square) -> Option<Color> {
        if self.black.contains(square) {
            Some(Color::Black)
        } else if self.white.contains(square) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Whether the game is over, and how.
    #[must_use]
    pub const fn status(&self) -> Status {
        match (self.black.has_five(), self.white.has_five()) {
            (true, true) => Status::Draw,
            (true, false) => Status::Won(Color::Black),
            (false, true) => Status::Won(Color::White),
            (false, false) if self.occupied().0 == FULL => Status::Draw,
            (false, false) => Status::Ongoing,
        }
    }

    /// Whether the game has ended.
    #[must_use]
    pub const fn is_over(&self) -> bool {
        self.status().is_over()
    }

    /// (stones of the side to move, stones of the other side).
    #[must_use]
    pub(crate) const fn sides(&self) -> (Bitboard, Bitboard) {
        match self.side_to_move() {
            Color::Black => (self.black, self.white),
            Color::White => (self.white, self.black),
        }
    }

    /// Rebuilds a position from the mover's and the opponent's stones.
    pub(crate) const fn from_sides(mover: Color, own: Bitboard, other: Bitboard) -> Position {
        match mover {
            Color::Black => Position {
                black: own,
                white: other,
            },
            Color::White => Position {
                black: other,
                white: own,
            },
        }
    }

    /// Plays a move without checking it: the game must be ongoing and the square empty.
    /// Follows the rules exactly: a placement that makes five wins at once (no twist),
    /// otherwise the twist is made.
    #[inline]
    #[must_use]
    pub const fn play_unchecked(&self, mv: Move) -> Position {
        let mover = self.side_to_move();
        let (own, other) = self.sides();
        let placed = own.with(mv.square());
        if placed.has_five() {
            return Position::from_sides(mover, placed, other);
        }
        let twist = mv.twist();
        Position::from_sides(mover, placed.twisted(twist), other.twisted(twist))
    }

    /// Plays a move, checking that the game is ongoing and the square empty.
    pub fn play(&self, mv: Move) -> Result<Position, PlayError> {
        let status = self.status();
        if status.is_over() {
            return Err(PlayError::GameOver(status));
        }
        if self.occupied().contains(mv.square()) {
            return Err(PlayError::Occupied(mv.square()));
        }
        Ok(self.play_unchecked(mv))
    }

    /// Turns written move notation into a move of this position. A bare placement (`c4`) is
    /// accepted only when it makes five at once; it becomes `c4-1R` (the twist is never made).
    pub fn resolve(&self, notation: MoveNotation) -> Result<Move, PlayError> {
        if let Some(twist) = notation.twist {
            return Ok(Move::new(notation.square, twist));
        }
        let status = self.status();
        if status.is_over() {
            return Err(PlayError::GameOver(status));
        }
        if self.occupied().contains(notation.square) {
            return Err(PlayError::Occupied(notation.square));
        }
        let (own, _) = self.sides();
        if own.with(notation.square).has_five() {
            Ok(Move::new(notation.square, Twist::ALL[0]))
        } else {
            Err(PlayError::MissingTwist(notation.square))
        }
    }

    /// The exact key of this position.
    #[inline]
    #[must_use]
    pub const fn key(&self) -> PositionKey {
        let mut key = 0u64;
        let mut q = 0;
        while q < 4 {
            let shift = 16 * q;
            let b = ((self.black.0 >> shift) & 0x1FF) as usize;
            let w = ((self.white.0 >> shift) & 0x1FF) as usize;
            key |= ((TERNARY[b] as u64) + 2 * (TERNARY[w] as u64)) << shift;
            q += 1;
        }
        PositionKey(key)
    }

    /// The position with this key, checked like a parsed position.
    pub fn from_key(key: PositionKey) -> Result<Position, ParsePositionError> {
        let (mut black, mut white) = (0u64, 0u64);
        for q in 0..4 {
            let mut digits = (key.0 >> (16 * q)) & 0xFFFF;
            if digits >= 19_683 {
                return Err(ParsePositionError::Key(key.0));
            }
            for cell in 0..9 {
                let bit = 1u64 << (16 * q + cell);
                match digits % 3 {
                    1 => black |= bit,
                    2 => white |= bit,
                    _ => {}
                }
                digits /= 3;
            }
        }
        Position::from_bitboards(Bitboard(black), Bitboard(white))
    }
}

impl PositionKey {
    /// Raw key bits.
    #[must_use]
    pub const fn bits(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Position {
    /// The notation of `docs/DESIGN.md` §2: ranks 6 to 1, `/` between them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(41);
        for rank in (0..6).rev() {
            for file in 0..6 {
                let square = Square::from_coords(file, rank).expect("coordinates below 6");
                text.push(match self.stone_at(square) {
                    Some(color) => color.stone_char(),
                    None => '.',
                });
            }
            if rank > 0 {
                text.push('/');
            }
        }
        f.write_str(&text)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl FromStr for Position {
    type Err = ParsePositionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "start" {
            return Ok(Position::START);
        }
        let ranks: Vec<&str> = s.split('/').collect();
        if ranks.len() != 6 {
            return Err(ParsePositionError::RankCount(ranks.len()));
        }
        let (mut black, mut white) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for (row, text) in ranks.iter().enumerate() {
            let rank = 5 - row as u8;
            let length = text.chars().count();
            if length != 6 {
                return Err(ParsePositionError::RankLength {
                    rank: rank + 1,
                    length,
                });
            }
            for (file, character) in text.chars().enumerate() {
                let square = Square::from_coords(file as u8, rank).expect("coordinates below 6");
                match character {
                    'x' | 'X' => black = black.with(square),
                    'o' | 'O' => white = white.with(square),
                    '.' => {}
                    _ => return Err(ParsePositionError::Character { square, character }),
                }
            }
        }
        Position::from_bitboards(black, white)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn start_position() {
        let start = pos("start");
        assert_eq!(start, Position::START);
        assert_eq!(
            start.to_string(),
            "....../....../....../....../....../......"
        );
        assert_eq!(start.side_to_move(), Color::Black);
        assert_eq!(start.status(), Status::Ongoing);
    }

    #[test]
    fn notation_is_rank_six_first() {
        let p = Position::START.play(mv("a6-4R")).unwrap();
        assert_eq!(p.to_string(), "x...../....../....../....../....../......");
        let p = p.play(mv("f1-1R")).unwrap();
        // Turning quadrant 1 clockwise carries a6 to c6.
        assert_eq!(p.to_string(), "..x.../....../....../....../....../.....o");
        assert_eq!(p.side_to_move(), Color::Black);
    }

    #[test]
    fn placement_win_skips_the_twist() {
        // Black has a1-d1; e1 makes five. The twist 4R would carry e1 away, but it is not made.
        let p = pos("....../....../....../....../oooo../xxxx..");
        let after = p.play(mv("e1-4R")).unwrap();
        assert_eq!(after.status(), Status::Won(Color::Black));
        assert_eq!(
            after.to_string(),
            "....../....../....../....../oooo../xxxxx."
        );
    }

    #[test]
    fn twist_that_makes_both_fives_is_a_draw() {
        // Turning quadrant 4 clockwise carries e1, e2 (black) to d2, e2 and f1, f2 (white)
        // to d1, e1: black completes a2-e2 and white a1-e1 in the same twist.
        let p = pos("....../....../....../....../xxx.xo/ooo.xo");
        let after = p.play(mv("a6-4R")).unwrap();
        assert!(after.black().has_five() && after.white().has_five());
        assert_eq!(after.status(), Status::Draw);
    }

    #[test]
    fn twist_completing_only_the_opponent_five_loses() {
        // Turning quadrant 4 clockwise carries white's f1, f2 to d1, e1: white's a1-e1.
        let p = pos("x.x.x./.x..../.....x/....../.....o/ooo..o");
        assert_eq!(p.side_to_move(), Color::Black);
        let after = p.play(mv("a3-4R")).unwrap();
        assert_eq!(after.status(), Status::Won(Color::White));
        // The other direction does not help white.
        assert_eq!(p.play(mv("a3-4L")).unwrap().status(), Status::Ongoing);
    }

    #[test]
    fn full_board_without_five_is_a_draw() {
        let p = pos("xoxoxo/xoxoxo/oxoxox/oxoxox/xoxoxo/xoxoxo");
        assert_eq!(p.stone_count(), 36);
        assert!(!p.black().has_five() && !p.white().has_five());
        assert_eq!(p.status(), Status::Draw);
    }

    #[test]
    fn bare_placement_only_when_it_wins() {
        let p = pos("....../....../....../....../oooo../xxxx..");
        let won = p.resolve("e1".parse().unwrap()).unwrap();
        assert_eq!(p.play(won).unwrap().status(), Status::Won(Color::Black));
        assert_eq!(
            p.resolve("a6".parse().unwrap()),
            Err(PlayError::MissingTwist("a6".parse().unwrap()))
        );
    }

    #[test]
    fn illegal_moves_are_refused() {
        // b5 is the centre of quadrant 1, so it stays put when quadrant 1 turns.
        let p = Position::START.play(mv("b5-1R")).unwrap();
        let square = mv("b5-1R").square();
        assert_eq!(p.play(mv("b5-2R")), Err(PlayError::Occupied(square)));
        let won = pos("....../....../....../....../oooo../xxxxx.");
        assert!(matches!(won.play(mv("f1-1R")), Err(PlayError::GameOver(_))));
    }

    #[test]
    fn bad_positions_say_what_is_wrong() {
        assert_eq!(
            "....../......".parse::<Position>(),
            Err(ParsePositionError::RankCount(2))
        );
        assert_eq!(
            "...../....../....../....../....../......".parse::<Position>(),
            Err(ParsePositionError::RankLength { rank: 6, length: 5 })
        );
        assert!(matches!(
            "....z./....../....../....../....../......".parse::<Position>(),
            Err(ParsePositionError::Character { character: 'z', .. })
        ));
        assert_eq!(
            "oo..../....../....../....../....../......".parse::<Position>(),
            Err(ParsePositionError::Counts { black: 0, white: 2 })
        );
        assert!("é".parse::<Position>().is_err());
    }

    #[test]
    fn keys_are_exact_and_invertible() {
        let mut p = Position::START;
        for text in ["c4-1R", "d3-2L", "a1-3R", "f6-4L", "b5-1L"] {
            p = p.play(mv(text)).unwrap();
            let key = p.key();
            assert!(key.0 < 1 << 63);
            assert_eq!(Position::from_key(key), Ok(p));
        }
        assert!(Position::from_key(PositionKey(0xFFFF)).is_err());
    }
}
