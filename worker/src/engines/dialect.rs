//! The words engine programs use for the same things: pentagrid's own GTP (`docs/DESIGN.md` §2
//! notation, `black`/`white`) and morat's (moves `<row><column><rotation>`, its first player
//! called `white`). Pure conversions; the referee speaks through them.

use std::fmt;
use std::str::FromStr;

use pentago::{Color, Direction, Move, MoveNotation, Position, Quadrant, Square, Twist};
use thiserror::Error;

/// A protocol dialect. Text form (stable, used in engine configuration): `pentagrid`, `morat`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `pentagrid gtp`'s: moves as `c4-1R`, colours `black` (first) and `white`, time by
    /// `time_settings` and `time_left`, threads on the engine's own command line.
    Pentagrid,
    /// morat's: moves as `c3t`, the first player called `white`, the time of a move given
    /// to `genmove COLOUR SECONDS`, threads by `params -t N`.
    Morat,
}

/// A dialect name that is not known.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown engine dialect {0:?}: expected pentagrid or morat")]
pub struct ParseDialectError(pub String);

impl FromStr for Dialect {
    type Err = ParseDialectError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pentagrid" => Ok(Dialect::Pentagrid),
            "morat" => Ok(Dialect::Morat),
            _ => Err(ParseDialectError(pentago::excerpt(s))),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Pentagrid => "pentagrid",
            Dialect::Morat => "morat",
        })
    }
}

/// A move an engine wrote that is not a move in its dialect.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BadMove {
    /// pentagrid notation that does not parse.
    #[error(transparent)]
    Notation(#[from] pentago::ParseMoveError),
    /// Not `<row a-f><column 1-6><rotation s-z>`.
    #[error("bad morat move {0:?}: expected a row a-f, a column 1-6 and a rotation s-z, as in c3t")]
    Morat(String),
    /// A bare placement (`c4`) that does not win at once, or on an occupied square.
    #[error("move {text:?} needs its twist here: {why}")]
    Unresolved {
        /// The move.
        text: String,
        /// Why it cannot be completed.
        why: pentago::PlayError,
    },
}

/// Quadrant numbering between pentagrid (index 0 top-left, 1 top-right, 2 bottom-left,
/// 3 bottom-right) and morat (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left):
/// the same map both ways.
const MORAT_QUADRANT: [usize; 4] = [0, 1, 3, 2];

/// A move in morat's notation: row `a`–`f` from the top, column `1`–`6`, rotation `s`–`z`
/// (r = letter − `s`: quadrant r >> 1, clockwise when r & 1 = 1). `c4-1R` is `c3t`.
#[must_use]
pub fn morat_move(mv: Move) -> String {
    let square = mv.square();
    let row = char::from(b'a' + (5 - square.rank()));
    let column = char::from(b'1' + square.file());
    let twist = mv.twist();
    let clockwise = usize::from(twist.direction() == Direction::Right);
    let r = MORAT_QUADRANT[twist.quadrant().index()] * 2 + clockwise;
    let rotation = char::from(b's' + r as u8);
    format!("{row}{column}{rotation}")
}

/// Reads a move in morat's notation (any case).
pub fn parse_morat_move(text: &str) -> Result<Move, BadMove> {
    let bad = || BadMove::Morat(pentago::excerpt(text));
    let lower = text.to_ascii_lowercase();
    let &[row, column, rotation] = lower.as_bytes() else {
        return Err(bad());
    };
    if !(b'a'..=b'f').contains(&row) || !(b'1'..=b'6').contains(&column) {
        return Err(bad());
    }
    if !(b's'..=b'z').contains(&rotation) {
        return Err(bad());
    }
    let square = Square::from_coords(column - b'1', 5 - (row - b'a')).ok_or_else(bad)?;
    let r = usize::from(rotation - b's');
    let quadrant = Quadrant::ALL[MORAT_QUADRANT[r >> 1]];
    let direction = if r & 1 == 1 {
        Direction::Right
    } else {
        Direction::Left
    };
    Ok(Move::new(square, Twist::new(quadrant, direction)))
}

