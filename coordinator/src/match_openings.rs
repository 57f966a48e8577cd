//! The openings of a new match, one per pair, from its opening source: random walks, walks
//! through the stored book, a suite the client sent (shuffled by the seed), or positions of a
//! chosen exact value drawn from the tablebase. Deterministic for a seed; runs on a blocking
//! thread (up to 10^5 openings, each a few table reads).

use pentago::{
    OpeningSource, Position, Value, opening_seed, random_opening, splitmix64, suite_openings,
};
use pentagrid_tablebase::TablebaseError;

use crate::table_values::TableValues;
use pentagrid_store::{Store, StoreError};

/// Most random positions drawn for one opening of an exact suite before the match is refused.
pub const MAX_EXACT_DRAWS: u64 = 2_000;

/// Why a match's openings could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// An exact suite at a stone count the tablebase does not cover (or without one).
    #[error("no tablebase slice of {stones} stones on the coordinator for exact openings")]
    NotCovered {
        /// The stone count asked for.
        stones: u32,
    },
    /// No position of the asked value turned up.
    #[error(
        "no position of {stones} stones whose value is a {value} for the side to move turned up \
         in {MAX_EXACT_DRAWS} random draws (pair {pair})"
    )]
    NoneFound {
        /// The stone count asked for.
        stones: u32,
        /// The value asked for (its name).
        value: &'static str,
        /// The pair that found none.
        pair: u64,
    },
    /// The tablebase failed to read.
    #[error("tablebase: {0}")]
    Table(#[from] TablebaseError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The opening of each of `pairs` pairs of a match from `source` with `seed`; `suite` holds a
/// `file:` source's positions.
pub(crate) fn draw_openings(
    store: &Store,
    table: &TableValues,
    source: &OpeningSource,
    suite: &[Position],
    seed: u64,
    pairs: u64,
) -> Result<Vec<Position>, OpeningsError> {
    let seeds = (0..pairs).map(|pair| (pair, opening_seed(seed, pair)));
    match *source {
        OpeningSource::File { .. } => Ok(suite_openings(suite, seed, pairs)),
        OpeningSource::Random { plies } => {
            Ok(seeds.map(|(_, seed)| random_opening(seed, plies)).collect())
        }
        OpeningSource::Book { plies } => seeds
            .map(|(_, seed)| Ok(book_opening(store, seed, plies)?))
            .collect(),
        OpeningSource::Exact { stones, value } => {
            if !table.covers_stones(stones) {
                return Err(OpeningsError::NotCovered { stones });
            }
            seeds
                .map(|(pair, seed)| {
                    exact_opening(table, seed, stones, value)?.ok_or(OpeningsError::NoneFound {
                        stones,
                        value: value.name(),
                        pair,
                    })
                })
                .collect()
        }
    }
}

/// A position of `stones` stones, no immediate win for the side to move, whose exact value
/// for the side to move is `value`: the first of up to [`MAX_EXACT_DRAWS`] random openings
/// (see [`random_opening`]) drawn from `seed` that has it.
pub(crate) fn exact_opening(
    table: &TableValues,
    seed: u64,
    stones: u32,
    value: Value,
) -> Result<Option<Position>, TablebaseError> {
    for draw in 0..MAX_EXACT_DRAWS {
        let position = random_opening(splitmix64(seed ^ draw), stones);
        if position.stone_count() == stones && table.value(&position)? == Some(value) {
            return Ok(Some(position));
        }
    }
    Ok(None)
}

/// An opening drawn from the stored tables: from the start, each move drawn in proportion
/// to its games (playout tables first, then game tables), random where the book ends.
/// Moves into finished games or into an immediate win for the opponent are skipped.
fn book_opening(store: &Store, seed: u64, plies: u32) -> Result<Position, StoreError> {
    let mut position = Position::START;
    for ply in 0..plies {
        let canonical = position.canonical();
        let key = canonical.position.key().bits();
        let mut table = store.playout_table(key)?;
        if table.is_empty() {
            table = store.game_table(key)?;
        }
        let back = canonical.symmetry.inverse();
        let fair = |child: &Position| !child.is_over() && !child.has_immediate_win();
        let choices: Vec<(Position, u64)> = table
            .iter()
            .filter_map(|(mv, counts)| {
                let child = position.play(back.apply_move(*mv)).ok()?;
                fair(&child).then_some((child, counts.games))
            })
            .filter(|(_, games)| *games > 0)
            .collect();
        let total: u64 = choices.iter().map(|(_, games)| games).sum();
        let draw = splitmix64(seed ^ u64::from(ply));
        position = if total == 0 {
            // Past the book: a uniformly drawn fair move, as random openings do.
            let fair_children: Vec<Position> = position
                .legal_moves()
                .iter()
                .map(|&mv| position.play_unchecked(mv))
                .filter(fair)
                .collect();
            if fair_children.is_empty() {
                break;
            }
            fair_children[(draw % fair_children.len() as u64) as usize]
        } else {
            let mut target = draw % total;
            let mut chosen = choices[0].0;
            for (child, games) in &choices {
                if target < *games {
                    chosen = *child;
                    break;
                }
                target -= games;
            }
            chosen
        };
    }
    Ok(position)
}
