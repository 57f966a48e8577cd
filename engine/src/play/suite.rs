//! Opening suites: a list of start positions for a match, read from text (one opening a line,
//! as a position or as the moves reaching it from the start), and the order a match plays
//! them in (shuffled by the match's seed, each suite once before any repeats).

use pentagrid_gamekit::{seeded_rng, splitmix64};
use rand::seq::SliceRandom;
use thiserror::Error;

use crate::board::moves::Move;
use crate::board::position::Position;

/// Most openings one suite may hold.
pub const MAX_SUITE_OPENINGS: usize = 10_000;

/// Why a suite text does not read: the line (1-based) and the reason, or an empty suite.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SuiteError {
    /// A line that is neither a position nor a legal move sequence from the start.
    #[error("line {line}: {why}")]
    Line {
        /// The line, counted from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// No line holds an opening.
    #[error("no openings (every line is blank or a # comment)")]
    Empty,
    /// More openings than [`MAX_SUITE_OPENINGS`].
    #[error("more than {MAX_SUITE_OPENINGS} openings")]
    TooMany,
}

/// Reads a suite. Stable text format: one opening a line, either a position in pentagrid's
/// notation (`start` or six ranks joined by `/`, e.g. `....../....../..x.../....../....../......`)
/// or the moves that reach it from the start in pentagrid's move notation, separated by spaces
/// (e.g. `c4-1R d3-2L`); `#` starts a comment to the end of the line; blank lines are skipped.
/// Every opening must be a game still in progress.
pub fn parse_suite(text: &str) -> Result<Vec<Position>, SuiteError> {
    let mut suite = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let error = |why: String| SuiteError::Line {
            line: index + 1,
            why,
        };
        if suite.len() == MAX_SUITE_OPENINGS {
            return Err(SuiteError::TooMany);
        }
        let position = suite_line(line).map_err(error)?;
        if position.is_over() {
            return Err(error(format!(
                "the game is already over ({})",
                position.status()
            )));
        }
        suite.push(position);
    }
    if suite.is_empty() {
        return Err(SuiteError::Empty);
    }
    Ok(suite)
}

/// One opening line (without its comment): a position, or moves from the start.
fn suite_line(line: &str) -> Result<Position, String> {
    if line == "start" || line.contains('/') {
        return line
            .parse()
            .map_err(|error| format!("bad position {line:?}: {error}"));
    }
    let mut position = Position::START;
    for (ply, text) in line.split_whitespace().enumerate() {
        let mv: Move = text
            .parse()
            .map_err(|error| format!("move {} {text:?} does not read: {error}", ply + 1))?;
        position = position
            .play(mv)
            .map_err(|error| format!("move {} {text} is illegal: {error}", ply + 1))?;
    }
    Ok(position)
}

/// The opening of each of `pairs` pairs from `suite` (not empty): the suite in an order
/// shuffled by `seed`, then again in a fresh order, and so on, so that every opening is played
/// once before any is played twice. Reproducible for a seed.
#[must_use]
pub fn suite_openings(suite: &[Position], seed: u64, pairs: u64) -> Vec<Position> {
    let mut out = Vec::with_capacity(pairs as usize);
    let mut round = 0u64;
    while (out.len() as u64) < pairs && !suite.is_empty() {
        let mut order = suite.to_vec();
        order.shuffle(&mut seeded_rng(splitmix64(seed ^ round), 0x5017E));
        let left = (pairs - out.len() as u64).min(order.len() as u64);
        out.extend(order.into_iter().take(left as usize));
        round += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_read_positions_and_move_lines_with_comments() {
        let text = "# two openings\n\nstart\n  c4-1R d3-2L  # two moves\n\
                    ....../....../..x.../....../....../......\n";
        let suite = parse_suite(text).unwrap();
        assert_eq!(suite.len(), 3);
        assert_eq!(suite[0], Position::START);
        assert_eq!(suite[1].stone_count(), 2);
        assert_eq!(suite[2].stone_count(), 1);
    }

    #[test]
    fn bad_lines_are_named_with_their_number_and_reason() {
        let cases = [
            ("start\nc4-1R zz\n", 2, "move 2 \"zz\" does not read"),
            ("# x\nc4-2R c4-2L\n", 2, "move 2 c4-2L is illegal"),
            ("\n\n....../......\n", 3, "bad position"),
            (
                "start\n....../....../....../....../oooo../xxxxx.\n",
                2,
                "the game is already over",
            ),
        ];
        for (text, line, why) in cases {
            match parse_suite(text) {
                Err(SuiteError::Line { line: l, why: w }) => {
                    assert_eq!(l, line, "{text:?}");
                    assert!(w.contains(why), "{w}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert_eq!(parse_suite("# nothing\n\n"), Err(SuiteError::Empty));
        let many = "start\n".repeat(MAX_SUITE_OPENINGS + 1);
        assert_eq!(parse_suite(&many), Err(SuiteError::TooMany));
    }

    #[test]
    fn every_opening_is_played_once_before_any_twice() {
        let suite = parse_suite("start\nc4-1R\nd3-2L\na1-3R\n").unwrap();
        let order = suite_openings(&suite, 7, 10);
        assert_eq!(order, suite_openings(&suite, 7, 10));
        assert_eq!(order.len(), 10);
        for round in order.chunks(4).take(2) {
            let mut sorted = round.to_vec();
            sorted.sort_by_key(|p| p.to_string());
            let mut all = suite.clone();
            all.sort_by_key(|p| p.to_string());
            assert_eq!(sorted, all);
        }
        assert!((1..8).any(|s| suite_openings(&suite, s, 4) != suite_openings(&suite, 0, 4)));
    }
}
