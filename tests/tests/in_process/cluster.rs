//! An in-process cluster over real loopback sockets with a real sled database: jobs complete,
//! stored tables equal the sum of the results, and results count exactly once.

use std::collections::HashMap;
use std::time::Duration;

use pentago::{Move, Position, SearchControl};
use pentagrid_coordinator::{CoordinatorSettings, JobSettings, job_seed};
use pentagrid_proto::{Outcome, Task, v2};
use pentagrid_tests::{TestCluster, hello};

fn analyse(position: &str, playouts: u64) -> Task {
    Task::Analyse {
        position: position.parse().unwrap(),
        config: "uct".parse().unwrap(),
        playouts,
    }
}

async fn submit(cluster: &TestCluster, tasks: &[Task]) -> Vec<u64> {
    let request = v2::SubmitJobsRequest {
        jobs: tasks.iter().map(v2::JobSpec::from).collect(),
    };
    cluster
        .client()
        .submit_jobs(request)
        .await
        .unwrap()
        .into_inner()
        .job_ids
}

/// The rows a single-threaded worker produces for a job: the search is reproducible.
fn expected_rows(task: &Task, job_id: u64) -> Vec<pentagrid_proto::Row> {
    match pentagrid_worker::execute(task, job_seed(job_id), 1, &SearchControl::new()) {
        Some(Outcome::Analyse { rows, .. }) => rows,
        other => panic!("not an analysis: {other:?}"),
    }
}

