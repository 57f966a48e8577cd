//! Deep solves on a cluster over real gRPC: a coordinator on 127.0.0.1 with its sled database in
//! a temporary directory and an injected clock, and test workers that speak the worker protocol
//! and value leaves with the engine's hybrid solver, as the real worker does. The cluster's value equals the single machine's and
//! the reference value; a worker killed mid-leaf (its lease expires) and a coordinator restart
//! change neither the value nor how often a leaf was stored; a wrong leaf value is caught by the
//! cross-check, its worker flagged, and nothing wrong is stored.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pentago::{DeepLimits, DeepSolver, Position, SolveLimits, Solver, Value, midsolve, solve_leaf};
use pentagrid_coordinator::JobState;
use pentagrid_coordinator::{
    Coordinator, CoordinatorSettings, CrossCheckSettings, JobSettings, ManualClock,
};
use pentagrid_edge::{Credentials, Grant, Role, serve};
use pentagrid_proto::{Client, Outcome, Task, v2};
use pentagrid_store::Store;
use tokio::sync::watch;

const WORKER: &str = "worker-token";
const ADMIN: &str = "admin-token";
const LEASE: Duration = Duration::from_secs(30);

/// A coordinator on the database in `dir`, served on a loopback port, reading `clock`.
struct Server {
    url: String,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

fn settings(solve_sample: f64) -> CoordinatorSettings {
    CoordinatorSettings {
        jobs: JobSettings {
            lease_duration: LEASE,
            ..JobSettings::default()
        },
        crosscheck: CrossCheckSettings {
            solve_sample,
            ..CrossCheckSettings::default()
        },
        ..CoordinatorSettings::default()
    }
}

impl Server {
    async fn start(dir: &Path, clock: Arc<ManualClock>, solve_sample: f64) -> Server {
        // A coordinator stopped a moment ago lets go of the database lock as its tasks end.
        let mut tries = 0;
        let coordinator = loop {
            match Coordinator::open_with_clock(dir, settings(solve_sample), clock.clone()) {
                Ok(coordinator) => break coordinator,
                Err(error) if tries < 200 => {
                    tries += 1;
                    tracing::debug!(%error, "database still locked");
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                Err(error) => panic!("open the coordinator: {error}"),
            }
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let credentials = Credentials::new(vec![
            (Grant::Role(Role::Worker), WORKER.into()),
            (Grant::Role(Role::Admin), ADMIN.into()),
        ])
        .unwrap();
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            serve(listener, coordinator, credentials, None, async move {
                let _ = stopped.wait_for(|s| *s).await;
            })
            .await
            .expect("serve");
        });
        Server { url, stop, task }
    }

    fn client(&self, token: &str) -> Client {
        pentagrid_proto::connect(&self.url, token, None).unwrap()
    }

    async fn worker(&self, id: &str) -> TestWorker {
        let mut client = self.client(WORKER);
        let hello = v2::HelloRequest {
            worker_id: id.into(),
            name: id.into(),
            threads: 1,
            engines: Vec::new(),
            worker_key: String::new(),
            speed: 0,
        };
        let session = client.hello(hello).await.unwrap().into_inner().session;
        TestWorker {
            client,
            id: id.into(),
            session,
        }
    }

