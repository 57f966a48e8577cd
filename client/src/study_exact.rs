//! The truth in an opening study: each key position's exact value with its source (the
//! tablebase first, then the book's proof, then an exact search), the moves that hold it, the
//! moves ranked by exact value before statistics, and a plain note where the playouts point
//! to another outcome than the truth.

use std::time::Duration;

use pentago::{
    Color, DeepLimits, DeepSolver, ExactOracle, MID_MIN_STONES, Move, Position, SolveLimits,
    Solver, Value,
};

use crate::book::{BookRow, BookTables, win_rate};
use crate::judge::{Exact, JudgeError, exact};

/// How long a study's exact search may take on one key position the book has not proven.
pub const KEY_POSITION_BUDGET: Duration = Duration::from_secs(2);

/// Fewest stones of a position the exact search is tried on: below, the deep solver's top is
/// far too large to finish within any study's budget, so the value is unknown at once.
pub const MIN_EXACT_STONES: u32 = 10;

/// A key position's exact value for the side to move, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyValue {
    /// Read from the tablebase (Irving's solution).
    Table(Value),
    /// Proven by the stored book (see the key position's proven line).
    Proven(Value),
    /// Found by the study's own exact search within its budget.
    Solved(Value),
    /// None of them: the search did not decide it within the budget. Never a guess.
    Unknown,
}

impl KeyValue {
    /// The value, when known.
    #[must_use]
    pub fn value(self) -> Option<Value> {
        match self {
            KeyValue::Table(v) | KeyValue::Proven(v) | KeyValue::Solved(v) => Some(v),
            KeyValue::Unknown => None,
        }
    }

    /// The source's stable name: `table`, `book`, `search`, or `unknown`.
    #[must_use]
    pub fn source(self) -> &'static str {
        match self {
            KeyValue::Table(_) => "table",
            KeyValue::Proven(_) => "book",
            KeyValue::Solved(_) => "search",
            KeyValue::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for KeyValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyValue::Table(value) => write!(f, "{value} for the side to move (table)"),
            KeyValue::Proven(value) => {
                write!(f, "{value} for the side to move (proven in the book)")
            }
            KeyValue::Solved(value) => write!(f, "{value} for the side to move (exact search)"),
            KeyValue::Unknown => f.write_str("unknown"),
        }
    }
}

/// The exact value of `position` for the side to move if a search decides it within `budget`:
/// the deep solver below the midsolver's stone count (from [`MIN_EXACT_STONES`] on), the hybrid
/// solver from it on. `None` when undecided.
#[must_use]
pub fn exact_value(position: &Position, budget: Duration) -> Option<Value> {
    if position.is_over() {
        return Value::of_status(position.status(), position.side_to_move());
    }
    let stones = position.stone_count();
    if stones < MIN_EXACT_STONES {
        return None;
    }
    if stones < MID_MIN_STONES {
        let limits = DeepLimits {
            max_time: Some(budget),
            ..DeepLimits::default()
        };
        return DeepSolver::new(18).solve(position, limits).value;
    }
    let limits = SolveLimits {
        max_nodes: u64::MAX,
        max_time: Some(budget),
    };
    Solver::new(20).solve(position, limits).value
}

/// The key positions' values: the table's where it covers the position, else the book's
/// proof, else the exact search's within `budget` each (on the blocking pool), else unknown.
pub async fn key_values<O: ExactOracle>(
    oracle: &O,
    tables: &[BookTables],
    budget: Duration,
) -> Result<Vec<KeyValue>, JudgeError> {
    let mut values = Vec::with_capacity(tables.len());
    for table in tables {
        let position = table.position;
        let from_table = oracle
            .probe(&position)
            .map_err(|e| JudgeError::Exact(Box::new(e)))?;
        let value = match (from_table, table.proven) {
            (Some(value), _) => KeyValue::Table(value),
            (None, Some(value)) => KeyValue::Proven(value),
            // A search that could not run decides nothing: unknown.
            (None, None) => tokio::task::spawn_blocking(move || exact_value(&position, budget))
                .await
                .ok()
                .flatten()
                .map_or(KeyValue::Unknown, KeyValue::Solved),
        };
        values.push(value);
    }
    Ok(values)
}

