//! Where a game stands: `ongoing`, won by `black` or `white`, or `draw`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::color::Color;

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
            _ => Err(ParseStatusError(crate::excerpt(s))),
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
}
