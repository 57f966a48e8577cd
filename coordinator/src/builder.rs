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

use pentago::{Position, UctConfig};
use pentagrid_proto::{MAX_JOB_PLAYOUTS, Task, v1};
use tonic::Status;

use crate::coordinator::{Coordinator, internal};
use crate::store::{StoreError, StoredBuild};

/// Jobs a build keeps in flight.
pub const BUILD_WINDOW: usize = 16;
/// Positions one selection round may look at.
const MAX_VISITED: usize = 200_000;
/// Most roots of one build.
pub const MAX_BUILD_ROOTS: usize = 10_000;

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

fn invalid(what: &str) -> Status {
    Status::invalid_argument(what.to_owned())
}

impl Coordinator {
    /// Starts a book build and queues its first jobs.
    pub async fn start_build(
        &self,
        request: &v1::StartBuildRequest,
    ) -> Result<v1::StartBuildResponse, Status> {
        if request.roots.is_empty() || request.roots.len() > MAX_BUILD_ROOTS {
            return Err(invalid("a build has 1 to 10000 roots"));
        }
        if request.depth > 36 {
            return Err(invalid("depth must be at most 36"));
        }
        if request.max_positions == 0 || request.budget == 0 {
            return Err(invalid("max_positions and budget must be at least 1"));
        }
        if !(1..=MAX_JOB_PLAYOUTS).contains(&request.playouts_per_position) {
            return Err(invalid("playouts_per_position must be from 1 to 10^9"));
        }
        if request.solve_stones > 36 {
            return Err(invalid("solve_stones must be at most 36"));
        }
        let config: UctConfig = request.config.parse().map_err(|e| {
            Status::invalid_argument(format!("bad engine config {:?}: {e}", request.config))
        })?;
        let mut roots = Vec::with_capacity(request.roots.len());
        for text in &request.roots {
            let position: Position = text
                .parse()
                .map_err(|e| Status::invalid_argument(format!("bad root {text:?}: {e}")))?;
            if position.is_over() {
                return Err(Status::invalid_argument(format!(
                    "root {text} is a finished game"
                )));
            }
            let canonical = position.canonical().position.to_string();
            if !roots.contains(&canonical) {
                roots.push(canonical);
            }
        }
        let record = StoredBuild {
            roots,
            depth: request.depth,
            max_positions: request.max_positions,
            budget: request.budget,
            playouts_per_position: request.playouts_per_position,
            config: config.to_string(),
            solve_stones: request.solve_stones,
            ..StoredBuild::default()
        };
        let build_id = self.store.generate_id().map_err(internal)?;
        self.store.put_build(build_id, &record).map_err(internal)?;
        self.flush().await.map_err(internal)?;
        tracing::info!(
            build_id,
            roots = record.roots.len(),
            depth = record.depth,
            "book build started"
        );
        self.step_build(build_id).await?;
        Ok(v1::StartBuildResponse { build_id })
    }

    /// Where a build stands.
    pub fn build_status(
        &self,
        request: &v1::BuildStatusRequest,
    ) -> Result<v1::BuildStatusResponse, Status> {
        let record = self
            .store
            .build(request.build_id)
            .map_err(internal)?
            .ok_or_else(|| Status::not_found(format!("no build {}", request.build_id)))?;
        let pending = self
            .build_in_flight(request.build_id, &self.pending_book_keys())
            .map_err(internal)?;
        Ok(v1::BuildStatusResponse {
            build_id: request.build_id,
            state: if record.done { "done" } else { "running" }.into(),
            positions: record.positions,
            solved: record.solved,
            playouts: record.playouts,
            pending: pending as u64,
            depth: record.depth,
            max_positions: record.max_positions,
            budget: record.budget,
            roots: record.roots,
        })
    }

    /// Advances every unfinished build (called periodically by the server).
    pub async fn drive_builds(&self) -> Result<(), Status> {
        for (id, record) in self.store.builds().map_err(internal)? {
            if !record.done {
                self.step_build(id).await?;
            }
        }
        Ok(())
    }

    /// Canonical keys of the positions with an analyse or solve job queued or leased.
    fn pending_book_keys(&self) -> HashSet<u64> {
        let scheduler = self.scheduler();
        scheduler
            .active_where(|task| matches!(task, Task::Analyse { .. } | Task::Solve { .. }))
            .into_iter()
            .filter_map(|job| match scheduler.task(job) {
                Some(Task::Analyse { position, .. } | Task::Solve { position }) => {
                    Some(position.canonical_key().bits())
                }
                _ => None,
            })
            .collect()
    }

    fn build_in_flight(&self, build: u64, pending: &HashSet<u64>) -> Result<usize, StoreError> {
        let mut count = 0;
        for &key in pending {
            if self.store.build_has(build, key)? {
                count += 1;
            }
        }
        Ok(count)
    }

    /// Tops the build's window up with the best positions, or marks it done.
    async fn step_build(&self, id: u64) -> Result<(), Status> {
        let _round = self.build_round.lock().await;
        // Read under the lock: the last round may have moved the build on.
        let Some(mut record) = self.store.build(id).map_err(internal)? else {
            return Ok(());
        };
        if record.done {
            return Ok(());
        }
        let pending = self.pending_book_keys();
        let in_flight = self.build_in_flight(id, &pending).map_err(internal)?;
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
            self.select(id, &record, &pending, room).map_err(internal)?
        };
        let config: UctConfig = record
            .config
            .parse()
            .map_err(|e| Status::internal(format!("stored build {id} has a bad config: {e}")))?;
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
                self.store.put_build(id, &record).map_err(internal)?;
                tracing::info!(build = id, positions = record.positions, "book build done");
            }
            return Ok(());
        }
        // Jobs first: a stop in between leaves a job the next round sees as pending, never a
        // position marked queued without its job.
        self.queue_tasks(tasks).await?;
        self.store
            .add_build_nodes(id, &keys, &record)
            .map_err(internal)?;
        self.flush().await.map_err(internal)?;
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