/// What is true at a key position, beside what the playouts say.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyTruth {
    /// The side to move.
    pub mover: Color,
    /// Its exact value (from the tablebase, or the midsolver).
    pub value: Value,
    /// Its legal moves.
    pub moves: usize,
    /// The moves that keep the value (every move when the position is lost).
    pub holding: Vec<Move>,
    /// The most played move in the playouts and its win rate for the mover, if any.
    pub top: Option<(Move, f64)>,
}

impl KeyTruth {
    /// The truth at `table`'s position, or `None` where no exact values are known.
    pub fn of<O: ExactOracle>(
        oracle: &O,
        table: &BookTables,
    ) -> Result<Option<KeyTruth>, JudgeError> {
        let Some(exact) = exact(oracle, &table.position)? else {
            return Ok(None);
        };
        let top = table
            .playouts
            .iter()
            .filter(|r| r.games > 0)
            .max_by_key(|r| r.games)
            .map(|r| (r.mv, win_rate(r)));
        Ok(Some(KeyTruth {
            mover: table.position.side_to_move(),
            value: exact.value,
            moves: exact.moves.len(),
            holding: exact
                .moves
                .iter()
                .filter(|m| m.1 == exact.value)
                .map(|m| m.0)
                .collect(),
            top,
        }))
    }

    /// Whether the playouts point to another outcome than the truth: the outcome nearest to
    /// the most played move's win rate (a loss 0, a draw ½, a win 1) is not the exact value,
    /// or that move does not keep the value.
    #[must_use]
    pub fn disagrees(&self) -> bool {
        let Some((mv, rate)) = self.top else {
            return false;
        };
        let nearest = if rate < 0.25 {
            Value::Loss
        } else if rate <= 0.75 {
            Value::Draw
        } else {
            Value::Win
        };
        nearest != self.value || !self.holding.contains(&mv)
    }

    /// The truth and the statistics side by side, in plain words, e.g. "lost for black
    /// whatever it plays; the playouts give black 43% (a1-1R, its most played move)".
    #[must_use]
    pub fn note(&self) -> String {
        let mover = self.mover;
        let truth = match self.value {
            Value::Loss => format!("lost for {mover} whatever it plays"),
            Value::Draw => format!(
                "a draw with best play: {} of {mover}'s {} moves hold it, the others lose",
                self.holding.len(),
                self.moves
            ),
            Value::Win => format!(
                "won for {mover}: {} of its {} moves win",
                self.holding.len(),
                self.moves
            ),
        };
        let Some((mv, rate)) = self.top else {
            return format!("{truth}; no playouts stored");
        };
        let mut note = format!(
            "{truth}; the playouts give {mover} {:.0}% ({mv}, its most played move",
            100.0 * rate
        );
        if self.value != Value::Loss && !self.holding.contains(&mv) {
            note.push_str(&format!(", does not keep the {}", self.value));
        }
        note.push(')');
        if self.disagrees() {
            note = format!("statistics and truth disagree: {note}");
        }
        note
    }
}

