//! UCT against known answers and weaker players: solved positions with short forced wins, and
//! short matches against flat Monte Carlo and a random player at equal playouts.

use crate::support;

use pentago::{
    Color, MateSearch, Player, Position, SearchControl, SearchOptions, SolveLimits, Solver, Status,
    Value, search,
};
use support::solved_positions;

#[test]
fn uct_plays_a_winning_move_where_a_short_forced_win_exists() {
    let mut mates = MateSearch::new();
    let mut solver = Solver::new(20);
    let mut checked = 0;
    for (position, value) in solved_positions() {
        if mates.find(&position, 3).is_none() {
            continue;
        }
        assert_eq!(value, 1, "a forced win in {position} must be a solved win");
        let config = "uct:playouts=60000,policy=safe".parse().unwrap();
        let options = SearchOptions {
            seed: 11,
            threads: 2,
            tables_min_visits: None,
            oracle: None,
        };
        let result = search(&position, &config, &options, &SearchControl::new()).unwrap();
        let best = result.best.unwrap();
        // Judge the move by the rules and the exact solver: after it, the opponent is lost.
        let after = position.play(best).unwrap();
        let wins = after.status() == Status::Won(position.side_to_move())
            || solver.solve(&after, SolveLimits::default()).value == Some(Value::Loss);
        assert!(wins, "{position}: UCT played {best}, which does not win");
        checked += 1;
    }
    assert!(
        checked >= 30,
        "only {checked} positions with a short forced win"
    );
}

/// Score of `a` against `b` over `pairs` game pairs (each side plays black once).
fn match_score(a: &Player, b: &Player, pairs: u64) -> f64 {
    let mut score = 0.0;
    for pair in 0..pairs {
        for (black, white, a_color) in [(a, b, Color::Black), (b, a, Color::White)] {
            let game = pentago::play_game(&Position::START, black, white, 1000 + pair, 1);
            score += match game.result {
                Status::Won(color) if color == a_color => 1.0,
                Status::Draw => 0.5,
                _ => 0.0,
            };
        }
    }
    score / (2 * pairs) as f64
}

#[test]
fn uct_beats_flat_monte_carlo_and_random_at_equal_playouts() {
    let uct: Player = "uct:playouts=3000".parse().unwrap();
    let flat: Player = "flat:playouts=3000".parse().unwrap();
    let against_flat = match_score(&uct, &flat, 8);
    assert!(
        against_flat >= 0.65,
        "UCT scored {against_flat} against flat Monte Carlo"
    );
    let against_random = match_score(&uct, &Player::Random, 4);
    assert!(
        against_random >= 0.9,
        "UCT scored {against_random} against random"
    );
}
