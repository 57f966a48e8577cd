//! The exact solver against the reference values, and the checkmate search against the
//! independent proof checker and the solver.

use crate::support;

use pentago::{MateSearch, MoveOrdering, Position, SolveLimits, Solver, Value};
use rayon::prelude::*;
use support::{check_proof, solved_positions};

#[test]
fn every_solved_position_gets_its_value() {
    let positions = solved_positions();
    assert!(positions.len() >= 400);
    let wrong: Vec<String> = positions
        .par_iter()
        .map_init(
            || Solver::new(20),
            |solver, (position, expected)| {
                let solution = solver.solve(position, SolveLimits::default());
                let got = solution.value.map(Value::as_i8);
                // The best move must achieve the value.
                let mover = position.side_to_move();
                let best = solution.best.expect("ongoing positions have a best move");
                let after = position.play(best).unwrap();
                let achieved = match Value::of_status(after.status(), mover) {
                    Some(v) => v,
                    None => solver.solve(&after, SolveLimits::default()).value.unwrap().negate(),
                };
                (got != Some(*expected) || achieved.as_i8() != *expected)
                    .then(|| format!("{position}: got {got:?}, best {best} achieves {achieved}, expected {expected}"))
            },
        )
        .flatten()
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn both_move_orderings_solve_the_late_reference_positions() {
    // Alpha-beta alone (no midsolver) from 25 stones on, where it is fast with either ordering.
    let late: Vec<_> = solved_positions()
        .into_iter()
        .filter(|(p, _)| p.stone_count() >= 25)
        .collect();
    assert!(late.len() >= 200);
    for ordering in [MoveOrdering::Threats, MoveOrdering::Evaluation] {
        let wrong: Vec<String> = late
            .par_iter()
            .map_init(
                || Solver::new(18).with_ordering(ordering),
                |solver, (position, expected)| {
                    let got = solver.alpha_beta(position, SolveLimits::default()).value;
                    (got.map(Value::as_i8) != Some(*expected))
                        .then(|| format!("{ordering:?} {position}: {got:?}, expected {expected}"))
                },
            )
            .flatten()
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}

#[test]
fn limits_give_unknown_not_a_guess() {
    let mut solver = Solver::new(16);
    let few_nodes = SolveLimits {
        max_nodes: 1_000,
        max_time: None,
    };
    let solution = solver.solve(&Position::START, few_nodes);
    assert_eq!((solution.value, solution.best), (None, None));
    assert!(solution.nodes <= 1_001);
    let little_time = SolveLimits {
        max_nodes: u64::MAX,
        max_time: Some(std::time::Duration::from_millis(100)),
    };
    let solution = solver.solve(&Position::START, little_time);
    assert_eq!(solution.value, None);
    assert!(solution.seconds < 5.0);
}

#[test]
fn mates_have_valid_proofs_and_are_solver_wins() {
    let mut search = MateSearch::new();
    let mut solver = Solver::new(20);
    let mut proofs = 0;
    for (position, value) in solved_positions() {
        match search.find(&position, 4) {
            Some(proof) => {
                proofs += 1;
                assert_eq!(value, 1, "{position} has a mate but is not a win");
                let json = serde_json::to_value(&proof).unwrap();
                check_proof(&json).unwrap_or_else(|e| panic!("{position}: {e}\n{json}"));
                // The JSON form reads back to the same tree.
                let back: pentago::ProofTree = serde_json::from_value(json).unwrap();
                assert_eq!(back, proof);
                // Every mating first move wins, the proof's move among them; no shorter mate.
                let mating = search.mating_moves(&position, 4);
                assert!(
                    mating
                        .iter()
                        .any(|&(mv, n)| mv == proof.first_move() && n == proof.mate_in)
                );
                assert!(mating.iter().all(|&(_, n)| n >= proof.mate_in));
                for (mv, _) in mating {
                    let after = position.play(mv).unwrap();
                    let value = solver.solve(&after, SolveLimits::default()).value;
                    assert!(
                        after.status().is_over() || value == Some(Value::Loss),
                        "{position}: mating move {mv} does not win"
                    );
                }
            }
            None => assert!(search.mating_moves(&position, 4).is_empty()),
        }
    }
    assert!(proofs >= 50, "only {proofs} mates found");
}

#[test]
fn checker_rejects_broken_proofs() {
    let mut search = MateSearch::new();
    let proof = solved_positions()
        .into_iter()
        .find_map(|(p, _)| search.find(&p, 3).filter(|t| t.mate_in >= 2))
        .expect("a mate in 2 or 3 among the reference positions");
    let good = serde_json::to_value(&proof).unwrap();
    check_proof(&good).unwrap();

    let mut missing_reply = good.clone();
    missing_reply["tree"]["replies"]
        .as_array_mut()
        .unwrap()
        .pop();
    assert!(check_proof(&missing_reply).is_err());

    let mut too_short = good.clone();
    too_short["mate_in"] = (proof.mate_in - 1).into();
    assert!(check_proof(&too_short).is_err());

    let mut wrong_first_move = good.clone();
    let other = proof
        .position
        .legal_moves()
        .iter()
        .find(|&&m| m != proof.first_move() && !proof.position.play_unchecked(m).is_over())
        .unwrap()
        .to_string();
    wrong_first_move["tree"]["move"] = other.into();
    assert!(check_proof(&wrong_first_move).is_err());
}

#[test]
fn no_mate_where_the_solver_sees_none() {
    let mut search = MateSearch::new();
    for (position, value) in solved_positions()
        .into_iter()
        .filter(|(_, v)| *v <= 0)
        .take(100)
    {
        assert!(search.find(&position, 5).is_none(), "{position} ({value})");
    }
    assert!(search.find(&Position::START, 3).is_none());
}