/// The moves worth listing at a key position, best first: by exact value for the mover where
/// known (the moves that hold first), then by playouts. Rows without games are left out,
/// except moves that hold, which are listed (without statistics) even when the book never
/// tried them. Each comes with its row and exact value.
#[must_use]
pub fn ranked_moves<'a>(
    table: &'a BookTables,
    exact: Option<&Exact>,
) -> Vec<(Move, Option<&'a BookRow>, Option<Value>)> {
    let value_of = |mv: Move, row: Option<&BookRow>| {
        exact
            .and_then(|e| e.of(mv))
            .or_else(|| row.and_then(|r| r.proven))
    };
    let mut ranked: Vec<(Move, Option<&BookRow>, Option<Value>)> = table
        .playouts
        .iter()
        .filter(|r| r.games > 0)
        .map(|r| (r.mv, Some(r), value_of(r.mv, Some(r))))
        .collect();
    if let Some(exact) = exact {
        let listed = |mv: Move| {
            table
                .playouts
                .iter()
                .any(|r| r.games > 0 && (r.mv == mv || r.also.contains(&mv)))
        };
        for &(mv, value) in &exact.moves {
            let merged = ranked.iter().any(|(m, _, _)| {
                // A symmetric twin of a listed move leads to the same position.
                table.position.play_unchecked(*m) == table.position.play_unchecked(mv)
            });
            if value == exact.value && !listed(mv) && !merged {
                ranked.push((mv, None, Some(value)));
            }
        }
    }
    // Stable: equal keys keep the book's order (most played first).
    ranked.sort_by_key(|(_, row, value)| {
        (
            std::cmp::Reverse(value.map_or(i8::MIN, |v| v as i8)),
            std::cmp::Reverse(row.map_or(0, |r| r.games)),
        )
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Opening;

    #[test]
    fn key_positions_below_18_stones_get_the_deep_solvers_value_within_the_budget() {
        // White to move in each (bench/data/deep-17.txt), decided in well under a second.
        let cases = [
            (".o..../xxx.oo/.x.xo./..x.x./.xoxoo/..o...", Value::Draw),
            ("..xx../...x../....../oxxxxo/xooxoo/...oo.", Value::Loss),
            (".x..ox/.xo.../.o.x../.ox.o./xxxoxo/o.....", Value::Loss),
        ];
        for (text, expected) in cases {
            let position: Position = text.parse().unwrap();
            assert_eq!(position.stone_count(), 17);
            let value = exact_value(&position, Duration::from_secs(60));
            assert_eq!(value, Some(expected), "{text}");
            let shown = value
                .map_or(KeyValue::Unknown, KeyValue::Solved)
                .to_string();
            assert_eq!(
                shown,
                format!("{expected} for the side to move (exact search)")
            );
        }
    }

    #[test]
    fn a_key_position_the_budget_does_not_decide_is_unknown() {
        // Twelve stones: far beyond a millisecond.
        let mut position = Position::START;
        for pick in [5, 17, 40, 3, 60, 11, 25, 80, 9, 33, 50, 71] {
            let moves = position.legal_moves();
            position = position.play(moves[pick % moves.len()]).unwrap();
        }
        assert_eq!(position.stone_count(), 12);
        assert!(!position.is_over());
        assert_eq!(exact_value(&position, Duration::from_millis(1)), None);
        // The studies' own key positions (three stones) are not searched: the table knows them.
        let start = Opening::MonicasFive.start_positions()[0];
        assert_eq!(exact_value(&start, Duration::from_secs(60)), None);
        assert_eq!(KeyValue::Unknown.to_string(), "unknown");
        assert_eq!(
            KeyValue::Table(Value::Win).to_string(),
            "win for the side to move (table)"
        );
    }

    fn truth(value: Value, holding: usize, top_holds: bool, rate: f64) -> KeyTruth {
        let moves: Vec<Move> = Position::START.legal_moves().iter().copied().collect();
        let top = if top_holds { moves[0] } else { moves[100] };
        KeyTruth {
            mover: Color::White,
            value,
            moves: 264,
            holding: moves[..holding].to_vec(),
            top: Some((top, rate)),
        }
    }

    #[test]
    fn the_note_says_plainly_where_the_playouts_point_elsewhere() {
        let lost = truth(Value::Loss, 264, true, 0.43);
        assert!(lost.disagrees());
        let note = lost.note();
        assert!(
            note.starts_with("statistics and truth disagree: lost for white whatever it plays; the playouts give white 43%"),
            "{note}"
        );
        assert!(!truth(Value::Loss, 264, true, 0.12).disagrees());
        let drawn = truth(Value::Draw, 1, false, 0.48);
        assert!(drawn.disagrees());
        assert!(
            drawn.note().contains("1 of white's 264 moves hold it"),
            "{}",
            drawn.note()
        );
        assert!(
            drawn.note().contains("does not keep the draw"),
            "{}",
            drawn.note()
        );
        assert!(!truth(Value::Draw, 6, true, 0.52).disagrees());
        assert!(!truth(Value::Win, 10, true, 0.9).disagrees());
    }
}
