//! Deep solves on the cluster: exact values of positions below the midsolver's stone count.
//! The coordinator keeps the top of the search (the engine's [`DeepSolver`], alpha-beta over
//! proven bounds) and farms its leaves, 18-stone positions, out as ordinary leased
//! `deep_leaves` jobs of [`DeepSolve::batch`] leaves each.
//!
//! Each step of a running solve (on every tick, on the blocking pool, one step at a time):
//! the leaves of its jobs that finished are learnt from the store (a job that ended without
//! storing a value, or whose value a cross-check refused, simply leaves its leaf open); a
//! [`DeepSolver::frontier`] pass then lists the open leaves the search needs next, the most
//! proving first; leaves already stored (by this solve before a restart, or by another solve)
//! are learnt on the spot, and the rest, minus those in jobs still in flight, go out in new
//! jobs until the solve has its window of jobs in flight. When the pass proves the value, the
//! record says so and the solve's jobs still in flight are cancelled.
//!
//! Leaf values live in the store's `deep_leaves` tree, written with the result that proved
//! them (see [`pentagrid_store::deep`]); the search's own state is only a cache of them, so after
//! a restart a solve carries on from the stored leaves and the jobs still queued or leased.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use pentago::{DeepLimits, DeepSolver, MID_MIN_STONES, Position};
use pentagrid_model::{MAX_DEEP_LEAVES, Task};
use thiserror::Error;

use crate::jobs::JobQueue;
use crate::offload::blocking;
use pentagrid_store::deep_record::DeepSolve;
use pentagrid_store::{Store, StoreError};

/// Leaves per job when a request leaves it open.
pub const DEFAULT_DEEP_BATCH: u32 = 8;
/// The fewest stones of a deep solve's position: below, the top of the search is too large to
/// finish on any cluster.
pub const MIN_DEEP_STONES: u32 = 10;
/// Most stones of a deep solve's leaves (a full board has no ongoing position).
pub const MAX_LEAF_STONES: u32 = 35;
/// Fewest jobs a deep solve keeps in flight (more with more workers: two per worker).
const MIN_WINDOW: usize = 4;
/// Most jobs a deep solve keeps in flight.
const MAX_WINDOW: usize = 1_024;
/// Frontier passes one step may run to learn stored leaves before queueing.
const MAX_PASSES_PER_STEP: usize = 64;
/// Longest the search for a best move of a proven solve may take (it solves no leaf).
const FINISH_TIME: std::time::Duration = std::time::Duration::from_secs(30);
/// Transposition table of the top search's move ordering: 2^16 entries.
const TOP_TABLE_BITS: u32 = 16;

