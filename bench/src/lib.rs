//! Benchmarks for pentagrid live in `benches/`; this library holds what they share.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use pentago::{Move, Position, random_opening, seeded_rng};
use pentagrid_coordinator::store::{BookEntry, Counts, Store, StoreError, Table};
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
    let store = Store::open(dir)?;
    for chunk in positions.chunks(5_000) {
        let entries: BTreeMap<u64, BookEntry> = chunk
            .iter()
            .map(|p| {
                let entry = BookEntry {
                    playouts: book_table(p),
                    ..BookEntry::default()
                };
                (p.key().bits(), entry)
            })
            .collect();
        store.import(&entries)?;
    }
    store.flush_blocking()
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
    fn the_c_loop_plays_real_games() {
        // DESIGN §3: black wins about 52%, white about 43% of uniform random games.
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
