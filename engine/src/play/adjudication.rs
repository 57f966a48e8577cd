//! Exact adjudication: a match game ends as soon as its position's exact value is known (from
//! an exact table, or the midsolver late in the game), and is scored with that value.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::color::Color;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::search::oracle::ExactOracle;
use crate::search::solver::{SolveMethod, midsolve};
use crate::search::value::Value;

/// Stones from which adjudication ends games unless told otherwise.
pub const DEFAULT_ADJUDICATION_STONES: u32 = 20;

/// Stones from which adjudication asks the midsolver: its worst solve there is under a second
/// of one core (BENCHMARKS.md), a small price beside the game time it saves. Below, only an
/// exact table values a position.
pub const ADJUDICATION_MIDSOLVE_STONES: u32 = 20;

/// When a game is adjudicated. Text form (stable): `exact` (from
/// [`DEFAULT_ADJUDICATION_STONES`] stones on) or `exact:stones=N` (N from 0 to 35): a position
/// with at least that many stones whose exact value is known ends the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// The fewest stones of a position that may end a game.
    pub min_stones: u32,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            min_stones: DEFAULT_ADJUDICATION_STONES,
        }
    }
}

impl fmt::Display for Adjudication {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exact:stones={}", self.min_stones)
    }
}

/// An adjudication text that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad adjudication {0:?}: expected exact or exact:stones=N (N from 0 to 35)")]
pub struct ParseAdjudicationError(pub String);

impl FromStr for Adjudication {
    type Err = ParseAdjudicationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || ParseAdjudicationError(crate::excerpt(text));
        match text.split_once(':') {
            None if text == "exact" => Ok(Adjudication::default()),
            Some(("exact", option)) => match option.split_once('=') {
                Some(("stones", n)) => n
                    .parse()
                    .ok()
                    .filter(|n| *n < 36)
                    .map(|min_stones| Adjudication { min_stones })
                    .ok_or_else(error),
                _ => Err(error()),
            },
            _ => Err(error()),
        }
    }
}

/// How an adjudicated game ended: the exact value of its last position for the side to move
/// there, and where the value came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adjudicated {
    /// The value for the side to move.
    pub value: Value,
    /// `Table` or `Midsolver`.
    pub source: SolveMethod,
}

impl Adjudicated {
    /// The game's result when `mover` is to move in its last position.
    #[must_use]
    pub fn status(self, mover: Color) -> Status {
        match self.value {
            Value::Win => Status::Won(mover),
            Value::Draw => Status::Draw,
            Value::Loss => Status::Won(mover.opponent()),
        }
    }
}

impl Adjudication {
    /// The exact value of `position` when it ends the game: it is ongoing, has at least
    /// [`Adjudication::min_stones`] stones, and `table` covers it or, from
    /// [`ADJUDICATION_MIDSOLVE_STONES`] stones on, the midsolver values it. A table that
    /// fails to answer counts as not covering the position.
    #[must_use]
    pub fn judge<O: ExactOracle>(&self, position: &Position, table: &O) -> Option<Adjudicated> {
        let stones = position.stone_count();
        if position.is_over() || stones < self.min_stones {
            return None;
        }
        if let Ok(Some(value)) = table.probe(position) {
            return Some(Adjudicated {
                value,
                source: SolveMethod::Table,
            });
        }
        (stones >= ADJUDICATION_MIDSOLVE_STONES)
            .then(|| midsolve(position).ok())
            .flatten()
            .map(|solution| Adjudicated {
                value: solution.value,
                source: SolveMethod::Midsolver,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoOracle;

    #[test]
    fn adjudications_parse_and_print() {
        assert_eq!("exact".parse(), Ok(Adjudication { min_stones: 20 }));
        let five: Adjudication = "exact:stones=5".parse().unwrap();
        assert_eq!(five.to_string(), "exact:stones=5");
        assert_eq!(five.to_string().parse(), Ok(five));
        for bad in [
            "",
            "exact:",
            "exact:stones=36",
            "exact:plies=3",
            "table",
            "exact:stones=x",
        ] {
            assert!(bad.parse::<Adjudication>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_won_late_position_is_judged_by_the_midsolver_and_an_early_one_is_not() {
        // 20 stones, a win for the side to move (black), from the shared solved positions.
        let won: Position = "o...oo/.o..xo/.x.xo./.ox.../x.xx.x/oxoo.x".parse().unwrap();
        let table = NoOracle;
        let verdict = Adjudication::default().judge(&won, &table).unwrap();
        assert_eq!(verdict.source, SolveMethod::Midsolver);
        assert_eq!(
            verdict.status(won.side_to_move()),
            Status::Won(won.side_to_move())
        );
        assert_eq!(Adjudication { min_stones: 21 }.judge(&won, &table), None);
        assert_eq!(
            Adjudication::default().judge(&Position::START, &table),
            None
        );
    }
}
