//! Unit tests of the deep solver's bounds and small cases (the data-driven and property tests
//! are in `engine/tests/engine/deep.rs`).

use super::*;

#[test]
fn ranges_negate_meet_and_settle() {
    let r = Range { lo: 0, hi: 1 };
    assert_eq!(r.negate(), Range { lo: -1, hi: 0 });
    assert_eq!(r.meet(Range { lo: -1, hi: 0 }), Range::exact(0));
    assert!(r.settles(-1, 0), "at least 0 answers a null window below 0");
    assert!(!r.settles(0, 1));
    assert!(Range::exact(-1).settles(0, 1));
}

#[test]
fn bounds_read_in_words() {
    assert_eq!(ValueBounds::from_i8(1, 1).to_string(), "win");
    assert_eq!(ValueBounds::from_i8(0, 1).to_string(), "at least draw");
    assert_eq!(ValueBounds::from_i8(-1, 0).to_string(), "at most draw");
    assert_eq!(ValueBounds::from_i8(-1, 1).to_string(), "unknown");
    assert!(ValueBounds::from_i8(0, 1).contains(Value::Win));
    assert!(!ValueBounds::from_i8(0, 1).contains(Value::Loss));
}

#[test]
fn finished_games_and_immediate_wins_need_no_leaves() {
    let over: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
    let s = DeepSolver::new(12).solve(&over, DeepLimits::default());
    assert_eq!(s.value, Some(Value::Loss));
    assert_eq!(s.best, None);
    let win: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
    let mut deep = DeepSolver::new(12);
    let s = deep.solve(&win, DeepLimits::default());
    assert_eq!(s.value, Some(Value::Win));
    assert_eq!(s.progress.leaves_midsolved, 0);
    let proof = deep.prove(&win, DeepLimits::default()).unwrap();
    assert_eq!(proof.nodes.len(), 1);
    assert_eq!(proof.check(), Ok(()));
}

#[test]
fn a_set_stop_flag_stops_before_any_leaf() {
    let stop = Arc::new(AtomicBool::new(true));
    let p: Position = "x.o.../....../..x.o./....../.o..x./......".parse().unwrap();
    let s = DeepSolver::new(12).solve(
        &p,
        DeepLimits {
            stop: Some(stop),
            ..DeepLimits::default()
        },
    );
    assert_eq!(s.value, None);
    assert_eq!(s.bounds, ValueBounds::from_i8(-1, 1));
    assert_eq!(s.progress.leaves_midsolved, 0);
}
