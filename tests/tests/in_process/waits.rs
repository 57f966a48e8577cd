//! Per-job waits and workers over a real coordinator and real workers: two users' campaigns
//! on one coordinator each wait for exactly their own jobs, `WatchJobs` refuses unknown ids
//! and more open watches than a token, or all tokens together, may hold, and a restarted
//! worker keeps its id. (That a panicking job is reported failed and retried
//! is tested in the worker crate, where its test hook lives.)

use pentago::{Player, Position};
use pentagrid_client::campaign::{CampaignPlan, CampaignReport, campaign};
use pentagrid_client::jobs::run_jobs;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{Client, Task, reason_of, v2};
use pentagrid_tablebase::Tablebase;
use pentagrid_tests::{TOKEN, TestCluster};
use pentagrid_worker::{WorkerIdentity, WorkerOptions, WorkerReport};
use tokio::sync::watch;
use tonic::Code;

fn plan(games: u64, depth: u32) -> CampaignPlan {
    CampaignPlan {
        games,
        selfplay: Player::Random,
        playouts: 300,
        config: "uct".parse().unwrap(),
        depth,
        studies: false,
        puzzles: 0,
    }
}

/// The first update of a watch on `job_ids`: where they stand right now.
async fn standing(client: &Client, job_ids: &[u64]) -> v2::JobsUpdate {
    let request = v2::WatchJobsRequest {
        job_ids: job_ids.to_vec(),
    };
    let mut stream = client
        .clone()
        .watch_jobs(request)
        .await
        .expect("watch")
        .into_inner();
    stream.message().await.expect("an update").expect("one")
}

