//! Benchmarks for pentagrid live in `benches/`; this library holds what they share, and the
//! soak benchmark's driver ([`soak`]), which a smoke test in `cli/tests` also runs.

pub mod soak;

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;

use pentago::{
    Move, Player, Position, Symmetry, play_game, random_opening, seeded_rng, splitmix64,
};
use pentagrid_store::{BookEntry, Counts, Store, StoreError, Table};
use rand::RngExt;

/// Rows per stored table in a benchmark book: a typical analysed position's most visited moves.
pub const BOOK_ROWS: usize = 12;

/// `count` distinct canonical positions from random openings of 4 to 14 plies.
#[must_use]
pub fn book_positions(count: usize) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut seed = 0u64;
    while out.len() < count {
        seed += 1;
        let position = random_opening(seed, 4 + (seed % 11) as u32)
            .canonical()
            .position;
        if seen.insert(position.key().bits()) {
            out.push(position);
        }
    }
    out
}

/// Distinct positions (by canonical key) that random games reach with at least `min_stones`
/// stones, the game not over, in the order games 1, 2, ... reach them: where puzzles are
/// mined.
pub fn late_positions(min_stones: u32) -> impl Iterator<Item = Position> {
    let mut seen = HashSet::new();
    (1..)
        .flat_map(|index| {
            let game = play_game(
                &Position::START,
                &Player::Random,
                &Player::Random,
                splitmix64(index),
                1,
            );
            game.moves.into_iter().scan(game.start, |position, mv| {
                let before = *position;
                *position = position.play_unchecked(mv);
                Some(before)
            })
        })
        .filter(move |position| {
            position.stone_count() >= min_stones
                && !position.is_over()
                && seen.insert(position.canonical_key())
        })
}

/// A playout table of [`BOOK_ROWS`] rows for `position`.
#[must_use]
pub fn book_table(position: &Position) -> Table {
    position
        .legal_moves()
        .iter()
        .take(BOOK_ROWS)
        .enumerate()
        .map(|(i, &mv): (usize, &Move)| {
            let games = 1000 + i as u64 * 37;
            (
                mv,
                Counts {
                    games,
                    wins: games / 2,
                    draws: games / 20,
                },
            )
        })
        .collect()
}

/// Fills the database in `dir` with a playout table for each of `positions`, through the
/// store's import transaction, and flushes it.
pub fn fill_book(dir: &Path, positions: &[Position]) -> Result<(), StoreError> {
    fill_tables(dir, positions.iter().map(|p| (*p, book_table(p))))
}

/// Fills the database in `dir` with the playout table of each canonical position, through the
/// store's import transaction (5,000 positions a transaction), and flushes it.
pub fn fill_tables(
    dir: &Path,
    tables: impl IntoIterator<Item = (Position, Table)>,
) -> Result<(), StoreError> {
    let store = Store::open(dir)?;
    let mut entries = BTreeMap::new();
    for (position, playouts) in tables {
        let entry = BookEntry {
            playouts,
            ..BookEntry::default()
        };
        entries.insert(position.key().bits(), entry);
        if entries.len() == 5_000 {
            store.import(&std::mem::take(&mut entries), None)?;
        }
    }
    store.import(&entries, None)?;
    store.flush_blocking()
}

/// Playout tables for `count` canonical positions forming one tree from the start, breadth
/// first: each position's table covers its first three move groups into positions without a
/// win in one (so every position has children to explore and a build from the start must walk
/// through the whole tree), with 100, 90 and 80 games, 40 wins and 10 draws each.
#[must_use]
pub fn tree_book(count: usize) -> Vec<(Position, Table)> {
    let mut tables = Vec::with_capacity(count);
    let mut seen = HashSet::from([Position::START.key().bits()]);
    let mut queue = VecDeque::from([Position::START]);
    while let Some(position) = queue.pop_front() {
        if tables.len() == count {
            break;
        }
        let mut table = Table::new();
        for (i, mv) in first_leaders(&position, 3).into_iter().enumerate() {
            let counts = Counts {
                games: 100 - 10 * i as u64,
                wins: 40,
                draws: 10,
            };
            table.insert(mv, counts);
            let child = position.play_unchecked(mv).canonical().position;
            if seen.insert(child.key().bits()) {
                queue.push_back(child);
            }
        }
        if !table.is_empty() {
            tables.push((position, table));
        }
    }
    tables
}

