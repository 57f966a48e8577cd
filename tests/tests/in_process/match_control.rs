//! Match control on an in-process cluster over real gRPC: running matches share a fixed pool of
//! workers by weight (counted lease by lease, no clock involved), and users with their own
//! tokens share it equally before their matches' weights count; a stopped match gets no more
//! leases and keeps its played pairs, and stops of unknown or finished matches are refused
//! with a clear error; listings filter by state.

use std::collections::HashMap;
use std::time::Duration;

use pentago::SearchControl;
use pentagrid_coordinator::{CoordinatorSettings, JobSettings};
use pentagrid_edge::Credentials;
use pentagrid_proto::{Client, Task, reason_of, v2};
use pentagrid_tests::{ServedCoordinator, TOKEN, TestCluster, hello};

/// Settings whose leases outlive any test run, so nothing expires however slow the machine.
fn settings() -> CoordinatorSettings {
    CoordinatorSettings {
        jobs: JobSettings {
            lease_duration: Duration::from_secs(86_400),
            ..JobSettings::default()
        },
        ..CoordinatorSettings::default()
    }
}

fn request(pairs: u64, weight: u32) -> v2::CreateMatchRequest {
    v2::CreateMatchRequest {
        a: "random".into(),
        b: "random".into(),
        pairs,
        seed: 7,
        weight,
        ..v2::CreateMatchRequest::default()
    }
}

async fn create(client: &mut Client, pairs: u64, weight: u32) -> u64 {
    client
        .create_match(request(pairs, weight))
        .await
        .expect("create")
        .into_inner()
        .match_id
}

async fn status(client: &mut Client, match_id: u64, games: bool) -> v2::MatchStatusResponse {
    client
        .match_status(v2::MatchStatusRequest {
            match_id,
            include_games: games,
            ..v2::MatchStatusRequest::default()
        })
        .await
        .expect("status")
        .into_inner()
}

/// A worker of the fixed pool: its id and session.
struct Worker {
    id: String,
    session: String,
}

impl Worker {
    async fn join(client: &mut Client, id: &str) -> Worker {
        let session = hello(client, id).await;
        Worker {
            id: id.into(),
            session,
        }
    }

    /// Leases up to `max` jobs.
    async fn lease(&self, client: &mut Client, max: u32) -> Vec<v2::Job> {
        client
            .lease(v2::LeaseRequest {
                worker_id: self.id.clone(),
                max_jobs: max,
                session: self.session.clone(),
            })
            .await
            .expect("lease")
            .into_inner()
            .jobs
    }

    /// Plays a leased pair for real and hands in its result.
    async fn submit(&self, client: &mut Client, job: &v2::Job) -> Result<(), tonic::Status> {
        let task = Task::try_from(job.spec.as_ref().expect("a spec")).expect("a task");
        let result = pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new())
            .expect("a pair job plays");
        client
            .submit(v2::SubmitRequest {
                worker_id: self.id.clone(),
                job_id: job.job_id,
                lease_id: job.lease_id,
                result_id: format!("{}-{}", self.id, job.job_id),
                result: Some((&result).into()),
                session: self.session.clone(),
            })
            .await
            .map(|_| ())
    }
}

/// The match a leased pair belongs to.
fn match_of(job: &v2::Job) -> u64 {
    match Task::try_from(job.spec.as_ref().expect("a spec")).expect("a task") {
        Task::Pair { match_id, .. } => match_id,
        other => panic!("not a pair: {other:?}"),
    }
}

