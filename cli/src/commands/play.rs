//! `pentagrid play`: apply moves in order and print each resulting position.

use anyhow::{Context, Result};
use clap::Args;
use pentago::{MoveNotation, Position};
use serde_json::json;

use crate::input;
use crate::output::outln;

/// Apply moves in order; print `PLY MOVE POSITION STATUS` after each.
#[derive(Args)]
pub struct PlayArgs {
    /// Start from this position instead of the empty board (`-`: positions from standard input,
    /// each played through the same moves).
    #[arg(long, default_value = "start")]
    from: String,
    /// The moves, e.g. `c4-1R d3-2L` (a winning placement may omit the twist: `c4`).
    #[arg(required = true)]
    moves: Vec<String>,
    /// Print one JSON object per move instead.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &PlayArgs) -> Result<()> {
    for position in input::positions(&args.from)? {
        play_moves(args, position)?;
    }
    Ok(())
}

fn play_moves(args: &PlayArgs, mut position: Position) -> Result<()> {
    for text in &args.moves {
        let ply = position.stone_count() + 1;
        let notation: MoveNotation = text.parse().with_context(|| format!("move {ply}"))?;
        let mv = position
            .resolve(notation)
            .and_then(|mv| position.play(mv).map(|next| (mv, next)))
            .with_context(|| format!("move {ply} {text:?} is illegal in {position}"));
        let (mv, next) = mv?;
        position = next;
        if args.json {
            let line = json!({
                "ply": ply,
                "move": mv.to_string(),
                "position": position.to_string(),
                "status": position.status(),
            });
            outln!("{line}");
        } else {
            outln!("{ply} {mv} {position} {}", position.status());
        }
    }
    Ok(())
}