/// The first `count` moves of `position` that lead a group of [`move_groups`] (with symmetric
/// children folded) into a position that is not over and has no win in one (an analysis gives
/// such positions no move rows). The same as filtering the groups' first moves, without
/// grouping every legal move.
fn first_leaders(position: &Position, count: usize) -> Vec<Move> {
    let symmetric = Symmetry::ALL[1..]
        .iter()
        .any(|s| s.apply(position) == *position);
    let mut reached = Vec::new();
    let mut leaders = Vec::with_capacity(count);
    for &mv in position.legal_moves().iter() {
        let child = position.play_unchecked(mv);
        let key = if symmetric {
            child.canonical_key()
        } else {
            child.key()
        };
        if reached.contains(&key) {
            continue;
        }
        reached.push(key);
        if child.is_over() || child.has_immediate_win() {
            continue;
        }
        leaders.push(mv);
        if leaders.len() == count {
            break;
        }
    }
    leaders
}

/// `count` ongoing positions reached by random play, each after `plies` moves (fewer where the
/// next random move would end the game), reproducible for a seed.
#[must_use]
pub fn sample_positions(count: usize, plies: u32, seed: u64) -> Vec<Position> {
    let mut rng = seeded_rng(seed, 0);
    (0..count)
        .map(|_| {
            let mut position = Position::START;
            for _ in 0..plies {
                let legal = position.legal_moves();
                let next = position.play_unchecked(legal[rng.random_range(0..legal.len())]);
                if next.is_over() {
                    break;
                }
                position = next;
            }
            position
        })
        .collect()
}

unsafe extern "C" {
    #[link_name = "c_random_games"]
    fn c_random_games_raw(games: u64, seed: u64) -> u64;
}

/// Plays `games` uniform random games from the empty board with the plain C loop of
/// `bench/c/random_games.c` (a 6×6 array, all 32 five-lines checked after each placement and
/// twist): the yardstick for the engine's playout speed. Returns (black wins, white wins).
#[must_use]
pub fn c_random_games(games: u64, seed: u64) -> (u64, u64) {
    // SAFETY: the C function takes and returns plain integers and keeps all its state local.
    let packed = unsafe { c_random_games_raw(games, seed) };
    (packed & 0xFFFF_FFFF, packed >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaders_are_the_first_moves_of_the_groups() {
        let mut positions = sample_positions(200, 6, 3);
        positions.extend(sample_positions(200, 14, 4));
        positions.push(Position::START);
        for position in positions {
            let expected: Vec<Move> = pentago::move_groups(&position, true)
                .into_iter()
                .map(|group| group[0])
                .filter(|&mv| {
                    let child = position.play_unchecked(mv);
                    !child.is_over() && !child.has_immediate_win()
                })
                .take(3)
                .collect();
            assert_eq!(first_leaders(&position, 3), expected, "{position}");
        }
    }

    #[test]
    fn the_tree_book_is_one_tree_from_the_start() {
        let book = tree_book(500);
        assert_eq!(book.len(), 500);
        assert_eq!(book[0].0, Position::START);
        let stored: HashSet<u64> = book.iter().map(|(p, _)| p.key().bits()).collect();
        assert_eq!(stored.len(), 500);
        // Every stored position but the start is a child of an earlier one's table.
        let mut children = HashSet::from([Position::START.key().bits()]);
        for (position, table) in &book {
            assert!(children.contains(&position.key().bits()), "{position}");
            assert!(!table.is_empty() && table.len() <= 3);
            for mv in table.keys() {
                children.insert(
                    position
                        .play_unchecked(*mv)
                        .canonical()
                        .position
                        .key()
                        .bits(),
                );
            }
        }
    }

    #[test]
    fn the_c_loop_plays_real_games() {
        // `docs/DESIGN.md` §3: black wins about 52%, white about 43% of uniform random games.
        let games = 20_000;
        let (black, white) = c_random_games(games, 7);
        let share = |n: u64| n as f64 / games as f64;
        assert!(
            (share(black) - 0.5208).abs() < 0.02,
            "black {}",
            share(black)
        );
        assert!(
            (share(white) - 0.4278).abs() < 0.02,
            "white {}",
            share(white)
        );
    }
}
