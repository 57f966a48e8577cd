//! The book builder: grows an opening book best-first from root positions, keeping a window
//! of analyse (or, for late positions, solve) jobs in flight (one per worker of the cluster,
//! within bounds) until the build reaches its depth, position count or playout budget. Its
//! state is the stored tables plus the build record and the positions it queued, so after a
//! restart it carries on where it stopped.
//!
//! Priority of a position (documented, stable in spirit): a root starts at `1 / roots`; a
//! child inherits its parent's priority times the share of the parent's playouts that went
//! into the move, times `1 + 2·σ` with `σ = sqrt(w(1 − w) / (n + 1))` the uncertainty of the
//! move's win rate `w` over `n` playouts. So the builder follows the principal lines (high
//! visit share), leans towards moves whose value is unsure, and analyses a position (the
//! "unexplored" case) as soon as its priority is among the highest of positions without a
//! table. Proven positions are leaves, and proven moves are not explored again: like an
//! MCTS-solver, once a move's exact value is stored (a solve, the tablebase, or propagation up
//! the book, see `store::propagate`) it replaces the move's playout estimate: the move gets no
//! child entry, and the parent's share is split among its unproven moves only. A proven
//! position is a leaf, not analysed; in particular one whose moves the coordinator's tablebase
//! covers gets its table values when the walk reaches it (no job, no playouts; see
//! [`crate::table_values`]). The one exception is a root: the build was asked for its
//! statistics, so it is analysed once (beside its exact values), and not expanded. A position
//! reached along several lines takes the best
//! priority known when it is handled (picked or expanded); a better line found later does not
//! move it again.
//!
//! The frontier ([`frontier`]) lives in memory between rounds: each round first takes in the
//! jobs of the build that finished since the last one (their children enter the heap), then
//! pops the best positions, so a round costs O(log n) per pop plus one look-up per job in
//! flight, and never walks from the roots again. A popped position that already has a stored
//! table is expanded on the spot: a build started over an existing book (or restarted) walks
//! the stored positions of higher priority than its picks, lazily, a bounded number of pops per
//! round, two store reads each. That walk is at most the stored book, once per build (or
//! restart), shared by all the build's picks; once the picks are below the stored book, a queued
//! job costs a few pops (BENCHMARKS.md has what the walk costs per queued job under the soak).
//! Rounds run as background work; their time, the part spent popping and the stored positions
//! walked go to the metrics.
//!
//! Deep solves ([`deep`]): a build with a deep range (`deep_from` up to the deep solves' leaf
//! stones) sends the unproven book positions it meets in that range to the cluster's deep-solve
//! service, a bounded number at a time, once each; their proven values reach the book as the
//! solves finish, and the build is done once they are.

mod deep;
mod frontier;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use pentago::{Position, UctConfig};
use pentagrid_model::{MAX_JOB_PLAYOUTS, Task};
use thiserror::Error;

use crate::deep::DeepSolves;
use crate::jobs::JobQueue;
use crate::metrics::Metrics;
use crate::offload::{BackgroundPriority, background};
use crate::table_values::TableValues;
use frontier::{Flight, Frontier, Limits, Pick, Selection};
use pentagrid_store::build_record::Build;
use pentagrid_store::{Store, StoreError};

pub use deep::{DEFAULT_DEEP_WINDOW, MAX_DEEP_WINDOW};

/// Fewest jobs a build keeps in flight.
pub const MIN_BUILD_WINDOW: usize = 16;
/// Most jobs a build keeps in flight.
pub const MAX_BUILD_WINDOW: usize = 4_096;
/// Heap entries one round may pop: bounds a round's work (while a restarted build walks the
/// explored part of its book again, or positions are all leaves).
const MAX_POPS_PER_ROUND: usize = 20_000;
/// Heap entries kept per position the build may still analyse (and at least
/// [`MIN_FRONTIER`]): the heap is cut back to that many best entries when it doubles.
const FRONTIER_PER_POSITION: u64 = 8;
/// Fewest heap entries kept when the heap is cut back.
const MIN_FRONTIER: u64 = 1 << 16;
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
    /// Book positions with at least this many stones (within [`Build::deep_range`]) get a
    /// cluster deep solve (0: never).
    pub deep_from: u32,
    /// Most deep solves running at once (0: [`DEFAULT_DEEP_WINDOW`]).
    pub deep_window: u32,
    /// Stones of the deep solves' leaves (0: the midsolver's 18).
    pub deep_leaf_stones: u32,
}

