//! The deep solver's learnt leaf values: exact values of positions from the midsolver's stone
//! count on, keyed by canonical position, and their stable text form (what a stopped search is
//! resumed from, and what a third party re-checks).
//!
//! Stable text format (version 1), the same line format as `solved-positions.txt`:
//!
//! ```text
//! # pentagrid-leaves 1
//! <position> <value>        value for the side to move: 1 win, 0 draw, -1 loss
//! ```
//!
//! The first line is the header; other lines starting with `#` are comments. Positions are
//! written in canonical form (`docs/DESIGN.md` §3) and read in any frame; each has at least
//! [`MID_MIN_STONES`] stones and an ongoing game.

use std::collections::HashMap;
use std::fmt::Write as _;

use thiserror::Error;

use crate::board::position::Position;
use crate::search::solver::MID_MIN_STONES;
use crate::search::value::Value;

/// The header line of the leaves text format.
pub const LEAVES_HEADER: &str = "# pentagrid-leaves 1";

/// Exact values of leaf positions, keyed by canonical position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeafTable {
    values: HashMap<u64, (Position, Value)>,
}

/// Why a leaves file (or one learnt value) was refused; nothing was learnt from it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LeafError {
    /// The first line is not [`LEAVES_HEADER`].
    #[error("line 1: expected the header `{LEAVES_HEADER}`")]
    Header,
    /// A line is not `<position> <value>`.
    #[error("line {line}: expected `<position> <value>` (value 1, 0 or -1)")]
    Syntax {
        /// Line number (from 1).
        line: usize,
    },
    /// The position does not parse.
    #[error("line {line}: bad position: {reason}")]
    Position {
        /// Line number (from 1).
        line: usize,
        /// The parser's message.
        reason: String,
    },
    /// The position has fewer stones than a leaf.
    #[error("line {line}: {position} has {stones} stones; leaves have at least {MID_MIN_STONES}")]
    TooFewStones {
        /// Line number (from 1; 0 for a value given through the API).
        line: usize,
        /// The position.
        position: Position,
        /// Its stones.
        stones: u32,
    },
    /// The game is over in the position: it has no value to learn.
    #[error("line {line}: the game is over in {position}")]
    Finished {
        /// Line number (from 1; 0 for a value given through the API).
        line: usize,
        /// The position.
        position: Position,
    },
    /// The position (or a symmetric image of it) already has another value.
    #[error("line {line}: {position} is {new} here but {old} before")]
    Conflict {
        /// Line number (from 1; 0 for a value given through the API).
        line: usize,
        /// The position.
        position: Position,
        /// The value known before.
        old: Value,
        /// The value given now.
        new: Value,
    },
}

impl LeafTable {
    /// An empty table.
    #[must_use]
    pub fn new() -> LeafTable {
        LeafTable::default()
    }

    /// Number of leaves known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no leaf is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of `position` (any frame) for its side to move, if known.
    #[must_use]
    pub fn get(&self, position: &Position) -> Option<Value> {
        self.get_key(position.canonical_key().0)
    }

    pub(super) fn get_key(&self, canonical_key: u64) -> Option<Value> {
        self.values.get(&canonical_key).map(|e| e.1)
    }

    /// Learns the value of `position` (any frame). Refused: a position with too few stones, a
    /// finished game, or another value than the one already known.
    pub fn insert(&mut self, position: &Position, value: Value) -> Result<(), LeafError> {
        self.insert_at(0, position, value)
    }

    fn insert_at(
        &mut self,
        line: usize,
        position: &Position,
        value: Value,
    ) -> Result<(), LeafError> {
        let stones = position.stone_count();
        if stones < MID_MIN_STONES {
            return Err(LeafError::TooFewStones {
                line,
                position: *position,
                stones,
            });
        }
        if position.is_over() {
            return Err(LeafError::Finished {
                line,
                position: *position,
            });
        }
        let canonical = position.canonical().position;
        match self.values.get(&canonical.key().0) {
            Some(&(_, old)) if old != value => Err(LeafError::Conflict {
                line,
                position: *position,
                old,
                new: value,
            }),
            Some(_) => Ok(()),
            None => {
                self.values.insert(canonical.key().0, (canonical, value));
                Ok(())
            }
        }
    }

