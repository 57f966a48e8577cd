//! The midsolver against alpha-beta and against its own move values.

use pentagrid_gamekit::seeded_rng;
use rand::RngExt;

use super::*;
use crate::search::solver::{SolveLimits, Solver};

/// A position reached by uniformly random moves with `stones` stones, still ongoing.
pub(crate) fn random_position(stones: u32, seed: u64) -> Position {
    let mut rng = seeded_rng(seed, 15);
    'retry: loop {
        let mut position = Position::START;
        while position.stone_count() < stones {
            let moves = position.legal_moves();
            position = position.play_unchecked(moves[rng.random_range(0..moves.len())]);
            if position.is_over() {
                continue 'retry;
            }
        }
        return position;
    }
}

#[test]
fn agrees_with_alpha_beta_on_late_positions() {
    let mut solver = Solver::new(18);
    for seed in 0..60 {
        let stones = 26 + (seed % 5) as u32;
        let position = random_position(stones, seed);
        let mid = midsolve(&position).unwrap();
        let exact = solver.alpha_beta(&position, SolveLimits::default());
        assert_eq!(Some(mid.value), exact.value, "{position}");
    }
}

#[test]
fn move_values_are_the_negated_values_of_the_children() {
    let mut solver = Solver::new(18);
    for seed in 100..106 {
        let position = random_position(29, seed);
        let mid = midsolve(&position).unwrap();
        assert_eq!(mid.moves.len(), position.legal_moves().len());
        for &(mv, value) in &mid.moves {
            let child = position.play_unchecked(mv);
            let expected = match Value::of_status(child.status(), position.side_to_move()) {
                Some(v) => v,
                None => solver
                    .solve(&child, SolveLimits::default())
                    .value
                    .unwrap()
                    .negate(),
            };
            assert_eq!(value, expected, "{position} {mv}");
        }
        assert_eq!(Some(mid.value), mid.moves.iter().map(|m| m.1).max());
    }
}

#[test]
fn refuses_early_and_finished_positions() {
    let early = random_position(17, 1);
    assert_eq!(
        midsolve(&early),
        Err(MidSolveError::TooFewStones {
            stones: 17,
            min: 18
        })
    );
    let won: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
    assert_eq!(midsolve(&won), Err(MidSolveError::Finished));
}

#[test]
fn a_stopped_walk_is_abandoned_and_an_unstopped_one_agrees() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let position = random_position(24, 9);
    let asked = AtomicU32::new(0);
    // Counts the questions and never stops.
    let count = || {
        asked.fetch_add(1, Ordering::Relaxed);
        false
    };
    let full = midsolve_until(&position, &count).unwrap();
    assert_eq!(
        full,
        midsolve(&position)
            .map(|m| MidSolution {
                seconds: full.seconds,
                ..m
            })
            .unwrap()
    );
    let batches = asked.load(Ordering::Relaxed);
    assert!(batches > 10, "the walk asks between batches ({batches})");
    // Stopped after half its batches: abandoned, never a wrong answer.
    let asked = AtomicU32::new(0);
    let half = || asked.fetch_add(1, Ordering::Relaxed) >= batches / 2;
    assert_eq!(
        midsolve_until(&position, &half),
        Err(MidSolveError::Stopped)
    );
    assert_eq!(asked.load(Ordering::Relaxed), batches / 2 + 1);
}

#[test]
fn one_empty_square_is_played_out() {
    let p: Position = "xoxoxo/xoxoxo/oxoxox/oxoxox/xoxoxo/xoxox.".parse().unwrap();
    let mid = midsolve(&p).unwrap();
    for &(mv, value) in &mid.moves {
        let after = p.play_unchecked(mv);
        assert_eq!(
            Some(value),
            Value::of_status(after.status(), p.side_to_move())
        );
    }
}

#[test]
fn rotated_variants_have_the_values_of_their_own_walks() {
    let mut solver = Solver::new(18);
    for seed in 200..204 {
        let position = random_position(27, seed);
        let mid = midsolve(&position).unwrap();
        let variants = rotated_variants(&position);
        assert_eq!(variants.len(), ROTATED_VARIANTS);
        assert_eq!(mid.rotated.len(), ROTATED_VARIANTS);
        for (turned, value) in variants.iter().zip(&mid.rotated) {
            assert_eq!(turned.stone_count(), position.stone_count());
            let exact = match Value::of_status(turned.status(), turned.side_to_move()) {
                Some(_) => None,
                None => solver.alpha_beta(turned, SolveLimits::default()).value,
            };
            assert_eq!(*value, exact, "{position} turned to {turned}");
        }
    }
}

#[test]
fn rotated_variants_are_the_even_quarter_turn_states() {
    let position = random_position(20, 7);
    let variants = rotated_variants(&position);
    // One clockwise quarter turn of quadrant 1 and one of quadrant 2 (state 1 + 4), and a half
    // turn of quadrant 1 (state 2), are among them; a single quarter turn is not.
    let right = |q: usize| Twist::new(Quadrant::from_index_unchecked(q), Direction::Right);
    let turn = |p: &Position, q: usize| {
        Position::from_bitboards(p.black().twisted(right(q)), p.white().twisted(right(q))).unwrap()
    };
    assert_eq!(variants[1], turn(&turn(&position, 0), 1));
    assert_eq!(variants[0], turn(&turn(&position, 0), 0));
}
