//! Matches on an in-process cluster: pairs are farmed out and counted once, the SPRT stops a
//! lopsided match and cancels its unplayed pairs, book openings follow the stored tables, and
//! bad match requests or pair results are refused without changing anything.

use std::time::{Duration, Instant};

use pentago::Position;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Outcome, v2};
use pentagrid_tests::{TestCluster, hello, lease_one};

fn request(a: &str, b: &str, pairs: u64) -> v2::CreateMatchRequest {
    v2::CreateMatchRequest {
        a: a.into(),
        b: b.into(),
        pairs,
        sprt: String::new(),
        openings: String::new(),
        seed: 5,
        accuracy_stones: None,
        ..v2::CreateMatchRequest::default()
    }
}

async fn create(cluster: &TestCluster, request: v2::CreateMatchRequest) -> u64 {
    cluster
        .client()
        .create_match(request)
        .await
        .unwrap()
        .into_inner()
        .match_id
}

async fn report(cluster: &TestCluster, match_id: u64) -> v2::MatchStatusResponse {
    cluster
        .client()
        .match_status(v2::MatchStatusRequest {
            match_id,
            include_games: true,
            ..v2::MatchStatusRequest::default()
        })
        .await
        .unwrap()
        .into_inner()
}

async fn wait_finished(cluster: &TestCluster, match_id: u64) -> v2::MatchStatusResponse {
    let started = Instant::now();
    loop {
        let report = report(cluster, match_id).await;
        if report.state() != v2::MatchState::Running {
            return report;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{report:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sprt_stops_a_lopsided_match_and_cancels_the_rest() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut lopsided = request("uct:playouts=800", "random", 200);
    lopsided.sprt = "elo0=0,elo1=50,alpha=0.05,beta=0.05".into();
    let id = create(&cluster, lopsided).await;
    let (stop, worker) = cluster.worker("w", 1);
    let report = wait_finished(&cluster, id).await;
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!(report.state(), v2::MatchState::AcceptedH1, "{report:?}");
    assert!(report.decided_after > 0 && report.decided_after < 200);
    // Counts equal the stored games; pairs after the decision were cancelled, not played.
    assert_eq!(report.games.len() as u64, 2 * report.pairs_done);
    assert_eq!(
        report.wins + report.draws + report.losses,
        2 * report.pairs_done
    );
    assert_eq!(
        pentagrid_proto::pentanomial_counts(report.pentanomial.as_ref())
            .iter()
            .sum::<u64>(),
        report.pairs_done
    );
    let status = cluster.status().await;
    assert_eq!(status.done, report.pairs_done);
    assert_eq!(status.cancelled, 200 - report.pairs_done);
    assert_eq!(status.queued + status.leased, 0);
    for game in &report.games {
        let opening: Position = game.opening.parse().unwrap();
        assert_eq!(opening.stone_count(), 2, "random:plies=2 openings");
        assert!(["black", "white", "draw"].contains(&game.result.as_str()));
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn book_openings_follow_the_stored_tables() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    // A book with one line only: the start position's table holds a single move group.
    let mut client = cluster.client();
    let session = hello(&mut client, "w").await;
    let analyse = pentagrid_proto::Task::Analyse {
        position: Position::START,
        config: "uct".parse().unwrap(),
        playouts: 100,
    };
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&analyse)],
        })
        .await
        .unwrap();
    let job = lease_one(&mut client, "w", &session).await;
    let only = Outcome::Analyse {
        rows: vec![pentagrid_proto::Row {
            mv: "b5-1R".parse().unwrap(),
            games: 100,
            wins: 50,
            draws: 0,
        }],
        simulations: 100,
        seconds: 0.1,
    };
    client
        .submit(v2::SubmitRequest {
            worker_id: "w".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: "r".into(),
            result: Some((&only).into()),
            session: session.clone(),
        })
        .await
        .unwrap();
    let mut booked = request("random", "random", 6);
    booked.openings = "book:plies=3".into();
    let id = create(&cluster, booked).await;
    let (stop, worker) = cluster.worker("w2", 1);
    let report = wait_finished(&cluster, id).await;
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!(report.state(), v2::MatchState::Complete);
    assert_eq!(report.openings, "book:plies=3");
    for game in &report.games {
        let opening: Position = game.opening.parse().unwrap();
        assert_eq!(opening.stone_count(), 3);
        // The first move came from the book's only row: a quadrant centre, which twists
        // keep a centre.
        let on_centre = ["b2", "e2", "b5", "e5"]
            .iter()
            .any(|square| opening.stone_at(square.parse().unwrap()) == Some(pentago::Color::Black));
        assert!(on_centre, "{}", game.opening);
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_match_requests_and_pair_results_are_refused() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let bad = [
        (request("uct:k=x", "random", 2), "player A"),
        (request("random", "nobody", 2), "player B"),
        (request("random", "random", 0), "pairs"),
        (request("random", "random", 1_000_000), "pairs"),
        (
            v2::CreateMatchRequest {
                sprt: "elo0=0".into(),
                ..request("random", "random", 2)
            },
            "SPRT",
        ),
        (
            v2::CreateMatchRequest {
                openings: "book:plies=99".into(),
                ..request("random", "random", 2)
            },
            "opening",
        ),
    ];
    for (request, needle) in bad {
        let status = client.create_match(request).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(status.message().contains(needle), "{}", status.message());
    }
    let missing = client
        .match_status(v2::MatchStatusRequest {
            match_id: 12345,
            include_games: false,
            ..v2::MatchStatusRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    assert_eq!(cluster.status().await.queued, 0, "nothing was queued");

    // Pair jobs only come from matches.
    let pair = pentagrid_proto::Task::Pair {
        match_id: 1,
        pair: 0,
        opening: Position::START,
        a: pentago::Player::Random,
        b: pentago::Player::Random,
        accuracy_stones: None,
        time: None,
        adjudicate: None,
    };
    let refused = client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&pair)],
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);

    // A pair result whose second game does not start at the opening is refused.
    let id = create(&cluster, request("random", "random", 1)).await;
    let session = hello(&mut client, "w").await;
    let job = lease_one(&mut client, "w", &session).await;
    let task = pentagrid_proto::Task::try_from(job.spec.as_ref().unwrap()).unwrap();
    let Some(Outcome::Pair { games, .. }) =
        pentagrid_worker::execute(&task, job.seed, 1, &pentago::SearchControl::new())
    else {
        panic!("a pair job plays a pair");
    };
    let mut broken = games.clone();
    broken[1].0.remove(0);
    let submit = |result: &Outcome, result_id: &str| v2::SubmitRequest {
        worker_id: "w".into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: result_id.into(),
        result: Some(result.into()),
        session: session.clone(),
    };
    let error = client
        .submit(submit(
            &Outcome::Pair {
                games: broken,
                accuracy: None,
                notes: Default::default(),
            },
            "bad",
        ))
        .await
        .unwrap_err();
    assert!(error.message().contains("game 2"), "{}", error.message());
    assert_eq!(report(&cluster, id).await.pairs_done, 0);
    // The true result is then accepted, once.
    let good = Outcome::Pair {
        games,
        accuracy: None,
        notes: Default::default(),
    };
    client.submit(submit(&good, "good")).await.unwrap();
    let again = client
        .submit(submit(&good, "good"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.outcome, v2::SubmitOutcome::Duplicate as i32);
    let done = report(&cluster, id).await;
    assert_eq!(
        (done.pairs_done, done.state()),
        (1, v2::MatchState::Complete)
    );
    cluster.stop().await;
}
