//! The two players.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A player. Black (`x`) moves first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// The first player, written `x`.
    Black,
    /// The second player, written `o`.
    White,
}

impl Color {
    /// The other player.
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The stone character of this colour in position notation.
    #[must_use]
    pub const fn stone_char(self) -> char {
        match self {
            Color::Black => 'x',
            Color::White => 'o',
        }
    }

    /// `black` or `white`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opponent_is_an_involution() {
        assert_eq!(Color::Black.opponent(), Color::White);
        assert_eq!(Color::White.opponent().opponent(), Color::White);
    }
}
