//! Cluster benchmarks over real loopback gRPC and a real sled database:
//! ingest (move-table rows per second), a load generator of 1,000 simulated workers (lease
//! latency), and the overhead of running a search through the cluster.
//! Run with `cargo bench -p pentagrid-bench --bench cluster` (about a minute). The coordinator
//! is the integration tests' in-process `TestCluster`.

use std::time::{Duration, Instant};

use pentago::{Budget, Position, SearchControl, SearchOptions, UctConfig, search};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Client, Outcome, Row, Task, v2};
use pentagrid_tests::{TOKEN, TestCluster, hello};
use tokio::sync::watch;

fn client(url: &str) -> Client {
    pentagrid_proto::connect(url, TOKEN, None).expect("client")
}

async fn queue(client: &Client, task: &Task, count: usize) {
    for chunk in (0..count).collect::<Vec<_>>().chunks(5_000) {
        let jobs = chunk.iter().map(|_| v2::JobSpec::from(task)).collect();
        client
            .clone()
            .submit_jobs(v2::SubmitJobsRequest { jobs })
            .await
            .expect("queue");
    }
}

/// Submitters that lease and hand in a fixed result as fast as they can.
async fn ingest() {
    // A mid-game position without symmetry: every row is its own stored row.
    let position: Position = "x.o.../.x..../....o./..x.../....../......".parse().unwrap();
    let rows: Vec<Row> = position
        .legal_moves()
        .iter()
        .step_by(1)
        .map(|&mv| Row {
            mv,
            games: 10,
            wins: 5,
            draws: 1,
        })
        .collect();
    let playouts = rows.len() as u64 * 10;
    let task = Task::Analyse {
        position,
        config: UctConfig::default(),
        playouts,
    };
    let outcome = Outcome::Analyse {
        rows: rows.clone(),
        simulations: playouts,
        seconds: 0.0,
    };
    const SUBMITTERS: usize = 16;
    const PER_SUBMITTER: usize = 40;
    let server = TestCluster::start(CoordinatorSettings::default()).await;
    queue(&server.client(), &task, SUBMITTERS * PER_SUBMITTER).await;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for s in 0..SUBMITTERS {
        let (url, outcome) = (server.url.clone(), outcome.clone());
        tasks.push(tokio::spawn(async move {
            let mut c = client(&url);
            let id = format!("ingest-{s}");
            let session = hello(&mut c, &id).await;
            for n in 0..PER_SUBMITTER {
                let job = c
                    .lease(v2::LeaseRequest {
                        worker_id: id.clone(),
                        max_jobs: 1,
                        session: session.clone(),
                    })
                    .await
                    .expect("lease")
                    .into_inner()
                    .jobs
                    .pop()
                    .expect("a job");
                c.submit(v2::SubmitRequest {
                    worker_id: id.clone(),
                    job_id: job.job_id,
                    lease_id: job.lease_id,
                    result_id: format!("{id}-{n}"),
                    result: Some((&outcome).into()),
                    session: session.clone(),
                })
                .await
                .expect("submit");
            }
        }));
    }
    for t in tasks {
        t.await.expect("submitter");
    }
    let seconds = started.elapsed().as_secs_f64();
    let total_rows = (SUBMITTERS * PER_SUBMITTER * rows.len()) as f64;
    println!(
        "ingest: {} results of {} rows by {SUBMITTERS} concurrent submitters in {seconds:.2} s: {:.0} rows/s ({:.0} durable results/s)",
        SUBMITTERS * PER_SUBMITTER,
        rows.len(),
        total_rows / seconds,
        (SUBMITTERS * PER_SUBMITTER) as f64 / seconds
    );
    server.stop().await;
}

