//! The two players and the status of a game (`ongoing`, `black`, `white`, `draw`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

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

/// Where a game stands: still going, won by a colour, or drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Status {
    /// Nobody has five and the board has an empty square.
    Ongoing,
    /// That colour has won.
    Won(Color),
    /// Both have five, or the board is full without five.
    Draw,
}

impl Status {
    /// Whether the game has ended.
    #[must_use]
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }

    /// The notation word: `ongoing`, `black`, `white` or `draw`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ongoing",
            Status::Won(color) => color.name(),
            Status::Draw => "draw",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A status word that is none of `ongoing`, `black`, `white`, `draw`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown status {0:?}: expected ongoing, black, white or draw")]
pub struct ParseStatusError(pub String);

impl FromStr for Status {
    type Err = ParseStatusError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ongoing" => Ok(Status::Ongoing),
            "black" => Ok(Status::Won(Color::Black)),
            "white" => Ok(Status::Won(Color::White)),
            "draw" => Ok(Status::Draw),
            _ => Err(ParseStatusError(s.to_owned())),
        }
    }
}

impl From<Status> for String {
    fn from(status: Status) -> String {
        status.name().to_owned()
    }
}

impl TryFrom<String> for Status {
    type Error = ParseStatusError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_round_trip() {
        for status in [
            Status::Ongoing,
            Status::Won(Color::Black),
            Status::Won(Color::White),
            Status::Draw,
        ] {
            assert_eq!(status.to_string().parse::<Status>(), Ok(status));
        }
        assert!("won".parse::<Status>().is_err());
    }

    #[test]
    fn opponent_is_an_involution() {
        assert_eq!(Color::Black.opponent(), Color::White);
        assert_eq!(Color::White.opponent().opponent(), Color::White);
    }
}
