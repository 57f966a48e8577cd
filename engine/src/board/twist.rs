//! Quadrants, turning directions and twists (`1R` … `4L`).

use std::fmt;

/// One of the four 3×3 quadrants: 1 top-left, 2 top-right, 3 bottom-left, 4 bottom-right.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quadrant(u8);

impl Quadrant {
    /// The four quadrants in notation order.
    pub const ALL: [Quadrant; 4] = [Quadrant(0), Quadrant(1), Quadrant(2), Quadrant(3)];

    /// The quadrant with notation number `number` (1–4).
    #[must_use]
    pub const fn from_number(number: u8) -> Option<Quadrant> {
        if number >= 1 && number <= 4 {
            Some(Quadrant(number - 1))
        } else {
            None
        }
    }

    pub(crate) const fn from_index_unchecked(index: usize) -> Quadrant {
        debug_assert!(index < 4);
        Quadrant(index as u8)
    }

    /// Index 0–3 (the notation number minus one).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Notation number 1–4.
    #[must_use]
    pub const fn number(self) -> u8 {
        self.0 + 1
    }
}

impl fmt::Display for Quadrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// Which way a quadrant turns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Clockwise, written `R`.
    Right,
    /// Anticlockwise, written `L`.
    Left,
}

impl Direction {
    /// The other direction (what a mirror image of a twist turns).
    #[must_use]
    pub const fn reversed(self) -> Direction {
        match self {
            Direction::Right => Direction::Left,
            Direction::Left => Direction::Right,
        }
    }

    /// `R` or `L`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Direction::Right => 'R',
            Direction::Left => 'L',
        }
    }
}

/// A quadrant turn: the second half of every move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Twist(u8);

impl Twist {
    /// The eight twists in order `1R 1L 2R 2L 3R 3L 4R 4L`.
    pub const ALL: [Twist; 8] = [
        Twist(0),
        Twist(1),
        Twist(2),
        Twist(3),
        Twist(4),
        Twist(5),
        Twist(6),
        Twist(7),
    ];

    /// The twist of `quadrant` in `direction`.
    #[must_use]
    pub const fn new(quadrant: Quadrant, direction: Direction) -> Twist {
        Twist(quadrant.0 * 2 + direction as u8)
    }

    pub(crate) const fn from_index_unchecked(index: usize) -> Twist {
        debug_assert!(index < 8);
        Twist(index as u8)
    }

    /// Index 0–7 in the order of [`Twist::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The quadrant that turns.
    #[must_use]
    pub const fn quadrant(self) -> Quadrant {
        Quadrant(self.0 >> 1)
    }

    /// The turning direction.
    #[must_use]
    pub const fn direction(self) -> Direction {
        if self.0 & 1 == 0 {
            Direction::Right
        } else {
            Direction::Left
        }
    }
}

impl fmt::Display for Twist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.quadrant(), self.direction().letter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twist_parts_round_trip() {
        for twist in Twist::ALL {
            assert_eq!(Twist::new(twist.quadrant(), twist.direction()), twist);
        }
        assert_eq!(Twist::ALL[3].to_string(), "2L");
        assert_eq!(Quadrant::from_number(0), None);
        assert_eq!(Quadrant::from_number(5), None);
    }
}
