//! `grpc.health.v1` over a real socket: NOT_SERVING while the database opens (coordinator calls
//! answered UNAVAILABLE), SERVING once it is open, NOT_SERVING again when shutdown begins.

use std::time::{Duration, Instant};

use pentagrid_coordinator::{Coordinator, CoordinatorSettings, Metrics};
use pentagrid_edge::ConnectionLimits;
use pentagrid_edge::{Credentials, serve_opening};
use pentagrid_proto::v2;
use pentagrid_tests::TOKEN;
use tokio::sync::watch;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const COORDINATOR_SERVICE: &str = "pentagrid.v2.Coordinator";

async fn check(url: &str, service: &str) -> ServingStatus {
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .expect("the health service answers at once");
    HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.into(),
        })
        .await
        .expect("health check")
        .into_inner()
        .status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_serving_until_the_database_is_open_and_again_once_shutdown_begins() {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // The database opens only when the test says so.
    let (open_now, may_open) = std::sync::mpsc::channel::<()>();
    let path = dir.path().to_owned();
    let open = move || {
        may_open.recv().expect("the test lets the database open");
        Coordinator::open(&path, CoordinatorSettings::default())
    };
    let (stop, mut stopped) = watch::channel(false);
    let server = tokio::spawn(serve_opening(
        listener,
        open,
        Metrics::new(),
        Credentials::all_roles(TOKEN).unwrap(),
        None,
        ConnectionLimits::default(),
        async move {
            let _ = stopped.wait_for(|s| *s).await;
        },
    ));

    assert_eq!(check(&url, "").await, ServingStatus::NotServing);
    assert_eq!(
        check(&url, COORDINATOR_SERVICE).await,
        ServingStatus::NotServing
    );
    let mut client = pentagrid_proto::connect(&url, TOKEN, None).unwrap();
    let early = client
        .status(v2::StatusRequest::default())
        .await
        .unwrap_err();
    assert_eq!(early.code(), tonic::Code::Unavailable, "{early:?}");

    open_now.send(()).unwrap();
    let started = Instant::now();
    while check(&url, "").await != ServingStatus::Serving {
        assert!(started.elapsed() < Duration::from_secs(20), "never SERVING");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        check(&url, COORDINATOR_SERVICE).await,
        ServingStatus::Serving
    );
    client
        .status(v2::StatusRequest::default())
        .await
        .expect("serving");

    // A watcher sees the change as shutdown begins (its stream keeps the server draining
    // until the watcher hangs up).
    let channel = tonic::transport::Endpoint::from_shared(url.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut watch = HealthClient::new(channel)
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch.message().await.unwrap().unwrap();
    assert_eq!(first.status(), ServingStatus::Serving);
    stop.send(true).unwrap();
    let next = tokio::time::timeout(Duration::from_secs(20), watch.message())
        .await
        .expect("an update at shutdown")
        .unwrap()
        .unwrap();
    assert_eq!(next.status(), ServingStatus::NotServing);
    drop(watch);
    drop(client);
    tokio::time::timeout(Duration::from_secs(30), server)
        .await
        .expect("the server stops")
        .unwrap()
        .expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_cannot_open_stops_the_server_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "x").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let result = serve_opening(
        listener,
        move || Coordinator::open(&file, CoordinatorSettings::default()),
        Metrics::new(),
        Credentials::all_roles(TOKEN).unwrap(),
        None,
        ConnectionLimits::default(),
        std::future::pending(),
    )
    .await;
    assert!(result.is_err());
}
