//! Cross-checking a deep-leaves result: its leaf values are exact claims, so in a sampled
//! result the coordinator values one leaf itself (the hybrid solver: a short alpha-beta attempt,
//! then the midsolver; milliseconds for most 18-stone leaves, seconds at worst; the midsolver
//! at once when the result also gives the leaf's rotated values, which it checks all of)
//! whatever [`super::CrossCheckSettings::judge_stones`] says. When it disagrees, the worker is
//! flagged, and of the result's values only the coordinator's are stored: the other leaves stay
//! open and go out again in other jobs.

use pentago::{Position, SolveLimits, Solver, Value, midsolve, rotated_variants};

use super::CrossCheck;
use crate::offload::blocking;
use pentagrid_store::{Flag, ResultEffect};

/// The judge's alpha-beta table: 2^20 entries.
const TABLE_BITS: u32 = 20;

impl CrossCheck {
    /// Checks one leaf of `worker`'s result for job `job_id` (which leaf is drawn afresh, so
    /// a worker cannot know which of its values will be judged), with
    /// its rotated values when the result gives them, and keeps only the coordinator's values
    /// when the worker's differ.
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
        let index = {
            use rand::RngExt;
            rand::rng().random_range(0..leaves.len())
        };
        let leaf = leaves[index];
        let claimed_family = effect.deep_rotated.get(index).cloned().unwrap_or_default();
        let with_family = !claimed_family.is_empty();
        // The semaphore is never closed, so acquiring cannot fail.
        let _permit = self.judging.acquire().await.ok();
        let judged = blocking(move || judge_leaf(&leaf, with_family)).await;
        let Some((truth, family)) = judged else {
            return;
        };
        let (key, claimed) = effect.deep_leaves[index];
        if claimed == truth && claimed_family == family {
            return;
        }
        tracing::warn!(worker = %worker, job = job_id, %leaf, ?claimed, ?truth, "a wrong deep-leaf value");
        effect.deep_leaves = vec![(key, truth)];
        effect.deep_rotated = if with_family {
            vec![family]
        } else {
            Vec::new()
        };
        let what = if claimed == truth {
            format!("a wrong value of a rotated variant of {leaf}")
        } else {
            format!(
                "a wrong deep-leaf value of {leaf} ({} for {})",
                claimed.name(),
                truth.name()
            )
        };
        effect.flags.push(Flag {
            worker: worker.to_owned(),
            reason: format!("job {job_id}: {what}"),
        });
    }
}

/// The exact value of an ongoing leaf for its side to move, and — when `with_family` — its
/// rotated variants' canonical keys and values as a result gives them (the midsolver values
/// them all in one walk; otherwise the hybrid solver, milliseconds for most leaves).
fn judge_leaf(leaf: &Position, with_family: bool) -> Option<(Value, Vec<(u64, Value)>)> {
    if !with_family {
        let value = Solver::new(TABLE_BITS)
            .solve(leaf, SolveLimits::default())
            .value?;
        return Some((value, Vec::new()));
    }
    let solved = midsolve(leaf).ok()?;
    let family = rotated_variants(leaf)
        .iter()
        .zip(&solved.rotated)
        .filter_map(|(p, v)| v.map(|v| (p.canonical_key().bits(), v)))
        .collect();
    Some((solved.value, family))
}
