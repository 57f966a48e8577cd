//! Roles over a real server: each token reaches exactly the methods of its role, every other
//! call is refused with PermissionDenied and `ERROR_REASON_FORBIDDEN` before it changes
//! anything, and a single all-roles token still does everything.

use pentago::{Position, SearchControl};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_edge::{Credentials, Grant, REQUIRED_ROLES, Role};
use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{Client, Outcome, Task, reason_of, v2};
use pentagrid_tests::{ServedCoordinator, lease_one};
use tokio::sync::watch;
use tonic::{Code, Status};

const WORKER: &str = "worker-token";
const ADMIN: &str = "admin-token";
const READ: &str = "read-token";

/// A coordinator on a temporary database served on a loopback port.
struct Server {
    served: ServedCoordinator,
    _dir: tempfile::TempDir,
}

impl Server {
    async fn start(credentials: Credentials) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let served =
            ServedCoordinator::start(dir.path(), CoordinatorSettings::default(), credentials).await;
        Server { served, _dir: dir }
    }

    fn client(&self, token: &str) -> Client {
        self.served.client(token)
    }

    async fn stop(self) {
        self.served.stop().await;
    }
}

/// One client per role (the same token for all three on an all-roles server).
struct Clients {
    worker: Client,
    admin: Client,
    read: Client,
}

impl Clients {
    fn with(&self, role: Role) -> Client {
        match role {
            Role::Worker => self.worker.clone(),
            Role::Admin => self.admin.clone(),
            Role::Read => self.read.clone(),
        }
    }
}

/// What valid calls of every method refer to: a worker holding a lease, a stored table, a
/// match, a build.
struct Context {
    /// The session of worker `WORKER_ID`.
    session: String,
    lease: v2::Job,
    result: Outcome,
    row: v2::BookExportRow,
    match_id: u64,
    /// A match of its own to stop (a stop of the shared one would end it for later calls).
    stoppable_match: u64,
    build_id: u64,
    /// A tuning run (read, then stopped).
    tune_id: u64,
}

const WORKER_ID: &str = "w1";

fn analyse(position: Position) -> Task {
    Task::Analyse {
        position,
        config: "uct".parse().unwrap(),
        playouts: 200,
    }
}

async fn submit_and_lease(clients: &Clients, session: &str, task: &Task) -> (v2::Job, Outcome) {
    clients
        .with(Role::Admin)
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(task)],
        })
        .await
        .unwrap();
    let job = lease_one(&mut clients.with(Role::Worker), WORKER_ID, session).await;
    let outcome = pentagrid_worker::execute(task, job.seed, 1, &SearchControl::new()).unwrap();
    (job, outcome)
}

