//! Moves and their notation: `s>f2` (the turned card to foundation 2), `s>w3` (to waste pile 3),
//! `w1>f4` (waste pile 1's top to foundation 4). Numbers are 1-based in text, 0-based inside.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::card::{FOUNDATIONS, MAX_WASTES, echo};

/// One move of Calculation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Move {
    /// The turned-up card onto foundation `.0`.
    StockToFoundation(u8),
    /// The turned-up card onto waste pile `.0`.
    StockToWaste(u8),
    /// The top of a waste pile onto a foundation.
    WasteToFoundation {
        /// The waste pile the card leaves.
        waste: u8,
        /// The foundation it goes to.
        foundation: u8,
    },
}

impl Move {
    /// Whether the move places the turned-up card (and so turns up the next one).
    #[must_use]
    pub const fn places_turned_card(self) -> bool {
        !matches!(self, Move::WasteToFoundation { .. })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::StockToFoundation(i) => write!(f, "s>f{}", i + 1),
            Move::StockToWaste(i) => write!(f, "s>w{}", i + 1),
            Move::WasteToFoundation { waste, foundation } => {
                write!(f, "w{}>f{}", waste + 1, foundation + 1)
            }
        }
    }
}

/// A move text that is not `s>fN`, `s>wN` or `wN>fM` with a foundation 1–4 and a pile 1–4.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad move {0:?}: expected s>fN, s>wN or wN>fM (foundations 1-4, waste piles 1-4)")]
pub struct ParseMoveError(pub String);

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseMoveError(echo(s));
        let (from, to) = s.split_once('>').ok_or_else(bad)?;
        let index = |text: &str, prefix: char, count: usize| {
            let digits = text.strip_prefix(prefix)?;
            if digits.len() != 1 {
                return None;
            }
            let n = digits.parse::<u8>().ok()?;
            (1..=count as u8).contains(&n).then(|| n - 1)
        };
        let foundation = index(to, 'f', FOUNDATIONS);
        if from == "s" {
            if let Some(f) = foundation {
                return Ok(Move::StockToFoundation(f));
            }
            return index(to, 'w', MAX_WASTES)
                .map(Move::StockToWaste)
                .ok_or_else(bad);
        }
        match (index(from, 'w', MAX_WASTES), foundation) {
            (Some(waste), Some(foundation)) => Ok(Move::WasteToFoundation { waste, foundation }),
            _ => Err(bad()),
        }
    }
}

impl From<Move> for String {
    fn from(mv: Move) -> String {
        mv.to_string()
    }
}

impl TryFrom<String> for Move {
    type Error = ParseMoveError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_move_round_trips() {
        let mut all = Vec::new();
        for i in 0..4 {
            all.push(Move::StockToFoundation(i));
            all.push(Move::StockToWaste(i));
            for j in 0..4 {
                all.push(Move::WasteToFoundation {
                    waste: i,
                    foundation: j,
                });
            }
        }
        for mv in all {
            assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
        }
        assert_eq!("w1>f4".parse::<Move>().unwrap().to_string(), "w1>f4");
    }

    #[test]
    fn bad_moves_are_refused_with_a_bounded_echo() {
        for bad in [
            "", ">", "s", "s>", "s>f0", "s>f5", "s>w5", "s>w0", "w0>f1", "w1>w2", "f1>w1", "w1>s",
            "s>f01", "s>f+1", "S>F1", "s > f1", "w1>f1x", "w10>f1",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad:?}");
        }
        let long = format!("s>f{}", "9".repeat(10_000));
        let message = long.parse::<Move>().unwrap_err().to_string();
        assert!(message.len() < 200, "{message}");
    }
}
