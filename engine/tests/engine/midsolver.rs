//! The midsolver on the reference positions, and against alpha-beta on random positions.

use crate::support;

use pentago::{Color, Player, Position, SolveLimits, Solver, Status, Value, midsolve, play_game};
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use support::solved_positions;

#[test]
fn every_reference_position_gets_its_value() {
    let positions = solved_positions();
    assert_eq!(positions.len(), 420);
    let wrong: Vec<String> = positions
        .par_iter()
        .filter_map(|(position, expected)| {
            let solution = midsolve(position).expect("reference positions have 20+ stones");
            (solution.value.as_i8() != *expected).then(|| format!("{position}"))
        })
        .collect();
    assert!(wrong.is_empty(), "wrong values: {wrong:?}");
}

/// A position reached by uniformly random moves, with `stones` stones and the game ongoing.
fn random_position(stones: u32, rng: &mut rand_pcg::Pcg32) -> Position {
    loop {
        let mut position = Position::START;
        while position.stone_count() < stones && !position.is_over() {
            let moves = position.legal_moves();
            position = position.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if !position.is_over() {
            return position;
        }
    }
}

#[test]
fn agrees_with_alpha_beta_on_300_random_positions() {
    let mut rng = rand_pcg::Pcg32::seed_from_u64(15);
    let positions: Vec<Position> = (0..300)
        .map(|i| random_position(22 + i % 9, &mut rng))
        .collect();
    let disagreements: Vec<String> = positions
        .par_iter()
        .map_init(
            || Solver::new(18),
            |solver, position| {
                let mid = midsolve(position).unwrap().value;
                let exact = solver.alpha_beta(position, SolveLimits::default()).value;
                (exact != Some(mid)).then(|| format!("{position}: mid {mid}, alpha-beta {exact:?}"))
            },
        )
        .flatten()
        .collect();
    assert!(disagreements.is_empty(), "{disagreements:?}");
}

#[test]
fn root_value_is_the_best_child_value_at_20_stones() {
    // Every move's value is checked against a separate midsolve of the position after it.
    let mut rng = rand_pcg::Pcg32::seed_from_u64(20);
    let position = random_position(20, &mut rng);
    let solution = midsolve(&position).unwrap();
    assert_eq!(
        Some(solution.value),
        solution.moves.iter().map(|m| m.1).max()
    );
    let mover = position.side_to_move();
    let checked: Vec<_> = solution.moves.iter().step_by(7).collect();
    checked.par_iter().for_each(|&&(mv, value)| {
        let child = position.play_unchecked(mv);
        let expected = match Value::of_status(child.status(), mover) {
            Some(v) => v,
            None => midsolve(&child).unwrap().value.negate(),
        };
        assert_eq!(value, expected, "{position} {mv}");
    });
}

#[test]
fn perfect_never_loses_a_won_reference_position() {
    let perfect: Player = "perfect:uct:playouts=50".parse().unwrap();
    let opponent: Player = "uct:playouts=200".parse().unwrap();
    let won: Vec<Position> = solved_positions()
        .into_iter()
        .filter(|(p, v)| *v == 1 && p.stone_count() >= 22)
        .map(|(p, _)| p)
        .take(40)
        .collect();
    assert!(won.len() >= 30);
    won.par_iter().enumerate().for_each(|(seed, start)| {
        let winner = start.side_to_move();
        let (black, white) = match winner {
            Color::Black => (&perfect, &opponent),
            Color::White => (&opponent, &perfect),
        };
        let game = play_game(start, black, white, seed as u64, 1);
        assert_eq!(
            game.result,
            Status::Won(winner),
            "{start}: {:?}",
            game.moves
        );
    });
}
