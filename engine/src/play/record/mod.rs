//! Game records: pentagrid's stable text format for finished (or stopped) Pentago games — tag
//! pairs, then the moves in the notation of `docs/DESIGN.md` §2 with optional comments — as other
//! tools read it (docs/game-records.md fixes the format). [`Record`] is one game; its `Display` is
//! the writer, [`parse_records`] the parser, [`Record::replay`] the referee that checks every move.

mod parse;
mod write;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::{PlayError, Position};
use crate::board::status::Status;
use crate::search::value::Value;

pub use parse::{ParseRecordError, RecordErrorKind, parse_records, parse_records_at};

/// Most tags one record may carry (the standard ones and others), so that a hostile file
/// cannot grow a record without bound.
pub const MAX_TAGS: usize = 64;

/// Most bytes of one tag value or one move comment.
pub const MAX_VALUE_BYTES: usize = 4096;

/// One player of a recorded game: the name shown everywhere and the full specification
/// (`uct:...`, `engine:NAME`; empty when the writer did not know it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordPlayer {
    /// The name (the `Black` / `White` tag).
    pub name: String,
    /// The specification (the `BlackSpec` / `WhiteSpec` tag).
    pub spec: String,
}

/// How a recorded game ended. Text form (the `Termination` tag, stable): `normal`,
/// `unfinished`, `forfeit COLOUR REASON` (the colour that lost, the reason's stable name) or
/// `adjudicated SOURCE` (the exact value's source, `table`, `alpha-beta` or `midsolver`; the
/// value is the result).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Termination {
    /// Played until the rules ended it.
    #[default]
    Normal,
    /// Stopped before the end without a result (the result is `ongoing`).
    Unfinished,
    /// `loser` lost without the game being played out (a time forfeit, a crash, an illegal
    /// move...); `reason` is a stable lower-case name (`time`, `crash`, ...).
    Forfeit {
        /// The side that lost.
        loser: Color,
        /// Why, as a stable lower-case name.
        reason: String,
    },
    /// Ended as soon as the position's exact value was known, and scored with that value.
    Adjudicated {
        /// Where the value came from (`table`, `alpha-beta`, `midsolver`: `SolveMethod::name`), a
        /// lower-case name.
        source: String,
    },
}

/// Whether `word` is a stable lower-case name: 1 to 32 of `a`-`z`, `0`-`9`, `_`, `-`.
fn is_word(word: &str) -> bool {
    (1..=32).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-'))
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Normal => f.write_str("normal"),
            Termination::Unfinished => f.write_str("unfinished"),
            Termination::Forfeit { loser, reason } => write!(f, "forfeit {loser} {reason}"),
            Termination::Adjudicated { source } => write!(f, "adjudicated {source}"),
        }
    }
}

/// A termination text that does not read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "bad termination {0:?}: expected normal, unfinished, forfeit black|white REASON or \
     adjudicated SOURCE"
)]
pub struct ParseTerminationError(pub String);

impl FromStr for Termination {
    type Err = ParseTerminationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || ParseTerminationError(crate::excerpt(text));
        let words: Vec<&str> = text.split(' ').collect();
        match words.as_slice() {
            ["normal"] => Ok(Termination::Normal),
            ["unfinished"] => Ok(Termination::Unfinished),
            ["forfeit", colour, reason] if is_word(reason) => Ok(Termination::Forfeit {
                loser: match *colour {
                    "black" => Color::Black,
                    "white" => Color::White,
                    _ => return Err(error()),
                },
                reason: (*reason).to_owned(),
            }),
            ["adjudicated", source] if is_word(source) => Ok(Termination::Adjudicated {
                source: (*source).to_owned(),
            }),
            _ => Err(error()),
        }
    }
}

/// What a comment after a move says about it. Every part is optional; the text form is
/// `{time=S clock=S score=X exact=VALUE note}` with the parts in this order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveNote {
    /// Seconds the mover spent on the move (finite, not negative).
    pub time: Option<f64>,
    /// Seconds left on the mover's clock after the move (finite, not negative).
    pub clock: Option<f64>,
    /// The mover's search score for the move: its expected points from 0 to 1.
    pub score: Option<f64>,
    /// The exact value of the position before the move, for the mover, where it was known.
    pub exact: Option<Value>,
    /// Free text (single spaces, no braces, no control characters); empty: none.
    pub text: String,
}

impl MoveNote {
    /// Whether the note says nothing (and is not written).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == MoveNote::default()
    }
}

/// One move of a record, with its comment.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedMove {
    /// The move.
    pub mv: Move,
    /// What the comment after it says.
    pub note: MoveNote,
}

impl From<Move> for RecordedMove {
    fn from(mv: Move) -> Self {
        RecordedMove {
            mv,
            note: MoveNote::default(),
        }
    }
}

