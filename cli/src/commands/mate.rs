//! `pentagrid mate`: the shortest checkmate by continuous checks, with its proof tree.

use anyhow::{Result, ensure};
use clap::Args;
use pentago::{AttackNode, MAX_MATE_MOVES, MateSearch};
use serde_json::json;

use crate::input;
use crate::output::outln;

/// Find the shortest checkmate (a win by continuous checks) within N moves and print its proof
/// tree; `--all` lists every first move that mates within N.
#[derive(Args)]
pub struct MateArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Most attacker moves (1 to 15).
    #[arg(long)]
    max_moves: u32,
    /// List every mating first move with its length.
    #[arg(long)]
    all: bool,
    /// Print JSON: the proof tree in its stable format (null when there is no mate).
    #[arg(long)]
    json: bool,
}

pub fn run(args: &MateArgs) -> Result<()> {
    ensure!(
        (1..=MAX_MATE_MOVES).contains(&args.max_moves),
        "--max-moves must be from 1 to {MAX_MATE_MOVES}"
    );
    let positions = input::positions(&args.position)?;
    let mut search = MateSearch::new();
    for position in positions {
        let started = std::time::Instant::now();
        let proof = search.find(&position, args.max_moves);
        let all = if args.all {
            search.mating_moves(&position, args.max_moves)
        } else {
            Vec::new()
        };
        let seconds = started.elapsed().as_secs_f64();
        if args.json {
            let mut line =
                json!({ "position": position.to_string(), "proof": proof, "seconds": seconds });
            if args.all {
                line["mating_moves"] = all
                    .iter()
                    .map(|(mv, n)| json!({ "move": mv.to_string(), "mate_in": n }))
                    .collect();
            }
            outln!("{line}");
            continue;
        }
        outln!("position {position}");
        match &proof {
            None => outln!("no mate within {}", args.max_moves),
            Some(proof) => {
                outln!(
                    "{} mates in {}: {}",
                    position.side_to_move(),
                    proof.mate_in,
                    proof.first_move()
                );
                let line: Vec<String> = proof.main_line().iter().map(ToString::to_string).collect();
                outln!("main line {}", line.join(" "));
                print_tree(&proof.tree, 0)?;
            }
        }
        if args.all {
            let moves: Vec<String> = all
                .iter()
                .map(|(mv, n)| format!("{mv} (mate in {n})"))
                .collect();
            outln!(
                "mating moves: {}",
                if moves.is_empty() {
                    "none".to_owned()
                } else {
                    moves.join(", ")
                }
            );
        }
        outln!("time {seconds:.3}s");
    }
    Ok(())
}

/// The tree as indented lines: the attacker's move, then each group of defender replies.
fn print_tree(node: &AttackNode, depth: usize) -> Result<()> {
    let indent = "  ".repeat(depth);
    if node.replies.is_empty() {
        outln!("{indent}{} wins", node.mv);
        return Ok(());
    }
    outln!("{indent}{} (check)", node.mv);
    for reply in &node.replies {
        let shown: Vec<String> = reply
            .moves
            .iter()
            .take(3)
            .map(ToString::to_string)
            .collect();
        let more = reply.moves.len().saturating_sub(3);
        let moves = if more > 0 {
            format!("{} +{more}", shown.join(" "))
        } else {
            shown.join(" ")
        };
        match &reply.then {
            None => outln!("{indent}  {moves}: loses at once"),
            Some(next) if next.replies.is_empty() => {
                outln!("{indent}  {moves}: {} wins", next.mv)
            }
            Some(next) => {
                outln!("{indent}  {moves}:");
                print_tree(next, depth + 2)?;
            }
        }
    }
    Ok(())
}