    /// Every leaf, canonical, in a stable order (by key).
    #[must_use]
    pub fn entries(&self) -> Vec<(Position, Value)> {
        let mut all: Vec<(u64, Position, Value)> =
            self.values.iter().map(|(&k, &(p, v))| (k, p, v)).collect();
        all.sort_unstable_by_key(|e| e.0);
        all.into_iter().map(|(_, p, v)| (p, v)).collect()
    }

    /// The text form (see the module documentation).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = format!("{LEAVES_HEADER}\n");
        for (position, value) in self.entries() {
            let _ = writeln!(out, "{position} {}", value.as_i8());
        }
        out
    }

    /// Reads the text form; all or nothing.
    pub fn parse(text: &str) -> Result<LeafTable, LeafError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
        if lines.next().map(|l| l.1) != Some(LEAVES_HEADER) {
            return Err(LeafError::Header);
        }
        let mut table = LeafTable::new();
        for (line, text) in lines.filter(|(_, l)| !l.is_empty() && !l.starts_with('#')) {
            let [position, value] = text.split_whitespace().collect::<Vec<_>>()[..] else {
                return Err(LeafError::Syntax { line });
            };
            let position: Position = position.parse().map_err(|e| LeafError::Position {
                line,
                reason: format!("{e}"),
            })?;
            let value = match value {
                "1" => Value::Win,
                "0" => Value::Draw,
                "-1" => Value::Loss,
                _ => return Err(LeafError::Syntax { line }),
            };
            table.insert_at(line, &position, value)?;
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LEAF: &str = "oxxoo./ooxx../.x.oxx/ox...x/oo.xx./.o.oox";

    #[test]
    fn text_round_trips_and_symmetric_images_are_one_leaf() {
        let p: Position = LEAF.parse().unwrap();
        let mut t = LeafTable::new();
        t.insert(&p, Value::Loss).unwrap();
        let mirror = crate::Symmetry::ALL[5].apply(&p);
        assert_eq!(t.get(&mirror), Some(Value::Loss));
        assert_eq!(t.insert(&mirror, Value::Loss), Ok(()));
        assert!(matches!(
            t.insert(&mirror, Value::Win),
            Err(LeafError::Conflict { .. })
        ));
        assert_eq!(t.len(), 1);
        assert_eq!(LeafTable::parse(&t.to_text()), Ok(t));
    }

    #[test]
    fn bad_files_are_refused_with_the_line() {
        let cases = [
            ("", LeafError::Header),
            (
                &format!("{LEAVES_HEADER}\n{LEAF}\n") as &str,
                LeafError::Syntax { line: 2 },
            ),
            (
                &format!("{LEAVES_HEADER}\n{LEAF} 2\n"),
                LeafError::Syntax { line: 2 },
            ),
        ];
        for (text, error) in cases {
            assert_eq!(LeafTable::parse(text), Err(error));
        }
        let few = format!("{LEAVES_HEADER}\n# c\nx...../....../....../....../....../...... 1\n");
        assert!(matches!(
            LeafTable::parse(&few),
            Err(LeafError::TooFewStones {
                line: 3,
                stones: 1,
                ..
            })
        ));
        let bad = format!("{LEAVES_HEADER}\nxx 1\n");
        assert!(matches!(
            LeafTable::parse(&bad),
            Err(LeafError::Position { line: 2, .. })
        ));
    }

    proptest! {
        #[test]
        fn any_text_parses_or_fails_cleanly(text in "\\PC{0,200}") {
            let _ = LeafTable::parse(&format!("{LEAVES_HEADER}\n{text}"));
        }
    }
}
