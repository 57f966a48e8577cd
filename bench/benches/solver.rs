//! Exact solver and checkmate search over the reference positions of `../shared/data`:
//! median and worst time per stone count, one core. Run with
//! `cargo bench -p pentagrid-bench --bench solver` (about two minutes).

use std::collections::BTreeMap;
use std::time::Instant;

use pentago::{MateSearch, Position, SolveLimits, Solver};

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    let text = std::fs::read_to_string(path).expect("../shared/data beside the repository");
    let positions: Vec<(Position, i8)> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (p, v) = l.split_once(' ')?;
            Some((p.parse().ok()?, v.trim().parse().ok()?))
        })
        .collect();
    let mut solve_times: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut mate_times: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut wrong = 0;
    for (position, expected) in &positions {
        // A fresh solver per position: no help from earlier positions' tables.
        let mut solver = Solver::new(22);
        let solution = solver.solve(position, SolveLimits::default());
        if solution.value.map(|v| v.as_i8()) != Some(*expected) {
            wrong += 1;
        }
        let stones = position.stone_count();
        solve_times
            .entry(stones)
            .or_default()
            .push(solution.seconds);
        let started = Instant::now();
        let _ = MateSearch::new().find(position, 5);
        mate_times
            .entry(stones)
            .or_default()
            .push(started.elapsed().as_secs_f64());
    }
    println!("{} positions, {wrong} wrong", positions.len());
    println!(
        "| stones | positions | solve median | solve worst | mate-in-5 median | mate-in-5 worst |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (stones, times) in &mut solve_times {
        let mates = mate_times.get_mut(stones).expect("same keys");
        println!(
            "| {stones} | {} | {} | {} | {} | {} |",
            times.len(),
            show(median(times)),
            show(worst(times)),
            show(median(mates)),
            show(worst(mates)),
        );
    }
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
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
