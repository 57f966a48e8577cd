//! The retrograde midsolver, one core: median and worst time (wall clock and CPU) per stone
//! count over random positions, the process's peak memory after each stone count (checked against the 600 MB
//! budget at 18 stones), and the hybrid solver over every reference position. Run with
//! `RAYON_NUM_THREADS=1 cargo bench -p pentagrid-bench --bench midsolver` (about ten minutes);
//! `MID_STONES=22,24` and `MID_POSITIONS=5` narrow it down.

use std::time::Instant;

use pentago::{Position, SolveLimits, Solver, midsolve};
use rand::{RngExt, SeedableRng};

/// The peak memory budget at 18 stones.
const BUDGET_18: u64 = 600_000_000;

fn main() {
    let stones: Vec<u32> = std::env::var("MID_STONES")
        .unwrap_or_else(|_| "26,24,22,21,20,19,18".into())
        .split(',')
        .map(|s| s.trim().parse().expect("MID_STONES: stone counts"))
        .collect();
    let count: u64 =
        std::env::var("MID_POSITIONS").map_or(20, |s| s.parse().expect("MID_POSITIONS: a number"));
    println!(
        "| stones | positions | median | worst | CPU median | CPU worst | peak table bytes | peak RSS |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut over_budget = false;
    for &n in &stones {
        let mut rng = rand_pcg::Pcg32::seed_from_u64(u64::from(n));
        let mut times = Vec::new();
        let mut cpu_times = Vec::new();
        let mut table_bytes = 0;
        for _ in 0..count {
            let position = random_position(n, &mut rng);
            let cpu_before = cpu_seconds();
            let solution = midsolve(&position).expect("18+ stones");
            times.push(solution.seconds);
            table_bytes = table_bytes.max(solution.table_bytes);
            cpu_times.push(cpu_seconds() - cpu_before);
        }
        times.sort_by(f64::total_cmp);
        cpu_times.sort_by(f64::total_cmp);
        let peak = peak_rss();
        println!(
            "| {n} | {count} | {:.3} s | {:.3} s | {:.3} s | {:.3} s | {} MB | {} MB |",
            times[times.len() / 2],
            times[times.len() - 1],
            cpu_times[cpu_times.len() / 2],
            cpu_times[cpu_times.len() - 1],
            table_bytes / 1_000_000,
            peak.map_or("?".into(), |b| (b / 1_000_000).to_string()),
        );
        if n == 18 {
            let peak = peak.expect("peak memory from /proc/self/status");
            over_budget = peak > BUDGET_18;
        }
    }
    if std::env::var("MID_SKIP_REFERENCE").is_err() {
        reference_total();
    }
    if over_budget {
        eprintln!("peak memory at 18 stones is over the {BUDGET_18} B budget");
        std::process::exit(1);
    }
}

/// The hybrid solver over the 420 reference positions: total time, all values checked.
fn reference_total() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    let text = std::fs::read_to_string(path).expect("../shared/data beside the repository");
    let started = Instant::now();
    let cpu_before = cpu_seconds();
    let mut solver = Solver::new(22);
    let mut positions = 0;
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let (position, value) = line.split_once(' ').expect("position and value");
        let position: Position = position.parse().expect("a position");
        let solution = solver.solve(&position, SolveLimits::default());
        let expected: i8 = value.trim().parse().expect("a value");
        assert_eq!(
            solution.value.map(|v| v.as_i8()),
            Some(expected),
            "{position}"
        );
        positions += 1;
    }
    println!(
        "hybrid solver, {positions} reference positions: {:.2} s in all ({:.2} s CPU), every value right",
        started.elapsed().as_secs_f64(),
        cpu_seconds() - cpu_before
    );
}

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

/// The process's peak resident memory in bytes (Linux), if known.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU seconds used by all the process's threads so far (Linux scheduler statistics, in
/// nanoseconds): on a machine shared with other work, wall-clock time overstates the cost.
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let nanos: u64 = tasks
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum();
    nanos as f64 / 1e9
}
