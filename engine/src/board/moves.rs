//! Moves (`c4-1R`: place on c4, then turn quadrant 1 clockwise) and their notation.
//!
//! A [`Move`] always names its twist; [`MoveNotation`] is what people may write, where a
//! placement that wins at once may leave the twist out, and a position resolves it:
//!
//! ```
//! use pentago::{Move, MoveNotation, Position};
//!
//! let mv: Move = "c4-1R".parse()?;
//! assert_eq!(mv.square().to_string(), "c4");
//! // c4 is quadrant 1's bottom-right corner; turned clockwise it goes to the bottom-left, a4.
//! assert_eq!(
//!     Position::START.play(mv)?.to_string(),
//!     "....../....../x...../....../....../......"
//! );
//!
//! let winning: Position = "....../....../....../....../oooo../xxxx..".parse()?;
//! let bare: MoveNotation = "e1".parse()?;
//! assert_eq!(winning.resolve(bare)?.to_string(), "e1-1R"); // printing writes the full form
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::square::{ParseSquareError, Square};
use crate::board::twist::{Direction, Quadrant, Twist};

/// A full move: a placement and a twist. Packed as `square * 8 + twist` (0..288).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    /// Number of distinct moves (36 squares × 8 twists).
    pub const COUNT: usize = 288;

    /// The move placing on `square` and then making `twist`.
    #[must_use]
    pub const fn new(square: Square, twist: Twist) -> Move {
        Move((square.index() * 8 + twist.index()) as u16)
    }

    /// The move with this packed index, if it is below 288.
    #[must_use]
    pub const fn from_index(index: u16) -> Option<Move> {
        if (index as usize) < Self::COUNT {
            Some(Move(index))
        } else {
            None
        }
    }

    /// Packed index `square * 8 + twist` (stable: used in stored tables).
    #[must_use]
    pub const fn index(self) -> u16 {
        self.0
    }

    /// Where the stone goes.
    #[must_use]
    pub const fn square(self) -> Square {
        match Square::new((self.0 / 8) as u8) {
            Some(square) => square,
            None => unreachable!(),
        }
    }

    /// The twist made after the placement (unless the placement already wins).
    #[must_use]
    pub const fn twist(self) -> Twist {
        Twist::from_index_unchecked((self.0 % 8) as usize)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.square(), self.twist())
    }
}

/// A move as written: the twist may be left out when the placement alone wins (`c4`).
/// [`crate::Position::resolve`] turns it into a [`Move`] once the position is known.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveNotation {
    /// Where the stone goes.
    pub square: Square,
    /// The twist, if written.
    pub twist: Option<Twist>,
}

/// Why a move could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseMoveError {
    /// The placement part is not a square.
    // The square's error is part of this message, not a `source`: a chain printer would
    // otherwise say it twice.
    #[error("bad square in move {text:?}: {why}")]
    Square {
        /// The whole move text.
        text: String,
        /// What was wrong with the square.
        why: ParseSquareError,
    },
    /// The twist part is not `<quadrant 1-4><R|L>`.
    #[error(
        "bad twist {twist:?} in move {text:?}: expected a quadrant 1-4 and R or L, as in c4-1R"
    )]
    Twist {
        /// The whole move text.
        text: String,
        /// The part after the dash.
        twist: String,
    },
    /// The move has no twist, and one is required here.
    #[error("move {0:?} has no twist: expected the full form, as in c4-1R")]
    MissingTwist(String),
}

impl FromStr for MoveNotation {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (square_text, twist_text) = match s.split_once('-') {
            Some((square, twist)) => (square, Some(twist)),
            None => (s, None),
        };
        let square = square_text
            .parse::<Square>()
            .map_err(|why| ParseMoveError::Square {
                text: crate::excerpt(s),
                why,
            })?;
        let twist = twist_text.map(|t| parse_twist(s, t)).transpose()?;
        Ok(MoveNotation { square, twist })
    }
}

fn parse_twist(text: &str, twist: &str) -> Result<Twist, ParseMoveError> {
    let error = || ParseMoveError::Twist {
        text: crate::excerpt(text),
        twist: crate::excerpt(twist),
    };
    let bytes = twist.as_bytes();
    if bytes.len() != 2 {
        return Err(error());
    }
    let quadrant = Quadrant::from_number(bytes[0].wrapping_sub(b'0')).ok_or_else(error)?;
    let direction = match bytes[1].to_ascii_uppercase() {
        b'R' => Direction::Right,
        b'L' => Direction::Left,
        _ => return Err(error()),
    };
    Ok(Twist::new(quadrant, direction))
}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Reads the full form only; use [`MoveNotation`] to accept a bare winning placement.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let notation: MoveNotation = s.parse()?;
        match notation.twist {
            Some(twist) => Ok(Move::new(notation.square, twist)),
            None => Err(ParseMoveError::MissingTwist(crate::excerpt(s))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_move_round_trips() {
        for index in 0..288 {
            let mv = Move::from_index(index).unwrap();
            assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
            assert_eq!(mv.to_string().to_lowercase().parse::<Move>(), Ok(mv));
            assert_eq!(Move::new(mv.square(), mv.twist()), mv);
        }
        assert_eq!(Move::from_index(288), None);
    }

    #[test]
    fn notation_without_twist() {
        let notation: MoveNotation = "c4".parse().unwrap();
        assert_eq!(notation.square.to_string(), "c4");
        assert_eq!(notation.twist, None);
        assert_eq!(
            "c4".parse::<Move>(),
            Err(ParseMoveError::MissingTwist("c4".into()))
        );
    }

    #[test]
    fn bad_moves_say_what_is_wrong() {
        for text in [
            "", "z1-1R", "c4-", "c4-5R", "c4-1X", "c4-1RR", "c4-R1", "c4-é",
        ] {
            assert!(text.parse::<Move>().is_err(), "{text} should not parse");
        }
        let err = "c4-5R".parse::<Move>().unwrap_err().to_string();
        assert!(err.contains("5R"), "{err}");
    }
}
