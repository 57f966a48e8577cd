//! `pentagrid solve`: the exact value and a best move of positions.

use std::time::Duration;

use anyhow::{Result, ensure};
use clap::Args;
use pentago::{SolveLimits, Solver};
use serde_json::json;

use crate::input;

/// Solve positions exactly: win, draw or loss for the side to move, with a best move.
#[derive(Args)]
pub struct SolveArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Give up (value "unknown") after this many nodes.
    #[arg(long, default_value_t = 200_000_000)]
    max_nodes: u64,
    /// Give up after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// Transposition table size: 2^BITS entries of 16 bytes.
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(10..=32))]
    table_bits: u32,
    /// Print JSON (one object per position).
    #[arg(long)]
    json: bool,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    ensure!(args.max_nodes > 0, "--max-nodes must be at least 1");
    let max_time = args
        .seconds
        .map(|s| {
            ensure!(
                s > 0.0 && s <= 1e6,
                "--seconds must be more than 0 and at most 1000000"
            );
            Ok(Duration::from_secs_f64(s))
        })
        .transpose()?;
    let limits = SolveLimits {
        max_nodes: args.max_nodes,
        max_time,
    };
    let positions = input::positions(&args.position)?;
    let mut solver = Solver::new(args.table_bits);
    for position in positions {
        let solution = solver.solve(&position, limits);
        let value = solution.value.map_or("unknown", |v| v.name());
        if args.json {
            let line = json!({
                "position": position.to_string(),
                "to_move": position.side_to_move(),
                "solution": solution,
            });
            println!("{line}");
        } else {
            let best = solution
                .best
                .map_or_else(|| "-".to_owned(), |m| m.to_string());
            println!(
                "{position} {value} best {best} nodes {} time {:.3}s",
                solution.nodes, solution.seconds
            );
        }
    }
    Ok(())
}
