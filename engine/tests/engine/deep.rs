//! The deep solver against the hybrid solver, the reference values and brute force, and its
//! certificates against tampering.

use crate::support;

use std::collections::HashMap;

use pentago::{
    CertificateError, DeepLimits, DeepNode, DeepProof, DeepSolver, LeafTable, Position,
    ProofLeafError, SolveLimits, Solver, Status, Value, ValueBounds, check_leaf,
};
use proptest::prelude::*;
use support::{random_position, solved_positions};

/// A deep solver whose leaves start `plies` stones above `position` (so its top search is that
/// deep), for positions the hybrid solves quickly.
fn deep_above(position: &Position, plies: u32) -> DeepSolver {
    DeepSolver::new(18).with_leaf_stones(position.stone_count() + plies)
}

/// Exact value by plain minimax over every legal move, memoised by position.
fn brute_force(position: &Position, memo: &mut HashMap<u64, i8>) -> i8 {
    if let Some(&v) = memo.get(&position.key().0) {
        return v;
    }
    let mover = position.side_to_move();
    let best = position
        .legal_moves()
        .iter()
        .map(|&mv| {
            let child = position.play_unchecked(mv);
            match Value::of_status(child.status(), mover) {
                Some(v) => v.as_i8(),
                None => -brute_force(&child, memo),
            }
        })
        .max()
        .unwrap_or(0);
    memo.insert(position.key().0, best);
    best
}

/// A position of `stones` stones reached by random moves, the game still going.
fn ongoing(seed: u64, stones: u32) -> Option<Position> {
    let p = random_position(seed, stones);
    (p.status() == Status::Ongoing && p.stone_count() == stones).then_some(p)
}

#[test]
fn agrees_with_the_reference_values_and_the_hybrid() {
    let mut hybrid = Solver::new(18);
    let mut checked = 0;
    for (position, expected) in solved_positions()
        .into_iter()
        .filter(|(p, _)| p.stone_count() >= 24)
        .take(40)
    {
        let mut deep = deep_above(&position, 2);
        let solution = deep.solve(&position, DeepLimits::default());
        assert_eq!(
            solution.value.map(Value::as_i8),
            Some(expected),
            "{position}"
        );
        assert_eq!(
            hybrid.solve(&position, SolveLimits::default()).value,
            solution.value
        );
        let best = solution.best.expect("ongoing");
        let after = position.play(best).unwrap();
        let after_value = Value::of_status(after.status(), position.side_to_move())
            .or_else(|| Some(hybrid.solve(&after, SolveLimits::default()).value?.negate()));
        assert_eq!(after_value, solution.value, "{position} {best}");
        let proof = deep.prove(&position, DeepLimits::default()).unwrap();
        assert_eq!(proof.check(), Ok(()), "{position}");
        checked += 1;
    }
    assert_eq!(checked, 40);
}

#[test]
fn seventeen_stone_parents_agree_with_the_hybrid_on_their_children() {
    // From a self-play game (bench/data/deep-17.txt): decided by the deep solver with 18-stone midsolver leaves;
    // its best move's child, solved by the hybrid (the midsolver), must have the opposite value.
    let position: Position = ".o..../xxx.oo/.x.xo./..x.x./.xoxoo/..o...".parse().unwrap();
    assert_eq!(position.stone_count(), 17);
    let mut deep = DeepSolver::new(18);
    let solution = deep.solve(&position, DeepLimits::default());
    let value = solution.value.expect("decided");
    let child = position.play(solution.best.unwrap()).unwrap();
    let child_value = match Value::of_status(child.status(), position.side_to_move()) {
        Some(v) => v,
        None => Solver::new(18)
            .solve(&child, SolveLimits::default())
            .value
            .unwrap()
            .negate(),
    };
    assert_eq!(child_value, value);
    let proof = deep.prove(&position, DeepLimits::default()).unwrap();
    assert_eq!(proof.check(), Ok(()));
    for (leaf, bounds) in proof.sample_leaves(3, 7) {
        assert!(check_leaf(&mut Solver::new(18), &leaf, bounds).is_ok());
    }
}

#[test]
fn stopped_searches_say_unknown_and_resume_from_their_leaves() {
    let (position, expected) = solved_positions()
        .into_iter()
        .find(|(p, v)| p.stone_count() == 24 && *v == 0)
        .expect("a drawn 24-stone reference position");
    let mut deep = DeepSolver::new(18).with_leaf_stones(27);
    let limits = DeepLimits {
        max_midsolves: Some(0),
        ..DeepLimits::default()
    };
    let stopped = deep.solve(&position, limits);
    if stopped.value.is_none() {
        assert!(stopped.bounds.lower < stopped.bounds.upper);
        assert!(stopped.bounds.contains(Value::Draw));
    }
    let saved = LeafTable::parse(&deep.leaves().to_text()).unwrap();
    assert_eq!(&saved, deep.leaves());
    let mut resumed = DeepSolver::new(18).with_leaf_stones(27).with_leaves(saved);
    let solution = resumed.solve(&position, DeepLimits::default());
    assert_eq!(solution.value.map(Value::as_i8), Some(expected));
    assert!(solution.progress.leaves_reused > 0 || stopped.value.is_some());
}

