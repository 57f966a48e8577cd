//! Engine matches: game pairs (one opening, colours swapped) between two players, random
//! openings from a fixed seed, and the running W/D/L and pentanomial statistics.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::color::{Color, Status};
use crate::player::Player;
use crate::playout::{seeded_rng, splitmix64};
use crate::position::Position;
use crate::rating::{Pentanomial, Trinomial};
use crate::selfplay::{GameRecord, play_game};

/// An opening reached by `plies` uniformly random moves from the start with `seed`, avoiding
/// positions where the game is over or the side to move can win at once.
#[must_use]
pub fn random_opening(seed: u64, plies: u32) -> Position {
    let mut rng = seeded_rng(seed, 0x0BE7);
    let mut position = Position::START;
    for _ in 0..plies {
        let legal = position.legal_moves();
        // Bounded retries: a fair opening almost always takes the first try.
        let next = (0..64)
            .map(|_| position.play_unchecked(legal[rng.random_range(0..legal.len())]))
            .find(|p| !p.is_over() && !p.has_immediate_win());
        match next {
            Some(p) => position = p,
            None => break,
        }
    }
    position
}

/// The two games of a pair and what player A scored in them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The opening both games started from.
    #[serde(with = "crate::serde_text")]
    pub opening: Position,
    /// A as black, then A as white.
    pub games: [GameRecord; 2],
    /// A's points over the pair (0 to 2).
    pub a_points: f64,
}

fn points(status: Status, color: Color) -> f64 {
    match status {
        Status::Won(winner) if winner == color => 1.0,
        Status::Draw => 0.5,
        _ => 0.0,
    }
}

/// Plays a pair from `opening` (ongoing): A black then B black. Reproducible for a seed.
#[must_use]
pub fn play_pair(
    opening: &Position,
    a: &Player,
    b: &Player,
    seed: u64,
    threads: usize,
) -> PairResult {
    let first = play_game(opening, a, b, splitmix64(seed), threads);
    let second = play_game(opening, b, a, splitmix64(seed ^ 1), threads);
    let a_points = points(first.result, Color::Black) + points(second.result, Color::White);
    PairResult {
        opening: *opening,
        games: [first, second],
        a_points,
    }
}

/// A's results so far, by game and by pair.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchScore {
    /// A's wins, draws and losses over all games.
    pub games: Trinomial,
    /// A's pair totals.
    pub pairs: Pentanomial,
}

impl MatchScore {
    /// Counts one pair.
    pub fn record(&mut self, pair: &PairResult) {
        for (game, color) in pair.games.iter().zip([Color::Black, Color::White]) {
            match points(game.result, color) {
                1.0 => self.games.wins += 1,
                0.5 => self.games.draws += 1,
                _ => self.games.losses += 1,
            }
        }
        self.pairs.add_pair(pair.a_points);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_reproducible_and_playable() {
        for seed in 0..50 {
            let opening = random_opening(seed, 4);
            assert_eq!(opening, random_opening(seed, 4));
            assert_eq!(opening.stone_count(), 4);
            assert!(!opening.is_over() && !opening.has_immediate_win());
        }
        assert_ne!(random_opening(1, 2), random_opening(2, 2));
    }

    #[test]
    fn pairs_swap_colours_and_score_from_a() {
        let a: Player = "uct:playouts=500".parse().unwrap();
        let pair = play_pair(&random_opening(3, 2), &a, &Player::Random, 7, 1);
        assert!(
            pair.games
                .iter()
                .all(|g| g.result.is_over() && g.start == pair.opening)
        );
        let mut score = MatchScore::default();
        score.record(&pair);
        assert_eq!(score.games.games(), 2);
        assert_eq!(score.pairs.pairs(), 1);
        assert_eq!(score.games.points(), pair.a_points);
    }
}