/// Where a build stands.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The build id.
    pub id: u64,
    /// Its record (progress and limits).
    pub record: Build,
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

fn invalid(what: &str) -> BuildError {
    BuildError::Invalid(what.to_owned())
}

/// What a round found to do.
struct Round {
    /// The build's jobs in flight before this round queues any.
    in_flight: usize,
    /// What the frontier gave.
    selection: Selection,
    /// CPU time of the thread spent popping the frontier (`None` where no pop was tried or
    /// the platform does not measure it): the rest of the round took in finished jobs.
    choosing_cpu: Option<Duration>,
}

/// The book builder service.
pub struct BookBuilder {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    /// Where the build's deep solves run.
    deep: Arc<DeepSolves>,
    /// Where rounds run.
    background: BackgroundPriority,
    /// Where rounds are counted.
    metrics: Metrics,
    /// Where covered positions get their exact values instead of a job.
    table: TableValues,
    /// Held while a round picks and queues positions: two rounds at once would pick the same
    /// positions before either is queued.
    round: tokio::sync::Mutex<()>,
    /// The frontiers of unfinished builds, by build id; one is out of the map while a round of
    /// its build runs (and after an error, so that the next round rebuilds it).
    frontiers: Mutex<HashMap<u64, Frontier>>,
}

impl BookBuilder {
    pub(crate) fn new(
        store: Arc<Store>,
        jobs: Arc<JobQueue>,
        deep: Arc<DeepSolves>,
        background: BackgroundPriority,
        metrics: Metrics,
        table: TableValues,
    ) -> BookBuilder {
        BookBuilder {
            store,
            jobs,
            deep,
            background,
            metrics,
            table,
            round: tokio::sync::Mutex::new(()),
            frontiers: Mutex::new(HashMap::new()),
        }
    }