/// Stores one analysis, leaves a second job leased and a match queued.
async fn seed(clients: &Clients) -> Context {
    let session = clients
        .with(Role::Worker)
        .hello(v2::HelloRequest {
            worker_id: WORKER_ID.into(),
            name: WORKER_ID.into(),
            threads: 1,
            engines: Vec::new(),
            worker_key: pentagrid_tests::TEST_WORKER_KEY.into(),
            speed: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .session;
    let stored: Position = "x...../....../....../....../....../.....o".parse().unwrap();
    let (first, outcome) = submit_and_lease(clients, &session, &analyse(stored)).await;
    clients
        .with(Role::Worker)
        .submit(submit_request(&first, &outcome, &session))
        .await
        .unwrap();
    let (lease, result) = submit_and_lease(clients, &session, &analyse(Position::START)).await;
    let row = clients
        .with(Role::Read)
        .book_export(v2::BookExportRequest {
            from_key: 0,
            limit: 1,
            min_games: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .rows
        .pop()
        .unwrap();
    let mut match_ids = Vec::new();
    for _ in 0..2 {
        let created = clients
            .with(Role::Admin)
            .create_match(match_request())
            .await
            .unwrap();
        match_ids.push(created.into_inner().match_id);
    }
    let (match_id, stoppable_match) = (match_ids[0], match_ids[1]);
    let tune_id = clients
        .with(Role::Admin)
        .create_tune(tune_request())
        .await
        .unwrap()
        .into_inner()
        .tune_id;
    Context {
        session,
        lease,
        result,
        row,
        match_id,
        stoppable_match,
        build_id: 1,
        tune_id,
    }
}

fn submit_request(job: &v2::Job, outcome: &Outcome, session: &str) -> v2::SubmitRequest {
    v2::SubmitRequest {
        worker_id: WORKER_ID.into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: format!("result-{}", job.job_id),
        result: Some(outcome.into()),
        session: session.into(),
    }
}

fn match_request() -> v2::CreateMatchRequest {
    v2::CreateMatchRequest {
        a: "random".into(),
        b: "random".into(),
        pairs: 1,
        sprt: String::new(),
        openings: String::new(),
        seed: 3,
        accuracy_stones: None,
        ..v2::CreateMatchRequest::default()
    }
}

fn tune_request() -> v2::CreateTuneRequest {
    v2::CreateTuneRequest {
        base: "uct:playouts=30".into(),
        params: vec!["playouts=10..100".into()],
        iterations: 3,
        pairs_per_iteration: 1,
        ..v2::CreateTuneRequest::default()
    }
}

/// A valid call of `method` (valid for the caller with the right role, given `context`).
async fn invoke(client: &mut Client, method: &str, context: &mut Context) -> Result<(), Status> {
    let lease_ids = vec![context.lease.lease_id];
    match method {
        "Hello" => done(
            client
                .hello(v2::HelloRequest {
                    worker_id: "w2".into(),
                    name: "w2".into(),
                    threads: 1,
                    engines: Vec::new(),
                    worker_key: String::new(),
                    speed: 0,
                })
                .await,
        ),
        "Lease" => done(
            client
                .lease(v2::LeaseRequest {
                    worker_id: WORKER_ID.into(),
                    max_jobs: 0,
                    session: context.session.clone(),
                })
                .await,
        ),
        "Heartbeat" => done(
            client
                .heartbeat(v2::HeartbeatRequest {
                    worker_id: WORKER_ID.into(),
                    lease_ids,
                    session: context.session.clone(),
                })
                .await,
        ),
        "Submit" => done(
            client
                .submit(submit_request(
                    &context.lease,
                    &context.result,
                    &context.session,
                ))
                .await,
        ),
        "ReturnLeases" => done(
            client
                .return_leases(v2::ReturnLeasesRequest {
                    worker_id: WORKER_ID.into(),
                    lease_ids,
                    session: context.session.clone(),
                })
                .await,
        ),
        "SubmitJobs" => done(
            client
                .submit_jobs(v2::SubmitJobsRequest {
                    jobs: vec![v2::JobSpec::from(&analyse(Position::START))],
                })
                .await,
        ),
        "CancelJobs" => done(
            client
                .cancel_jobs(v2::CancelJobsRequest {
                    job_ids: vec![context.lease.job_id],
                })
                .await,
        ),
        "CreateMatch" => done(client.create_match(match_request()).await),
        "StopMatch" => done(
            client
                .stop_match(v2::StopMatchRequest {
                    match_id: context.stoppable_match,
                })
                .await,
        ),
        "GeneratePuzzles" => done(
            client
                .generate_puzzles(v2::GeneratePuzzlesRequest {
                    candidates: 2,
                    max_moves: 3,
                    min_stones: 22,
                    random_games: true,
                    seed: 9,
                    min_moves: 0,
                })
                .await,
        ),
        "StartBuild" => {
            context.build_id = client
                .start_build(v2::StartBuildRequest {
                    roots: vec!["start".into()],
                    depth: 1,
                    max_positions: 5,
                    budget: 10_000,
                    playouts_per_position: 100,
                    config: "uct".into(),
                    solve_stones: 0,
                    deep_from: 0,
                    deep_window: 0,
                    deep_leaf_stones: 0,
                })
                .await?
                .into_inner()
                .build_id;
            Ok(())
        }
        "BookImport" => done(
            client
                .book_import(v2::BookImportRequest {
                    rows: vec![context.row.clone()],
                    ..Default::default()
                })
                .await,
        ),
        "Status" => done(client.status(v2::StatusRequest::default()).await),
        "BookShow" => done(
            client
                .book_show(v2::BookShowRequest {
                    position: "start".into(),
                })
                .await,
        ),
        "MatchStatus" => done(
            client
                .match_status(v2::MatchStatusRequest {
                    match_id: context.match_id,
                    include_games: true,
                    ..v2::MatchStatusRequest::default()
                })
                .await,
        ),
        "ListMatches" => done(
            client
                .list_matches(v2::ListMatchesRequest {
                    before_id: 0,
                    limit: 10,
                    states: Vec::new(),
                })
                .await,
        ),
        "ListPuzzles" => done(
            client
                .list_puzzles(v2::ListPuzzlesRequest {
                    limit: 10,
                    ..v2::ListPuzzlesRequest::default()
                })
                .await,
        ),
        "BuildStatus" => done(
            client
                .build_status(v2::BuildStatusRequest {
                    build_id: context.build_id,
                })
                .await,
        ),
        "BookExport" => done(
            client
                .book_export(v2::BookExportRequest {
                    from_key: 0,
                    limit: 10,
                    min_games: 0,
                })
                .await,
        ),
        "GetGames" => done(
            client
                .get_games(v2::GetGamesRequest {
                    job_ids: vec![context.lease.job_id],
                    ..v2::GetGamesRequest::default()
                })
                .await,
        ),
        "GetPuzzle" => match client.get_puzzle(v2::GetPuzzleRequest { key: 0 }).await {
            // No puzzle is stored: a caller allowed in is told so, which is the answer.
            Err(status) if status.code() == Code::NotFound => Ok(()),
            answer => done(answer),
        },
        // Only the opening of the stream: its first update comes at once.
        "WatchJobs" => done(
            client
                .watch_jobs(v2::WatchJobsRequest {
                    job_ids: vec![context.lease.job_id],
                })
                .await,
        ),
        // The whole stream: a backup refused for the role is refused before its first byte.
        "Backup" => {
            let mut stream = client.backup(v2::BackupRequest {}).await?.into_inner();
            while stream.message().await?.is_some() {}
            Ok(())
        }
        // A position the coordinator refuses: a caller let in is told why, and no solve starts.
        "StartDeepSolve" => match client
            .start_deep_solve(v2::StartDeepSolveRequest::default())
            .await
        {
            Err(status) if status.code() == Code::InvalidArgument => Ok(()),
            answer => done(answer),
        },
        "DeepSolveStatus" => match client
            .deep_solve_status(v2::DeepSolveStatusRequest { solve_id: u64::MAX })
            .await
        {
            Err(status) if status.code() == Code::NotFound => Ok(()),
            answer => done(answer),
        },
        "ListDeepSolves" => done(client.list_deep_solves(v2::ListDeepSolvesRequest {}).await),
        "DeepLeaves" => done(
            client
                .deep_leaves(v2::DeepLeavesRequest {
                    after_key: 0,
                    limit: 10,
                })
                .await,
        ),
        "CreateTune" => done(client.create_tune(tune_request()).await),
        "StopTune" => done(
            client
                .stop_tune(v2::StopTuneRequest {
                    tune_id: context.tune_id,
                })
                .await,
        ),
        "TuneStatus" => done(
            client
                .tune_status(v2::TuneStatusRequest {
                    tune_id: context.tune_id,
                    include_steps: true,
                    ..v2::TuneStatusRequest::default()
                })
                .await,
        ),
        "ListTunes" => done(client.list_tunes(v2::ListTunesRequest::default()).await),
        other => panic!("no test call for {other}: add one"),
    }
}

/// A call's answer reduced to whether it succeeded.
fn done<T>(answer: Result<tonic::Response<T>, Status>) -> Result<(), Status> {
    answer.map(|_| ())
}

/// Everything stored, as a reader sees it (time since a worker was seen left out).
async fn snapshot(clients: &Clients, context: &Context) -> String {
    let mut read = clients.with(Role::Read);
    let mut status = read
        .status(v2::StatusRequest::default())
        .await
        .unwrap()
        .into_inner();
    for worker in &mut status.workers {
        worker.seconds_since_seen = 0.0;
    }
    let book = read
        .book_show(v2::BookShowRequest {
            position: "start".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let export = read
        .book_export(v2::BookExportRequest {
            from_key: 0,
            limit: 1000,
            min_games: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let puzzles = read
        .list_puzzles(v2::ListPuzzlesRequest {
            limit: 1000,
            ..v2::ListPuzzlesRequest::default()
        })
        .await
        .unwrap()
        .into_inner();
    let matches = read
        .match_status(v2::MatchStatusRequest {
            match_id: context.match_id,
            include_games: true,
            ..v2::MatchStatusRequest::default()
        })
        .await
        .unwrap()
        .into_inner();
    let listed = read
        .list_matches(v2::ListMatchesRequest {
            before_id: 0,
            limit: 100,
            states: Vec::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let tunes = read
        .list_tunes(v2::ListTunesRequest::default())
        .await
        .unwrap()
        .into_inner();
    format!("{status:?}\n{book:?}\n{export:?}\n{puzzles:?}\n{matches:?}\n{listed:?}\n{tunes:?}")
}

/// Calls every method with the token of its role, in the table's order; each succeeds.
async fn every_method_succeeds_with_its_role(clients: &Clients, context: &mut Context) {
    for &(method, role) in REQUIRED_ROLES {
        let result = invoke(&mut clients.with(role), method, context).await;
        assert!(result.is_ok(), "{method} with the {role} token: {result:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_token_is_refused_outside_its_role_and_nothing_changes() {
    let credentials = Credentials::new(vec![
        (Grant::Role(Role::Worker), WORKER.into()),
        (Grant::Role(Role::Admin), ADMIN.into()),
        (Grant::Role(Role::Read), READ.into()),
    ])
    .unwrap();
    let server = Server::start(credentials).await;
    let clients = Clients {
        worker: server.client(WORKER),
        admin: server.client(ADMIN),
        read: server.client(READ),
    };
    let mut context = seed(&clients).await;
    let before = snapshot(&clients, &context).await;
    let mut refused = Vec::new();
    for &(method, needed) in REQUIRED_ROLES {
        for held in [Role::Worker, Role::Admin, Role::Read] {
            if Grant::Role(held).allows(needed) {
                continue;
            }
            let status = invoke(&mut clients.with(held), method, &mut context)
                .await
                .unwrap_err();
            assert_eq!(
                (status.code(), reason_of(&status)),
                (Code::PermissionDenied, ErrorReason::Forbidden),
                "{method} with the {held} token: {status:?}"
            );
            assert!(
                status
                    .message()
                    .contains(&format!("{method} needs the {needed} role")),
                "{}",
                status.message()
            );
            assert_eq!(
                snapshot(&clients, &context).await,
                before,
                "{method} refused to the {held} token changed nothing"
            );
            refused.push((method, held));
        }
    }
    // The worker token reaches no admin or read method; the read token no write.
    for &(method, needed) in REQUIRED_ROLES {
        assert_eq!(
            refused.contains(&(method, Role::Worker)),
            needed != Role::Worker,
            "{method}"
        );
        assert_eq!(
            refused.contains(&(method, Role::Read)),
            needed != Role::Read,
            "{method}"
        );
    }
    // A worker given a read token stops at once with the reason instead of retrying.
    let options = pentagrid_worker::WorkerOptions {
        coordinator: server.served.url.clone(),
        token: READ.into(),
        tls_ca: None,
        name: "misconfigured".into(),
        threads: 1,
        ack_log: None,
        max_results: None,
        identity: pentagrid_worker::WorkerIdentity::Fresh,
        engines: pentagrid_worker::EngineSettings::default(),
        speed: Some(0),
    };
    let (_stop, stopped) = watch::channel(false);
    let error = pentagrid_worker::run(options, stopped).await.unwrap_err();
    assert!(
        error.to_string().contains("needs the worker role"),
        "{error}"
    );
    assert_eq!(snapshot(&clients, &context).await, before);

    every_method_succeeds_with_its_role(&clients, &mut context).await;
    assert_ne!(snapshot(&clients, &context).await, before);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_token_does_everything() {
    let server = Server::start(Credentials::all_roles("one-token").unwrap()).await;
    let client = server.client("one-token");
    let clients = Clients {
        worker: client.clone(),
        admin: client.clone(),
        read: client,
    };
    let mut context = seed(&clients).await;
    every_method_succeeds_with_its_role(&clients, &mut context).await;
    // Another server's role token is just a wrong token here.
    let status = server
        .client(ADMIN)
        .status(v2::StatusRequest::default())
        .await;
    assert_eq!(status.unwrap_err().code(), Code::Unauthenticated);
    server.stop().await;
}