/// Why a deep-solve call was refused.
#[derive(Debug, Error)]
pub enum DeepError {
    /// The position cannot be deep-solved with these leaves.
    #[error("{position} has {stones} stones; a deep solve with leaves of {leaf_stones} stones takes {MIN_DEEP_STONES} to {} stones", leaf_stones - 1)]
    Stones {
        /// The position.
        position: Position,
        /// Its stones.
        stones: u32,
        /// The leaves' stones.
        leaf_stones: u32,
    },
    /// The leaves' stone count is out of range.
    #[error("leaves have {MID_MIN_STONES} to {MAX_LEAF_STONES} stones, not {0}")]
    LeafStones(u32),
    /// The game is over in the position.
    #[error("the game is already over in {0}")]
    Finished(Position),
    /// The batch is out of range.
    #[error("a deep-leaves job has 1 to {MAX_DEEP_LEAVES} leaves, not {0}")]
    Batch(u32),
    /// No such deep solve.
    #[error("no deep solve {0}")]
    NotFound(u64),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where a deep solve stands.
#[derive(Clone, Debug, PartialEq)]
pub struct DeepReport {
    /// Its id.
    pub id: u64,
    /// Its record (position, bounds, value, progress).
    pub record: DeepSolve,
    /// Leaves in its jobs still queued or leased.
    pub leaves_pending: u64,
}

/// A running solve's search, kept between steps.
struct Search {
    position: Position,
    solver: DeepSolver,
    /// Leaves handed out (canonical key -> leaf) whose values the search has not learnt.
    sent: HashMap<u64, Position>,
    /// Whether the last pass wanted fewer new leaves than the window had room for.
    starved: bool,
}

/// The deep-solve service.
pub struct DeepSolves {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    /// Held while a step runs: two steps of one solve would hand out the same leaves.
    round: tokio::sync::Mutex<()>,
    /// The searches of running solves; one is out of the map while its step runs.
    searches: Mutex<HashMap<u64, Search>>,
    /// The store's purge count the searches were filled under (see [`Store::purges`]).
    purges_seen: std::sync::atomic::AtomicU64,
}

impl DeepSolves {
    pub(crate) fn new(store: Arc<Store>, jobs: Arc<JobQueue>) -> DeepSolves {
        DeepSolves {
            store,
            jobs,
            round: tokio::sync::Mutex::new(()),
            searches: Mutex::new(HashMap::new()),
            purges_seen: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn searches(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Search>> {
        // Plain data: a panic while it was held leaves nothing to repair.
        self.searches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a deep solve of `position` with `batch` leaves per job (0: the default) whose
    /// leaves are its descendants with `leaf_stones` stones (0: the midsolver's
    /// [`MID_MIN_STONES`]; more makes leaves cheaper and the top larger), and queues its first
    /// jobs; returns its id.
    pub async fn start(
        &self,
        position: &Position,
        batch: u32,
        leaf_stones: u32,
    ) -> Result<u64, DeepError> {
        let leaf_stones = if leaf_stones == 0 {
            MID_MIN_STONES
        } else {
            leaf_stones
        };
        if !(MID_MIN_STONES..=MAX_LEAF_STONES).contains(&leaf_stones) {
            return Err(DeepError::LeafStones(leaf_stones));
        }
        let stones = position.stone_count();
        if !(MIN_DEEP_STONES..leaf_stones).contains(&stones) {
            return Err(DeepError::Stones {
                position: *position,
                stones,
                leaf_stones,
            });
        }
        if position.is_over() {
            return Err(DeepError::Finished(*position));
        }
        let batch = if batch == 0 {
            DEFAULT_DEEP_BATCH
        } else {
            batch
        };
        if batch as usize > MAX_DEEP_LEAVES {
            return Err(DeepError::Batch(batch));
        }
        let record = DeepSolve {
            position: position.to_string(),
            batch,
            lower: -1,
            upper: 1,
            leaf_stones,
            ..DeepSolve::default()
        };
        let id = self.store.generate_id()?;
        self.store.put_deep_solve(id, &record)?;
        self.jobs.durable().await?;
        tracing::info!(solve = id, %position, batch, "deep solve started");
        self.step(id).await?;
        Ok(id)
    }

    /// Where deep solve `id` stands.
    pub fn status(&self, id: u64) -> Result<DeepReport, DeepError> {
        let record = self.store.deep_solve(id)?.ok_or(DeepError::NotFound(id))?;
        Ok(self.report(id, record))
    }

    /// Where every deep solve stands, by id.
    pub fn list(&self) -> Result<Vec<DeepReport>, DeepError> {
        Ok(self
            .store
            .deep_solves()?
            .into_iter()
            .map(|(id, record)| self.report(id, record))
            .collect())
    }

    /// Up to `limit` proven leaves (canonical position, value) with keys above `after`.
    pub fn leaves(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(Position, pentago::Value)>, DeepError> {
        Ok(self.store.deep_leaves_after(after, limit)?)
    }

    fn report(&self, id: u64, record: DeepSolve) -> DeepReport {
        let leaves_pending = if record.done {
            0
        } else {
            self.in_flight(id).1.len() as u64
        };
        DeepReport {
            id,
            record,
            leaves_pending,
        }
    }

    /// The ids of the solve's jobs still queued or leased, and their leaves by canonical key.
    fn in_flight(&self, id: u64) -> (Vec<u64>, HashMap<u64, Position>) {
        let mut job_ids = Vec::new();
        let mut leaves = HashMap::new();
        for (job_id, task) in self.jobs.active_tasks(
            |task| matches!(task, Task::DeepLeaves { solve_id, .. } if *solve_id == id),
        ) {
            job_ids.push(job_id);
            if let Task::DeepLeaves { leaves: sent, .. } = task {
                leaves.extend(sent.iter().map(|leaf| (leaf.canonical_key().bits(), *leaf)));
            }
        }
        (job_ids, leaves)
    }

    /// Advances every running deep solve (called on every tick of the server).
    pub async fn drive(&self) -> Result<(), DeepError> {
        // A purge removed leaf values the searches may have learnt: they start again from the
        // stored leaves (all that a restart would keep).
        let purges = self.store.purges();
        if self
            .purges_seen
            .swap(purges, std::sync::atomic::Ordering::AcqRel)
            != purges
        {
            let _round = self.round.lock().await;
            self.searches().clear();
            tracing::warn!(
                "a worker's values were purged: running deep solves start over from the stored leaves"
            );
        }
        for (id, record) in self.store.deep_solves()? {
            if !record.done {
                self.step(id).await?;
            }
        }
        Ok(())
    }

    /// One step of solve `id` (see the module documentation).
    async fn step(&self, id: u64) -> Result<(), DeepError> {
        let _round = self.round.lock().await;
        let Some(record) = self.store.deep_solve(id)? else {
            return Ok(());
        };
        if record.done {
            self.searches().remove(&id);
            return Ok(());
        }
        let position: Position = record.position.parse().map_err(|e| StoreError::Corrupt {
            what: "deep solve",
            why: format!("deep solve {id} has a bad position: {e}"),
        })?;
        let (job_ids, pending) = self.in_flight(id);
        let window = (2 * self.jobs.worker_count()).clamp(MIN_WINDOW, MAX_WINDOW);
        let room = window.saturating_sub(job_ids.len());
        // Out of the map in a statement of its own: the guard must be gone before
        // `keep_if_idle` locks the map again.
        let cached = self.searches().remove(&id);
        let Some(search) = cached.map_or_else(
            || {
                Some(Search {
                    position,
                    solver: DeepSolver::new(TOP_TABLE_BITS).with_leaf_stones(record.leaf_stones),
                    sent: HashMap::new(),
                    starved: false,
                })
            },
            |search| self.keep_if_idle(id, search, &pending, room),
        ) else {
            return Ok(());
        };
        let store = self.store.clone();
        let before = record.clone();
        let (search, plan) = blocking(move || plan(search, &store, record, &pending, room)).await?;
        let Plan { record, fresh } = plan;
        let batch = record.batch.max(1) as usize;
        let tasks: Vec<Task> = fresh
            .chunks(batch)
            .map(|leaves| Task::DeepLeaves {
                solve_id: id,
                leaves: leaves.to_vec(),
            })
            .collect();
        // Jobs first: a stop in between leaves jobs the next step finds in flight.
        if !tasks.is_empty() {
            self.jobs.queue(tasks).await?;
        }
        if record.done {
            // Its value goes into the stored book with the record (see `store::propagate`).
            self.store.finish_deep_solve(id, &record)?;
        } else if record != before {
            self.store.put_deep_solve(id, &record)?;
        }
        if record.done {
            let cancelled = self.jobs.cancel(&job_ids).await?;
            tracing::info!(
                solve = id,
                lower = record.lower,
                upper = record.upper,
                best = %record.best,
                leaves = record.leaves_solved,
                cancelled,
                "deep solve done"
            );
        } else {
            self.searches().insert(id, search);
        }
        self.jobs.durable().await?;
        Ok(())
    }
}

impl DeepSolves {
    /// `search` back where a step would find nothing new to do: none of its leaves came back,
    /// and its window is full or its last pass wanted no leaf that is not in flight.
    fn keep_if_idle(
        &self,
        id: u64,
        search: Search,
        pending: &HashMap<u64, Position>,
        room: usize,
    ) -> Option<Search> {
        let returned = search.sent.keys().any(|key| !pending.contains_key(key));
        if !returned && (room == 0 || search.starved) {
            self.searches().insert(id, search);
            None
        } else {
            Some(search)
        }
    }
}

/// What a step found: the record as it is to be stored, and the leaves to hand out.
struct Plan {
    record: DeepSolve,
    fresh: Vec<Position>,
}

/// The blocking part of a step: learns the leaves of finished jobs and the stored ones the
/// search wants, and picks up to `room` jobs' worth of leaves to hand out.
fn plan(
    mut search: Search,
    store: &Store,
    mut record: DeepSolve,
    pending: &HashMap<u64, Position>,
    room: usize,
) -> Result<(Search, Plan), StoreError> {
    let finished: Vec<(u64, Position)> = search
        .sent
        .iter()
        .filter(|(key, _)| !pending.contains_key(key))
        .map(|(key, leaf)| (*key, *leaf))
        .collect();
    for (key, leaf) in finished {
        search.sent.remove(&key);
        if let Some(value) = store.deep_leaf(key)?
            && learn(&mut search, &leaf, value)
        {
            record.leaves_solved = record.leaves_solved.saturating_add(1);
        }
    }
    // After a restart: the leaves in flight were handed out before it.
    for (key, leaf) in pending {
        search.sent.entry(*key).or_insert(*leaf);
    }
    let batch = record.batch.max(1) as usize;
    let wanted = pending.len() + room * batch;
    let mut fresh = Vec::new();
    for _ in 0..MAX_PASSES_PER_STEP {
        let frontier = search.solver.frontier(&search.position, wanted.max(1));
        record.nodes = frontier.nodes;
        record.lower = i32::from(frontier.bounds.lower.as_i8());
        record.upper = i32::from(frontier.bounds.upper.as_i8());
        if frontier.bounds.exact().is_some() {
            finish(&mut search, &mut record);
            return Ok((search, Plan { record, fresh }));
        }
        fresh.clear();
        let mut learnt = false;
        for leaf in frontier.leaves {
            let key = leaf.canonical_key().bits();
            if pending.contains_key(&key) {
                continue;
            }
            match store.deep_leaf(key)? {
                Some(value) => learnt |= learn(&mut search, &leaf, value),
                None => fresh.push(leaf),
            }
        }
        if !learnt {
            break;
        }
    }
    search.starved = fresh.len() < room * batch;
    fresh.truncate(room * batch);
    for leaf in &fresh {
        search.sent.insert(leaf.canonical_key().bits(), *leaf);
    }
    Ok((search, Plan { record, fresh }))
}

/// Teaches the search a stored leaf value; whether it was new to it.
fn learn(search: &mut Search, leaf: &Position, value: pentago::Value) -> bool {
    let new = search.solver.leaves().get(leaf).is_none();
    // Refused only for a conflicting value, which one stored value per leaf rules out.
    new && search.solver.learn(leaf, value).is_ok()
}

/// Records the proven value with a move that achieves it: a search that solves no leaf
/// (every leaf it needs is known) finds it.
fn finish(search: &mut Search, record: &mut DeepSolve) {
    let limits = DeepLimits {
        max_midsolves: Some(0),
        max_time: Some(FINISH_TIME),
        ..DeepLimits::default()
    };
    let solution = search.solver.solve(&search.position, limits);
    if solution
        .value
        .is_some_and(|v| i32::from(v.as_i8()) == record.lower)
    {
        record.best = solution.best.map_or_else(String::new, |mv| mv.to_string());
    }
    record.done = true;
}