/// Runs a campaign, then checks at once that every one of its own jobs is finished.
async fn campaign_then_check(client: Client, plan: CampaignPlan) -> CampaignReport {
    let report = campaign(&client, &plan, &Tablebase::shipped().unwrap(), &mut |_| {})
        .await
        .expect("campaign");
    for outcome in [&report.selfplay, &report.analysis] {
        let now = standing(&client, &outcome.job_ids).await;
        assert_eq!(
            (now.done, now.queued, now.leased),
            (outcome.job_ids.len() as u64, 0, 0),
            "a campaign returned before its own jobs were done"
        );
    }
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_campaigns_at_once_each_wait_for_their_own_jobs_and_count_them() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let workers = [cluster.worker("w1", 1), cluster.worker("w2", 1)];
    let (one, two) = (cluster.client(), cluster.client());
    // Both at once (interleaved on this task): each checks its own jobs the moment it returns.
    let (first, second) = tokio::join!(
        campaign_then_check(one, plan(7, 0)),
        campaign_then_check(two, plan(3, 1))
    );

    // Each counts its own games and its own analyses, not the cluster's.
    let games = |r: &CampaignReport| (r.selfplay.job_ids.len(), r.selfplay.done, r.selfplay.games);
    assert_eq!(games(&first), (7, 7, 7));
    assert_eq!(games(&second), (3, 3, 3));
    assert_eq!(first.analysis.job_ids.len(), 1, "depth 0: the start only");
    assert!(
        second.analysis.job_ids.len() > 1,
        "depth 1: the start and its children"
    );
    for (report, outcome) in [(&first, &first.analysis), (&second, &second.analysis)] {
        assert_eq!(outcome.done, outcome.job_ids.len() as u64, "{report:?}");
        assert!(outcome.failed.is_empty() && outcome.cancelled == 0);
        // Each analysis merges at most its budget of 300 playouts, and some.
        let jobs = outcome.job_ids.len() as u64;
        assert!(
            (jobs..=jobs * 300).contains(&outcome.playouts),
            "{} playouts for {jobs} analyses",
            outcome.playouts
        );
    }
    let status = cluster.status().await;
    let all = 7 + 3 + first.analysis.job_ids.len() + second.analysis.job_ids.len();
    assert_eq!(status.done, all as u64);
    for (stop, worker) in workers {
        stop.send(true).unwrap();
        worker.await.unwrap();
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watching_unknown_or_too_many_jobs_is_refused() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let ids = pentagrid_client::jobs::submit(
        &client,
        &[Task::Solve {
            position: Position::START,
        }],
    )
    .await
    .unwrap();
    let watch = |job_ids: Vec<u64>| {
        let mut client = client.clone();
        async move { client.watch_jobs(v2::WatchJobsRequest { job_ids }).await }
    };
    let unknown = watch(vec![ids[0], 987_654_321]).await.unwrap_err();
    assert_eq!(
        (unknown.code(), reason_of(&unknown)),
        (Code::NotFound, ErrorReason::NotFound)
    );
    assert!(
        unknown.message().contains("987654321"),
        "{}",
        unknown.message()
    );
    let too_many = watch(vec![ids[0]; 100_001]).await.unwrap_err();
    assert_eq!(
        (too_many.code(), reason_of(&too_many)),
        (Code::InvalidArgument, ErrorReason::InvalidArgument)
    );
    // A known id is watched: it is queued (no worker runs).
    let now = standing(&client, &ids).await;
    assert_eq!((now.total, now.queued), (1, 1));
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_token_holds_a_bounded_number_of_open_watches() {
    use pentagrid_edge::MAX_WATCHES_PER_GRANT;
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let ids = pentagrid_client::jobs::submit(
        &client,
        &[Task::Solve {
            position: Position::START,
        }],
    )
    .await
    .unwrap();
    let watch = || {
        let mut client = client.clone();
        let job_ids = ids.clone();
        async move { client.watch_jobs(v2::WatchJobsRequest { job_ids }).await }
    };
    // The job stays queued (no worker runs): every watch stays open.
    let mut open = Vec::new();
    for _ in 0..MAX_WATCHES_PER_GRANT {
        open.push(watch().await.expect("a watch within the bound"));
    }
    let refused = watch().await.unwrap_err();
    assert_eq!(
        (refused.code(), reason_of(&refused)),
        (Code::ResourceExhausted, ErrorReason::AtCapacity)
    );
    assert!(
        refused.message().contains("open job watches"),
        "{refused:?}"
    );
    // Hung up, the watches give their places back (once the coordinator sees the streams end).
    drop(open);
    watch_once_room(&client, &ids).await;
    cluster.stop().await;
}

/// Opens a watch on `job_ids` with `client`, retrying while the coordinator is at capacity
/// (a hung-up watch gives its place back once the coordinator sees its stream end).
async fn watch_once_room(client: &Client, job_ids: &[u64]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let request = v2::WatchJobsRequest {
            job_ids: job_ids.to_vec(),
        };
        match client.clone().watch_jobs(request).await {
            Ok(_) => return,
            Err(status) if status.code() == Code::ResourceExhausted => {
                assert!(std::time::Instant::now() < deadline, "never given back");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(status) => panic!("{status:?}"),
        }
    }
}

/// Several tokens together are bounded too: with the read token at its own bound and the
/// admin token at its own, the one-person token gets what is left of the coordinator's
/// bound and no more, with a RESOURCE_EXHAUSTED that says which bound; a watch that ends
/// makes room for any token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_tokens_together_hold_a_bounded_number_of_open_watches() {
    use pentagrid_edge::{Credentials, Grant, MAX_WATCHES, MAX_WATCHES_PER_GRANT, Role};
    let dir = tempfile::tempdir().unwrap();
    let credentials = Credentials::new(vec![
        (Grant::Role(Role::Read), "read-token".into()),
        (Grant::Role(Role::Admin), "admin-token".into()),
        (Grant::All, "all-token".into()),
    ])
    .unwrap();
    let served = pentagrid_tests::ServedCoordinator::start(
        dir.path(),
        CoordinatorSettings::default(),
        credentials,
    )
    .await;
    let [read, admin, all] = ["read-token", "admin-token", "all-token"].map(|t| served.client(t));
    let task = Task::Solve {
        position: Position::START,
    };
    let ids = pentagrid_client::jobs::submit(&admin, &[task])
        .await
        .unwrap();
    let watch = |client: &Client| {
        let mut client = client.clone();
        let job_ids = ids.clone();
        async move { client.watch_jobs(v2::WatchJobsRequest { job_ids }).await }
    };
    let mut open = Vec::new();
    for client in [&read, &admin] {
        for _ in 0..MAX_WATCHES_PER_GRANT {
            open.push(watch(client).await.expect("a watch within the bounds"));
        }
    }
    let per_token = watch(&read).await.unwrap_err();
    assert_eq!(
        (per_token.code(), reason_of(&per_token)),
        (Code::ResourceExhausted, ErrorReason::AtCapacity)
    );
    assert!(per_token.message().contains("this token"), "{per_token:?}");
    let left = MAX_WATCHES - 2 * MAX_WATCHES_PER_GRANT;
    assert!(left < MAX_WATCHES_PER_GRANT, "the whole bound binds first");
    for _ in 0..left {
        open.push(watch(&all).await.expect("within the coordinator's bound"));
    }
    let whole = watch(&all).await.unwrap_err();
    assert_eq!(
        (whole.code(), reason_of(&whole)),
        (Code::ResourceExhausted, ErrorReason::AtCapacity)
    );
    assert!(
        whole.message().contains("the coordinator already holds"),
        "{whole:?}"
    );
    // A read watch that ends makes room for the one-person token.
    drop(open.remove(0));
    watch_once_room(&all, &ids).await;
    drop(open);
    served.stop().await;
}

/// A worker on `cluster` with its own options.
fn worker(
    cluster: &TestCluster,
    name: &str,
    identity: WorkerIdentity,
) -> (watch::Sender<bool>, tokio::task::JoinHandle<WorkerReport>) {
    let options = WorkerOptions {
        coordinator: cluster.url.clone(),
        token: TOKEN.into(),
        tls_ca: None,
        name: name.into(),
        threads: 1,
        ack_log: None,
        max_results: None,
        identity,
        engines: pentagrid_worker::EngineSettings::default(),
        speed: Some(0),
    };
    let (stop, stopped) = watch::channel(false);
    let run = tokio::spawn(async move {
        pentagrid_worker::run(options, stopped)
            .await
            .expect("worker")
    });
    (stop, run)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_worker_keeps_its_id() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let state = tempfile::tempdir().unwrap();
    let task = Task::Selfplay {
        start: Position::START,
        black: Player::Random,
        white: Player::Random,
    };
    for _ in 0..2 {
        let identity = WorkerIdentity::Persisted(state.path().to_owned());
        let (stop, run) = worker(&cluster, "steady", identity);
        let outcome = run_jobs(&cluster.client(), std::slice::from_ref(&task), &mut |_| {})
            .await
            .unwrap();
        assert_eq!(outcome.done, 1);
        stop.send(true).unwrap();
        run.await.unwrap();
    }
    let status = cluster.status().await;
    assert_eq!(status.workers.len(), 1, "{:?}", status.workers);
    assert_eq!(
        (status.workers[0].name.as_str(), status.workers[0].results),
        ("steady", 2)
    );
    cluster.stop().await;
}
