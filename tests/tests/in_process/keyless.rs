//! Worker identity across a coordinator restart for workers without a key: an id that holds
//! a lease from before the restart is not handed to whoever says hello first.

use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Outcome, Row, Task, v2};
use pentagrid_tests::{TestCluster, lease_one};
use tonic::Code;

use super::security::snapshot;

/// A worker that says hello without a key (`pentagrid worker` always sends one; another
/// program may not) leaves no digest to keep its id by; yet an id that held a lease when the
/// coordinator stopped is not handed out after the restart: for the lease period nobody takes
/// it, with or without a key, nothing is handed in, beaten or returned in its name, and its
/// lease stays where it was. A keyless id without a lease is first come, as documented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyless_workers_leased_id_is_not_handed_out_after_a_restart() {
    use pentagrid_proto::reason_of;
    use v2::ErrorReason;
    let keyless_hello = |worker_id: &str, key: &str| v2::HelloRequest {
        worker_id: worker_id.into(),
        name: worker_id.into(),
        threads: 1,
        engines: Vec::new(),
        worker_key: key.into(),
        speed: 0,
    };
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let task = Task::Analyse {
        position: pentago::Position::START,
        config: "uct".parse().unwrap(),
        playouts: 300,
    };
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&task)],
        })
        .await
        .unwrap();
    let legacy = client
        .hello(keyless_hello("legacy", ""))
        .await
        .unwrap()
        .into_inner()
        .session;
    let job = lease_one(&mut client, "legacy", &legacy).await;
    client.hello(keyless_hello("idle", "")).await.unwrap();
    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let before = snapshot(&cluster).await;
    for key in ["", "the-thiefs-own-key-0123"] {
        let refused = client
            .hello(keyless_hello("legacy", key))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::AlreadyExists, "{refused:?}");
        assert_eq!(reason_of(&refused), ErrorReason::WorkerIdInUse);
    }
    // Nothing in its name gets through either: no session of it lives.
    let forged = Outcome::Analyse {
        rows: vec![Row {
            mv: "c4-1R".parse().unwrap(),
            games: 40_000_000,
            wins: 40_000_000,
            draws: 0,
        }],
        simulations: 40_000_000,
        seconds: 1.0,
    };
    for session in [legacy.clone(), String::new()] {
        let refused = client
            .submit(v2::SubmitRequest {
                worker_id: "legacy".into(),
                job_id: job.job_id,
                lease_id: job.lease_id,
                result_id: format!("forged-{}", session.len()),
                result: Some((&forged).into()),
                session: session.clone(),
            })
            .await
            .unwrap_err();
        assert_eq!(
            reason_of(&refused),
            ErrorReason::UnknownWorker,
            "{refused:?}"
        );
        let returned = client
            .return_leases(v2::ReturnLeasesRequest {
                worker_id: "legacy".into(),
                lease_ids: vec![job.lease_id],
                session,
            })
            .await
            .unwrap_err();
        assert_eq!(reason_of(&returned), ErrorReason::UnknownWorker);
    }
    assert_eq!(snapshot(&cluster).await, before, "nothing changed");
    let status = cluster.status().await;
    assert_eq!(
        (status.queued, status.leased),
        (0, 1),
        "the lease stays where it was"
    );
    let names: Vec<&str> = status.workers.iter().map(|w| w.name.as_str()).collect();
    assert!(!names.contains(&"legacy"), "{names:?}");
    // A keyless id that held no lease keeps nothing across the restart.
    client.hello(keyless_hello("idle", "")).await.unwrap();
    cluster.stop().await;
}
