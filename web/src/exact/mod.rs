//! Exact values for the analysis board: every move's value for the mover and the position's,
//! each named by its source — the tablebase, the book's stored proofs, and from
//! [`ExactSettings::solver_min_stones`] stones on the engine's exact solver within a budget.
//!
//! Nothing exact runs on the server's request threads: tablebase probes run as a few blocking
//! tasks at a time, solves on the [`SolverPool`]'s own threads. Answers are kept (they never
//! change), and concurrent requests for one position share one computation, so a crowd asking
//! for one position costs one solve and a flood of distinct ones at most the pool's queue.

mod pool;
mod values;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;
use pentago::{ExactOracle, Position, PositionKey};
use pentagrid_tablebase::{Tablebase, TablebaseError};
use tokio::sync::Semaphore;

pub use pool::{Busy, SolverHold, SolverPool, SolverRun, SolverSettings, SolverStats};
pub use values::{BookProofs, Known, TableAnswer, ValueSource, known};

use crate::source::{BookTables, SourceError};

/// How the analysis board finds exact values.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ExactSettings {
    /// The solver pool.
    pub solver: SolverSettings,
    /// Positions with at least this many stones that no other source settles go to the solver
    /// (below it, an alpha-beta search within any useful budget rarely finishes).
    pub solver_min_stones: u32,
    /// Most moves' values kept across all answers (about 16 bytes each).
    pub cache_moves: u64,
    /// How long the book's proofs of a position are kept before the book is read again.
    pub book_max_age: Duration,
    /// Tablebase probes run at once (each on a blocking thread).
    pub table_tasks: usize,
}

impl Default for ExactSettings {
    /// The default pool, the solver from 17 stones, 4 million moves kept (the values of about
    /// 15,000 positions of 17 stones), book proofs kept 5 s, two probes at once.
    fn default() -> ExactSettings {
        ExactSettings {
            solver: SolverSettings::default(),
            solver_min_stones: 17,
            cache_moves: 4_000_000,
            book_max_age: Duration::from_secs(5),
            table_tasks: 2,
        }
    }
}

/// Why exact values could not be given.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ExactError {
    /// The solver pool is full; ask again later.
    #[error(transparent)]
    Busy(#[from] Busy),
    /// The tablebase covers the position but could not read its value (a damaged file).
    #[error("the tablebase could not be read: {0}")]
    Table(Arc<TablebaseError>),
    /// The solver failed on the position.
    #[error("the exact solver failed on {0}")]
    SolverFailed(String),
    /// A blocking task could not run (the server is shutting down).
    #[error("the server is shutting down")]
    ShuttingDown,
}

/// The analysis board's sources of exact values: a handle that clones share.
#[derive(Clone)]
pub struct ExactBoard {
    inner: Arc<Inner>,
}

struct Inner {
    tablebase: Tablebase,
    pool: SolverPool,
    settings: ExactSettings,
    table_tasks: Semaphore,
    tables: Cache<PositionKey, Arc<TableAnswer>>,
    solves: Cache<PositionKey, Arc<SolverRun>>,
    proofs: Cache<PositionKey, Arc<BookProofs>>,
}

impl ExactBoard {
    /// Exact values from `tablebase`, the book and a solver pool started as `settings` say.
    ///
    /// # Errors
    /// When the system refuses a solver thread.
    pub fn new(tablebase: Tablebase, settings: ExactSettings) -> std::io::Result<ExactBoard> {
        let pool = SolverPool::start(settings.solver)?;
        // Weighed by moves; an entry costs at least one.
        let weigh_table = |_: &PositionKey, answer: &Arc<TableAnswer>| {
            weight(answer.moves.as_ref().map_or(0, Vec::len))
        };
        let weigh_run = |_: &PositionKey, run: &Arc<SolverRun>| weight(run.moves.len());
        let weigh_proofs = |_: &PositionKey, proofs: &Arc<BookProofs>| weight(proofs.len());
        Ok(ExactBoard {
            inner: Arc::new(Inner {
                tablebase,
                pool,
                table_tasks: Semaphore::new(settings.table_tasks.max(1)),
                tables: Cache::builder()
                    .max_capacity(settings.cache_moves / 2)
                    .weigher(weigh_table)
                    .build(),
                solves: Cache::builder()
                    .max_capacity(settings.cache_moves / 2)
                    .weigher(weigh_run)
                    .build(),
                proofs: Cache::builder()
                    .max_capacity(settings.cache_moves / 4)
                    .time_to_live(settings.book_max_age)
                    .weigher(weigh_proofs)
                    .build(),
                settings,
            }),
        })
    }