#[test]
fn the_frontier_lists_open_leaves_and_learning_them_decides() {
    let (position, expected) = solved_positions()
        .into_iter()
        .find(|(p, _)| p.stone_count() == 26)
        .unwrap();
    let mut deep = deep_above(&position, 1);
    let mut hybrid = Solver::new(18);
    for _ in 0..200 {
        let frontier = deep.frontier(&position, 4);
        if let Some(v) = frontier.bounds.exact() {
            assert_eq!(v.as_i8(), expected);
            return;
        }
        assert!(!frontier.leaves.is_empty(), "open bounds need open leaves");
        for leaf in frontier.leaves {
            let value = hybrid.solve(&leaf, SolveLimits::default()).value.unwrap();
            deep.learn(&leaf, value).unwrap();
        }
    }
    panic!("the frontier never closed");
}

/// A proof of a reference position whose side to move wins in more than one move.
fn won_proof() -> DeepProof {
    let (position, _) = solved_positions()
        .into_iter()
        .filter(|(p, v)| *v == 1 && p.stone_count() == 24 && p.winning_move().is_none())
        .find(|(p, _)| {
            let proof = deep_above(p, 2).prove(p, DeepLimits::default()).unwrap();
            proof.leaves().len() > 2
        })
        .unwrap();
    deep_above(&position, 2)
        .prove(&position, DeepLimits::default())
        .unwrap()
}

#[test]
fn tampered_certificates_are_rejected_with_the_reason() {
    let proof = won_proof();
    assert_eq!(proof.check(), Ok(()));
    assert_eq!(DeepProof::parse(&proof.to_text()), Ok(proof.clone()));

    // A wrong leaf value: the rules accept the DAG, re-solving the leaf does not.
    let mut solver = Solver::new(18);
    let (leaf, claimed) = proof.leaves()[0];
    let actual = check_leaf(&mut solver, &leaf, claimed).unwrap();
    let wrong = ValueBounds {
        lower: actual.negate(),
        upper: actual.negate(),
    };
    if actual != Value::Draw {
        assert!(matches!(
            check_leaf(&mut solver, &leaf, wrong),
            Err(ProofLeafError::Contradicted { .. })
        ));
    }

    // A missing defender reply: drop a node that an `all` node's reply needs.
    let at = proof
        .nodes
        .iter()
        .rposition(|n| !matches!(n, DeepNode::All { .. }))
        .unwrap();
    let mut missing = proof.clone();
    missing.nodes.remove(at);
    assert!(
        matches!(
            missing.check(),
            Err(CertificateError::MissingReply { .. } | CertificateError::MissingDefence { .. })
        ),
        "{:?}",
        missing.check()
    );

    // A leaf that is not a legal descendant: an extra position the proof never reaches.
    let stranger: Position = solved_positions()
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| p.stone_count() >= 18 && p.canonical().position == *p)
        .unwrap();
    let mut extra = proof.clone();
    extra.nodes.push(DeepNode::Leaf {
        position: stranger,
        bounds: ValueBounds {
            lower: Value::Win,
            upper: Value::Win,
        },
    });
    assert_eq!(extra.check(), Err(CertificateError::Unreachable(stranger)));

    // A leaf swapped for a stranger: the reply that led to it is no longer answered.
    let mut swapped = proof.clone();
    let leaf_at = swapped
        .nodes
        .iter()
        .position(|n| matches!(n, DeepNode::Leaf { .. }))
        .unwrap();
    swapped.nodes[leaf_at] = DeepNode::Leaf {
        position: stranger,
        bounds: claimed,
    };
    assert!(swapped.check().is_err());

    // A claim the root's nodes do not prove.
    let mut overclaim = proof.clone();
    overclaim.value = Value::Draw;
    assert!(matches!(
        overclaim.check(),
        Err(CertificateError::RootNotProven { .. })
    ));
}

#[test]
fn version_one_proofs_are_still_read_and_checked() {
    let position: Position = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox".parse().unwrap();
    let v1 = pentago::prove(
        &position,
        &mut Solver::new(18),
        SolveLimits::default(),
        100_000,
    )
    .unwrap();
    let read = DeepProof::parse(&v1.to_text()).unwrap();
    assert_eq!(read.value, Value::Win);
    assert_eq!(read.nodes.len(), v1.nodes.len());
    assert_eq!(read.check(), Ok(()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Late random positions: the deep solver (leaves two or three plies down, solved by the
    /// hybrid) agrees with plain minimax, and its certificate checks.
    #[test]
    fn agrees_with_brute_force(seed in any::<u64>(), stones in 30u32..33, plies in 2u32..4) {
        let Some(position) = ongoing(seed, stones) else { return Ok(()) };
        let expected = brute_force(&position, &mut HashMap::new());
        let mut deep = deep_above(&position, plies.min(35 - stones));
        let solution = deep.solve(&position, DeepLimits::default());
        prop_assert_eq!(solution.value.map(Value::as_i8), Some(expected));
        let proof = deep.prove(&position, DeepLimits::default()).unwrap();
        prop_assert_eq!(proof.check(), Ok(()));
        prop_assert_eq!(DeepProof::parse(&proof.to_text()), Ok(proof.clone()));
        let mut solver = Solver::new(16);
        for (leaf, bounds) in proof.leaves() {
            prop_assert!(check_leaf(&mut solver, &leaf, bounds).is_ok());
        }
    }

    /// Any text either parses as a proof or fails with a format error, never a panic; what
    /// parses either checks or fails with a reason.
    #[test]
    fn any_text_is_refused_cleanly(text in "\\PC{0,300}") {
        for header in ["pentagrid-proof 2\nroot ", "pentagrid-proof 1\n", ""] {
            if let Ok(proof) = DeepProof::parse(&format!("{header}{text}")) {
                let _ = proof.check();
            }
        }
    }
}
