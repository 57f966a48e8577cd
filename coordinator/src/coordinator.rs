//! The coordinator: the domain services over one store, wired together. Each service owns one
//! concern (see the crate documentation); this module only opens the store, builds the services
//! and runs the periodic tick.

use std::path::Path;
use std::sync::Arc;

use crate::book::Book;
use crate::builder::BookBuilder;
use crate::clock::{Clock, SystemClock};
use crate::crosscheck::CrossCheck;
use crate::crosscheck::flags::{FlaggedWorker, flagged_workers};
use crate::ingest::ResultIngest;
use crate::jobs::{JobQueue, QueueStatus, Settings, WorkerPage};
use crate::matches::Matches;
use crate::metrics::Metrics;
use crate::puzzles::PuzzleMiner;
use crate::store::backup::{BackupError, BackupSnapshot};
use crate::store::{Store, StoreError, StoreSizes, Totals};

/// Job counts, workers and stored totals.
#[derive(Clone, Debug, Default)]
pub struct ClusterStatus {
    /// The job queue.
    pub jobs: QueueStatus,
    /// The stored totals.
    pub totals: Totals,
    /// Every worker a cross-check flagged, by id.
    pub flagged: Vec<FlaggedWorker>,
}

/// The coordinator's services.
pub struct Coordinator {
    store: Arc<Store>,
    /// Workers, the job queue and leases.
    pub jobs: Arc<JobQueue>,
    /// The result path.
    pub ingest: ResultIngest,
    /// Engine matches.
    pub matches: Arc<Matches>,
    /// Reading and moving the opening book.
    pub book: Book,
    /// Growing the opening book.
    pub builder: BookBuilder,
    /// Mining and listing puzzles.
    pub puzzles: PuzzleMiner,
}

impl Coordinator {
    /// Opens the database at `path` on the system clock; see [`Coordinator::open_with_clock`].
    pub fn open(path: &Path, settings: Settings) -> Result<Arc<Coordinator>, StoreError> {
        Coordinator::open_with_clock(path, settings, Arc::new(SystemClock))
    }

    /// Opens the database at `path`, restores queued and leased jobs (quarantining unreadable
    /// ones), cancels pairs of decided matches, and starts group commit (needs a tokio
    /// runtime). Leases and worker bookkeeping read `clock`.
    pub fn open_with_clock(
        path: &Path,
        settings: Settings,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<Coordinator>, StoreError> {
        let store = Arc::new(Store::open_checked(path, settings.open_check)?);
        let checks = CrossCheck::new(store.clone(), settings.crosscheck.clone());
        let jobs = Arc::new(JobQueue::open(store.clone(), settings, clock)?);
        let matches = Arc::new(Matches::new(store.clone(), jobs.clone()));
        matches.cancel_decided_pairs()?;
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
        Ok(Arc::new(Coordinator {
            ingest: ResultIngest::new(store.clone(), jobs.clone(), matches.clone(), checks),
            book: Book::new(store.clone(), jobs.clone()),
            builder: BookBuilder::new(store.clone(), jobs.clone()),
            puzzles: PuzzleMiner::new(store.clone(), jobs.clone()),
            matches,
            jobs,
            store,
        }))
    }

    /// Job counts, workers, stored totals and flagged workers.
    pub fn status(&self) -> Result<ClusterStatus, StoreError> {
        self.status_page(&WorkerPage::first())
    }

    /// Job counts, one page of workers, stored totals and flagged workers.
    pub fn status_page(&self, page: &WorkerPage) -> Result<ClusterStatus, StoreError> {
        Ok(ClusterStatus {
            totals: self.store.totals()?,
            jobs: self.jobs.status_page(page),
            flagged: flagged_workers(&self.store)?,
        })
    }

    /// The database's size on disk and its numbers of puzzles and matches.
    pub fn store_sizes(&self) -> Result<StoreSizes, StoreError> {
        self.store.sizes()
    }

    /// A consistent backup of the whole database in a temporary file beside it (see
    /// [`crate::store::backup`]), copied on the blocking pool; writes wait while it is copied.
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

    /// The periodic work: requeue expired leases, advance book builds.
    pub async fn tick(&self) {
        if let Err(error) = self.jobs.expire_leases() {
            tracing::error!(%error, "could not record expired leases");
        }
        if let Err(error) = self.builder.drive().await {
            tracing::error!(%error, "could not advance book builds");
        }
    }

    /// The coordinator's metrics.
    pub fn metrics(&self) -> &Metrics {
        self.jobs.metrics()
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
