//! The coordinator's metrics after a small campaign agree with its status; refusals are counted
//! by reason; the text parses strictly as Prometheus text.

use std::time::Duration;

use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Outcome, Task, v2};
use pentagrid_tests::{TestCluster, hello, lease_one, parse_metrics};

const JOBS: u64 = 6;
const PLAYOUTS: u64 = 2_000;

async fn queue_analyses(cluster: &TestCluster, n: u64) -> Vec<u64> {
    let task = Task::Analyse {
        position: "start".parse().unwrap(),
        config: "uct".parse().unwrap(),
        playouts: PLAYOUTS,
    };
    let request = v2::SubmitJobsRequest {
        jobs: (0..n).map(|_| v2::JobSpec::from(&task)).collect(),
    };
    cluster
        .client()
        .submit_jobs(request)
        .await
        .unwrap()
        .into_inner()
        .job_ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counters_after_a_campaign_equal_the_status_numbers() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    queue_analyses(&cluster, JOBS).await;
    let (stop, worker) = cluster.worker("metrics-worker", 1);
    let status = cluster.wait_done(JOBS, Duration::from_secs(120)).await;
    let _ = stop.send(true);
    worker.await.unwrap();

    let text = cluster.coordinator.render_metrics();
    let m = parse_metrics(&text);
    let at = |key: &str| {
        m.get(key)
            .copied()
            .unwrap_or_else(|| panic!("no {key} in\n{text}"))
    };
    assert_eq!(at("pentagrid_up"), 1.0);
    assert_eq!(at(r#"pentagrid_jobs{state="done"}"#), status.done as f64);
    assert_eq!(at(r#"pentagrid_jobs{state="queued"}"#), 0.0);
    assert_eq!(
        at(r#"pentagrid_results_total{outcome="applied"}"#),
        status.done as f64
    );
    assert_eq!(
        at(r#"pentagrid_jobs_queued_total{kind="analyse"}"#),
        JOBS as f64
    );
    assert_eq!(
        at(r#"pentagrid_leases_total{event="granted"}"#),
        JOBS as f64
    );
    assert_eq!(at("pentagrid_stored_playouts"), status.playouts as f64);
    assert_eq!(status.playouts, JOBS * PLAYOUTS);
    assert_eq!(
        at(r#"pentagrid_stored_positions{source="playouts"}"#),
        status.playout_positions as f64
    );
    assert!(at("pentagrid_rows_ingested_total") >= JOBS as f64);
    assert!(at("pentagrid_database_bytes") > 0.0);
    // Analyses alone store no puzzle and no match.
    assert_eq!(at("pentagrid_stored_puzzles"), 0.0);
    assert_eq!(at("pentagrid_stored_matches"), 0.0);
    assert_eq!(
        at(r#"pentagrid_rpc_seconds_count{method="Submit"}"#),
        JOBS as f64
    );
    assert_eq!(
        at(r#"pentagrid_rpc_seconds_bucket{le="+Inf",method="Submit"}"#),
        JOBS as f64
    );
    // A stored match shows at the next scrape (its pairs are not matches).
    cluster
        .client()
        .create_match(v2::CreateMatchRequest {
            a: "random".into(),
            b: "random".into(),
            pairs: 3,
            sprt: String::new(),
            openings: String::new(),
            seed: 1,
            accuracy_stones: None,
            ..v2::CreateMatchRequest::default()
        })
        .await
        .unwrap();
    let text = cluster.coordinator.render_metrics();
    assert_eq!(
        parse_metrics(&text)["pentagrid_stored_matches"],
        1.0,
        "{text}"
    );
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_results_are_counted_by_reason() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let ids = queue_analyses(&cluster, 1).await;
    let mut client = cluster.client();
    let session = hello(&mut client, "liar").await;
    let submit = |job_id, lease_id, result_id: &str, outcome: &Outcome| v2::SubmitRequest {
        worker_id: "liar".into(),
        job_id,
        lease_id,
        result_id: result_id.into(),
        result: Some(outcome.into()),
        session: session.clone(),
    };
    let empty = Outcome::Analyse {
        rows: Vec::new(),
        simulations: 1,
        seconds: 0.0,
    };
    // A result for a job this worker never leased.
    let refused = client
        .submit(submit(ids[0], 12345, "r1", &empty))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    // A result that claims a budget the job did not have.
    let job = lease_one(&mut client, "liar", &session).await;
    let invalid = client
        .submit(submit(job.job_id, job.lease_id, "r2", &empty))
        .await
        .unwrap_err();
    assert_eq!(invalid.code(), tonic::Code::InvalidArgument);

    let m = parse_metrics(&cluster.coordinator.render_metrics());
    assert_eq!(
        m[r#"pentagrid_results_refused_total{reason="not_leased"}"#],
        1.0
    );
    assert_eq!(
        m[r#"pentagrid_results_refused_total{reason="invalid"}"#],
        1.0
    );
    assert_eq!(m[r#"pentagrid_results_total{outcome="refused"}"#], 2.0);
    assert!(!m.contains_key(r#"pentagrid_results_total{outcome="applied"}"#));
    assert_eq!(
        cluster.status().await.playouts,
        0,
        "a refusal changes nothing"
    );
    cluster.stop().await;
}

#[test]
fn the_strict_parser_rejects_what_prometheus_would() {
    let good = "# HELP a_total A.\n# TYPE a counter\na_total{x=\"1,2\"} 3\n# EOF\n";
    assert_eq!(parse_metrics(good)["a_total{x=\"1,2\"}"], 3.0);
    for bad in [
        "# TYPE a counter\na_total 1\n",             // no # EOF
        "# TYPE a counter\nb_total 1\n# EOF\n",      // undeclared family
        "# TYPE a counter\na_total{x=1} 1\n# EOF\n", // unquoted label
        "# TYPE a counter\na_total one\n# EOF\n",    // not a number
        "# TYPE a counter\n# EOF\na_total 1\n",      // after # EOF
    ] {
        let parsed = std::panic::catch_unwind(|| parse_metrics(bad));
        assert!(parsed.is_err(), "accepted {bad:?}");
    }
}