impl Dialect {
    /// The word for `colour`.
    #[must_use]
    pub fn colour(self, colour: Color) -> &'static str {
        match (self, colour) {
            (Dialect::Pentagrid, c) => c.name(),
            // morat's first player is white.
            (Dialect::Morat, Color::Black) => "white",
            (Dialect::Morat, Color::White) => "black",
        }
    }

    /// `mv` as this dialect writes it.
    #[must_use]
    pub fn write_move(self, mv: Move) -> String {
        match self {
            Dialect::Pentagrid => mv.to_string(),
            Dialect::Morat => morat_move(mv),
        }
    }

    /// Reads a move written in this dialect for `position` (pentagrid's may leave out the
    /// twist of a winning placement). Whether it is legal is the referee's to decide.
    pub fn read_move(self, text: &str, position: &Position) -> Result<Move, BadMove> {
        match self {
            Dialect::Pentagrid => {
                let notation: MoveNotation = text.parse()?;
                position
                    .resolve(notation)
                    .map_err(|why| BadMove::Unresolved {
                        text: pentago::excerpt(text),
                        why,
                    })
            }
            Dialect::Morat => parse_morat_move(text),
        }
    }

    /// The command that asks for a move by `colour` with `seconds` to think.
    #[must_use]
    pub fn genmove(self, colour: Color, seconds: f64) -> String {
        match self {
            Dialect::Pentagrid => format!("genmove {}", self.colour(colour)),
            Dialect::Morat => format!("genmove {} {seconds:.3}", self.colour(colour)),
        }
    }

    /// The command that tells the engine `colour` played `mv`.
    #[must_use]
    pub fn play(self, colour: Color, mv: Move) -> String {
        format!("play {} {}", self.colour(colour), self.write_move(mv))
    }

    /// The command that sets the engine's threads, where the dialect has one.
    #[must_use]
    pub fn threads(self, threads: usize) -> Option<String> {
        match self {
            Dialect::Pentagrid => None,
            Dialect::Morat => Some(format!("params -t {threads}")),
        }
    }

    /// Whether the engine is told its clock by `time_settings`/`time_left` (otherwise the
    /// seconds of each move go with `genmove`).
    #[must_use]
    pub fn uses_time_left(self) -> bool {
        self == Dialect::Pentagrid
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn mv(text: &str) -> Move {
        Position::START.resolve(text.parse().unwrap()).unwrap()
    }

    #[test]
    fn the_documented_example_converts_both_ways() {
        assert_eq!(morat_move(mv("c4-1R")), "c3t");
        assert_eq!(parse_morat_move("c3t"), Ok(mv("c4-1R")));
        assert_eq!(parse_morat_move("C3T"), Ok(mv("c4-1R")));
        // Corners and the quadrant order: morat 2 is bottom-right (pentagrid 4), 3 bottom-left.
        assert_eq!(morat_move(mv("a6-1L")), "a1s");
        assert_eq!(morat_move(mv("f1-4R")), "f6x");
        assert_eq!(morat_move(mv("a1-3L")), "f1y");
        assert_eq!(morat_move(mv("f6-2R")), "a6v");
    }

    #[test]
    fn every_move_round_trips_in_both_dialects() {
        let mut seen = std::collections::HashSet::new();
        for index in 0..Move::COUNT as u16 {
            let m = Move::from_index(index).unwrap();
            let text = morat_move(m);
            assert!(seen.insert(text.clone()), "{text} twice");
            assert_eq!(parse_morat_move(&text), Ok(m));
            for dialect in [Dialect::Pentagrid, Dialect::Morat] {
                let written = dialect.write_move(m);
                assert_eq!(dialect.read_move(&written, &Position::START), Ok(m));
            }
        }
        assert_eq!(seen.len(), 288);
    }

    #[test]
    fn bad_moves_are_refused() {
        for text in [
            "", "c3", "c3tt", "g3t", "c7t", "c0t", "c3r", "c3{", "é3t", "c4-1R",
        ] {
            assert!(parse_morat_move(text).is_err(), "{text}");
        }
        let p = Position::START;
        assert!(
            Dialect::Pentagrid.read_move("c4", &p).is_err(),
            "no twist and no win"
        );
        assert!(Dialect::Pentagrid.read_move("c3t", &p).is_err());
    }

    #[test]
    fn commands_use_the_dialects_words() {
        let m = mv("c4-1R");
        assert_eq!(Dialect::Pentagrid.play(Color::Black, m), "play black c4-1R");
        assert_eq!(Dialect::Morat.play(Color::Black, m), "play white c3t");
        assert_eq!(
            Dialect::Morat.genmove(Color::White, 0.5),
            "genmove black 0.500"
        );
        assert_eq!(
            Dialect::Pentagrid.genmove(Color::White, 0.5),
            "genmove white"
        );
        assert_eq!(Dialect::Morat.threads(4).as_deref(), Some("params -t 4"));
        assert_eq!("morat".parse(), Ok(Dialect::Morat));
        assert!("gnugo".parse::<Dialect>().is_err());
    }

    proptest! {
        /// Any three characters either read as a move that writes back the same (lower
        /// case), or are refused; never a panic.
        #[test]
        fn morat_text_reads_back(text in "[a-hA-H0-8r-zR-Z]{0,4}") {
            if let Ok(m) = parse_morat_move(&text) {
                prop_assert_eq!(morat_move(m), text.to_ascii_lowercase());
            }
        }
    }
}
