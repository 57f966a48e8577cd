//! Workers caught with wrong claims (or analyses that lean): their flag counts, which every lease and submission
//! consults, kept in memory beside their durable records (read back at open). Below both the
//! job queue (which refuses leases to quarantined workers) and the cross-checks (which flag).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use pentagrid_model::FlaggedWorker;

use pentagrid_store::{Flag, Store, StoreError};

pub use pentagrid_store::claims::QUARANTINE_FLAGS;

/// The flag count of every flagged worker.
#[derive(Debug, Default)]
pub struct WorkerFlags(Mutex<HashMap<String, u32>>);

impl WorkerFlags {
    /// The flags stored in `store`.
    pub(crate) fn load(store: &Store) -> Result<WorkerFlags, StoreError> {
        let counts = store
            .flagged_workers()?
            .into_iter()
            .map(|(id, record)| (id, record.flags))
            .collect();
        Ok(WorkerFlags(Mutex::new(counts)))
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<String, u32>> {
        // Plain counts: a panic elsewhere leaves nothing half-done here.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Times `worker` was flagged.
    pub fn flags(&self, worker: &str) -> u32 {
        self.counts().get(worker).copied().unwrap_or(0)
    }

    /// Whether `worker` is quarantined.
    pub fn quarantined(&self, worker: &str) -> bool {
        self.flags(worker) >= QUARANTINE_FLAGS
    }

    /// Counts flags that are now stored (one per entry), logging each; returns the workers
    /// these flags quarantined.
    pub(crate) fn add(&self, flagged: &[Flag]) -> Vec<String> {
        let mut quarantined = Vec::new();
        let mut counts = self.counts();
        for Flag { worker, reason } in flagged {
            let count = counts.entry(worker.clone()).or_default();
            *count += 1;
            tracing::warn!(
                worker,
                flags = *count,
                reason,
                "worker flagged by a cross-check"
            );
            if *count == QUARANTINE_FLAGS {
                tracing::error!(
                    worker,
                    "worker quarantined: its results are refused from now on and its unconfirmed values purged"
                );
                quarantined.push(worker.clone());
            }
        }
        quarantined
    }
}

/// The flagged workers stored in `store`, by id, as the status shows them.
pub(crate) fn flagged_workers(store: &Store) -> Result<Vec<FlaggedWorker>, StoreError> {
    Ok(store
        .flagged_workers()?
        .into_iter()
        .map(|(id, record)| FlaggedWorker {
            id,
            flags: record.flags,
            quarantined: record.flags >= QUARANTINE_FLAGS,
            last_reason: record.last_reason,
            purged_results: record.purged_results,
            purged_values: record.purged_values,
            purged_positions: record.purged_positions,
            purged_playouts: record.purged_playouts,
            purged_game_positions: record.purged_game_positions,
            purged_games: record.purged_games,
            purged_pairs: record.purged_pairs,
            reopened_solves: record.reopened_solves,
            demoted_values: record.demoted_values,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_caught_lie_quarantines_once() {
        let flags = WorkerFlags::default();
        let flag = |w: &str| Flag {
            worker: w.to_owned(),
            reason: "wrong".to_owned(),
        };
        assert_eq!(flags.add(&[flag("a")]), ["a"]);
        assert_eq!((flags.flags("a"), flags.quarantined("a")), (1, true));
        // Newly quarantined only once: a purge runs once per worker.
        assert_eq!(flags.add(&[flag("a"), flag("b")]), ["b"]);
        assert!(flags.quarantined("b"));
        assert!(!flags.quarantined("never"));
    }
}
