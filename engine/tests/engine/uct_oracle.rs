//! UCT with an oracle of exact values (as a tablebase gives them): a node the oracle values is
//! proven in the tree, simulations stop there, and a root whose moves it values is decided
//! without playouts. The oracle here is the engine's own midsolver on late positions, so the
//! answers are checked against an independent exact computation.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Mutex;

use pentago::{
    ExactOracle, Player, Position, SearchControl, SearchOptions, SharedOracle, Value, midsolve,
    play_game, search,
};

/// Exact values by the midsolver for positions of at least `min_stones` stones whose key
/// `covers` accepts; it counts its answers.
struct MidsolveOracle {
    min_stones: u32,
    covers: fn(&Position) -> bool,
    answered: Mutex<HashMap<u64, Value>>,
}

impl ExactOracle for MidsolveOracle {
    type Error = Infallible;

    fn probe(&self, position: &Position) -> Result<Option<Value>, Infallible> {
        if position.stone_count() < self.min_stones || !(self.covers)(position) {
            return Ok(None);
        }
        let key = position.key().bits();
        if let Some(value) = self.answered.lock().unwrap().get(&key) {
            return Ok(Some(*value));
        }
        let value = midsolve(position).ok().map(|solved| solved.value);
        if let Some(value) = value {
            self.answered.lock().unwrap().insert(key, value);
        }
        Ok(value)
    }
}

/// Ongoing positions of `stones` stones from seeded random games.
fn late_positions(stones: u32, count: usize) -> Vec<Position> {
    (0..)
        .filter_map(|seed| {
            let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
            let mut position = game.start;
            for mv in game.moves {
                if position.stone_count() == stones {
                    return (!position.is_over()).then_some(position);
                }
                position = position.play_unchecked(mv);
            }
            None
        })
        .take(count)
        .collect()
}

fn options(oracle: MidsolveOracle) -> SearchOptions {
    SearchOptions {
        seed: 3,
        threads: 2,
        tables_min_visits: None,
        oracle: Some(SharedOracle::new(oracle)),
    }
}

#[test]
fn a_root_whose_moves_the_oracle_values_is_decided_without_playouts() {
    for position in late_positions(27, 3) {
        let oracle = MidsolveOracle {
            min_stones: 28,
            covers: |_| true,
            answered: Mutex::default(),
        };
        let config = "uct:playouts=5000".parse().unwrap();
        let result = search(&position, &config, &options(oracle), &SearchControl::new()).unwrap();
        let truth = midsolve(&position).unwrap();
        assert_eq!(result.value, Some(truth.value), "{position}");
        assert_eq!(
            result.simulations, 0,
            "{position}: nothing was left to simulate"
        );
        let best = result.best_stats().unwrap();
        assert_eq!(best.proven, Some(truth.value), "{position}: {}", best.mv);
        for stats in &result.moves {
            let exact = truth
                .moves
                .iter()
                .find(|(mv, _)| *mv == stats.mv)
                .unwrap()
                .1;
            assert_eq!(stats.proven, Some(exact), "{position}: {}", stats.mv);
        }
    }
}

#[test]
fn moves_the_oracle_cannot_value_are_searched_and_the_rest_keep_their_exact_values() {
    // The oracle knows half the children (by key parity) and their descendants at depth two:
    // the search must run, and whatever it reports proven must be exact.
    let half = |position: &Position| {
        position.key().bits().is_multiple_of(2) || position.stone_count() >= 29
    };
    for position in late_positions(27, 3) {
        let oracle = MidsolveOracle {
            min_stones: 28,
            covers: half,
            answered: Mutex::default(),
        };
        let config = "uct:playouts=3000".parse().unwrap();
        let result = search(&position, &config, &options(oracle), &SearchControl::new()).unwrap();
        let truth = midsolve(&position).unwrap();
        let proven = result.moves.iter().filter(|m| m.proven.is_some()).count();
        assert!(proven > 0, "{position}: the oracle's children are proven");
        for stats in &result.moves {
            if let Some(value) = stats.proven {
                let exact = truth
                    .moves
                    .iter()
                    .find(|(mv, _)| *mv == stats.mv)
                    .unwrap()
                    .1;
                assert_eq!(value, exact, "{position}: {}", stats.mv);
            }
        }
        if let Some(value) = result.value {
            assert_eq!(value, truth.value, "{position}");
        }
        if result.value.is_none() {
            assert!(
                result.simulations > 0,
                "{position}: an open root is searched"
            );
        }
    }
}