    async fn stop(self) {
        self.stop.send(true).unwrap();
        self.task.await.unwrap();
    }
}

/// Opens the stopped coordinator's database (once its last tasks let go of the lock).
async fn open_store(dir: &Path) -> Store {
    for _ in 0..200 {
        if let Ok(store) = Store::open(dir) {
            return store;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the stopped coordinator kept its database locked");
}

struct TestWorker {
    client: Client,
    id: String,
    session: String,
}

impl TestWorker {
    async fn lease(&mut self, max_jobs: u32) -> Vec<v2::Job> {
        let request = v2::LeaseRequest {
            worker_id: self.id.clone(),
            max_jobs,
            session: self.session.clone(),
        };
        self.client.lease(request).await.unwrap().into_inner().jobs
    }

    async fn submit(&mut self, job: &v2::Job, outcome: &Outcome) -> Result<(), tonic::Status> {
        let request = v2::SubmitRequest {
            worker_id: self.id.clone(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: format!("{}-{}-{}", self.id, job.job_id, job.lease_id),
            result: Some(outcome.into()),
            session: self.session.clone(),
        };
        self.client.submit(request).await.map(|_| ())
    }

    /// Leases what it may and answers with `answer`; returns how many jobs it did. A job
    /// cancelled meanwhile (its solve was proven) refuses its result.
    async fn work(&mut self, answer: impl Fn(&v2::Job) -> Outcome) -> usize {
        let jobs = self.lease(4).await;
        for job in &jobs {
            if let Err(status) = self.submit(job, &answer(job)).await {
                assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
            }
        }
        jobs.len()
    }
}

fn task(job: &v2::Job) -> Task {
    Task::try_from(job.spec.as_ref().unwrap()).unwrap()
}

fn leaves_of(job: &v2::Job) -> Vec<Position> {
    let Task::DeepLeaves { leaves, .. } = task(job) else {
        panic!("not a deep-leaves job");
    };
    leaves
}

/// The exact value of every leaf of a deep-leaves job, as the worker values it (alpha-beta,
/// then the midsolver with the leaf's rotated values).
fn honest(job: &v2::Job) -> Outcome {
    let mut solver = Solver::new(18);
    let (values, rotated) = leaves_of(job)
        .iter()
        .map(|leaf| {
            let solved = solve_leaf(&mut solver, leaf).unwrap();
            (solved.value, solved.rotated)
        })
        .unzip();
    Outcome::DeepLeaves { values, rotated }
}

/// Every leaf value turned around (a win claimed a loss, a draw a win).
fn lying(job: &v2::Job) -> Outcome {
    let Outcome::DeepLeaves { values, rotated } = honest(job) else {
        panic!("not a deep-leaves job");
    };
    let values = values.into_iter().map(turned_around).collect();
    Outcome::DeepLeaves { values, rotated }
}

/// Every leaf's true value, with its rotated values by the midsolver: all true but one.
fn lying_about_a_variant(job: &v2::Job) -> Outcome {
    let (values, rotated) = leaves_of(job)
        .iter()
        .map(|leaf| {
            let mut solved = midsolve(leaf).unwrap();
            let lie = solved.rotated.iter_mut().flatten().next().unwrap();
            *lie = turned_around(*lie);
            (solved.value, solved.rotated)
        })
        .unzip();
    Outcome::DeepLeaves { values, rotated }
}

/// The probe's liar: honest on the one leaf the old rule (a hash of the job id) would have
/// judged, lying on every other (their rotated values dropped, so only the leaf values speak).
fn lying_where_the_old_rule_does_not_look(job: &v2::Job) -> Outcome {
    let Outcome::DeepLeaves { values, .. } = honest(job) else {
        panic!("not a deep-leaves job");
    };
    let judged = (pentago::splitmix64(job.job_id ^ 0x1EAF) % values.len() as u64) as usize;
    let values = values
        .into_iter()
        .enumerate()
        .map(|(i, v)| if i == judged { v } else { turned_around(v) })
        .collect();
    Outcome::DeepLeaves {
        values,
        rotated: Vec::new(),
    }
}

fn turned_around(value: Value) -> Value {
    match value {
        Value::Draw => Value::Win,
        v => v.negate(),
    }
}

fn reference_positions() -> Vec<(Position, i8)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    std::fs::read_to_string(path)
        .expect("shared/data beside the repository")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let position = words.next().unwrap().parse().unwrap();
            (position, words.next().unwrap().parse().unwrap())
        })
        .collect()
}

/// Reference positions of `stones` stones without a win at once (so the search has a top).
fn reference(stones: u32, count: usize) -> Vec<(Position, i8)> {
    reference_positions()
        .into_iter()
        .filter(|(p, _)| p.stone_count() == stones && !p.has_immediate_win())
        .take(count)
        .collect()
}

async fn start_solve(admin: &mut Client, position: &Position, batch: u32, leaf_stones: u32) -> u64 {
    let request = v2::StartDeepSolveRequest {
        position: position.to_string(),
        batch,
        leaf_stones,
    };
    admin
        .start_deep_solve(request)
        .await
        .unwrap()
        .into_inner()
        .solve_id
}

async fn solve_status(admin: &mut Client, id: u64) -> v2::DeepSolveStatusResponse {
    let request = v2::DeepSolveStatusRequest { solve_id: id };
    admin.deep_solve_status(request).await.unwrap().into_inner()
}

/// Lets `worker` answer with `answer` until solve `id` is done; returns its final status.
async fn drive(
    admin: &mut Client,
    worker: &mut TestWorker,
    id: u64,
    answer: impl Fn(&v2::Job) -> Outcome,
) -> v2::DeepSolveStatusResponse {
    let started = Instant::now();
    loop {
        let status = solve_status(admin, id).await;
        if status.state() == v2::DeepSolveState::Done {
            return status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "deep solve {id} never finished: {status:?}"
        );
        if worker.work(&answer).await == 0 {
            // The coordinator queues more on its next tick.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The single machine's value with the same leaves.
fn local_value(position: &Position, leaf_stones: u32) -> i8 {
    DeepSolver::new(18)
        .with_leaf_stones(leaf_stones)
        .solve(position, DeepLimits::default())
        .value
        .expect("decided")
        .as_i8()
}

/// The leaves of every deep-leaves job in the store, by canonical key, with the number of jobs
/// that carried each; and the ids of the jobs that are done.
fn stored_leaf_jobs(store: &Store) -> (HashMap<u64, usize>, usize) {
    let mut carried = HashMap::new();
    let mut done = 0;
    for (id, job) in store.load_jobs().unwrap() {
        // A finished job loads without its task: read it on its own.
        let task = match job.task {
            Some(task) => Some(task),
            None => store.job(id).unwrap().and_then(|stored| stored.task),
        };
        if let Some(Task::DeepLeaves { leaves, .. }) = task {
            if job.state == JobState::Done {
                done += 1;
            }
            for leaf in leaves {
                *carried.entry(leaf.canonical_key().bits()).or_default() += 1;
            }
        }
    }
    (carried, done)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_values_equal_the_single_machine_and_reference_values() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), Arc::new(ManualClock::default()), 0.0).await;
    let mut admin = server.client(ADMIN);
    let mut worker = server.worker("w1").await;
    let mut cases = reference(24, 3);
    cases.extend(reference(26, 3));
    for (position, expected) in cases {
        let leaf_stones = position.stone_count() + 2;
        let id = start_solve(&mut admin, &position, 3, leaf_stones).await;
        let done = drive(&mut admin, &mut worker, id, honest).await;
        assert_eq!(
            (done.lower, done.upper),
            (i32::from(expected), i32::from(expected)),
            "{position}"
        );
        assert_eq!(local_value(&position, leaf_stones), expected, "{position}");
        let best: pentago::Move = done.best.parse().expect("a best move");
        let child = position.play(best).unwrap();
        let child_value = match Value::of_status(child.status(), position.side_to_move()) {
            Some(v) => v,
            None => Solver::new(18)
                .solve(&child, SolveLimits::default())
                .value
                .unwrap()
                .negate(),
        };
        assert_eq!(child_value.as_i8(), expected, "best {best} of {position}");
        assert_eq!(done.leaves_pending, 0);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_leaf_and_a_restart_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::default());
    let (position, expected) = reference(24, 1).pop().unwrap();
    let leaf_stones = position.stone_count() + 2;
    let server = Server::start(dir.path(), clock.clone(), 0.0).await;
    let mut admin = server.client(ADMIN);
    let id = start_solve(&mut admin, &position, 2, leaf_stones).await;
    // The first worker takes a job and dies with it.
    let mut killed = server.worker("killed").await;
    let held = killed
        .lease(1)
        .await
        .pop()
        .expect("a queued deep-leaves job");
    // Another does a little, then the coordinator stops (everything acknowledged is durable).
    let mut honest_worker = server.worker("w2").await;
    honest_worker.work(honest).await;
    server.stop().await;
    let server = Server::start(dir.path(), clock.clone(), 0.0).await;
    let mut admin = server.client(ADMIN);
    let mut honest_worker = server.worker("w2").await;
    // The killed worker's lease runs out on the injected clock; its job goes out again.
    clock.advance(LEASE * 2);
    let done = drive(&mut admin, &mut honest_worker, id, honest).await;
    assert_eq!(
        (done.lower, done.upper),
        (i32::from(expected), i32::from(expected))
    );
    // The dead worker's late answer changes nothing.
    let mut killed = server.worker("killed").await;
    assert!(killed.submit(&held, &honest(&held)).await.is_err());
    server.stop().await;
    let store = open_store(dir.path()).await;
    let (carried, done_jobs) = stored_leaf_jobs(&store);
    assert!(done_jobs > 0);
    assert!(
        carried.values().all(|&jobs| jobs == 1),
        "a leaf went out in two jobs"
    );
    let stored = store.deep_leaf_count();
    assert!(
        stored > 0 && stored <= carried.len(),
        "{stored} of {}",
        carried.len()
    );
    let record = store.deep_solve(id).unwrap().unwrap();
    assert!(record.done);
    assert_eq!(record.leaf_stones, leaf_stones);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_leaf_value_is_caught_and_nothing_wrong_is_stored() {
    a_liar_is_caught_and_nothing_wrong_is_stored(lying).await;
}

/// Which leaf is judged is drawn afresh: a liar honest only where the old rule looked is
/// caught, and the leaves it stored before are purged (the solve still ends right).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_liar_that_knows_the_old_leaf_rule_is_caught_and_its_leaves_purged() {
    a_liar_is_caught_and_nothing_wrong_is_stored(lying_where_the_old_rule_does_not_look).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_rotated_value_is_caught_and_nothing_wrong_is_stored() {
    a_liar_is_caught_and_nothing_wrong_is_stored(lying_about_a_variant).await;
}

/// A worker answering with `lie` is flagged, and every leaf value stored is true.
async fn a_liar_is_caught_and_nothing_wrong_is_stored(lie: fn(&v2::Job) -> Outcome) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::default());
    let server = Server::start(dir.path(), clock.clone(), 1.0).await;
    let mut admin = server.client(ADMIN);
    let (position, expected) = reference(24, 2).pop().unwrap();
    let leaf_stones = position.stone_count() + 2;
    let id = start_solve(&mut admin, &position, 4, leaf_stones).await;
    let mut liar = server.worker("liar").await;
    let mut answered = 0;
    for job in liar.lease(4).await {
        // Refused once the liar is quarantined (its second caught lie).
        answered += usize::from(liar.submit(&job, &lie(&job)).await.is_ok());
    }
    assert!(answered > 0);
    // The jobs it kept come back when their leases run out.
    clock.advance(LEASE * 2);
    let mut honest_worker = server.worker("honest").await;
    let done = drive(&mut admin, &mut honest_worker, id, honest).await;
    assert_eq!(
        (done.lower, done.upper),
        (i32::from(expected), i32::from(expected))
    );
    let status = admin
        .status(v2::StatusRequest::default())
        .await
        .unwrap()
        .into_inner();
    let flagged = status
        .flagged_workers
        .iter()
        .find(|w| w.worker_id == "liar")
        .expect("the liar is flagged");
    assert!(flagged.flags >= 1 && flagged.quarantined);
    server.stop().await;
    let store = open_store(dir.path()).await;
    let leaves = store.deep_leaves_after(0, usize::MAX).unwrap();
    assert!(!leaves.is_empty());
    let mut solver = Solver::new(18);
    for (leaf, value) in leaves {
        let truth = solver.solve(&leaf, SolveLimits::default()).value.unwrap();
        assert_eq!(value, truth, "stored leaf {leaf}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), Arc::new(ManualClock::default()), 0.0).await;
    let mut admin = server.client(ADMIN);
    let (late, _) = reference(24, 1).pop().unwrap();
    let cases = [
        (Position::START.to_string(), 0, 0),
        (late.to_string(), 0, 0),
        (late.to_string(), 0, 17),
        (late.to_string(), 0, 36),
        (late.to_string(), 257, 26),
        ("not a position".to_owned(), 0, 0),
    ];
    for (position, batch, leaf_stones) in cases {
        let request = v2::StartDeepSolveRequest {
            position: position.clone(),
            batch,
            leaf_stones,
        };
        let error = admin.start_deep_solve(request).await.unwrap_err();
        assert_eq!(error.code(), tonic::Code::InvalidArgument, "{position}");
    }
    let missing = admin
        .deep_solve_status(v2::DeepSolveStatusRequest { solve_id: 99 })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    let listed = admin
        .list_deep_solves(v2::ListDeepSolvesRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(listed.solves.is_empty());
    // A worker may not start one.
    let mut worker = server.client(WORKER);
    let request = v2::StartDeepSolveRequest {
        position: late.to_string(),
        batch: 0,
        leaf_stones: 26,
    };
    let forbidden = worker.start_deep_solve(request).await.unwrap_err();
    assert_eq!(forbidden.code(), tonic::Code::PermissionDenied);
    server.stop().await;
}

/// Leaves solved per second by `PENTAGRID_DEEP_WORKERS` (default 1) test workers, each on its
/// own blocking thread, on the first 17-stone position of `bench/data/deep-17.txt` with leaves of
/// `PENTAGRID_DEEP_LEAF_STONES` stones (default 18), over `PENTAGRID_DEEP_SECONDS` (default 60)
/// or until it is proven:
/// `cargo test --workspace --test deep_cluster measure -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement; run by hand"]
async fn measure_leaves_per_second() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (workers, seconds) = (
        env("PENTAGRID_DEEP_WORKERS", 1),
        env("PENTAGRID_DEEP_SECONDS", 60),
    );
    let leaf_stones = u32::try_from(env("PENTAGRID_DEEP_LEAF_STONES", 18)).unwrap();
    let text = include_str!("../../bench/data/deep-17.txt");
    let position: Position = text.split_whitespace().next().unwrap().parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), Arc::new(ManualClock::default()), 0.0).await;
    let mut admin = server.client(ADMIN);
    let id = start_solve(&mut admin, &position, 4, leaf_stones).await;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for i in 0..workers {
        let mut worker = server.worker(&format!("m{i}")).await;
        tasks.push(tokio::spawn(async move {
            while Instant::now() < deadline {
                let jobs = worker.lease(1).await;
                if jobs.is_empty() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
                let job = jobs[0].clone();
                let outcome = tokio::task::spawn_blocking(move || honest(&job))
                    .await
                    .unwrap();
                let _ = worker.submit(&jobs[0], &outcome).await;
            }
        }));
    }
    let done = loop {
        let status = solve_status(&mut admin, id).await;
        if status.state() == v2::DeepSolveState::Done || Instant::now() >= deadline {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let wall = started.elapsed().as_secs_f64();
    for task in tasks {
        task.abort();
    }
    println!(
        "workers {workers}: {} leaves in {wall:.1} s = {:.2} leaves/s; bounds {}..{}, done {}, nodes {}",
        done.leaves_solved,
        done.leaves_solved as f64 / wall,
        done.lower,
        done.upper,
        done.state() == v2::DeepSolveState::Done,
        done.nodes
    );
    server.stop().await;
}
