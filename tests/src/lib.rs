//! Helpers for the cross-crate integration tests in `tests/`: the client library's embedded
//! cluster on a temporary database, with a fixed token and panics instead of errors.

use std::ops::Deref;
use std::time::{Duration, Instant};

use pentagrid_client::EmbeddedCluster;
use pentagrid_coordinator::Settings;
use pentagrid_proto::{Client, v2};
use tokio::sync::watch;

/// The token every test cluster uses.
pub const TOKEN: &str = "test-token";

/// An embedded cluster on a temporary database, without workers until asked.
pub struct TestCluster(EmbeddedCluster);

impl Deref for TestCluster {
    type Target = EmbeddedCluster;

    fn deref(&self) -> &EmbeddedCluster {
        &self.0
    }
}

impl TestCluster {
    /// Starts a coordinator with these settings.
    pub async fn start(settings: Settings) -> TestCluster {
        TestCluster(
            EmbeddedCluster::temporary(settings, TOKEN)
                .await
                .expect("start a cluster"),
        )
    }

    /// Stops the coordinator and starts a new one on the same database, as after a crash
    /// that lost nothing acknowledged (everything acknowledged was flushed).
    pub async fn restart(self, settings: Settings) -> TestCluster {
        TestCluster(self.0.restart(settings).await.expect("restart"))
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
        let (stop, task) = self.0.worker(name, threads);
        let handle = tokio::spawn(async move { task.await.expect("worker task").expect("worker") });
        (stop, handle)
    }

    /// The coordinator's status.
    pub async fn status(&self) -> v2::StatusResponse {
        pentagrid_client::jobs::status(&self.client())
            .await
            .expect("status")
    }

    /// Waits until `done` jobs are finished (panics after `timeout`).
    pub async fn wait_done(&self, done: u64, timeout: Duration) -> v2::StatusResponse {
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
        self.0.stop().await.expect("stop");
    }
}

/// Introduces `worker_id` to the coordinator, as a worker does before leasing.
pub async fn hello(client: &mut Client, worker_id: &str) {
    client
        .hello(v2::HelloRequest {
            worker_id: worker_id.into(),
            name: worker_id.into(),
            threads: 1,
        })
        .await
        .expect("hello");
}
