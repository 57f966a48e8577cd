//! Exact solver and checkmate search over the reference positions of `../shared/data`, one core,
//! a fresh solver per position. Three reports, chosen by the first argument:
//! - `hybrid` (the default): the hybrid solver's median and worst time per stone count, which
//!   method decided, and a checkmate search to n = 5;
//! - `ordering`: alpha-beta alone with each move ordering (nodes and time per stone count);
//! - `first-attempt`: the hybrid with several first-attempt node budgets (total and median time).
//!
//! `cargo bench -p pentagrid-bench --bench solver -- [hybrid|ordering|first-attempt]`

use std::collections::BTreeMap;
use std::time::Instant;

use pentago::{MateSearch, MoveOrdering, Position, SolveLimits, SolveMethod, Solver};

/// Nodes alpha-beta alone may spend on one position in the ordering report (a position over
/// it counts as unsolved, at the cap).
const ORDERING_NODE_CAP: u64 = 20_000_000;

fn main() {
    let positions = reference_positions();
    match std::env::args().nth(1).as_deref() {
        None | Some("hybrid" | "--bench") => hybrid(&positions),
        Some("ordering") => ordering(&positions),
        Some("first-attempt") => first_attempt(&positions),
        Some(other) => {
            eprintln!("unknown report {other:?}: expected hybrid, ordering or first-attempt");
            std::process::exit(2);
        }
    }
}

fn reference_positions() -> Vec<(Position, i8)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    let text = std::fs::read_to_string(path).expect("../shared/data beside the repository");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (p, v) = l.split_once(' ')?;
            Some((p.parse().ok()?, v.trim().parse().ok()?))
        })
        .collect()
}

fn hybrid(positions: &[(Position, i8)]) {
    let mut solve_times: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut mate_times: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut by_midsolver: BTreeMap<u32, usize> = BTreeMap::new();
    let mut wrong = 0;
    for (position, expected) in positions {
        let solution = Solver::new(22).solve(position, SolveLimits::default());
        if solution.value.map(|v| v.as_i8()) != Some(*expected) {
            wrong += 1;
        }
        let stones = position.stone_count();
        solve_times
            .entry(stones)
            .or_default()
            .push(solution.seconds);
        *by_midsolver.entry(stones).or_default() +=
            usize::from(solution.method == SolveMethod::Midsolver);
        let started = Instant::now();
        let _ = MateSearch::new().find(position, 5);
        mate_times
            .entry(stones)
            .or_default()
            .push(started.elapsed().as_secs_f64());
    }
    println!("{} positions, {wrong} wrong", positions.len());
    println!(
        "| stones | positions | by midsolver | solve median | solve worst | mate-in-5 median | mate-in-5 worst |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (stones, times) in &mut solve_times {
        let mates = mate_times.get_mut(stones).expect("same keys");
        println!(
            "| {stones} | {} | {} | {} | {} | {} | {} |",
            times.len(),
            by_midsolver[stones],
            show(median(times)),
            show(worst(times)),
            show(median(mates)),
            show(worst(mates)),
        );
    }
}

/// Nodes and seconds, one entry per position.
type Samples = (Vec<f64>, Vec<f64>);

/// Per stone count: nodes and seconds of alpha-beta alone, for each ordering.
fn ordering(positions: &[(Position, i8)]) {
    let orderings = [MoveOrdering::Threats, MoveOrdering::Evaluation];
    let mut rows: BTreeMap<u32, [Samples; 2]> = BTreeMap::new();
    let mut unsolved = [0usize; 2];
    let mut totals = [0.0f64; 2];
    for (position, expected) in positions {
        let row = rows.entry(position.stone_count()).or_default();
        for (i, &order) in orderings.iter().enumerate() {
            let limits = SolveLimits {
                max_nodes: ORDERING_NODE_CAP,
                max_time: None,
            };
            let solution = Solver::new(22)
                .with_ordering(order)
                .alpha_beta(position, limits);
            match solution.value {
                Some(v) => assert_eq!(v.as_i8(), *expected, "wrong value for {position}"),
                None => unsolved[i] += 1,
            }
            row[i].0.push(solution.nodes as f64);
            row[i].1.push(solution.seconds);
            totals[i] += solution.seconds;
        }
    }
    println!(
        "alpha-beta alone, node cap {ORDERING_NODE_CAP}: threats {:.1} s in all ({} unsolved), \
         evaluation {:.1} s in all ({} unsolved)",
        totals[0], unsolved[0], totals[1], unsolved[1]
    );
    println!(
        "| stones | positions | nodes median (threats) | nodes median (evaluation) | time median (threats) | time median (evaluation) | time worst (threats) | time worst (evaluation) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (stones, [threats, evaluation]) in &mut rows {
        println!(
            "| {stones} | {} | {:.0} | {:.0} | {} | {} | {} | {} |",
            threats.0.len(),
            median(&mut threats.0),
            median(&mut evaluation.0),
            show(median(&mut threats.1)),
            show(median(&mut evaluation.1)),
            show(worst(&threats.1)),
            show(worst(&evaluation.1)),
        );
    }
}

/// The hybrid with several first-attempt budgets: total time, median, and how many positions
/// the midsolver decided.
fn first_attempt(positions: &[(Position, i8)]) {
    println!("| first attempt (nodes) | total | median | worst | by midsolver |");
    println!("| --- | --- | --- | --- | --- |");
    for budget in [2_000, 20_000, 200_000, 2_000_000] {
        let mut times = Vec::with_capacity(positions.len());
        let mut by_midsolver = 0;
        for (position, expected) in positions {
            let solution = Solver::new(22)
                .with_first_attempt_nodes(budget)
                .solve(position, SolveLimits::default());
            assert_eq!(
                solution.value.map(|v| v.as_i8()),
                Some(*expected),
                "wrong value for {position}"
            );
            by_midsolver += usize::from(solution.method == SolveMethod::Midsolver);
            times.push(solution.seconds);
        }
        let total: f64 = times.iter().sum();
        println!(
            "| {budget} | {total:.1} s | {} | {} | {by_midsolver} |",
            show(median(&mut times)),
            show(worst(&times)),
        );
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn worst(times: &[f64]) -> f64 {
    times.iter().copied().fold(0.0, f64::max)
}

fn show(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else {
        format!("{:.2} ms", seconds * 1000.0)
    }
}
