//! `pentagrid check-proof`: verifies a proof DAG written by `solve --proof` with the rules
//! alone, re-solves all or a sample of its leaves on request, and writes the leaves list for a
//! third party's solver.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use crate::output::{errln, outln};
use anyhow::{Context, Result, bail};
use clap::Args;
use pentago::{DeepProof, Position, Solver, ValueBounds, check_leaf};

/// Check a proof certificate (formats 1 and 2 are in the README).
#[derive(Args)]
pub struct CheckProofArgs {
    /// The proof file.
    file: PathBuf,
    /// Also re-solve the leaves' claimed values: `all`, or a number of leaves drawn at random
    /// (with --seed).
    #[arg(long, value_name = "all|N")]
    leaves: Option<LeafSample>,
    /// The seed of the leaf sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the leaves with their claims to FILE (`position lower upper` a line, values 1, 0,
    /// -1), for re-checking with any solver.
    #[arg(long, value_name = "FILE")]
    leaves_out: Option<PathBuf>,
    /// Print one JSON object: the root, its value, nodes, leaves claimed and re-solved.
    #[arg(long)]
    json: bool,
}

/// How many leaves to re-solve.
#[derive(Copy, Clone, Debug)]
enum LeafSample {
    All,
    Some(usize),
}

impl FromStr for LeafSample {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "all" => Ok(LeafSample::All),
            n => n
                .parse()
                .map(LeafSample::Some)
                .map_err(|_| format!("{n:?} is neither `all` nor a number")),
        }
    }
}

pub fn run(args: &CheckProofArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let proof = DeepProof::parse(&text).context("not a proof file")?;
    proof.check().context("the proof is invalid")?;
    let leaves = proof.leaves();
    let valid = format!(
        "valid: {} to move in {} is a {} ({} nodes, {} leaves claimed)",
        proof.root.side_to_move().name(),
        proof.root,
        proof.value,
        proof.nodes.len(),
        leaves.len()
    );
    if !args.json {
        outln!("{valid}");
    }
    if let Some(path) = &args.leaves_out {
        write_leaves(path, &leaves)?;
    }
    let sample = match args.leaves {
        None => None,
        Some(LeafSample::All) => Some(leaves.clone()),
        Some(LeafSample::Some(n)) => Some(proof.sample_leaves(n, args.seed)),
    };
    let started = Instant::now();
    if let Some(sample) = &sample {
        let mut solver = Solver::new(22);
        for (i, (position, bounds)) in sample.iter().enumerate() {
            if let Err(e) = check_leaf(&mut solver, position, *bounds) {
                bail!("the proof is invalid: {e} (leaf {} of the sample)", i + 1);
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({
                "valid": true,
                "position": proof.root.to_string(),
                "to_move": proof.root.side_to_move().name(),
                "value": proof.value.to_string(),
                "nodes": proof.nodes.len(),
                "leaves": leaves.len(),
                "leaves_resolved": sample.as_ref().map(Vec::len),
                "seconds": sample.as_ref().map(|_| seconds),
            })
        );
        return Ok(());
    }
    match &sample {
        None if !leaves.is_empty() => {
            outln!("leaves not re-solved (--leaves all or --leaves N re-solves them)");
        }
        None => {}
        Some(sample) => outln!(
            "leaves: {} re-solved, every claim holds ({seconds:.1} s)",
            sample.len()
        ),
    }
    Ok(())
}

/// Writes the leaves with their claims to `path` (the `--leaves-out` format).
fn write_leaves(path: &Path, leaves: &[(Position, ValueBounds)]) -> Result<()> {
    let mut out = String::from(
        "# pentagrid-leaf-claims 1\n# position lower upper (1 win, 0 draw, -1 loss)\n",
    );
    for (position, bounds) in leaves {
        out.push_str(&format!(
            "{position} {} {}\n",
            bounds.lower.as_i8(),
            bounds.upper.as_i8()
        ));
    }
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
    errln!("{} leaves written to {}", leaves.len(), path.display());
    Ok(())
}
