//! The running matches on the cluster page, over HTTP against a cluster of its own without
//! workers (so its matches stay running): each with its progress, leases and weight; a stopped
//! match leaves the table. A worker the cross-checks caught is listed with what its purge
//! took out of the book.

use pentagrid_coordinator::{CoordinatorSettings, CrossCheckSettings};
use pentagrid_proto::{Outcome, Row, Task, v2};
use pentagrid_tests::{TestCluster, hello, lease_one};

use crate::support::{get, start_explorer};

#[tokio::test]
async fn the_cluster_page_lists_the_running_matches_with_progress_and_weight() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let base = start_explorer(&cluster, pentagrid_web::BookCacheSettings::default()).await;
    let mut client = cluster.client();
    let mut ids = Vec::new();
    for (name, weight) in [("heavy", 5), ("light", 2)] {
        let created = client
            .create_match(v2::CreateMatchRequest {
                a: format!("{name}=random"),
                b: "random".into(),
                pairs: 3,
                weight,
                ..v2::CreateMatchRequest::default()
            })
            .await
            .expect("create")
            .into_inner();
        ids.push(created.match_id);
    }
    client
        .stop_match(v2::StopMatchRequest { match_id: ids[1] })
        .await
        .expect("stop");
    let answer = get(&format!("{base}/api/v1/cluster")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let running = answer.json()["matches"].clone();
    assert_eq!(
        running,
        serde_json::json!([{
            "id": ids[0], "a": "heavy", "b": "random", "state": "running", "pairs": 3,
            "pairs_done": 0, "pairs_leased": 0, "weight": 5, "owner": null,
        }])
    );
    let page = get(&format!("{base}/cluster")).await;
    assert!(
        page.body.contains("<table id=\"matches\">"),
        "{}",
        page.body
    );
    cluster.stop().await;
}

/// A worker that fabricates its analyses of the start (every playout on one move, every one
/// won) is caught by the sign test at its 30th and purged: the cluster API lists it with the
/// playouts taken out of the book, and the start has no playout rows left.
#[tokio::test]
async fn the_cluster_api_lists_a_caught_worker_with_what_its_purge_removed() {
    let settings = CoordinatorSettings {
        crosscheck: CrossCheckSettings {
            analysis_sample: 1.0,
            ..CrossCheckSettings::default()
        },
        ..CoordinatorSettings::default()
    };
    let cluster = TestCluster::start(settings).await;
    let base = start_explorer(&cluster, pentagrid_web::BookCacheSettings::OFF).await;
    let mut client = cluster.client();
    let session = hello(&mut client, "fabricator").await;
    let task = Task::Analyse {
        position: pentago::Position::START,
        config: "uct".parse().unwrap(),
        playouts: 1_000,
    };
    let forged = Outcome::Analyse {
        rows: vec![Row {
            mv: "c4-1R".parse().unwrap(),
            games: 1_000,
            wins: 1_000,
            draws: 0,
        }],
        simulations: 1_000,
        seconds: 1.0,
    };
    for round in 0..30 {
        let jobs = vec![v2::JobSpec::from(&task)];
        let request = v2::SubmitJobsRequest { jobs };
        client.submit_jobs(request).await.expect("submit");
        let job = lease_one(&mut client, "fabricator", &session).await;
        let request = v2::SubmitRequest {
            worker_id: "fabricator".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: format!("forged-{round}"),
            result: Some((&forged).into()),
            session: session.clone(),
        };
        client.submit(request).await.expect("applied till caught");
    }
    let answer = get(&format!("{base}/api/v1/cluster")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let caught = answer.json()["flagged_workers"].clone();
    assert_eq!(caught[0]["id"], "fabricator", "{caught}");
    assert_eq!(caught[0]["quarantined"], true);
    // 29 results stored their rows on one position; the 30th, which tipped the tally, none.
    assert_eq!(caught[0]["purged_positions"], 1, "{caught}");
    assert_eq!(caught[0]["purged_playouts"], 29_000, "{caught}");
    // It played no self-play game and no match pair.
    assert_eq!(caught[0]["purged_games"], 0, "{caught}");
    assert_eq!(caught[0]["purged_pairs"], 0, "{caught}");
    assert_eq!(caught[0]["demoted_values"], 0, "{caught}");
    let book = get(&format!("{base}/api/v1/book?position=start")).await;
    assert_eq!(book.status, 200, "{}", book.body);
    let playouts = book.json()["sources"]["playouts"].clone();
    assert_eq!(playouts["total"], 0, "{}", book.body);
    cluster.stop().await;
}
