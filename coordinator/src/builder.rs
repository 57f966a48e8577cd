//! The book builder: grows an opening book best-first from root positions, keeping a window
//! of analyse (or, for late positions, solve) jobs in flight until the build reaches its depth,
//! position count or playout budget. Its state is the stored tables plus the build record and
//! the positions it queued, so after a restart it carries on where it stopped.
//!
//! Priority of a position (documented, stable in spirit): a root starts at `1 / roots`; a
//! child inherits its parent's priority times the share of the parent's playouts that went
//! into the move, times `1 + 2·σ` with `σ = sqrt(w(1 − w) / (n + 1))` the uncertainty of the
//! move's win rate `w` over `n` playouts. So the builder follows the principal lines (high
//! visit share), leans towards moves whose value is unsure, and analyses a position (the
//! "unexplored" case) as soon as its priority is among the highest of positions without a
//! table. Proven positions are leaves.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::sync::Arc;

use pentago::{Position, UctConfig};
use pentagrid_proto::{MAX_JOB_PLAYOUTS, Task};
use thiserror::Error;

use crate::jobs::JobQueue;
use crate::store::{Store, StoreError, StoredBuild};

/// Jobs a build keeps in flight.
pub const BUILD_WINDOW: usize = 16;
/// Positions one selection round may look at.
const MAX_VISITED: usize = 200_000;
/// Most roots of one build.
pub const MAX_BUILD_ROOTS: usize = 10_000;

/// A build to start.
#[derive(Clone, Debug)]
pub struct BuildSpec {
    /// Root positions (any frame, ongoing).
    pub roots: Vec<Position>,
    /// Deepest ply below a root that gets analysed.
    pub depth: u32,
    /// Most positions the build may analyse or solve.
    pub max_positions: u64,
    /// Most playouts the build may spend.
    pub budget: u64,
    /// Playouts per analysed position.
    pub playouts_per_position: u64,
    /// Engine configuration of the analyses.
    pub config: UctConfig,
    /// Positions with at least this many stones are solved exactly instead (0: never).
    pub solve_stones: u32,
}

/// Where a build stands.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The build id.
    pub id: u64,
    /// Its record (progress and limits).
    pub record: StoredBuild,
    /// Its jobs still queued or leased.
    pub pending: u64,
}

/// Why a build call was refused.
#[derive(Debug, Error)]
pub enum BuildError {
    /// The build's parameters are out of range.
    #[error("{0}")]
    Invalid(String),
    /// No such build.
    #[error("no build {0}")]
    NotFound(u64),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A position waiting in the best-first queue.
struct Node {
    priority: f64,
    ply: u32,
    position: Position,
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Node {}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then_with(|| other.position.key().bits().cmp(&self.position.key().bits()))
    }
}

fn invalid(what: &str) -> BuildError {
    BuildError::Invalid(what.to_owned())
}

/// The book builder service.
pub struct BookBuilder {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    /// Held while a round picks and queues positions: two rounds at once would pick the same
    /// positions before either is queued.
    round: tokio::sync::Mutex<()>,
}

impl BookBuilder {
    pub(crate) fn new(store: Arc<Store>, jobs: Arc<JobQueue>) -> BookBuilder {
        BookBuilder {
            store,
            jobs,
            round: tokio::sync::Mutex::new(()),
        }
    }

    /// Starts a book build and queues its first jobs.
    pub async fn start(&self, spec: &BuildSpec) -> Result<u64, BuildError> {
        if spec.roots.is_empty() || spec.roots.len() > MAX_BUILD_ROOTS {
            return Err(invalid("a build has 1 to 10000 roots"));
        }
        if spec.depth > 36 {
            return Err(invalid("depth must be at most 36"));
        }
        if spec.max_positions == 0 || spec.budget == 0 {
            return Err(invalid("max_positions and budget must be at least 1"));
        }
        if !(1..=MAX_JOB_PLAYOUTS).contains(&spec.playouts_per_position) {
            return Err(invalid("playouts_per_position must be from 1 to 10^9"));
        }
        if spec.solve_stones > 36 {
            return Err(invalid("solve_stones must be at most 36"));
        }
        let mut roots = Vec::with_capacity(spec.roots.len());
        for position in &spec.roots {
            if position.is_over() {
                return Err(BuildError::Invalid(format!(
                    "root {position} is a finished game"
                )));
            }
            let canonical = position.canonical().position.to_string();
            if !roots.contains(&canonical) {
                roots.push(canonical);
            }
        }
        let record = StoredBuild {
            roots,
            depth: spec.depth,
            max_positions: spec.max_positions,
            budget: spec.budget,
            playouts_per_position: spec.playouts_per_position,
            config: spec.config.to_string(),
            solve_stones: spec.solve_stones,
            ..StoredBuild::default()
        };
        let build_id = self.store.generate_id()?;
        self.store.put_build(build_id, &record)?;
        self.jobs.durable().await?;
        tracing::info!(
            build_id,
            roots = record.roots.len(),
            depth = record.depth,
            "book build started"
        );
        self.step(build_id).await?;
        Ok(build_id)
    }

