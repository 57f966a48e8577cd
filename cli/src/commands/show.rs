//! `pentagrid show`: a diagram of a position with its side to move and status.

use anyhow::Result;
use clap::Args;
use pentago::Position;
use serde_json::json;

use crate::input;
use crate::output::outln;

/// Show a position as a diagram (quadrant borders drawn), with side to move and status.
#[derive(Args)]
pub struct ShowArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Print JSON (one object per position) instead of a diagram.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &ShowArgs) -> Result<()> {
    for position in input::positions(&args.position)? {
        if args.json {
            outln!("{}", describe(&position));
        } else {
            outln!("{}", diagram(&position));
        }
    }
    Ok(())
}

fn describe(position: &Position) -> serde_json::Value {
    json!({
        "position": position.to_string(),
        "to_move": position.side_to_move(),
        "status": position.status(),
        "stones": position.stone_count(),
        "canonical": position.canonical().position.to_string(),
    })
}

/// The board with files and ranks labelled and the four quadrants boxed, then who moves.
fn diagram(position: &Position) -> String {
    let mut out = position.diagram();
    let status = position.status();
    if status.is_over() {
        out.push_str(&format!(
            "game over: {status} · {} stones",
            position.stone_count()
        ));
    } else {
        out.push_str(&format!(
            "{} to move · {status} · {} stones",
            position.side_to_move(),
            position.stone_count()
        ));
    }
    out
}
