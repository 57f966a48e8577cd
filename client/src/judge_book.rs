//! An opening book judged against perfect play: per stone count and table (playouts,
//! games), how often the top move (by games, by win rate) keeps the exact value, and how well
//! win rates order value-keeping moves above value-losing ones.
//!
//! The book comes as exported rows ([`ExportRow`]: from the coordinator or an export file),
//! so the stored book and a file are judged alike.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};

use pentago::{ExactOracle, Position, Value};

use crate::book::{ExportRow, TableSource};
use crate::judge::{Exact, JudgeError, exact};

/// Top moves in positions of one outcome.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TopMoves {
    /// Positions judged.
    pub positions: u64,
    /// Of them, those whose most played move keeps the exact value.
    pub by_games: u64,
    /// Of them, those whose move with the best win rate keeps the exact value.
    pub by_rate: u64,
}

/// Pairs of one position's moves, one keeping the exact value and one losing it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairs {
    /// Pairs in all.
    pub total: u64,
    /// Of them, those where the keeping move has the higher win rate.
    pub right: u64,
    /// Of them, those with equal win rates.
    pub ties: u64,
}

impl Pairs {
    /// The share ordered right, a tie counting half (0.5 is what a coin gives); `None`
    /// without pairs.
    #[must_use]
    pub fn share(self) -> Option<f64> {
        (self.total > 0).then(|| (self.right as f64 + self.ties as f64 / 2.0) / self.total as f64)
    }

    fn add(&mut self, other: Pairs) {
        self.total += other.total;
        self.right += other.right;
        self.ties += other.ties;
    }
}

/// One table of the book judged at one stone count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookStones {
    /// The table.
    pub source: TableSource,
    /// Stones of its positions.
    pub stones: u32,
    /// Positions won for the side to move.
    pub won: TopMoves,
    /// Positions drawn.
    pub drawn: TopMoves,
    /// Positions lost (every move keeps a loss: nothing to judge).
    pub lost: u64,
    /// Keeping/losing pairs of moves, over the won and drawn positions.
    pub pairs: Pairs,
}

/// A whole book judged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BookJudgement {
    /// Rows with fewer games were left out.
    pub min_games: u64,
    /// Positions with more stones were left out.
    pub max_stones: u32,
    /// Per table and stone count (playouts first, fewest stones first).
    pub stones: Vec<BookStones>,
    /// Positions with rows but without a known exact value (not judged).
    pub unknown: u64,
}

/// One position's rows of one table, with the exact values.
struct Judged<'a> {
    exact: &'a Exact,
    /// Each row's (games, win rate, exact value for the mover).
    rows: Vec<(u64, f64, Value)>,
}

impl Judged<'_> {
    /// Whether the row chosen by `key` (the largest; ties to the other measure, then to the
    /// first row) keeps the value.
    fn top_keeps(&self, by_games: bool) -> bool {
        let key = |r: &(u64, f64, Value)| {
            if by_games {
                (r.0 as f64, r.1)
            } else {
                (r.1, r.0 as f64)
            }
        };
        let mut best: Option<&(u64, f64, Value)> = None;
        for row in &self.rows {
            if best.is_none_or(|b| key(row) > key(b)) {
                best = Some(row);
            }
        }
        best.is_some_and(|b| b.2 == self.exact.value)
    }

    fn pairs(&self) -> Pairs {
        let mut pairs = Pairs::default();
        let value = self.exact.value;
        for keep in self.rows.iter().filter(|r| r.2 == value) {
            for lose in self.rows.iter().filter(|r| r.2 < value) {
                pairs.total += 1;
                if keep.1 > lose.1 {
                    pairs.right += 1;
                } else if keep.1 == lose.1 {
                    pairs.ties += 1;
                }
            }
        }
        pairs
    }
}