/// Each match's share of `counts`.
fn shares(counts: &HashMap<u64, u64>, ids: [u64; 2]) -> [f64; 2] {
    let total = (counts[&ids[0]] + counts[&ids[1]]) as f64;
    ids.map(|id| counts[&id] as f64 / total)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_matches_share_a_fixed_pool_of_workers_by_weight() {
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    // Two users' matches: weight 3 and weight 1 (so 75% and 25% of the workers).
    let heavy = create(&mut client, 1_000, 3).await;
    let light = create(&mut client, 1_000, 1).await;
    let mut pool = Vec::new();
    for n in 0..8 {
        pool.push(Worker::join(&mut client, &format!("pool-{n}")).await);
    }
    // A fixed pool: each round every worker takes one pair, then all hand their results in.
    let rounds = 40;
    let mut counts: HashMap<u64, u64> = HashMap::from([(heavy, 0), (light, 0)]);
    for _ in 0..rounds {
        let mut held = Vec::new();
        for worker in &pool {
            let job = worker.lease(&mut client, 1).await.pop().expect("a pair");
            *counts.get_mut(&match_of(&job)).expect("one of the two") += 1;
            held.push((worker, job));
        }
        for (worker, job) in &held {
            worker.submit(&mut client, job).await.expect("accepted");
        }
    }
    let pool_shares = shares(&counts, [heavy, light]);
    println!(
        "fair share, pool of 8 workers x {rounds} rounds: weight 3 got {} leases ({:.3}), \
         weight 1 got {} ({:.3})",
        counts[&heavy], pool_shares[0], counts[&light], pool_shares[1]
    );
    assert_eq!(counts[&heavy] + counts[&light], 8 * rounds);
    assert!((pool_shares[0] - 0.75).abs() <= 0.02, "{counts:?}");
    let statuses = [
        status(&mut client, heavy, false).await,
        status(&mut client, light, false).await,
    ];
    assert_eq!(
        [statuses[0].pairs_done, statuses[1].pairs_done],
        [counts[&heavy], counts[&light]]
    );
    assert_eq!([statuses[0].weight, statuses[1].weight], [3, 1]);

    // One worker taking one pair at a time: ties broken by leases granted per weight.
    let single = &pool[0];
    let mut counts: HashMap<u64, u64> = HashMap::from([(heavy, 0), (light, 0)]);
    for _ in 0..80 {
        let job = single.lease(&mut client, 1).await.pop().expect("a pair");
        *counts.get_mut(&match_of(&job)).expect("one of the two") += 1;
        single.submit(&mut client, &job).await.expect("accepted");
    }
    let single_shares = shares(&counts, [heavy, light]);
    println!(
        "fair share, one worker x 80 leases: weight 3 got {} ({:.3}), weight 1 got {} ({:.3})",
        counts[&heavy], single_shares[0], counts[&light], single_shares[1]
    );
    assert!((single_shares[0] - 0.75).abs() <= 0.02, "{counts:?}");

    // A batch lease by one worker splits by weight as well.
    let batch = pool[1].lease(&mut client, 40).await;
    let from_heavy = batch.iter().filter(|job| match_of(job) == heavy).count();
    println!("fair share, one lease of 40: weight 3 got {from_heavy}");
    assert_eq!((batch.len(), from_heavy), (40, 30));
    cluster.stop().await;
}

/// Leases from `pool`, `rounds` times one pair per worker, handing every result in after each
/// round (so the pool is fixed); returns the leases per match.
async fn lease_rounds(client: &mut Client, pool: &[Worker], rounds: usize) -> HashMap<u64, u64> {
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for _ in 0..rounds {
        let mut held = Vec::new();
        for worker in pool {
            let job = worker.lease(client, 1).await.pop().expect("a pair");
            *counts.entry(match_of(&job)).or_default() += 1;
            held.push((worker, job));
        }
        for (worker, job) in &held {
            worker.submit(client, job).await.expect("accepted");
        }
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_share_the_workers_equally_then_their_matches_by_weight() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let credentials = Credentials::all_roles(TOKEN)
        .and_then(|c| {
            c.with_users(vec![
                ("ann".into(), "ann-t".into()),
                ("bob".into(), "bob-t".into()),
            ])
        })
        .expect("credentials");
    let server = ServedCoordinator::start(dir.path(), settings(), credentials).await;
    let (mut client, mut ann, mut bob) = (
        server.client(TOKEN),
        server.client("ann-t"),
        server.client("bob-t"),
    );
    // Ann runs two matches of weight 1, Bob one: Bob gets half the workers, Ann's two a
    // quarter each (one token per person, not one share per match).
    let ann_first = create(&mut ann, 1_000, 1).await;
    let ann_second = create(&mut ann, 1_000, 1).await;
    let bob_only = create(&mut bob, 1_000, 1).await;
    for (id, owner) in [(ann_first, "ann"), (ann_second, "ann"), (bob_only, "bob")] {
        assert_eq!(status(&mut client, id, false).await.owner, owner);
    }
    let mut pool = Vec::new();
    for n in 0..8 {
        pool.push(Worker::join(&mut client, &format!("pool-{n}")).await);
    }
    let rounds = 40;
    let counts = lease_rounds(&mut client, &pool, rounds).await;
    let total = (8 * rounds) as f64;
    let share = |id: u64| counts.get(&id).copied().unwrap_or(0) as f64 / total;
    let [first, second, only] = [ann_first, ann_second, bob_only].map(share);
    println!(
        "user share, pool of 8 workers x {rounds} rounds: ann {:.3} ({:.3} + {:.3}), bob {:.3}",
        first + second,
        first,
        second,
        only
    );
    assert_eq!(
        counts.values().sum::<u64>(),
        8 * rounds as u64,
        "{counts:?}"
    );
    assert!((only - 0.5).abs() <= 0.02, "{counts:?}");
    assert!(
        (first - 0.25).abs() <= 0.02 && (second - 0.25).abs() <= 0.02,
        "{counts:?}"
    );

    // A tuning run's matches are its creator's; a token naming no user creates no user's.
    let tune_id = bob
        .create_tune(v2::CreateTuneRequest {
            base: "uct:playouts=30".into(),
            params: vec!["playouts=10..100".into()],
            iterations: 3,
            pairs_per_iteration: 1,
            ..v2::CreateTuneRequest::default()
        })
        .await
        .expect("create a tune")
        .into_inner()
        .tune_id;
    let tune = client
        .tune_status(v2::TuneStatusRequest {
            tune_id,
            ..v2::TuneStatusRequest::default()
        })
        .await
        .expect("tune status")
        .into_inner();
    assert_eq!(tune.owner, "bob");
    let iteration = status(&mut client, tune.iteration_match_id, false).await;
    assert_eq!(iteration.owner, "bob");
    let nobody = create(&mut client, 1, 1).await;
    assert_eq!(status(&mut client, nobody, false).await.owner, "");

    // Each user stops only their own: Bob cannot stop Ann's match or Ann Bob's tuning run
    // (refused, nothing changes); Ann stops hers; a token naming no user stops any.
    let stop = |id| v2::StopMatchRequest { match_id: id };
    let refused = bob
        .stop_match(stop(ann_first))
        .await
        .expect_err("not Bob's");
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    assert_eq!(
        pentagrid_proto::reason_of(&refused),
        v2::ErrorReason::Forbidden
    );
    assert!(refused.message().contains("belongs to ann"), "{refused:?}");
    assert_eq!(
        status(&mut client, ann_first, false).await.state(),
        v2::MatchState::Running
    );
    let refused = ann
        .stop_tune(v2::StopTuneRequest { tune_id })
        .await
        .expect_err("not Ann's");
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    ann.stop_match(stop(ann_first))
        .await
        .expect("Ann stops hers");
    client
        .stop_match(stop(bob_only))
        .await
        .expect("an admin naming no user stops any");
    bob.stop_tune(v2::StopTuneRequest { tune_id })
        .await
        .expect("Bob stops his run");
    bob.stop_match(stop(nobody))
        .await
        .expect("a match nobody owns is everyone's");
    drop((client, ann, bob));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_match_gets_no_more_leases_and_keeps_its_played_pairs() {
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    let stopped = create(&mut client, 6, 1).await;
    let worker = Worker::join(&mut client, "w").await;
    let leased = worker.lease(&mut client, 3).await;
    assert_eq!(leased.len(), 3);
    for job in &leased[..2] {
        worker.submit(&mut client, job).await.expect("accepted");
    }
    let other = create(&mut client, 4, 1).await;
    let answer = client
        .stop_match(v2::StopMatchRequest { match_id: stopped })
        .await
        .expect("stop")
        .into_inner();
    let report = answer.r#match.expect("the match");
    // Three queued pairs and one leased one are cancelled; the two played are kept.
    assert_eq!(answer.cancelled_pairs, 4);
    assert_eq!(
        (report.state(), report.pairs_done, report.pairs_leased),
        (v2::MatchState::Stopped, 2, 0)
    );
    let late = worker.submit(&mut client, &leased[2]).await.unwrap_err();
    assert_eq!(reason_of(&late), v2::ErrorReason::LeaseNotHeld);
    let kept = status(&mut client, stopped, true).await;
    assert_eq!((kept.pairs_done, kept.games.len()), (2, 4));
    // Only the other match's pairs are leased from now on.
    let rest = worker.lease(&mut client, 64).await;
    assert_eq!(rest.len(), 4);
    assert!(rest.iter().all(|job| match_of(job) == other));

    // A stop of a stopped, a complete or an unknown match is refused, clearly.
    let again = client
        .stop_match(v2::StopMatchRequest { match_id: stopped })
        .await
        .unwrap_err();
    assert_eq!(again.code(), tonic::Code::FailedPrecondition);
    assert_eq!(reason_of(&again), v2::ErrorReason::Finished);
    assert!(
        again
            .message()
            .contains(&format!("match {stopped} is stopped, not running")),
        "{}",
        again.message()
    );
    for job in &rest {
        worker.submit(&mut client, job).await.expect("accepted");
    }
    let complete = client
        .stop_match(v2::StopMatchRequest { match_id: other })
        .await
        .unwrap_err();
    assert_eq!(reason_of(&complete), v2::ErrorReason::Finished);
    assert!(
        complete.message().contains("complete"),
        "{}",
        complete.message()
    );
    let unknown = client
        .stop_match(v2::StopMatchRequest { match_id: 987_654 })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    assert!(
        unknown.message().contains("no match 987654"),
        "{}",
        unknown.message()
    );

    // Listings filter by state; the stop survives a restart and nothing is queued again.
    let listed = |states: Vec<v2::MatchState>| v2::ListMatchesRequest {
        states: states.into_iter().map(|s| s as i32).collect(),
        ..v2::ListMatchesRequest::default()
    };
    let cluster = cluster.restart(settings()).await;
    let mut client = cluster.client();
    for (states, expected) in [
        (vec![v2::MatchState::Stopped], vec![stopped]),
        (vec![v2::MatchState::Complete], vec![other]),
        (vec![v2::MatchState::Running], vec![]),
        (vec![], vec![other, stopped]),
    ] {
        let ids: Vec<u64> = client
            .list_matches(listed(states.clone()))
            .await
            .expect("list")
            .into_inner()
            .matches
            .iter()
            .map(|m| m.match_id)
            .collect();
        assert_eq!(ids, expected, "{states:?}");
    }
    let unknown_state = client
        .list_matches(v2::ListMatchesRequest {
            states: vec![99],
            ..v2::ListMatchesRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(unknown_state.code(), tonic::Code::InvalidArgument);
    assert_eq!(cluster.status().await.queued, 0);
    let kept = status(&mut client, stopped, false).await;
    assert_eq!(
        (kept.state(), kept.pairs_done),
        (v2::MatchState::Stopped, 2)
    );
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weights_out_of_range_are_refused() {
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    let refused = client.create_match(request(2, 1_001)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(
        refused.message().contains("weight"),
        "{}",
        refused.message()
    );
    // 0 is proto3's "not given": weight 1.
    let id = create(&mut client, 2, 0).await;
    assert_eq!(status(&mut client, id, false).await.weight, 1);
    assert_eq!(cluster.status().await.queued, 2);
    cluster.stop().await;
}
