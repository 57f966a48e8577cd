//! `deep_solve`: the deep solver's speed below 18 stones, and the positions it is measured on.
//!
//! ```text
//! deep_solve positions STONES COUNT SEED    quiet positions of STONES stones from self-play
//!                                           games (UCT, 2,000 playouts a move), one a line
//! deep_solve run FILE [SECONDS] [LEAVES]    solves each position of FILE (a fresh solver each,
//!                                           give up after SECONDS, default 600), writes and
//!                                           checks its certificate, re-solves LEAVES sampled
//!                                           leaves (default 0); per position and a summary
//! ```
//!
//! An example of the engine crate, so that it builds with the engine alone: one thread,
//! `RAYON_NUM_THREADS=1 cargo run --release -p pentago --example deep_solve -- run
//! bench/data/deep-17.txt`, or more (the midsolver's layers run in parallel); BENCHMARKS.md
//! says which profile and how many threads each figure used.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use pentago::{
    Color, DeepLimits, DeepSolver, Player, Position, Solver, Status, check_leaf, play_game,
    splitmix64,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match words[..] {
        ["positions", stones, count, seed] => positions(stones, count, seed),
        ["run", file] => run(file, "600", "0"),
        ["run", file, seconds] => run(file, seconds, "0"),
        ["run", file, seconds, leaves] => run(file, seconds, leaves),
        _ => Err(
            "usage: deep_solve positions STONES COUNT SEED | run FILE [SECONDS] [LEAVES]".into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("deep_solve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// CPU seconds this process has used (user + system, from `/proc/self/stat`; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which ends with the last ')'): utime is the 12th, stime
    // the 13th of those, in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{what} {text:?} is not a number"))
}

/// Self-play games between two UCT players; from each game that reaches `stones` stones with
/// the game going on and no immediate win for the side to move, that position.
fn positions(stones: &str, count: &str, seed: &str) -> Result<(), String> {
    let stones: u32 = number(stones, "STONES")?;
    let count: usize = number(count, "COUNT")?;
    let seed: u64 = number(seed, "SEED")?;
    let player: Player = "uct:playouts=2000"
        .parse()
        .map_err(|e| format!("player: {e}"))?;
    let mut found = 0;
    for game in 0..u64::MAX {
        if found == count {
            break;
        }
        let record = play_game(
            &Position::START,
            &player,
            &player,
            splitmix64(seed ^ game),
            1,
        );
        let mut position = record.start;
        for mv in record.moves {
            if position.stone_count() == stones {
                break;
            }
            position = position.play_unchecked(mv);
        }
        if position.stone_count() == stones
            && position.status() == Status::Ongoing
            && !position.has_immediate_win()
        {
            println!("{position}");
            found += 1;
        }
    }
    Ok(())
}

fn run(file: &str, seconds: &str, leaves: &str) -> Result<(), String> {
    let seconds: f64 = number(seconds, "SECONDS")?;
    let sample: usize = number(leaves, "LEAVES")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let list: Vec<Position> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap_or("").parse())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{file}: {e}"))?;
    println!(
        "position to-move value seconds cpu-s nodes quick midsolved | proof-nodes leaves proof-s check-s leaves-checked leaves-s"
    );
    let mut times = Vec::new();
    let mut cpu_times = Vec::new();
    let mut undecided = 0;
    for position in &list {
        let mut deep = DeepSolver::new(20);
        let limits = DeepLimits {
            max_time: Some(Duration::from_secs_f64(seconds)),
            ..DeepLimits::default()
        };
        let cpu = cpu_seconds();
        let solution = deep.solve(position, limits.clone());
        let cpu = cpu_seconds() - cpu;
        let p = solution.progress;
        times.push(p.seconds);
        cpu_times.push(cpu);
        let mover = match position.side_to_move() {
            Color::Black => "black",
            Color::White => "white",
        };
        let Some(value) = solution.value else {
            undecided += 1;
            println!(
                "{position} {mover} unknown({}) {:.2} {cpu:.2} {} {} {}",
                solution.bounds, p.seconds, p.nodes, p.leaves_quick, p.leaves_midsolved
            );
            continue;
        };
        let started = Instant::now();
        let proof = deep
            .prove(position, limits)
            .map_err(|e| format!("{position}: {e}"))?;
        let proof_s = started.elapsed().as_secs_f64();
        let text = proof.to_text();
        let started = Instant::now();
        let read = pentago::DeepProof::parse(&text).map_err(|e| format!("{position}: {e}"))?;
        read.check().map_err(|e| format!("{position}: {e}"))?;
        let check_s = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let mut solver = Solver::new(20);
        let sampled = read.sample_leaves(sample, 1);
        for (leaf, bounds) in &sampled {
            check_leaf(&mut solver, leaf, *bounds).map_err(|e| format!("{position}: {e}"))?;
        }
        println!(
            "{position} {mover} {value} {:.2} {cpu:.2} {} {} {} | {} {} {:.2} {:.3} {} {:.2}",
            p.seconds,
            p.nodes,
            p.leaves_quick,
            p.leaves_midsolved,
            read.nodes.len(),
            read.leaves().len(),
            proof_s,
            check_s,
            sampled.len(),
            started.elapsed().as_secs_f64()
        );
    }
    times.sort_by(f64::total_cmp);
    cpu_times.sort_by(f64::total_cmp);
    if let (Some(worst), Some(cpu_worst)) = (times.last(), cpu_times.last()) {
        println!(
            "{} positions, {} undecided within {seconds} s; wall median {:.2} s, worst {:.2} s; \
             CPU median {:.2} s, worst {:.2} s",
            list.len(),
            undecided,
            times[times.len() / 2],
            worst,
            cpu_times[cpu_times.len() / 2],
            cpu_worst
        );
    }
    Ok(())
}
