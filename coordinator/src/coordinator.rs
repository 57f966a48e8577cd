//! The coordinator: the domain services over one store, wired together. Each service owns one
//! concern (see the crate documentation); this module only opens the store, builds the services
//! and runs the periodic tick.

use std::path::Path;
use std::sync::Arc;

use pentagrid_calculation::Variant;
use pentagrid_model::FlaggedWorker;

use crate::book::Book;
use crate::builder::BookBuilder;
use crate::clock::{Clock, SystemClock};
use crate::crosscheck::CrossCheck;
use crate::deep::DeepSolves;
use crate::flags::{WorkerFlags, flagged_workers};
use crate::ingest::{PairFollowers, ResultIngest};
use crate::jobs::{JobQueue, QueueStatus, WorkerPage};
use crate::matches::Matches;
use crate::metrics::{Metrics, MetricsSnapshot, SizeGauges};
use crate::puzzles::PuzzleMiner;
use crate::settings::CoordinatorSettings;
use crate::tunes::Tunes;
use pentagrid_store::backup::{BackupError, BackupSnapshot};
use pentagrid_store::solitaire::MAX_LISTED_TOTALS;
use pentagrid_store::{SolitaireSums, Store, StoreError, StoreSizes, Totals};

/// Job counts, workers and stored totals as the services report them, with the cursor of the
/// next page of workers (clients read the wire's answer as their `ClusterStatus`).
#[derive(Clone, Debug, Default)]
pub struct StatusReport {
    /// The job queue.
    pub jobs: QueueStatus,
    /// The stored totals.
    pub totals: Totals,
    /// Every worker a cross-check flagged, by id.
    pub flagged: Vec<FlaggedWorker>,
    /// Solitaire totals per (variant, player's text form).
    pub solitaire: Vec<(Variant, String, SolitaireSums)>,
}

/// The coordinator's services.
pub struct Coordinator {
    store: Arc<Store>,
    metrics: Metrics,
    /// Workers, the job queue and leases.
    pub jobs: Arc<JobQueue>,
    /// The result path.
    pub ingest: ResultIngest,
    /// Engine matches.
    pub matches: Arc<Matches>,
    /// SPSA tuning runs.
    pub tunes: Arc<Tunes>,
    /// Reading and moving the opening book.
    pub book: Book,
    /// Growing the opening book.
    pub builder: BookBuilder,
    /// Mining and listing puzzles.
    pub puzzles: PuzzleMiner,
    /// Deep solves: exact values below 18 stones, their leaves solved by workers.
    pub deep: Arc<DeepSolves>,
}

impl Coordinator {
    /// Opens the database at `path` on the system clock; see [`Coordinator::open_with_clock`].
    pub fn open(
        path: &Path,
        settings: CoordinatorSettings,
    ) -> Result<Arc<Coordinator>, StoreError> {
        Coordinator::open_with_clock(path, settings, Arc::new(SystemClock))
    }