async fn book(cluster: &TestCluster, position: &str) -> v2::BookShowResponse {
    let request = v2::BookShowRequest {
        position: position.into(),
    };
    cluster
        .client()
        .book_show(request)
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_workers_complete_jobs_and_tables_equal_the_sum_of_results() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let two_stones = "x...../....../....../....../....../.....o";
    let tasks = vec![
        analyse("start", 3000),
        analyse("start", 2000),
        analyse(two_stones, 2500),
        Task::Selfplay {
            start: Position::START,
            black: "uct:playouts=300".parse().unwrap(),
            white: pentago::Player::Random,
        },
        Task::Selfplay {
            start: Position::START,
            black: pentago::Player::Random,
            white: "uct:playouts=300".parse().unwrap(),
        },
    ];
    let ids = submit(&cluster, &tasks).await;
    let workers = [cluster.worker("a", 1), cluster.worker("b", 1)];
    let status = cluster
        .wait_done(tasks.len() as u64, Duration::from_secs(120))
        .await;
    assert_eq!((status.queued, status.leased, status.failed), (0, 0, 0));
    assert_eq!(status.games, 2);
    assert_eq!(
        status.playouts, 7500,
        "every playout of every table counted once"
    );

    // The start position's stored table is the sum of both analyses, move by move.
    let mut expected: HashMap<String, u64> = HashMap::new();
    for (task, id) in tasks.iter().zip(&ids).take(2) {
        for row in expected_rows(task, *id) {
            *expected.entry(row.mv.to_string()).or_default() += row.games;
        }
    }
    let stored = book(&cluster, "start").await;
    let stored_rows: HashMap<String, u64> = stored
        .playouts
        .iter()
        .map(|r| (r.r#move.clone(), r.games))
        .collect();
    assert_eq!(stored_rows, expected);
    assert!(stored.playouts.iter().all(|r| r.wins + r.draws <= r.games));

    // The two-stone position, asked for in a mirrored frame, maps back correctly.
    let mirror = pentago::Symmetry::ALL[4];
    let position: Position = two_stones.parse().unwrap();
    let mirrored = mirror.apply(&position);
    let stored = book(&cluster, &mirrored.to_string()).await;
    let expected: HashMap<Move, u64> = expected_rows(&tasks[2], ids[2])
        .into_iter()
        .map(|r| (mirror.apply_move(r.mv), r.games))
        .collect();
    let groups = pentago::move_groups(&mirrored, true);
    for row in &stored.playouts {
        let mv: Move = row.r#move.parse().unwrap();
        let group = groups.iter().find(|g| g.contains(&mv)).unwrap();
        let want: u64 = group.iter().filter_map(|m| expected.get(m)).sum();
        assert_eq!(row.games, want, "{}", row.r#move);
    }
    assert_eq!(stored.playouts.iter().map(|r| r.games).sum::<u64>(), 2500);

    // Each game counted once at the start position, from the mover's side.
    let start = book(&cluster, "start").await;
    assert_eq!(start.games.iter().map(|r| r.games).sum::<u64>(), 2);

    for (stop, handle) in workers {
        stop.send(true).unwrap();
        let report = handle.await.unwrap();
        assert_eq!(report.refused, 0);
    }
    cluster.stop().await;
}

/// A worker played by the test: hello, lease, submit by hand.
struct ManualWorker {
    id: String,
    session: String,
    client: pentagrid_proto::Client,
}

impl ManualWorker {
    async fn join(cluster: &TestCluster, id: &str) -> ManualWorker {
        let mut client = cluster.client();
        let session = hello(&mut client, id).await;
        ManualWorker {
            id: id.into(),
            session,
            client,
        }
    }

    async fn lease(&mut self) -> Vec<v2::Job> {
        let request = v2::LeaseRequest {
            worker_id: self.id.clone(),
            max_jobs: 1,
            session: self.session.clone(),
        };
        self.client.lease(request).await.unwrap().into_inner().jobs
    }

    async fn submit(
        &mut self,
        job: &v2::Job,
        result_id: &str,
        outcome: &Outcome,
    ) -> Result<v2::SubmitOutcome, tonic::Status> {
        let request = v2::SubmitRequest {
            worker_id: self.id.clone(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: result_id.into(),
            result: Some(outcome.into()),
            session: self.session.clone(),
        };
        let reply = self.client.submit(request).await?.into_inner();
        Ok(v2::SubmitOutcome::try_from(reply.outcome).unwrap())
    }
}

fn run(job: &v2::Job) -> Outcome {
    let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
    pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_result_twice_or_from_two_workers_counts_once() {
    let settings = CoordinatorSettings {
        jobs: JobSettings {
            lease_duration: Duration::from_millis(800),
            ..JobSettings::default()
        },
        ..CoordinatorSettings::default()
    };
    let cluster = TestCluster::start(settings).await;
    submit(&cluster, &[analyse("start", 1000)]).await;
    let mut a = ManualWorker::join(&cluster, "a").await;
    let job = a.lease().await.pop().expect("a job");
    let outcome = run(&job);
    assert_eq!(
        a.submit(&job, "a-1", &outcome).await.unwrap(),
        v2::SubmitOutcome::Applied
    );
    assert_eq!(
        a.submit(&job, "a-1", &outcome).await.unwrap(),
        v2::SubmitOutcome::Duplicate
    );
    let status = cluster.status().await;
    assert_eq!((status.done, status.playouts), (1, 1000));

    // A lease that expires goes to another worker; both finish; only one result counts.
    submit(&cluster, &[analyse("start", 1000)]).await;
    let mut b = ManualWorker::join(&cluster, "b").await;
    let first = a.lease().await.pop().expect("a job");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let second = b.lease().await.pop().expect("the expired job again");
    assert_eq!(first.job_id, second.job_id);
    assert_ne!(first.lease_id, second.lease_id);
    let outcome = run(&second);
    let late = a.submit(&first, "a-2", &outcome).await.unwrap_err();
    assert_eq!(late.code(), tonic::Code::FailedPrecondition, "{late:?}");
    assert_eq!(
        b.submit(&second, "b-1", &outcome).await.unwrap(),
        v2::SubmitOutcome::Applied
    );
    assert_eq!(
        b.submit(&second, "b-1", &outcome).await.unwrap(),
        v2::SubmitOutcome::Duplicate
    );
    let status = cluster.status().await;
    assert_eq!((status.done, status.playouts), (2, 2000));
    cluster.stop().await;
}

/// A restarted coordinator does not know the workers of the old one: it refuses their leases
/// with the typed reason `UNKNOWN_WORKER`, and a running worker says hello again and goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_say_hello_again_after_a_coordinator_restart() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let session = hello(&mut client, "raw").await;
    let (stop, worker) = cluster.worker("survivor", 1);
    submit(&cluster, &[analyse("start", 200)]).await;
    cluster.wait_done(1, Duration::from_secs(60)).await;

    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    let refused = cluster
        .client()
        .lease(v2::LeaseRequest {
            worker_id: "raw".into(),
            max_jobs: 1,
            session,
        })
        .await
        .unwrap_err();
    assert_eq!(
        pentagrid_proto::reason_of(&refused),
        v2::ErrorReason::UnknownWorker,
        "{refused:?}"
    );
    submit(&cluster, &[analyse("start", 300)]).await;
    let status = cluster.wait_done(2, Duration::from_secs(60)).await;
    let names: Vec<&str> = status.workers.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["survivor"]);
    stop.send(true).unwrap();
    assert_eq!(worker.await.unwrap().acknowledged, 2);
    cluster.stop().await;
}
