//! `pentagrid canonical`: the canonical form of positions.

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::input;
use crate::output::outln;

/// Print the canonical form of each position: of its 8 symmetric images, the one with the
/// smallest exact key.
#[derive(Args)]
pub struct CanonicalArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Print JSON with the symmetry used.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &CanonicalArgs) -> Result<()> {
    for position in input::positions(&args.position)? {
        let canonical = position.canonical();
        if args.json {
            let line = json!({
                "position": position.to_string(),
                "canonical": canonical.position.to_string(),
                "symmetry": canonical.symmetry.to_string(),
                "key": canonical.position.key().bits(),
            });
            outln!("{line}");
        } else {
            outln!("{}", canonical.position);
        }
    }
    Ok(())
}
