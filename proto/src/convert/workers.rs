//! The cluster's workers as a status lists them ([`WorkerInfo`], [`FlaggedWorker`]) between the
//! domain and the wire.

use pentagrid_model::{FlaggedWorker, WorkerInfo};

use crate::v2;

/// A worker's wire form.
#[must_use]
pub fn worker_info_to_wire(worker: WorkerInfo) -> v2::WorkerStatus {
    v2::WorkerStatus {
        worker_id: worker.id,
        name: worker.name,
        threads: worker.threads,
        leases: worker.leases,
        results: worker.results,
        seconds_since_seen: worker.seconds_since_seen,
        flags: worker.flags,
        quarantined: worker.quarantined,
        engines: worker
            .engines
            .into_iter()
            .map(|(name, version)| v2::EngineInfo { name, version })
            .collect(),
    }
}

/// A worker from the wire.
#[must_use]
pub fn worker_info_of_wire(worker: v2::WorkerStatus) -> WorkerInfo {
    WorkerInfo {
        id: worker.worker_id,
        name: worker.name,
        threads: worker.threads,
        leases: worker.leases,
        results: worker.results,
        seconds_since_seen: worker.seconds_since_seen,
        flags: worker.flags,
        quarantined: worker.quarantined,
        engines: worker
            .engines
            .into_iter()
            .map(|e| (e.name, e.version))
            .collect(),
    }
}

/// A flagged worker's wire form.
#[must_use]
pub fn flagged_worker_to_wire(worker: FlaggedWorker) -> v2::FlaggedWorker {
    v2::FlaggedWorker {
        worker_id: worker.id,
        flags: worker.flags,
        quarantined: worker.quarantined,
        last_reason: worker.last_reason,
        purged_results: worker.purged_results,
        purged_values: worker.purged_values,
        purged_analysis_positions: worker.purged_positions,
        purged_playouts: worker.purged_playouts,
        purged_game_positions: worker.purged_game_positions,
        purged_games: worker.purged_games,
        purged_pairs: worker.purged_pairs,
        reopened_solves: worker.reopened_solves,
        demoted_values: worker.demoted_values,
    }
}

/// A flagged worker from the wire.
#[must_use]
pub fn flagged_worker_of_wire(worker: v2::FlaggedWorker) -> FlaggedWorker {
    FlaggedWorker {
        id: worker.worker_id,
        flags: worker.flags,
        quarantined: worker.quarantined,
        last_reason: worker.last_reason,
        purged_results: worker.purged_results,
        purged_values: worker.purged_values,
        purged_positions: worker.purged_analysis_positions,
        purged_playouts: worker.purged_playouts,
        purged_game_positions: worker.purged_game_positions,
        purged_games: worker.purged_games,
        purged_pairs: worker.purged_pairs,
        reopened_solves: worker.reopened_solves,
        demoted_values: worker.demoted_values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_go_and_come_back() {
        let worker = WorkerInfo {
            id: "w-1".into(),
            name: "one".into(),
            threads: 6,
            leases: 7,
            results: 8,
            seconds_since_seen: 9.5,
            flags: 1,
            quarantined: false,
            engines: vec![("pg".into(), "pentagrid 1.0".into())],
        };
        assert_eq!(
            worker_info_of_wire(worker_info_to_wire(worker.clone())),
            worker
        );
        let flagged = FlaggedWorker {
            id: "w-2".into(),
            flags: 2,
            quarantined: true,
            last_reason: "a wrong value".into(),
            purged_results: 3,
            purged_values: 7,
            purged_positions: 29,
            purged_playouts: 29_000,
            purged_game_positions: 4,
            purged_games: 40,
            purged_pairs: 2,
            reopened_solves: 1,
            demoted_values: 5,
        };
        assert_eq!(
            flagged_worker_of_wire(flagged_worker_to_wire(flagged.clone())),
            flagged
        );
    }
}
