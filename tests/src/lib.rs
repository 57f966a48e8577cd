//! Helpers for the cross-crate integration tests in `tests/`: an in-process coordinator on a
//! loopback port with a temporary sled database, and in-process workers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pentagrid_coordinator::{Coordinator, Settings, serve};
use pentagrid_proto::{Client, v1};
use pentagrid_worker::WorkerOptions;
use tokio::sync::watch;

/// The token every test cluster uses.
pub const TOKEN: &str = "test-token";

/// A coordinator serving on `127.0.0.1:<free port>` with a temporary database.
pub struct TestCluster {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    /// The coordinator state (to inspect it directly).
    pub coordinator: Arc<Coordinator>,
    stop: watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
    /// The database directory, removed on drop.
    pub dir: tempfile::TempDir,
}

impl TestCluster {
    /// Starts a coordinator with these settings.
    pub async fn start(settings: Settings) -> TestCluster {
        let dir = tempfile::tempdir().expect("temporary directory");
        TestCluster::start_in(dir, settings).await
    }

    /// Stops the coordinator and starts a new one on the same database, as after a crash
    /// that lost nothing acknowledged (everything acknowledged was flushed).
    pub async fn restart(self, settings: Settings) -> TestCluster {
        let _ = self.stop.send(true);
        let _ = self.server.await;
        let dir = self.dir;
        drop(self.coordinator);
        TestCluster::start_in(dir, settings).await
    }

    async fn start_in(dir: tempfile::TempDir, settings: Settings) -> TestCluster {
        // The old coordinator's tasks let go of the database lock as they wind down.
        let started = Instant::now();
        let coordinator = loop {
            match Coordinator::open(dir.path(), settings.clone()) {
                Ok(coordinator) => break coordinator,
                Err(error) if started.elapsed() < Duration::from_secs(10) => {
                    tracing::debug!(%error, "database still locked");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(error) => panic!("open database: {error}"),
            }
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let (stop, mut stopped) = watch::channel(false);
        let server = {
            let coordinator = coordinator.clone();
            tokio::spawn(async move {
                serve(listener, coordinator, TOKEN, None, async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })
                .await
                .expect("serve");
            })
        };
        TestCluster {
            url,
            coordinator,
            stop,
            server,
            dir,
        }
    }

    /// A client with the right token.
    pub fn client(&self) -> Client {
        pentagrid_proto::connect(&self.url, TOKEN, None).expect("client")
    }

    /// Starts an in-process worker; stop it with the returned sender.
    pub fn worker(
        &self,
        name: &str,
        threads: usize,
    ) -> (
        watch::Sender<bool>,
        tokio::task::JoinHandle<pentagrid_worker::WorkerReport>,
    ) {
        let (stop, stopped) = watch::channel(false);
        let options = WorkerOptions {
            coordinator: self.url.clone(),
            token: TOKEN.into(),
            tls_ca: None,
            name: name.into(),
            threads,
            ack_log: None,
            max_results: None,
        };
        let handle = tokio::spawn(async move {
            pentagrid_worker::run(options, stopped)
                .await
                .expect("worker")
        });
        (stop, handle)
    }

    /// The coordinator's status.
    pub async fn status(&self) -> v1::StatusResponse {
        self.client()
            .status(v1::StatusRequest {})
            .await
            .expect("status")
            .into_inner()
    }

    /// Waits until `done` jobs are finished (panics after `timeout`).
    pub async fn wait_done(&self, done: u64, timeout: Duration) -> v1::StatusResponse {
        let started = Instant::now();
        loop {
            let status = self.status().await;
            if status.done >= done {
                return status;
            }
            assert!(
                started.elapsed() < timeout,
                "only {} of {done} jobs done: {status:?}",
                status.done
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Stops the server and waits for it.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.server.await;
    }
}

/// Introduces `worker_id` to the coordinator, as a worker does before leasing.
pub async fn hello(client: &mut Client, worker_id: &str) {
    client
        .hello(v1::HelloRequest {
            worker_id: worker_id.into(),
            name: worker_id.into(),
            threads: 1,
        })
        .await
        .expect("hello");
}