/// 1,000 simulated workers: lease, heartbeat, submit, over loopback, for a fixed time. Each
/// simulated job takes `job_time` (uniform from half to one and a half times it); zero
/// saturates the coordinator.
async fn load_generator(job_time: Duration) {
    const WORKERS: usize = 1_000;
    const SECONDS: u64 = 10;
    let server = TestCluster::start(CoordinatorSettings::default()).await;
    let task = Task::Analyse {
        position: Position::START,
        config: UctConfig::default(),
        playouts: 1,
    };
    queue(&server.client(), &task, 200_000).await;
    let row = Row {
        mv: Position::START.legal_moves()[0],
        games: 1,
        wins: 1,
        draws: 0,
    };
    let outcome = Outcome::Analyse {
        rows: vec![row],
        simulations: 1,
        seconds: 0.0,
    };
    let deadline = Instant::now() + Duration::from_secs(SECONDS);
    let mut tasks = Vec::new();
    // A handful of connections shared by the simulated workers, as a real fleet's calls
    // would arrive over many connections.
    let channels: Vec<Client> = (0..16).map(|_| server.client()).collect();
    for w in 0..WORKERS {
        let (mut c, outcome) = (channels[w % channels.len()].clone(), outcome.clone());
        tasks.push(tokio::spawn(async move {
            let id = format!("sim-{w}");
            let session = hello(&mut c, &id).await;
            let mut latencies = Vec::new();
            let mut n = 0;
            while Instant::now() < deadline {
                let asked = Instant::now();
                let jobs = c
                    .lease(v2::LeaseRequest {
                        worker_id: id.clone(),
                        max_jobs: 1,
                        session: session.clone(),
                    })
                    .await
                    .expect("lease")
                    .into_inner()
                    .jobs;
                latencies.push(asked.elapsed());
                for job in jobs {
                    if !job_time.is_zero() {
                        let spread = 0.5 + (pentago::splitmix64(job.job_id) % 1000) as f64 / 1000.0;
                        tokio::time::sleep(job_time.mul_f64(spread)).await;
                    }
                    c.heartbeat(v2::HeartbeatRequest {
                        worker_id: id.clone(),
                        lease_ids: vec![job.lease_id],
                        session: session.clone(),
                    })
                    .await
                    .expect("heartbeat");
                    c.submit(v2::SubmitRequest {
                        worker_id: id.clone(),
                        job_id: job.job_id,
                        lease_id: job.lease_id,
                        result_id: format!("{id}-{n}"),
                        result: Some((&outcome).into()),
                        session: session.clone(),
                    })
                    .await
                    .expect("submit");
                    n += 1;
                }
            }
            (latencies, n)
        }));
    }
    let mut latencies = Vec::new();
    let mut results = 0;
    for t in tasks {
        let (l, n) = t.await.expect("simulated worker");
        latencies.extend(l);
        results += n;
    }
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "load generator, jobs of {job_time:?}: {WORKERS} simulated workers for {SECONDS} s: {} leases, {results} results ({:.0} results/s); lease latency p50 {:.2} ms, p99 {:.2} ms",
        latencies.len(),
        results as f64 / SECONDS as f64,
        pick(0.5).as_secs_f64() * 1000.0,
        pick(0.99).as_secs_f64() * 1000.0
    );
    server.stop().await;
}

/// One worker through the coordinator against the same searches run directly.
async fn overhead() {
    const JOBS: usize = 6;
    const PLAYOUTS: u64 = 1_000_000;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let config: UctConfig = "uct:policy=uniform".parse().unwrap();
    let direct = tokio::task::spawn_blocking({
        let config = config.clone();
        move || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let started = Instant::now();
            for seed in 0..JOBS as u64 {
                let options = SearchOptions {
                    seed,
                    threads,
                    tables_min_visits: None,
                    oracle: None,
                };
                let c = config.with_budget(Budget::Playouts(PLAYOUTS));
                pool.install(|| search(&Position::START, &c, &options, &SearchControl::new()))
                    .expect("search");
            }
            (JOBS as u64 * PLAYOUTS) as f64 / started.elapsed().as_secs_f64()
        }
    })
    .await
    .expect("direct");
    let server = TestCluster::start(CoordinatorSettings::default()).await;
    let c = server.client();
    let task = Task::Analyse {
        position: Position::START,
        config,
        playouts: PLAYOUTS,
    };
    let started = Instant::now();
    queue(&c, &task, JOBS).await;
    let options = pentagrid_worker::WorkerOptions {
        coordinator: server.url.clone(),
        token: TOKEN.into(),
        tls_ca: None,
        name: "bench".into(),
        threads,
        ack_log: None,
        max_results: Some(JOBS as u64),
        identity: pentagrid_worker::WorkerIdentity::Fresh,
        engines: pentagrid_worker::EngineSettings::default(),
        speed: Some(0),
    };
    let (_stop, stopped) = watch::channel(false);
    pentagrid_worker::run(options, stopped)
        .await
        .expect("worker");
    let through = (JOBS as u64 * PLAYOUTS) as f64 / started.elapsed().as_secs_f64();
    println!(
        "overhead: {JOBS} analyses of {PLAYOUTS} playouts on {threads} threads: direct {direct:.0} playouts/s, through the cluster {through:.0} playouts/s ({:.1}%)",
        100.0 * through / direct
    );
    server.stop().await;
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wants = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    rt.block_on(async {
        if wants("ingest") {
            ingest().await;
        }
        if wants("load") {
            load_generator(Duration::from_millis(500)).await;
            load_generator(Duration::ZERO).await;
        }
        if wants("overhead") {
            overhead().await;
        }
    });
}