/// Judges the book of `rows` (rows with fewer than `min_games` games, and positions with
/// more than `max_stones` stones, left out: the midsolver takes seconds a position) against
/// the exact values of `oracle` (and the midsolver where it reaches). A row whose move is not
/// legal in its position is refused.
pub fn judge_book<O: ExactOracle>(
    oracle: &O,
    rows: impl IntoIterator<Item = ExportRow>,
    min_games: u64,
    max_stones: u32,
) -> Result<BookJudgement, JudgeError> {
    // Rows of a table by position, in the order positions first appear.
    let mut tables: HashMap<(bool, Position), Vec<ExportRow>> = HashMap::new();
    for row in rows {
        if row.games >= min_games.max(1) && row.position.stone_count() <= max_stones {
            let games_table = row.source == TableSource::Games;
            tables
                .entry((games_table, row.position))
                .or_default()
                .push(row);
        }
    }
    let mut values: HashMap<Position, Option<Exact>> = HashMap::new();
    let mut by_stones: BTreeMap<(bool, u32), BookStones> = BTreeMap::new();
    let mut unknown_positions = HashSet::new();
    for ((games_table, position), rows) in &tables {
        let known = match values.entry(*position) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(exact(oracle, position)?),
        };
        let Some(exact) = &*known else {
            unknown_positions.insert(*position);
            continue;
        };
        let mut judged = Judged {
            exact,
            rows: Vec::with_capacity(rows.len()),
        };
        for row in rows {
            let value = exact.of(row.mv).ok_or(JudgeError::IllegalMove {
                position: *position,
                mv: row.mv,
            })?;
            let rate =
                pentagrid_rating::win_rate(row.games, row.wins, row.draws).map_or(0.0, |r| r.rate);
            judged.rows.push((row.games, rate, value));
        }
        let stones = position.stone_count();
        let entry = by_stones
            .entry((*games_table, stones))
            .or_insert(BookStones {
                source: if *games_table {
                    TableSource::Games
                } else {
                    TableSource::Playouts
                },
                stones,
                won: TopMoves::default(),
                drawn: TopMoves::default(),
                lost: 0,
                pairs: Pairs::default(),
            });
        let top = match exact.value {
            Value::Loss => {
                entry.lost += 1;
                continue;
            }
            Value::Win => &mut entry.won,
            Value::Draw => &mut entry.drawn,
        };
        top.positions += 1;
        top.by_games += u64::from(judged.top_keeps(true));
        top.by_rate += u64::from(judged.top_keeps(false));
        entry.pairs.add(judged.pairs());
    }
    Ok(BookJudgement {
        min_games,
        max_stones,
        stones: by_stones.into_values().collect(),
        unknown: unknown_positions.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::NoOracle;
    use pentago::{Move, midsolve};

    /// A white-to-move position white wins.
    const WON: &str = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";

    fn row(position: Position, mv: Move, games: u64, wins: u64) -> ExportRow {
        ExportRow {
            position,
            mv,
            source: TableSource::Playouts,
            games,
            wins,
            draws: 0,
            proven: None,
            proven_by: None,
        }
    }

    #[test]
    fn top_moves_and_pairs_are_counted_against_the_exact_values() {
        let position: Position = WON.parse().unwrap();
        let solved = midsolve(&position).unwrap();
        let win = solved.moves.iter().find(|m| m.1 == Value::Win).unwrap().0;
        let mut losing = solved.moves.iter().filter(|m| m.1 < Value::Win);
        let (lose_a, lose_b) = (losing.next().unwrap().0, losing.next().unwrap().0);
        // The losing move is played most; the winning one has the best rate; one losing move
        // out-rates the winner.
        let rows = vec![
            row(position, win, 100, 60),
            row(position, lose_a, 300, 150),
            row(position, lose_b, 50, 40),
            row(position, lose_b, 1, 1), // below --min-games 2: left out
        ];
        let judged = judge_book(&NoOracle, rows.clone(), 2, 36).unwrap();
        assert_eq!(judged.unknown, 0);
        assert_eq!(judged.stones.len(), 1);
        let stones = judged.stones[0];
        assert_eq!(stones.stones, position.stone_count());
        assert_eq!(
            stones.won,
            TopMoves {
                positions: 1,
                by_games: 0,
                by_rate: 0
            }
        );
        assert_eq!(
            stones.pairs,
            Pairs {
                total: 2,
                right: 1,
                ties: 0
            }
        );
        assert_eq!(stones.pairs.share(), Some(0.5));
        // The winner played most and rated best: both tops keep the value.
        let rows = vec![
            row(position, win, 400, 300),
            row(position, lose_a, 300, 150),
        ];
        let stones = judge_book(&NoOracle, rows, 1, 36).unwrap().stones[0];
        assert_eq!((stones.won.by_games, stones.won.by_rate), (1, 1));
        assert_eq!(stones.pairs.share(), Some(1.0));
    }

    #[test]
    fn unknown_positions_are_counted_and_illegal_moves_refused() {
        let start = Position::START;
        let rows = vec![row(start, start.legal_moves()[0], 10, 5)];
        let judged = judge_book(&NoOracle, rows.clone(), 1, 36).unwrap();
        assert_eq!(judged.unknown, 1);
        assert!(judged.stones.is_empty());
        // Left out by --max-stones: neither judged nor unknown.
        assert_eq!(judge_book(&NoOracle, rows, 1, 0).unwrap().unknown, 1);
        let won: Position = WON.parse().unwrap();
        let some = won.legal_moves()[0];
        let judged = judge_book(
            &NoOracle,
            vec![row(won, some, 5, 1)],
            1,
            won.stone_count() - 1,
        )
        .unwrap();
        assert_eq!((judged.unknown, judged.stones.len()), (0, 0));
        let position: Position = WON.parse().unwrap();
        // A move of the empty board onto a square WON's position has filled.
        let taken = Position::START
            .legal_moves()
            .iter()
            .copied()
            .find(|mv| !position.legal_moves().contains(mv))
            .unwrap();
        let error = judge_book(&NoOracle, vec![row(position, taken, 5, 1)], 1, 36).unwrap_err();
        assert!(matches!(error, JudgeError::IllegalMove { .. }), "{error}");
    }
}