    fn frontiers(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Frontier>> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.frontiers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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
        let (deep_from, deep_window, deep_leaf_stones) =
            deep::deep_settings(spec.deep_from, spec.deep_window, spec.deep_leaf_stones)?;
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
        let record = Build {
            roots,
            depth: spec.depth,
            max_positions: spec.max_positions,
            budget: spec.budget,
            playouts_per_position: spec.playouts_per_position,
            config: spec.config.to_string(),
            solve_stones: spec.solve_stones,
            deep_from,
            deep_window,
            deep_leaf_stones,
            ..Build::default()
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
        let mut pending = 0;
        for (_, position) in self.jobs.book_positions() {
            if self.store.build_has(build_id, position.key().bits())? {
                pending += 1;
            }
        }
        Ok(BuildReport {
            id: build_id,
            record,
            pending,
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

    /// Tops the build's window up with the best positions, or marks it done.
    async fn step(&self, id: u64) -> Result<(), BuildError> {
        let _round = self.round.lock().await;
        // Read under the lock: the last round may have moved the build on.
        let Some(mut record) = self.store.build(id)? else {
            return Ok(());
        };
        if record.done {
            self.frontiers().remove(&id);
            return Ok(());
        }
        let config: UctConfig = record.config.parse().map_err(|e| StoreError::Corrupt {
            what: "build",
            why: format!("build {id} has a bad config: {e}"),
        })?;
        let frontier = self.frontiers().remove(&id);
        let (store, jobs, planned) = (self.store.clone(), self.jobs.clone(), record.clone());
        let window = build_window(self.jobs.worker_count());
        let priority = self.background;
        let table = self.table.clone();
        let (mut frontier, mut round, wall, cpu) = background(priority, move || {
            let (started, cpu_started) = (Instant::now(), ThreadTime::try_now().ok());
            let mut frontier = match frontier {
                Some(frontier) => frontier,
                None => restore(&store, &jobs, id, &planned)?,
            };
            let round = plan(&mut frontier, &store, &jobs, id, &planned, window, table)?;
            let cpu = cpu_started.and_then(|cpu| cpu.try_elapsed().ok());
            Ok::<_, StoreError>((frontier, round, started.elapsed(), cpu))
        })
        .await?;
        let metrics = &self.metrics;
        metrics.build_choosing(round.choosing_cpu, round.selection.walked);
        let met = std::mem::take(&mut round.selection.deep);
        let deep_busy = self.deep_round(id, &mut record, &met).await?;
        let mut tasks = Vec::new();
        let mut queued: Vec<Pick> = Vec::new();
        for pick in round.selection.picks {
            let position = pick.position;
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
            queued.push(pick);
        }
        metrics.build_round(wall, cpu, tasks.len());
        if tasks.is_empty() {
            if round.in_flight == 0 && !round.selection.unfinished && !deep_busy {
                record.done = true;
                self.store.put_build(id, &record)?;
                tracing::info!(build = id, positions = record.positions, "book build done");
            } else {
                self.frontiers().insert(id, frontier);
            }
            return Ok(());
        }
        // Jobs first: a stop in between leaves a job the next round sees as pending, never a
        // position marked queued without its job. An error on the way drops the frontier, so
        // the next round rebuilds it from the store.
        let job_ids = self.jobs.queue(tasks).await?;
        let keys: Vec<u64> = queued.iter().map(|p| p.position.key().bits()).collect();
        self.store.add_build_nodes(id, &keys, &record)?;
        for (job_id, pick) in job_ids.into_iter().zip(&queued) {
            frontier.fly(job_id, pick);
        }
        self.frontiers().insert(id, frontier);
        self.jobs.durable().await?;
        Ok(())
    }
}

/// The frontier of a build as after a restart: its roots, and its jobs still in flight.
fn restore(
    store: &Store,
    jobs: &JobQueue,
    id: u64,
    record: &Build,
) -> Result<Frontier, StoreError> {
    let roots: Vec<Position> = record.roots.iter().filter_map(|r| r.parse().ok()).collect();
    let mut flights = Vec::new();
    for (job_id, position) in jobs.book_positions() {
        if store.build_has(id, position.key().bits())? {
            flights.push(Flight {
                job_id,
                position,
                place: None,
                own: true,
            });
        }
    }
    tracing::info!(
        build = id,
        in_flight = flights.len(),
        "book build frontier restored"
    );
    Ok(Frontier::new(&roots, flights))
}

/// How many jobs a build keeps in flight on a cluster of `workers`: one per worker (each runs
/// one job at a time), so a build can use the whole cluster when nothing else is queued,
/// within [`MIN_BUILD_WINDOW`] and [`MAX_BUILD_WINDOW`]. A wider window picks positions with
/// less of the book known, the price of keeping many workers busy.
fn build_window(workers: usize) -> usize {
    workers.clamp(MIN_BUILD_WINDOW, MAX_BUILD_WINDOW)
}

/// One round's selection (on a blocking thread): takes in finished jobs, then, if the window
/// of `window` jobs is at most half full, pops the best positions.
fn plan(
    frontier: &mut Frontier,
    store: &Store,
    jobs: &JobQueue,
    id: u64,
    record: &Build,
    window: usize,
    table: TableValues,
) -> Result<Round, StoreError> {
    frontier.settle(store, jobs, record.depth)?;
    let in_flight = frontier.in_flight();
    if in_flight * 2 > window {
        let selection = Selection {
            picks: Vec::new(),
            unfinished: true,
            walked: 0,
            deep: Vec::new(),
        };
        return Ok(Round {
            in_flight,
            selection,
            choosing_cpu: None,
        });
    }
    // Without exact solves, the budget caps how many more analyses can go out; checking it
    // here spares popping the frontier once it is spent.
    let affordable = if record.solve_stones == 0 {
        (record.budget.saturating_sub(record.playouts) / record.playouts_per_position) as usize
    } else {
        usize::MAX
    };
    let remaining = record.max_positions.saturating_sub(record.positions);
    let room = (window - in_flight).min(remaining as usize).min(affordable);
    if room == 0 {
        return Ok(Round {
            in_flight,
            selection: Selection::default(),
            choosing_cpu: None,
        });
    }
    let cap = remaining
        .saturating_mul(FRONTIER_PER_POSITION)
        .max(MIN_FRONTIER);
    let limits = Limits {
        depth: record.depth,
        room,
        max_pops: MAX_POPS_PER_ROUND,
        cap: usize::try_from(cap).unwrap_or(usize::MAX),
        deep: record.deep_range(),
        table,
    };
    let cpu_started = ThreadTime::try_now().ok();
    let selection = frontier.select(store, id, limits, |key| jobs.book_job(key))?;
    Ok(Round {
        in_flight,
        selection,
        choosing_cpu: cpu_started.and_then(|cpu| cpu.try_elapsed().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::coordinator::Coordinator;
    use crate::identity::{ResultId, WorkerId};
    use crate::ingest::Submission;
    use crate::settings::CoordinatorSettings;

    fn id(text: &str) -> WorkerId {
        WorkerId::parse(text).unwrap()
    }
    use pentagrid_model::{Outcome, Row};

    /// A made-up but valid analysis: the whole budget on the first legal move, all lost.
    /// Settings for a coordinator that is handed invented analyses: its statistical check of
    /// analysis results would rightly catch them.
    fn invented_analyses() -> CoordinatorSettings {
        let mut settings = CoordinatorSettings::default();
        settings.crosscheck.analysis_sample = 0.0;
        settings
    }

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

    /// A position three plies in, without symmetries: its moves lead to many distinct
    /// canonical children.
    fn root() -> Position {
        let mut position = Position::START;
        for pick in [5, 17, 40] {
            position = position.play(position.legal_moves()[pick]).unwrap();
        }
        position
    }

    /// Distinct canonical children of the root, as a build sees them.
    fn root_children() -> usize {
        let root = root();
        let mut children: Vec<u64> = root
            .legal_moves()
            .iter()
            .map(|&mv| root.play(mv).unwrap().canonical().position.key().bits())
            .collect();
        children.sort_unstable();
        children.dedup();
        children.len()
    }

    /// The jobs a build from [`root`] has queued once the root's analysis (every move played)
    /// is in, on a cluster of `workers`.
    async fn queued_after_the_root(workers: usize) -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::default());
        let coordinator =
            Coordinator::open_with_clock(dir.path(), invented_analyses(), clock).unwrap();
        for worker in 0..workers {
            let name = format!("w{worker}");
            coordinator.jobs.hello(&id(&name), &name, 1).unwrap();
        }
        let spec = BuildSpec {
            roots: vec![root()],
            depth: 2,
            max_positions: 1_000,
            budget: 100_000_000,
            playouts_per_position: 10_000,
            config: "uct".parse().unwrap(),
            solve_stones: 0,
            deep_from: 0,
            deep_window: 0,
            deep_leaf_stones: 0,
        };
        coordinator.builder.start(&spec).await.unwrap();
        let [job] = coordinator
            .jobs
            .lease(&id("w0"), 1)
            .unwrap()
            .try_into()
            .unwrap();
        let Task::Analyse { position, .. } = &job.task else {
            panic!("a build queues analyses here: {:?}", job.task);
        };
        // The job analyses the root in its canonical frame.
        let moves = position.legal_moves();
        let rows = moves
            .iter()
            .map(|&mv| Row {
                mv,
                games: 10,
                wins: 5,
                draws: 0,
            })
            .collect();
        let outcome = Outcome::Analyse {
            rows,
            simulations: 10 * moves.len() as u64,
            seconds: 0.0,
        };
        let submission = Submission {
            worker_id: id("w0"),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: ResultId::parse("root").unwrap(),
            outcome,
        };
        coordinator.ingest.submit(&submission).await.unwrap();
        coordinator.tick().await;
        coordinator.status().unwrap().jobs.queued
    }

    #[tokio::test]
    async fn a_build_keeps_one_job_per_worker_in_flight_within_bounds() {
        assert!(root_children() > 40, "{}", root_children());
        assert_eq!(queued_after_the_root(1).await, MIN_BUILD_WINDOW as u64);
        assert_eq!(queued_after_the_root(40).await, 40);
        assert_eq!(build_window(1_000_000), MAX_BUILD_WINDOW);
    }

    #[tokio::test]
    async fn ticks_drive_a_build_to_its_end_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::default());
        let coordinator =
            Coordinator::open_with_clock(dir.path(), invented_analyses(), clock).unwrap();
        let spec = BuildSpec {
            roots: vec![Position::START],
            depth: 2,
            max_positions: 3,
            budget: 1_000,
            playouts_per_position: 100,
            config: "uct".parse().unwrap(),
            solve_stones: 0,
            deep_from: 0,
            deep_window: 0,
            deep_leaf_stones: 0,
        };
        let build = coordinator.builder.start(&spec).await.unwrap();
        coordinator.jobs.hello(&id("w"), "w", 1).unwrap();
        for round in 0..10 {
            for job in coordinator.jobs.lease(&id("w"), 16).unwrap() {
                let Task::Analyse {
                    position, playouts, ..
                } = &job.task
                else {
                    panic!("a build queues analyses here: {:?}", job.task);
                };
                let submission = Submission {
                    worker_id: id("w"),
                    job_id: job.job_id,
                    lease_id: job.lease_id,
                    result_id: ResultId::parse(&format!("r{}", job.job_id)).unwrap(),
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
