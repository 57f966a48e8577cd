//! `pentagrid check-proof`: verifies a proof DAG written by `solve --proof` with the rules
//! alone, re-solves all or a sample of its leaves on request, and writes the leaves list for a
//! third party's solver.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Instant;

use crate::output::{errln, outln};
use anyhow::{Context, Result, bail};
use clap::Args;
use pentago::{DeepProof, Solver, check_leaf};

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
    outln!(
        "valid: {} to move in {} is a {} ({} nodes, {} leaves claimed)",
        proof.root.side_to_move().name(),
        proof.root,
        proof.value,
        proof.nodes.len(),
        leaves.len()
    );
    if let Some(path) = &args.leaves_out {
        let mut out = String::from(
            "# pentagrid-leaf-claims 1\n# position lower upper (1 win, 0 draw, -1 loss)\n",
        );
        for (position, bounds) in &leaves {
            out.push_str(&format!(
                "{position} {} {}\n",
                bounds.lower.as_i8(),
                bounds.upper.as_i8()
            ));
        }
        std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
        errln!("{} leaves written to {}", leaves.len(), path.display());
    }
    let sample = match args.leaves {
        None => {
            if !leaves.is_empty() {
                outln!("leaves not re-solved (--leaves all or --leaves N re-solves them)");
            }
            return Ok(());
        }
        Some(LeafSample::All) => leaves,
        Some(LeafSample::Some(n)) => proof.sample_leaves(n, args.seed),
    };
    let started = Instant::now();
    let mut solver = Solver::new(22);
    for (i, (position, bounds)) in sample.iter().enumerate() {
        if let Err(e) = check_leaf(&mut solver, position, *bounds) {
            bail!("the proof is invalid: {e} (leaf {} of the sample)", i + 1);
        }
    }
    outln!(
        "leaves: {} re-solved, every claim holds ({:.1} s)",
        sample.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
