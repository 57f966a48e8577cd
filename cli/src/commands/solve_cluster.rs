//! `pentagrid solve --cluster` / `--local`: a deep solve queued on a coordinator (or an
//! embedded cluster) and followed to its value, with progress on standard error; on request
//! the certificate, written here from the leaf values the cluster proved.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use pentago::{DeepLimits, DeepSolver, MID_MIN_STONES};
use pentagrid_client::deep::{self, DeepStatus};
use serde_json::json;

use super::target::Target;
use crate::input;
use crate::output::{errln, outln};

/// What `pentagrid solve` asks of a cluster.
pub struct ClusterSolve<'a> {
    /// The position argument (one position).
    pub position: &'a str,
    /// Leaves per job (0: the coordinator's default).
    pub batch: u32,
    /// Stones of the leaves (0: the coordinator's default, 18).
    pub leaf_stones: u32,
    /// Where to write the certificate, if asked.
    pub proof: Option<&'a Path>,
    /// The most nodes the certificate may have.
    pub max_proof_nodes: usize,
    /// Transposition table of the local search that writes the certificate.
    pub table_bits: u32,
    /// Print JSON.
    pub json: bool,
}

/// Seconds between progress lines.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

pub fn run(target: &Target, request: &ClusterSolve<'_>) -> Result<()> {
    let position = input::parse_position(request.position)?;
    ensure!(
        request.max_proof_nodes > 0,
        "--max-proof-nodes must be at least 1"
    );
    let (done, leaves) = target.run(async |client| {
        let id = deep::start(client, &position, request.batch, request.leaf_stones).await?;
        errln!("deep solve {id} queued");
        let mut last = Instant::now();
        let done = deep::follow(client, id, |status| {
            if last.elapsed() >= PROGRESS_EVERY {
                last = Instant::now();
                errln!("deep: {}", deep_line(status));
            }
        })
        .await?;
        let leaves = match request.proof {
            Some(_) => Some(deep::leaves(client).await?),
            None => None,
        };
        Ok((done, leaves))
    })?;
    if let (Some(path), Some(leaves)) = (request.proof, leaves) {
        let proof = DeepSolver::new(request.table_bits)
            .with_leaf_stones(done.leaf_stones.max(MID_MIN_STONES))
            .with_leaves(leaves)
            .prove(&position, DeepLimits::default())
            .with_context(|| format!("no proof for {position}"))?;
        ensure!(
            proof.nodes.len() <= request.max_proof_nodes,
            "no proof for {position}: it needs {} nodes, more than --max-proof-nodes",
            proof.nodes.len()
        );
        std::fs::write(path, proof.to_text())
            .with_context(|| format!("writing the proof to {}", path.display()))?;
        errln!(
            "proof of {} nodes written to {}",
            proof.nodes.len(),
            path.display()
        );
    }
    if request.json {
        let mut line = deep_json(&done);
        line["to_move"] = json!(position.side_to_move());
        outln!("{line}");
    } else {
        let value = done.value().map_or("unknown", |v| v.name());
        let best = done.best.map_or_else(|| "-".to_owned(), |m| m.to_string());
        outln!(
            "{position} {value} best {best} by deep-cluster solve {} nodes {} leaves {}",
            done.id,
            done.nodes,
            done.leaves_solved
        );
    }
    Ok(())
}

/// One line on a deep solve: where it stands and its progress.
pub fn deep_line(d: &DeepStatus) -> String {
    let state = if d.done { "done" } else { "running" };
    format!(
        "solve {} {} {state}: value {}, nodes {}, leaves {} solved {} pending",
        d.id, d.position, d.bounds, d.nodes, d.leaves_solved, d.leaves_pending
    )
}

/// A deep solve as JSON.
pub fn deep_json(d: &DeepStatus) -> serde_json::Value {
    json!({
        "solve_id": d.id,
        "position": d.position.to_string(),
        "done": d.done,
        "value": d.value().map(|v| v.name()),
        "lower": d.bounds.lower.as_i8(),
        "upper": d.bounds.upper.as_i8(),
        "best": d.best.map(|m| m.to_string()),
        "nodes": d.nodes,
        "leaves_solved": d.leaves_solved,
        "leaves_pending": d.leaves_pending,
        "batch": d.batch,
    })
}