    /// Opens the database at `path`, restores queued and leased jobs (quarantining unreadable
    /// ones), cancels pairs of decided matches, and starts group commit (needs a tokio
    /// runtime). Leases and worker bookkeeping read `clock`.
    pub fn open_with_clock(
        path: &Path,
        settings: CoordinatorSettings,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<Coordinator>, StoreError> {
        let CoordinatorSettings {
            jobs,
            crosscheck,
            background,
            open_check,
            metrics,
            table,
        } = settings;
        let store = Arc::new(Store::open_checked(path, open_check)?);
        if !table.is_some() {
            // Results stored in this run get no table values: a later run with the
            // tablebase walks the book again.
            store.set_table_walk(None)?;
        }
        let checks = CrossCheck::new(store.clone(), crosscheck)?;
        let flags = Arc::new(WorkerFlags::load(&store)?);
        let jobs = Arc::new(JobQueue::open(
            store.clone(),
            jobs,
            metrics.clone(),
            flags.clone(),
            clock,
        )?);
        let matches = Arc::new(Matches::new(store.clone(), jobs.clone(), table.clone()));
        matches.restore_pairs()?;
        let tunes = Arc::new(Tunes::open(store.clone(), jobs.clone(), matches.clone())?);
        let status = jobs.status_page(&WorkerPage::default());
        tracing::info!(
            queued = status.queued,
            leased = status.leased,
            quarantined = status.quarantined,
            path = %path.display(),
            "coordinator opened"
        );
        if status.quarantined > 0 {
            tracing::error!(
                quarantined = status.quarantined,
                "some stored jobs are unreadable and were set aside in the quarantine tree"
            );
        }
        let deep = Arc::new(DeepSolves::new(store.clone(), jobs.clone()));
        Ok(Arc::new(Coordinator {
            ingest: ResultIngest::new(
                store.clone(),
                jobs.clone(),
                PairFollowers {
                    matches: matches.clone(),
                    tunes: tunes.clone(),
                },
                checks,
                flags,
                metrics.clone(),
                table.clone(),
            ),
            book: Book::new(store.clone(), jobs.clone(), table.clone()),
            builder: BookBuilder::new(
                store.clone(),
                jobs.clone(),
                deep.clone(),
                background,
                metrics.clone(),
                table,
            ),
            puzzles: PuzzleMiner::new(store.clone(), jobs.clone(), background),
            deep,
            matches,
            tunes,
            jobs,
            store,
            metrics,
        }))
    }

    /// Job counts, workers, stored totals and flagged workers.
    pub fn status(&self) -> Result<StatusReport, StoreError> {
        self.status_page(&WorkerPage::first())
    }

    /// Job counts, one page of workers, stored totals and flagged workers.
    pub fn status_page(&self, page: &WorkerPage) -> Result<StatusReport, StoreError> {
        Ok(StatusReport {
            totals: self.store.totals()?,
            jobs: self.jobs.status_page(page),
            flagged: flagged_workers(&self.store)?,
            solitaire: self.store.solitaire_totals(MAX_LISTED_TOTALS)?,
        })
    }

    /// The database's size on disk and its numbers of puzzles and matches.
    pub fn store_sizes(&self) -> Result<StoreSizes, StoreError> {
        self.store.sizes()
    }

    /// A consistent backup of the whole database in a temporary file beside it (see
    /// [`pentagrid_store::backup`]), copied on the blocking pool; writes wait while it is copied.
    pub async fn backup(&self) -> Result<BackupSnapshot, BackupError> {
        let store = self.store.clone();
        let created_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            });
        let snapshot = crate::offload::blocking(move || {
            store.backup_to_temp_file(created_unix_ms, env!("CARGO_PKG_VERSION"))
        })
        .await?;
        tracing::info!(
            records = snapshot.summary.records,
            bytes = snapshot.summary.bytes,
            writes_paused_ms = snapshot.writes_paused.as_millis() as u64,
            "backup taken"
        );
        Ok(snapshot)
    }

    /// The store, for tests that look under the services.
    #[cfg(test)]
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The periodic work: requeue expired leases, advance book builds, deep solves and tuning
    /// runs, give the stored book its table values.
    pub async fn tick(&self) {
        if let Err(error) = self.jobs.expire_leases() {
            tracing::error!(%error, "could not record expired leases");
        }
        if let Err(error) = self.builder.drive().await {
            tracing::error!(%error, "could not advance book builds");
        }
        if let Err(error) = self.deep.drive().await {
            tracing::error!(%error, "could not advance deep solves");
        }
        self.tunes.drive().await;
        if let Err(error) = self.book.backfill_tick().await {
            tracing::error!(%error, "could not give the book its table values");
        }
    }

    /// The coordinator's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// What the metrics' gauges show now; `None` when the status cannot be read.
    #[must_use]
    pub fn metrics_snapshot(&self) -> Option<MetricsSnapshot> {
        let status = self.status_page(&WorkerPage::default()).ok()?;
        let (jobs, totals) = (&status.jobs, &status.totals);
        let connected = self.jobs.workers_seen_within(self.jobs.lease_duration());
        Some(MetricsSnapshot {
            jobs: [
                jobs.queued,
                jobs.leased,
                jobs.done,
                jobs.failed,
                jobs.cancelled,
                jobs.quarantined,
            ],
            workers_connected: u64::try_from(connected).unwrap_or(u64::MAX),
            playouts: totals.kept_playouts(),
            games: totals.games,
            playout_positions: totals.playout_positions,
            game_positions: totals.game_positions,
            sizes: self.store_sizes().ok().map(|sizes| SizeGauges {
                bytes_on_disk: sizes.bytes_on_disk,
                puzzles: sizes.puzzles,
                matches: sizes.matches,
            }),
        })
    }

    /// The metrics as Prometheus text, with the gauges read from this coordinator now.
    #[must_use]
    pub fn render_metrics(&self) -> String {
        self.metrics.render(self.metrics_snapshot().as_ref())
    }

    /// Stops handing out jobs (graceful shutdown).
    pub fn drain(&self) {
        self.jobs.drain();
    }

    /// Makes everything durable (shutdown).
    pub async fn flush(&self) -> Result<(), StoreError> {
        self.store.flush().await
    }
}