/// One recorded game: its tags and moves. `Display` writes the stable text form.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// What the game was part of (`match 3`, `selfplay`; the `Event` tag).
    pub event: String,
    /// Which game of the event (`pair 4 game 2`; the `Round` tag; `-` when none).
    pub round: String,
    /// The day it was played, `YYYY.MM.DD` (`?` for unknown digits; the `Date` tag).
    pub date: String,
    /// Who played black.
    pub black: RecordPlayer,
    /// Who played white.
    pub white: RecordPlayer,
    /// The position the moves start from (the `Opening` tag).
    pub opening: Position,
    /// The time control (`move:0.5`, `game:60+1`; `-` for none; the `TimeControl` tag).
    pub time_control: String,
    /// How it ended (the `Result` tag, and the word after the moves).
    pub result: Status,
    /// Why it ended so (the `Termination` tag).
    pub termination: Termination,
    /// Every other tag, in the order read (names of letters, digits and `_`).
    pub other_tags: Vec<(String, String)>,
    /// The moves from the opening.
    pub moves: Vec<RecordedMove>,
}

impl Record {
    /// A record of a game between `black` and `white` from `opening` with these moves and
    /// result, every other tag at its "unknown" value.
    #[must_use]
    pub fn new(
        black: RecordPlayer,
        white: RecordPlayer,
        opening: Position,
        moves: Vec<RecordedMove>,
        result: Status,
    ) -> Record {
        Record {
            event: "?".into(),
            round: "-".into(),
            date: UNKNOWN_DATE.into(),
            black,
            white,
            opening,
            time_control: "-".into(),
            result,
            termination: if result.is_over() {
                Termination::Normal
            } else {
                Termination::Unfinished
            },
            other_tags: Vec::new(),
            moves,
        }
    }

    /// Plays every move from the opening under the rules and checks that the game ends as
    /// recorded: the final position, or the first move or ending that breaks the rules.
    ///
    /// # Errors
    /// An illegal move (with its index), a move after the game was over, or a result or
    /// termination that the moves do not give.
    pub fn replay(&self) -> Result<Position, ReplayError> {
        let mut position = self.opening;
        for (index, recorded) in self.moves.iter().enumerate() {
            position = position
                .play(recorded.mv)
                .map_err(|error| ReplayError::Illegal {
                    index,
                    mv: recorded.mv,
                    error,
                })?;
        }
        let reached = position.status();
        let consistent = match &self.termination {
            Termination::Normal => reached == self.result && reached.is_over(),
            Termination::Unfinished => reached == Status::Ongoing && self.result == Status::Ongoing,
            Termination::Forfeit { loser, .. } => {
                reached == Status::Ongoing && self.result == Status::Won(loser.opponent())
            }
            Termination::Adjudicated { .. } => {
                (reached == Status::Ongoing || reached == self.result) && self.result.is_over()
            }
        };
        if consistent {
            Ok(position)
        } else {
            Err(ReplayError::Ending {
                reached,
                result: self.result,
                termination: self.termination.to_string(),
            })
        }
    }
}

/// The `Date` of a record whose day is not known.
pub const UNKNOWN_DATE: &str = "????.??.??";

/// Why a record's moves do not replay to its result.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// Move `index` (0 for the first move after the opening) cannot be played.
    #[error("move {} ({mv}) cannot be played: {error}", index + 1)]
    Illegal {
        /// Its index among the record's moves.
        index: usize,
        /// The move.
        mv: Move,
        /// Why not.
        error: PlayError,
    },
    /// The moves end in a position whose status does not fit the recorded ending.
    #[error(
        "the moves end with status {reached}, which does not fit result {result} with \
         termination {termination}"
    )]
    Ending {
        /// The status the moves reach.
        reached: Status,
        /// The recorded result.
        result: Status,
        /// The recorded termination (text form).
        termination: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminations_read_back() {
        for text in [
            "normal",
            "unfinished",
            "forfeit black time",
            "forfeit white illegal",
            "adjudicated tablebase",
        ] {
            let termination: Termination = text.parse().unwrap();
            assert_eq!(termination.to_string(), text);
        }
        for bad in [
            "",
            "Normal",
            "forfeit grey time",
            "forfeit black",
            "forfeit black Time",
            "adjudicated",
            "normal ",
        ] {
            assert!(bad.parse::<Termination>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn replay_checks_the_moves_and_the_ending() {
        let moves: Vec<RecordedMove> = ["a1-1R", "b1-1R"]
            .iter()
            .map(|m| RecordedMove::from(m.parse::<Move>().unwrap()))
            .collect();
        let mut record = Record::new(
            RecordPlayer::default(),
            RecordPlayer::default(),
            Position::START,
            moves,
            Status::Ongoing,
        );
        let end = record.replay().unwrap();
        assert_eq!(end.stone_count(), 2);
        // An ongoing game recorded as a normal black win does not replay.
        record.result = Status::Won(Color::Black);
        record.termination = Termination::Normal;
        assert!(matches!(record.replay(), Err(ReplayError::Ending { .. })));
        // White forfeits: black wins with the game unfinished on the board.
        record.termination = Termination::Forfeit {
            loser: Color::White,
            reason: "time".into(),
        };
        assert!(record.replay().is_ok());
        // A move on an occupied square is refused with its index.
        record
            .moves
            .push(RecordedMove::from("a1-2L".parse::<Move>().unwrap()));
        assert!(matches!(
            record.replay(),
            Err(ReplayError::Illegal { index: 2, .. })
        ));
    }
}
