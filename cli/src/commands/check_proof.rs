//! `pentagrid check-proof`: verifies a proof DAG written by `solve --proof` with the rules alone.

use std::path::PathBuf;

use crate::output::outln;
use anyhow::{Context, Result};
use clap::Args;
use pentago::ProofDag;

/// Check a proof certificate of a won position (the format is in the README).
#[derive(Args)]
pub struct CheckProofArgs {
    /// The proof file.
    file: PathBuf,
}

pub fn run(args: &CheckProofArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let proof = ProofDag::parse(&text).context("not a proof file")?;
    proof.check().context("the proof is invalid")?;
    outln!(
        "valid: {} wins {} ({} nodes)",
        proof.root.side_to_move().name(),
        proof.root,
        proof.nodes.len()
    );
    Ok(())
}
