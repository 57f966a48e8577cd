//! Helpers for the cross-crate integration tests in `tests/`: the embedded cluster on a
//! temporary database, with a fixed token and panics instead of errors.

use std::ops::Deref;
use std::time::{Duration, Instant};

use pentagrid_coordinator::{Coordinator, CoordinatorSettings};
use pentagrid_edge::{Credentials, serve};
use pentagrid_embedded::EmbeddedCluster;
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
    pub async fn start(settings: CoordinatorSettings) -> TestCluster {
        TestCluster(
            EmbeddedCluster::temporary(settings, TOKEN)
                .await
                .expect("start a cluster"),
        )
    }

    /// Stops the coordinator and starts a new one on the same database, as after a crash
    /// that lost nothing acknowledged (everything acknowledged was flushed).
    pub async fn restart(self, settings: CoordinatorSettings) -> TestCluster {
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
        self.worker_with_engines(name, threads, pentagrid_worker::EngineSettings::default())
    }

    /// [`TestCluster::worker`] running these external engines.
    pub fn worker_with_engines(
        &self,
        name: &str,
        threads: usize,
        engines: pentagrid_worker::EngineSettings,
    ) -> (
        watch::Sender<bool>,
        tokio::task::JoinHandle<pentagrid_worker::WorkerReport>,
    ) {
        let (stop, task) = self.0.worker_with_engines(name, threads, engines);
        let handle = tokio::spawn(async move { task.await.expect("worker task").expect("worker") });
        (stop, handle)
    }

    /// The coordinator's status, as it answers on the wire (every field, for the tests).
    pub async fn status(&self) -> v2::StatusResponse {
        self.client()
            .status(v2::StatusRequest::default())
            .await
            .expect("status")
            .into_inner()
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

/// The worker key the helpers say hello with (one for all test workers).
pub const TEST_WORKER_KEY: &str = "test-worker-key-0123456789abcdef";

/// Introduces `worker_id` to the coordinator, as a worker does before leasing; returns the
/// session secret every later call of this worker must carry.
pub async fn hello(client: &mut Client, worker_id: &str) -> String {
    client
        .hello(v2::HelloRequest {
            worker_id: worker_id.into(),
            name: worker_id.into(),
            threads: 1,
            engines: Vec::new(),
            worker_key: TEST_WORKER_KEY.into(),
            speed: 0,
        })
        .await
        .expect("hello")
        .into_inner()
        .session
}

/// A coordinator on the database in a directory the caller keeps, served over gRPC on a
/// loopback port with the given credentials until [`ServedCoordinator::stop`].
pub struct ServedCoordinator {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl ServedCoordinator {
    /// Opens the database in `dir` and serves it.
    pub async fn start(
        dir: &std::path::Path,
        settings: CoordinatorSettings,
        credentials: Credentials,
    ) -> ServedCoordinator {
        let coordinator = Coordinator::open(dir, settings).expect("open the coordinator");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            serve(listener, coordinator, credentials, None, async move {
                let _ = stopped.wait_for(|s| *s).await;
            })
            .await
            .expect("serve");
        });
        ServedCoordinator { url, stop, task }
    }

    /// A client that calls with `token`.
    #[must_use]
    pub fn client(&self, token: &str) -> Client {
        pentagrid_proto::connect(&self.url, token, None).expect("connect")
    }

    /// Stops serving and waits until the server has finished.
    pub async fn stop(self) {
        self.stop.send(true).expect("the server listens");
        self.task.await.expect("the server ends");
    }
}

/// Leases one job for `worker_id` (which said hello and got `session`); panics when none is
/// queued.
pub async fn lease_one(client: &mut Client, worker_id: &str, session: &str) -> v2::Job {
    client
        .lease(v2::LeaseRequest {
            worker_id: worker_id.into(),
            max_jobs: 1,
            session: session.into(),
        })
        .await
        .expect("lease")
        .into_inner()
        .jobs
        .pop()
        .expect("a queued job")
}

/// Parses Prometheus text (the OpenMetrics flavour `prometheus_client` writes) strictly: every
/// line is a `# HELP`, `# TYPE` or `# UNIT` comment, a sample of a declared family, or the final
/// `# EOF`. Returns each sample's value by its name and labels as written
/// (`name{label="value"}`). Panics with the offending line on anything else.
#[must_use]
pub fn parse_metrics(text: &str) -> std::collections::HashMap<String, f64> {
    let mut families = std::collections::HashMap::new();
    let mut samples = std::collections::HashMap::new();
    let mut ended = false;
    for line in text.lines() {
        assert!(!ended, "text after # EOF: {line:?}");
        if line == "# EOF" {
            ended = true;
            continue;
        }
        if let Some(comment) = line.strip_prefix("# ") {
            let mut parts = comment.splitn(3, ' ');
            let (keyword, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            assert!(valid_metric_name(name), "bad metric name in {line:?}");
            match keyword {
                "HELP" | "UNIT" => {}
                "TYPE" => {
                    let kind = parts.next().unwrap_or("");
                    assert!(
                        [
                            "counter",
                            "gauge",
                            "histogram",
                            "summary",
                            "info",
                            "unknown"
                        ]
                        .contains(&kind),
                        "unknown type in {line:?}"
                    );
                    families.insert(name.to_owned(), kind.to_owned());
                }
                _ => panic!("unknown comment {line:?}"),
            }
            continue;
        }
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("no value in {line:?}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("bad value in {line:?}"));
        let name = match series.split_once('{') {
            Some((name, labels)) => {
                let labels = labels
                    .strip_suffix('}')
                    .unwrap_or_else(|| panic!("unclosed labels in {line:?}"));
                for label in split_labels(labels) {
                    let (key, quoted) = label
                        .split_once('=')
                        .unwrap_or_else(|| panic!("bad label in {line:?}"));
                    assert!(valid_metric_name(key), "bad label name in {line:?}");
                    assert!(
                        quoted.len() >= 2 && quoted.starts_with('"') && quoted.ends_with('"'),
                        "unquoted label value in {line:?}"
                    );
                }
                name
            }
            None => series,
        };
        assert!(valid_metric_name(name), "bad metric name in {line:?}");
        let family = [
            "", "_total", "_bucket", "_sum", "_count", "_created", "_info",
        ]
        .iter()
        .find_map(|suffix| {
            name.strip_suffix(suffix)
                .filter(|base| families.contains_key(*base))
        });
        assert!(family.is_some(), "sample of an undeclared family: {line:?}");
        assert!(
            samples.insert(series.to_owned(), value).is_none(),
            "sample twice: {line:?}"
        );
    }
    assert!(ended, "no # EOF at the end");
    samples
}

fn valid_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// Splits `a="x",b="y"` at the commas outside quotes.
fn split_labels(labels: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in labels.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&labels[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < labels.len() {
        parts.push(&labels[start..]);
    }
    parts
}
