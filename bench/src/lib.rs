//! Benchmarks for pentagrid live in `benches/`; this library holds what they share.

use pentago::{Position, seeded_rng};
use rand::RngExt;

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