    /// Where a build stands.
    pub fn status(&self, build_id: u64) -> Result<BuildReport, BuildError> {
        let record = self
            .store
            .build(build_id)?
            .ok_or(BuildError::NotFound(build_id))?;
        let pending = self.in_flight(build_id, &self.pending_book_keys())?;
        Ok(BuildReport {
            id: build_id,
            record,
            pending: pending as u64,
        })
    }

    /// Advances every unfinished build (called on every tick of the server).
    pub async fn drive(&self) -> Result<(), BuildError> {
        for (id, record) in self.store.builds()? {
            if !record.done {
                self.step(id).await?;
            }
        }
        Ok(())
    }

    /// Canonical keys of the positions with an analyse or solve job queued or leased.
    fn pending_book_keys(&self) -> HashSet<u64> {
        self.jobs
            .active_tasks(|task| matches!(task, Task::Analyse { .. } | Task::Solve { .. }))
            .into_iter()
            .filter_map(|(_, task)| match task {
                Task::Analyse { position, .. } | Task::Solve { position } => {
                    Some(position.canonical_key().bits())
                }
                _ => None,
            })
            .collect()
    }

    fn in_flight(&self, build: u64, pending: &HashSet<u64>) -> Result<usize, StoreError> {
        let mut count = 0;
        for &key in pending {
            if self.store.build_has(build, key)? {
                count += 1;
            }
        }
        Ok(count)
    }

    /// Tops the build's window up with the best positions, or marks it done.
    async fn step(&self, id: u64) -> Result<(), BuildError> {
        let _round = self.round.lock().await;
        // Read under the lock: the last round may have moved the build on.
        let Some(mut record) = self.store.build(id)? else {
            return Ok(());
        };
        if record.done {
            return Ok(());
        }
        let pending = self.pending_book_keys();
        let in_flight = self.in_flight(id, &pending)?;
        if in_flight * 2 > BUILD_WINDOW {
            return Ok(());
        }
        // Without exact solves, the budget caps how many more analyses can go out; checking it
        // here spares a walk through the book on every tick once it is spent.
        let affordable = if record.solve_stones == 0 {
            (record.budget.saturating_sub(record.playouts) / record.playouts_per_position) as usize
        } else {
            usize::MAX
        };
        let room = (BUILD_WINDOW - in_flight)
            .min(record.max_positions.saturating_sub(record.positions) as usize)
            .min(affordable);
        let frontier = if room == 0 {
            Vec::new()
        } else {
            self.select(id, &record, &pending, room)?
        };
        let config: UctConfig = record.config.parse().map_err(|e| StoreError::Corrupt {
            what: "build",
            why: format!("build {id} has a bad config: {e}"),
        })?;
        let mut tasks = Vec::new();
        let mut keys = Vec::new();
        for position in frontier {
            let solve = record.solve_stones > 0 && position.stone_count() >= record.solve_stones;
            if solve {
                record.solved += 1;
                tasks.push(Task::Solve { position });
            } else {
                if record.playouts + record.playouts_per_position > record.budget {
                    continue;
                }
                record.playouts += record.playouts_per_position;
                tasks.push(Task::Analyse {
                    position,
                    config: config.clone(),
                    playouts: record.playouts_per_position,
                });
            }
            record.positions += 1;
            keys.push(position.key().bits());
        }
        if tasks.is_empty() {
            if in_flight == 0 {
                record.done = true;
                self.store.put_build(id, &record)?;
                tracing::info!(build = id, positions = record.positions, "book build done");
            }
            return Ok(());
        }
        // Jobs first: a stop in between leaves a job the next round sees as pending, never a
        // position marked queued without its job.
        self.jobs.queue(tasks).await?;
        self.store.add_build_nodes(id, &keys, &record)?;
        self.jobs.durable().await?;
        Ok(())
    }

