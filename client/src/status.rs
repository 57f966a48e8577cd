//! The coordinator's status as the client reads it: jobs by state, the workers it knows,
//! the workers cross-checks caught, what its database holds and its solitaire totals. Read with
//! [`crate::jobs::status`]; the explorer serves [`ClusterStatus`] as its `/cluster` answer, so
//! its serialized fields are the explorer's API (stable; the fields marked `skip` are not
//! served).

use pentagrid_calculation::{Mean, Variant, summarise};
use pentagrid_proto::{flagged_worker_of_wire, v2, worker_info_of_wire};
use pentagrid_rating::WinRate;
use serde::Serialize;

// The workers' types are the vocabulary the coordinator shares (`pentagrid-model`).
pub use pentagrid_model::{FlaggedWorker, WorkerInfo};

/// Jobs by state, workers and stored totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterStatus {
    /// Jobs by state.
    pub jobs: JobCounts,
    /// The workers the coordinator knows: the first page of them, by name.
    pub workers: Vec<WorkerInfo>,
    /// Every worker the coordinator knows (more than `workers` lists when there are many).
    pub worker_count: u64,
    /// What the database holds.
    pub stored: StoredTotals,
    /// Stored job records found unreadable at start-up and set aside.
    #[serde(skip)]
    pub quarantined: u64,
    /// Every worker ever flagged by a cross-check, connected or not, by id.
    pub flagged_workers: Vec<FlaggedWorker>,
    /// Solitaire results per (variant, player), in the coordinator's order (the explorer
    /// serves them as `/solitaire`); entries this client cannot read are left out.
    #[serde(skip)]
    pub solitaire: Vec<SolitaireTotals>,
}

/// Jobs by state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobCounts {
    /// Jobs waiting for a worker.
    pub queued: u64,
    /// Jobs a worker holds.
    pub leased: u64,
    /// Finished jobs.
    pub done: u64,
    /// Jobs that used up their attempts.
    pub failed: u64,
    /// Cancelled jobs.
    pub cancelled: u64,
}

/// What the database holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredTotals {
    /// Positions with playout tables.
    pub playout_positions: u64,
    /// Positions with game tables.
    pub game_positions: u64,
    /// Stored games.
    pub games: u64,
    /// Playouts merged into tables so far.
    pub playouts: u64,
}

/// A (variant, player)'s results over every deal the cluster has played with it, each deal
/// counted once (serialized as the explorer's `/solitaire` answer lists them: stable).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolitaireTotals {
    /// The variant.
    pub variant: Variant,
    /// The player's canonical text form (as `Player`'s `Display` writes it).
    pub player: String,
    /// Deals played.
    pub deals: u64,
    /// Deals won.
    pub wins: u64,
    /// The success rate with its Wilson 95% interval.
    pub success: WinRate,
    /// Mean cards on the foundations at the end (counting any laid out at the start), with its
    /// normal 95% interval.
    pub foundation_cards: Mean,
}

impl SolitaireTotals {
    /// The totals a status lists; `None` for an entry that does not read (an unknown variant
    /// from a newer coordinator, sums no deals could make).
    #[must_use]
    pub(crate) fn of_wire(t: &v2::SolitaireTotals) -> Option<SolitaireTotals> {
        let variant = t.variant.parse().ok()?;
        let summary = summarise(t.deals, t.wins, t.cards, t.cards_squared, 0)?;
        Some(SolitaireTotals {
            variant,
            player: t.player.clone(),
            deals: summary.deals,
            wins: summary.wins,
            success: summary.success,
            foundation_cards: summary.foundation_cards,
        })
    }
}

impl From<v2::StatusResponse> for ClusterStatus {
    fn from(s: v2::StatusResponse) -> ClusterStatus {
        // A coordinator from before the count was sent: what it listed is all it knows.
        let worker_count = s.worker_count.max(s.workers.len() as u64);
        ClusterStatus {
            jobs: JobCounts {
                queued: s.queued,
                leased: s.leased,
                done: s.done,
                failed: s.failed,
                cancelled: s.cancelled,
            },
            workers: s.workers.into_iter().map(worker_info_of_wire).collect(),
            worker_count,
            stored: StoredTotals {
                playout_positions: s.playout_positions,
                game_positions: s.game_positions,
                games: s.games,
                playouts: s.playouts,
            },
            quarantined: s.quarantined,
            flagged_workers: s
                .flagged_workers
                .into_iter()
                .map(flagged_worker_of_wire)
                .collect(),
            solitaire: s
                .solitaire
                .iter()
                .filter_map(SolitaireTotals::of_wire)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_carried_over_and_an_old_coordinator_counts_what_it_lists() {
        let wire = v2::StatusResponse {
            queued: 1,
            leased: 2,
            done: 3,
            failed: 4,
            cancelled: 5,
            workers: vec![v2::WorkerStatus {
                worker_id: "w-1".into(),
                name: "one".into(),
                threads: 6,
                leases: 7,
                results: 8,
                seconds_since_seen: 9.5,
                flags: 1,
                quarantined: false,
                engines: vec![v2::EngineInfo {
                    name: "pg".into(),
                    version: "pentagrid 1.0".into(),
                }],
            }],
            playout_positions: 10,
            game_positions: 11,
            games: 12,
            playouts: 13,
            quarantined: 14,
            flagged_workers: vec![v2::FlaggedWorker {
                worker_id: "w-2".into(),
                flags: 2,
                quarantined: true,
                last_reason: "a wrong value".into(),
                purged_results: 3,
                purged_values: 7,
                purged_analysis_positions: 29,
                purged_playouts: 29_000,
                purged_game_positions: 4,
                purged_games: 40,
                purged_pairs: 2,
                reopened_solves: 1,
                demoted_values: 5,
            }],
            worker_count: 0,
            next_workers_after: String::new(),
            solitaire: vec![v2::SolitaireTotals {
                variant: "computer".into(),
                player: "strategy".into(),
                deals: 2,
                wins: 1,
                cards: 52 + 30,
                cards_squared: 52 * 52 + 30 * 30,
            }],
        };
        let status = ClusterStatus::from(wire);
        assert_eq!(
            status.jobs,
            JobCounts {
                queued: 1,
                leased: 2,
                done: 3,
                failed: 4,
                cancelled: 5
            }
        );
        assert_eq!(status.worker_count, 1, "counts the listed worker");
        assert_eq!(
            (status.workers[0].id.as_str(), status.workers[0].threads),
            ("w-1", 6)
        );
        assert_eq!(
            status.workers[0].engines,
            [("pg".to_owned(), "pentagrid 1.0".to_owned())]
        );
        assert_eq!(
            status.stored,
            StoredTotals {
                playout_positions: 10,
                game_positions: 11,
                games: 12,
                playouts: 13
            }
        );
        assert_eq!(status.quarantined, 14);
        assert_eq!(status.flagged_workers[0].last_reason, "a wrong value");
        assert_eq!(
            (
                status.flagged_workers[0].purged_positions,
                status.flagged_workers[0].purged_playouts
            ),
            (29, 29_000)
        );
        let solitaire = &status.solitaire[0];
        assert_eq!(
            (solitaire.player.as_str(), solitaire.deals, solitaire.wins),
            ("strategy", 2, 1)
        );
        assert_eq!(solitaire.foundation_cards.mean, 41.0);
        // The explorer's `/cluster` answer: the served fields only.
        let served = serde_json::to_value(&status).unwrap();
        let mut keys: Vec<&str> = served
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "flagged_workers",
                "jobs",
                "stored",
                "worker_count",
                "workers"
            ]
        );
    }
}
