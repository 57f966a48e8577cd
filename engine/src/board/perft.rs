//! Perft: counting move sequences, to check move generation and the rules against known counts.

use rayon::prelude::*;
use serde::Serialize;

use crate::board::position::Position;

/// Counts of `perft(depth)`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PerftCounts {
    /// Move sequences of exactly `depth` moves. Every (square, quadrant, direction) triple is
    /// its own move, also when two lead to the same position. A sequence stops at a move that
    /// ends the game, so a game that ends before `depth` contributes nothing here (the chess
    /// convention).
    pub sequences: u64,
    /// Sequences of at most `depth` moves whose last move ended the game.
    pub finished: u64,
}

impl std::ops::Add for PerftCounts {
    type Output = PerftCounts;

    fn add(self, other: PerftCounts) -> PerftCounts {
        PerftCounts {
            sequences: self.sequences + other.sequences,
            finished: self.finished + other.finished,
        }
    }
}

/// Perft from `position` to `depth`, the first level spread over the rayon pool.
#[must_use]
pub fn perft(position: &Position, depth: u32) -> PerftCounts {
    if depth <= 1 || position.is_over() {
        return perft_serial(position, depth);
    }
    position
        .legal_moves()
        .par_iter()
        .map(|&mv| child_counts(&position.play_unchecked(mv), depth - 1))
        .reduce(PerftCounts::default, |a, b| a + b)
}

fn child_counts(child: &Position, remaining: u32) -> PerftCounts {
    if child.is_over() {
        PerftCounts {
            sequences: u64::from(remaining == 0),
            finished: 1,
        }
    } else {
        perft_serial(child, remaining)
    }
}

fn perft_serial(position: &Position, depth: u32) -> PerftCounts {
    if depth == 0 {
        return PerftCounts {
            sequences: 1,
            finished: 0,
        };
    }
    if position.is_over() {
        return PerftCounts::default();
    }
    let (own, other) = position.sides();
    let free = u64::from(position.empty().count());
    // No move can end the game unless the mover could make five (four stones already), a twist
    // could give the opponent five, or the board fills: then every move is a plain sequence.
    if depth == 1 && own.count() < 4 && other.count() < 5 && free > 1 {
        return PerftCounts {
            sequences: free * 8,
            finished: 0,
        };
    }
    position
        .legal_moves()
        .iter()
        .map(|&mv| child_counts(&position.play_unchecked(mv), depth - 1))
        .fold(PerftCounts::default(), |a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_counts_from_the_start() {
        assert_eq!(perft(&Position::START, 0).sequences, 1);
        assert_eq!(perft(&Position::START, 1).sequences, 288);
        assert_eq!(perft(&Position::START, 2).sequences, 288 * 35 * 8);
        assert_eq!(perft(&Position::START, 3).sequences, 288 * 280 * 272);
        assert_eq!(perft(&Position::START, 3).finished, 0);
    }

    #[test]
    fn finished_games_are_counted_once() {
        // Black wins with e1 (8 twists); every other move continues.
        let p: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let one = perft(&p, 1);
        assert_eq!(one.sequences, 28 * 8);
        assert!(one.finished >= 8);
        let two = perft(&p, 2);
        assert!(two.finished > one.finished);
    }
}