    /// Up to `room` canonical positions without a table, best priority first.
    fn select(
        &self,
        id: u64,
        record: &StoredBuild,
        pending: &HashSet<u64>,
        room: usize,
    ) -> Result<Vec<Position>, StoreError> {
        let mut heap = BinaryHeap::new();
        let share = 1.0 / record.roots.len() as f64;
        for root in &record.roots {
            if let Ok(position) = root.parse::<Position>() {
                heap.push(Node {
                    priority: share,
                    ply: 0,
                    position,
                });
            }
        }
        let mut visited = HashSet::new();
        let mut out = Vec::new();
        while let Some(node) = heap.pop() {
            if out.len() >= room || visited.len() >= MAX_VISITED {
                break;
            }
            let key = node.position.key().bits();
            if !visited.insert(key) || pending.contains(&key) {
                continue;
            }
            if !self.store.proven_table(key)?.is_empty() {
                continue;
            }
            let table = self.store.playout_table(key)?;
            if table.is_empty() {
                // Queued before without a table: its job failed; leave it.
                if !self.store.build_has(id, key)? {
                    out.push(node.position);
                }
                continue;
            }
            if node.ply >= record.depth {
                continue;
            }
            let total: u64 = table.values().map(|c| c.games).sum();
            for (mv, counts) in &table {
                let Ok(child) = node.position.play(*mv) else {
                    continue;
                };
                if child.is_over() || counts.games == 0 {
                    continue;
                }
                let n = counts.games as f64;
                let rate = (counts.wins as f64 + 0.5 * counts.draws as f64) / n;
                let sigma = (rate * (1.0 - rate) / (n + 1.0)).sqrt();
                heap.push(Node {
                    priority: node.priority * (n / total as f64) * (1.0 + 2.0 * sigma),
                    ply: node.ply + 1,
                    position: child.canonical().position,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::coordinator::Coordinator;
    use crate::ingest::Submission;
    use crate::jobs::Settings;
    use pentagrid_proto::{Outcome, Row};

    /// A made-up but valid analysis: the whole budget on the first legal move, all lost.
    fn analysis(position: &Position, playouts: u64) -> Outcome {
        Outcome::Analyse {
            rows: vec![Row {
                mv: position.legal_moves()[0],
                games: playouts,
                wins: 0,
                draws: 0,
            }],
            simulations: playouts,
            seconds: 0.0,
        }
    }

    #[tokio::test]
    async fn ticks_drive_a_build_to_its_end_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::default());
        let coordinator =
            Coordinator::open_with_clock(dir.path(), Settings::default(), clock).unwrap();
        let spec = BuildSpec {
            roots: vec![Position::START],
            depth: 2,
            max_positions: 3,
            budget: 1_000,
            playouts_per_position: 100,
            config: "uct".parse().unwrap(),
            solve_stones: 0,
        };
        let build = coordinator.builder.start(&spec).await.unwrap();
        coordinator.jobs.hello("w", "w", 1).unwrap();
        for round in 0..10 {
            for job in coordinator.jobs.lease("w", 16).unwrap() {
                let Task::Analyse {
                    position, playouts, ..
                } = &job.task
                else {
                    panic!("a build queues analyses here: {:?}", job.task);
                };
                let submission = Submission {
                    worker_id: "w".into(),
                    job_id: job.job_id,
                    lease_id: job.lease_id,
                    result_id: format!("r{}", job.job_id),
                    outcome: analysis(position, *playouts),
                };
                coordinator.ingest.submit(&submission).await.unwrap();
            }
            coordinator.tick().await;
            if coordinator.builder.status(build).unwrap().record.done {
                let report = coordinator.builder.status(build).unwrap();
                assert_eq!(report.record.positions, 3, "round {round}");
                assert_eq!((report.record.playouts, report.pending), (300, 0));
                return;
            }
        }
        panic!("the build did not finish in 10 ticks");
    }
}
