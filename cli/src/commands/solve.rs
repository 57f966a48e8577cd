//! `pentagrid solve`: the exact value and a best move of positions, which method decided, and
//! on request the value of every move.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use clap::Args;
use pentago::{Move, Position, SolveLimits, Solver, Value, move_groups, prove};
use serde_json::json;

use crate::input;
use crate::output::{errln, outln};

/// Solve positions exactly: win, draw or loss for the side to move, with a best move.
#[derive(Args)]
pub struct SolveArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Give up (value "unknown") after this many alpha-beta nodes (below the midsolver's 18
    /// stones; from there on the midsolver always decides).
    #[arg(long, default_value_t = 200_000_000)]
    max_nodes: u64,
    /// Give up after this many seconds (alpha-beta only, as --max-nodes).
    #[arg(long)]
    seconds: Option<f64>,
    /// Transposition table size: 2^BITS entries of 16 bytes.
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(10..=32))]
    table_bits: u32,
    /// Also print the exact value of every move (moves reaching the same position grouped).
    #[arg(long)]
    moves: bool,
    /// Write a proof DAG of the win to FILE (one position, which the side to move must win);
    /// check it with `pentagrid check-proof FILE`.
    #[arg(long, value_name = "FILE")]
    proof: Option<PathBuf>,
    /// Refuse to write a proof with more nodes than this.
    #[arg(long, default_value_t = 1_000_000, requires = "proof")]
    max_proof_nodes: usize,
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
    if let Some(path) = &args.proof {
        ensure!(
            positions.len() == 1,
            "--proof takes one position, not a list"
        );
        ensure!(
            args.max_proof_nodes > 0,
            "--max-proof-nodes must be at least 1"
        );
        let proof = prove(&positions[0], &mut solver, limits, args.max_proof_nodes)
            .with_context(|| format!("no proof for {}", positions[0]))?;
        std::fs::write(path, proof.to_text())
            .with_context(|| format!("writing the proof to {}", path.display()))?;
        errln!(
            "proof of {} nodes written to {}",
            proof.nodes.len(),
            path.display()
        );
    }
    for position in positions {
        let solution = solver.solve(&position, limits);
        let moves = if args.moves && !position.is_over() {
            grouped_values(&position, &solver.solve_moves(&position, limits))
        } else {
            Vec::new()
        };
        let value = solution.value.map_or("unknown", |v| v.name());
        if args.json {
            let mut line = json!({
                "position": position.to_string(),
                "to_move": position.side_to_move(),
                "solution": solution,
            });
            if args.moves {
                line["moves"] = moves
                    .iter()
                    .map(|(group, value)| {
                        let names: Vec<String> = group.iter().map(Move::to_string).collect();
                        json!({"moves": names, "value": value})
                    })
                    .collect();
            }
            outln!("{line}");
        } else {
            let best = solution
                .best
                .map_or_else(|| "-".to_owned(), |m| m.to_string());
            outln!(
                "{position} {value} best {best} by {} nodes {} time {:.3}s",
                solution.method.name(),
                solution.nodes,
                solution.seconds
            );
            for (group, value) in &moves {
                let names: Vec<String> = group.iter().map(Move::to_string).collect();
                let value = value.map_or("unknown", |v| v.name());
                outln!("  {value:<7} {}", names.join(" "));
            }
        }
    }
    Ok(())
}

/// The moves grouped by the position they reach (see [`move_groups`]), best value first, each
/// group with its value (unknown where the search hit the limits).
fn grouped_values(
    position: &Position,
    values: &[(Move, Option<Value>)],
) -> Vec<(Vec<Move>, Option<Value>)> {
    let mut groups: Vec<(Vec<Move>, Option<Value>)> = move_groups(position, false)
        .into_iter()
        .map(|group| {
            let value = values
                .iter()
                .find(|(m, _)| *m == group[0])
                .and_then(|v| v.1);
            (group, value)
        })
        .collect();
    groups.sort_by_key(|(_, value)| std::cmp::Reverse(value.map(Value::as_i8)));
    groups
}