    /// The shipped tablebase (slices 0–6) and the default settings.
    ///
    /// # Errors
    /// When the shipped slices do not read or a solver thread is refused.
    pub fn shipped() -> std::io::Result<ExactBoard> {
        let tablebase = Tablebase::shipped().map_err(std::io::Error::other)?;
        ExactBoard::new(tablebase, ExactSettings::default())
    }

    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> ExactSettings {
        self.inner.settings
    }

    /// The solver pool's counters.
    #[must_use]
    pub fn solver_stats(&self) -> SolverStats {
        self.inner.pool.stats()
    }

    /// Holds the solver threads until the guard drops (see [`SolverPool::hold`]).
    #[must_use = "the hold ends when the guard is dropped"]
    pub fn hold_solver(&self) -> SolverHold {
        self.inner.pool.hold()
    }

    /// Stone counts the tablebase holds.
    #[must_use]
    pub fn table_slices(&self) -> Vec<u32> {
        self.inner
            .tablebase
            .slices()
            .iter()
            .map(|s| s.stones)
            .collect()
    }

    /// Whether the tablebase knows every move of positions of `stones` stones.
    #[must_use]
    pub fn table_covers_moves(&self, stones: u32) -> bool {
        self.inner.tablebase.covers(stones + 1)
    }

    /// What the tablebase says about the ongoing `position` (`None` when it holds neither its
    /// slice nor the next), probed on a blocking thread.
    ///
    /// # Errors
    /// A damaged slice, or no thread to probe on.
    pub async fn table(&self, position: &Position) -> Result<Option<Arc<TableAnswer>>, ExactError> {
        let stones = position.stone_count();
        let tablebase = &self.inner.tablebase;
        if !tablebase.covers(stones) && !tablebase.covers(stones + 1) {
            return Ok(None);
        }
        let inner = Arc::clone(&self.inner);
        let position = *position;
        let probe = async move {
            let _permit = inner
                .table_tasks
                .acquire()
                .await
                .map_err(|_| ExactError::ShuttingDown)?;
            let probing = Arc::clone(&inner);
            tokio::task::spawn_blocking(move || probe_table(&probing.tablebase, &position))
                .await
                .map_err(|_| ExactError::ShuttingDown)?
                .map(Arc::new)
        };
        let key = position.key();
        let answer = self.inner.tables.try_get_with(key, probe).await;
        answer.map(Some).map_err(Arc::unwrap_or_clone)
    }

    /// The solver's values for the moves of the ongoing `position`, from the pool (a kept
    /// answer when there is one; one solve shared by everyone asking at once).
    ///
    /// # Errors
    /// [`ExactError::Busy`] when the pool is full; [`ExactError::SolverFailed`] when it failed.
    pub async fn solve(&self, position: &Position) -> Result<Arc<SolverRun>, ExactError> {
        let pool = self.inner.pool.clone();
        let position = *position;
        let run = async move {
            let answer = pool.submit(position)?;
            answer
                .await
                .map(Arc::new)
                .map_err(|_| ExactError::SolverFailed(position.to_string()))
        };
        let key = position.key();
        self.inner
            .solves
            .try_get_with(key, run)
            .await
            .map_err(Arc::unwrap_or_clone)
    }

    /// The book's proofs for `position`: kept ones, or what `fetch` reads (kept for
    /// [`ExactSettings::book_max_age`] unless the read failed).
    ///
    /// # Errors
    /// The read's error.
    pub async fn book_proofs(
        &self,
        position: &Position,
        fetch: impl Future<Output = Result<BookTables, SourceError>>,
    ) -> Result<Arc<BookProofs>, SourceError> {
        let read = async move { fetch.await.map(|tables| Arc::new(BookProofs::of(&tables))) };
        self.inner
            .proofs
            .try_get_with(position.key(), read)
            .await
            .map_err(Arc::unwrap_or_clone)
    }
}

/// A cache weight of `moves` moves (at least one).
fn weight(moves: usize) -> u32 {
    u32::try_from(moves.max(1)).unwrap_or(u32::MAX)
}

/// The tablebase's value of `position` and, where the next slice is loaded, of its moves.
fn probe_table(tablebase: &Tablebase, position: &Position) -> Result<TableAnswer, ExactError> {
    let failed = |e| ExactError::Table(Arc::new(e));
    let value = tablebase.value(position).map_err(failed)?;
    let moves = if tablebase.covers(position.stone_count() + 1) {
        tablebase.probe_moves(position).map_err(failed)?
    } else {
        None
    };
    Ok(TableAnswer { value, moves })
}
