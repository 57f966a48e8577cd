//! `board_budget FILE`: what the analysis board's default solver budget settles on the
//! positions of FILE (one a line, `#` comments), as the board's own pool would solve them.
//!
//! For each position: its stones, how many of its moves the solve valued within the budget,
//! and the seconds it took; then a summary (positions settled whole, moves valued, median and
//! largest time). Run `cargo build --workspace --examples` and then
//! `target/debug/examples/board_budget bench/data/deep-17.txt` (the engine is optimised even in
//! that profile); BENCHMARKS.md says which build each figure used.

use std::process::ExitCode;

use pentago::Position;
use pentagrid_web::{SolverPool, SolverSettings};

fn main() -> ExitCode {
    let Some(file) = std::env::args().nth(1) else {
        eprintln!("usage: board_budget FILE");
        return ExitCode::FAILURE;
    };
    match run(&file) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("board_budget: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The positions of `file`, each checked.
fn positions(file: &str) -> Result<Vec<Position>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    text.lines()
        .enumerate()
        .map(|(at, line)| (at + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            line.parse::<Position>()
                .map_err(|e| format!("{file}:{number}: {e}"))
        })
        .collect()
}

fn run(file: &str) -> Result<(), String> {
    let positions = positions(file)?;
    let settings = SolverSettings::default();
    println!(
        "budget: {} nodes, {:?}, table 2^{} entries, one thread",
        settings.limits.max_nodes, settings.limits.max_time, settings.table_bits
    );
    let pool = SolverPool::start(settings).map_err(|e| format!("cannot start the pool: {e}"))?;
    let mut seconds = Vec::new();
    let (mut whole, mut valued, mut moves) = (0, 0, 0);
    for position in &positions {
        let answer = pool
            .submit(*position)
            .map_err(|e| e.to_string())?
            .blocking_recv()
            .map_err(|_| "the solver thread failed".to_string())?;
        let settled = answer.moves.iter().filter(|(_, v)| v.is_some()).count();
        println!(
            "{position}  stones {:>2}  moves valued {settled:>3}/{:<3}  {:>6.2} s  {:?}",
            position.stone_count(),
            answer.moves.len(),
            answer.seconds,
            answer.method
        );
        whole += usize::from(settled == answer.moves.len());
        valued += settled;
        moves += answer.moves.len();
        seconds.push(answer.seconds);
    }
    seconds.sort_by(f64::total_cmp);
    let median = seconds.get(seconds.len() / 2).copied().unwrap_or(0.0);
    let largest = seconds.last().copied().unwrap_or(0.0);
    println!(
        "settled whole: {whole}/{}; moves valued: {valued}/{moves}; median {median:.2} s, largest {largest:.2} s",
        positions.len()
    );
    Ok(())
}
