//! Cross-checking a deep-leaves result: its leaf values are exact claims, so in a sampled
//! result the coordinator values one leaf itself (the hybrid solver: a short alpha-beta attempt,
//! then the midsolver; milliseconds for most 18-stone leaves, seconds at worst) whatever
//! [`super::CrossCheckSettings::judge_stones`] says. When it disagrees, the worker is flagged,
//! and of the result's values only the coordinator's is stored: the other leaves stay open and
//! go out again in other jobs.

use pentago::{Position, SolveLimits, Solver, Value, splitmix64};

use super::CrossCheck;
use crate::offload::blocking;
use crate::store::{Flag, ResultEffect};

/// The judge's alpha-beta table: 2^20 entries.
const TABLE_BITS: u32 = 20;

impl CrossCheck {
    /// Checks one leaf of `worker`'s result for job `job_id` (which leaf is fixed per job) and
    /// keeps only the coordinator's value when the worker's differs.
    pub(super) async fn check_leaf(
        &self,
        worker: &str,
        job_id: u64,
        leaves: &[Position],
        effect: &mut ResultEffect,
    ) {
        if leaves.is_empty() || effect.deep_leaves.len() != leaves.len() {
            return;
        }
        let index = (splitmix64(job_id ^ 0x1EAF) % leaves.len() as u64) as usize;
        let leaf = leaves[index];
        // The semaphore is never closed, so acquiring cannot fail.
        let _permit = self.judging.acquire().await.ok();
        let judged = blocking(move || judge_leaf(&leaf)).await;
        let Some(truth) = judged else {
            return;
        };
        let (key, claimed) = effect.deep_leaves[index];
        if claimed == truth {
            return;
        }
        tracing::warn!(worker = %worker, job = job_id, %leaf, ?claimed, ?truth, "a wrong deep-leaf value");
        effect.deep_leaves = vec![(key, truth)];
        effect.flags.push(Flag {
            worker: worker.to_owned(),
            reason: format!(
                "job {job_id}: a wrong deep-leaf value of {leaf} ({} for {})",
                claimed.name(),
                truth.name()
            ),
        });
    }
}

/// The exact value of an ongoing leaf for its side to move.
fn judge_leaf(leaf: &Position) -> Option<Value> {
    Solver::new(TABLE_BITS)
        .solve(leaf, SolveLimits::default())
        .value
}
