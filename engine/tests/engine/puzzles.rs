//! Puzzles from the reference positions: every puzzle's proof passes the independent checker,
//! its first move is the only winning first move by the exact solver's values, and candidates
//! the reference calls draws or losses never become puzzles.

use crate::support;

use pentago::{PuzzleVerifier, Rejection, SolveLimits, Solver, Value, difficulty_label};
use rayon::prelude::*;
use support::{check_proof, solved_positions};

fn limits() -> SolveLimits {
    SolveLimits {
        max_nodes: 3_000_000,
        max_time: None,
    }
}

#[test]
fn puzzles_from_reference_positions_are_sound_and_unique() {
    let positions: Vec<_> = solved_positions()
        .into_iter()
        .filter(|(p, _)| p.stone_count() >= 24)
        .collect();
    let verdicts: Vec<_> = positions
        .par_iter()
        .map(|(position, value)| {
            let mut verifier = PuzzleVerifier::new(18, limits(), 1);
            (*position, *value, verifier.verify(position, 7))
        })
        .collect();
    let mut puzzles = 0;
    for (position, value, verdict) in &verdicts {
        let Ok(puzzle) = verdict else {
            continue;
        };
        puzzles += 1;
        assert_eq!(
            *value, 1,
            "a puzzle in a position that is not a win: {position}"
        );
        let json = serde_json::to_value(&puzzle.proof).unwrap();
        check_proof(&json).unwrap_or_else(|e| panic!("{position}: {e}"));
        assert_eq!(puzzle.mate_in, puzzle.proof.mate_in);
        assert!(!difficulty_label(puzzle.difficulty).is_empty());
        // Judge uniqueness again from the solver's exact value of every first move.
        let solution = position.play_unchecked(puzzle.first_move).canonical_key();
        let mut solver = Solver::new(18);
        for (mv, value) in solver.solve_moves(position, SolveLimits::default()) {
            if position.play_unchecked(mv).canonical_key() != solution {
                assert_ne!(value, Some(Value::Win), "{position}: {mv} wins too");
            } else {
                assert_eq!(value, Some(Value::Win));
            }
        }
    }
    let not_unique = verdicts
        .iter()
        .filter(|v| matches!(v.2, Err(Rejection::NotUnique(_))))
        .count();
    eprintln!(
        "{puzzles} puzzles, {not_unique} with two winning moves, of {} candidates",
        verdicts.len()
    );
    assert!(
        puzzles >= 3,
        "too few puzzles: {puzzles} of {}",
        verdicts.len()
    );
    assert!(not_unique >= 1, "no candidate had two winning moves");
    for (_, value, verdict) in &verdicts {
        if *value != 1 {
            assert!(!matches!(verdict, Ok(_) | Err(Rejection::NotUnique(_))));
        }
    }
}

/// Hand-picked puzzles from `puzzles generate` collections, in the order a solver finds them
/// harder: a mate in 3 that a plain UCT search sees with 400 playouts; a mate in 4 it sees at
/// once (200, no move above the solution), one move longer; a mate in 2 that it needs 12,800
/// playouts for, with 90 first moves it prefers at 1,600 — short but well hidden; and a mate in
/// 5 with 2,864 defences, found only at 51,200 playouts. Each verifies as a puzzle, and the
/// difficulty puts them in that order.
#[test]
fn difficulty_orders_hand_picked_puzzles() {
    let easiest_first = [
        ("..ooxo/.xxxo./o.oo../xxxxox/.ox.xo/o.x...", 3),
        ("x.o.oo/xxooxx/xxxoxo/.xo.x./o.oxox/.o....", 4),
        ("..x..o/.x.x.x/oo.ox./.xxx.o/.xox../ooxoo.", 2),
        ("oooxo./.x.xo./...oxx/xox..x/oxo..x/.o....", 5),
    ];
    let puzzles: Vec<_> = easiest_first
        .par_iter()
        .map(|&(text, mate_in)| {
            let position = text.parse().unwrap();
            let puzzle = PuzzleVerifier::new(18, limits(), 1)
                .verify(&position, 5)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(puzzle.mate_in, mate_in, "{text}");
            puzzle
        })
        .collect();
    for p in &puzzles {
        eprintln!(
            "mate in {}: {} (groups {}, playouts {:?}, tempting {})",
            p.mate_in, p.difficulty, p.reply_groups, p.uct_playouts, p.tempting
        );
    }
    for pair in puzzles.windows(2) {
        assert!(
            pair[0].difficulty < pair[1].difficulty,
            "mate in {} rated {} is not easier than mate in {} rated {}",
            pair[0].mate_in,
            pair[0].difficulty,
            pair[1].mate_in,
            pair[1].difficulty
        );
    }
    // The hidden mate in 2 has lures; the mate in 4 seen at once has none.
    assert!(puzzles[2].tempting > puzzles[1].tempting);
    assert_eq!(difficulty_label(puzzles[0].difficulty), "hard");
    assert_eq!(difficulty_label(puzzles[3].difficulty), "expert");
}
