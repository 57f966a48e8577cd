//! `pentagrid perft`: count move sequences of a given length.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use pentago::{PerftCounts, Position, perft};
use serde_json::json;

use crate::input;
use crate::output::outln;

/// Count the move sequences of exactly DEPTH moves (every square, quadrant and direction counts;
/// a move that ends the game is not continued), and those that end the game within DEPTH.
#[derive(Args)]
pub struct PerftArgs {
    /// Number of moves.
    depth: u32,
    /// Start from this position instead of the empty board (`-`: positions from standard input).
    #[arg(long, default_value = "start")]
    from: String,
    /// Also print the counts below each first move.
    #[arg(long)]
    divide: bool,
    /// Threads (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &PerftArgs) -> Result<()> {
    let pool = super::thread_pool(args.threads)?;
    for position in input::positions(&args.from)? {
        run_one(args, &pool, &position)?;
    }
    Ok(())
}

fn run_one(args: &PerftArgs, pool: &rayon::ThreadPool, position: &Position) -> Result<()> {
    let position = *position;
    let started = Instant::now();
    let (total, divided) = pool.install(|| {
        let divided: Vec<(String, PerftCounts)> = if args.divide && args.depth > 0 {
            position
                .legal_moves()
                .iter()
                .map(|&mv| {
                    (
                        mv.to_string(),
                        perft(&position.play_unchecked(mv), args.depth - 1),
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        (perft(&position, args.depth), divided)
    });
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let divide: serde_json::Map<String, serde_json::Value> = divided
            .iter()
            .map(|(mv, counts)| (mv.clone(), json!(counts)))
            .collect();
        let line = json!({
            "position": position.to_string(),
            "depth": args.depth,
            "sequences": total.sequences,
            "finished": total.finished,
            "seconds": seconds,
            "divide": divide,
        });
        outln!("{line}");
    } else {
        for (mv, counts) in &divided {
            outln!("{mv} {} {}", counts.sequences, counts.finished);
        }
        outln!(
            "depth {}: {} sequences, {} finished games",
            args.depth,
            total.sequences,
            total.finished
        );
        outln!("time {seconds:.3} s");
    }
    Ok(())
}
