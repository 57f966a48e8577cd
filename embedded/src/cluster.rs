//! The one embedded cluster: a coordinator on a loopback port with its sled database and
//! in-process workers sharing the cores. `pentagrid run`, every `--local` command and the
//! tests use it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pentago::{MID_MIN_STONES, splitmix64};
use pentagrid_client::{Client, ClientError};
use pentagrid_coordinator::{Coordinator, CoordinatorSettings};
use pentagrid_edge::{Credentials, ServeError, serve};
use pentagrid_store::StoreError;
use pentagrid_worker::{EngineSettings, WorkerError, WorkerOptions, WorkerReport};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::error::{EmbeddedError, Result};

/// Where an embedded cluster keeps its database.
enum Home {
    /// A directory the caller owns (kept).
    Dir(PathBuf),
    /// A temporary directory (removed when the cluster is dropped).
    Temporary(tempfile::TempDir),
}

impl Home {
    fn path(&self) -> &Path {
        match self {
            Home::Dir(path) => path,
            Home::Temporary(dir) => dir.path(),
        }
    }
}

/// A worker started by an embedded cluster.
pub type WorkerTask = JoinHandle<std::result::Result<WorkerReport, WorkerError>>;

/// A running embedded cluster.
pub struct EmbeddedCluster {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    /// Where the coordinator listens.
    pub address: SocketAddr,
    /// The coordinator's services (to inspect them directly).
    pub coordinator: Arc<Coordinator>,
    /// Threads of each worker started with the cluster.
    pub threads: usize,
    /// The external engines the workers started with the cluster run.
    engines: EngineSettings,
    token: String,
    home: Home,
    /// Stops the workers (and any added later with the cluster's signal).
    stop: watch::Sender<bool>,
    /// Stops the coordinator's server: only after the workers, so that the results of the jobs
    /// they finish on the way out still reach it.
    server_stop: watch::Sender<bool>,
    server: JoinHandle<std::result::Result<(), ServeError>>,
    workers: Vec<WorkerTask>,
}

/// Starts each engine once to ask its name and version (off the runtime): a broken engine is
/// an error before anything starts.
async fn check_engines(engines: &EngineSettings) -> Result<()> {
    if engines.specs.is_empty() {
        return Ok(());
    }
    let engines = engines.clone();
    tokio::task::spawn_blocking(move || engines.identify())
        .await
        .map_err(|e| ClientError::Runtime(format!("engine check: {e}")))?
        .map(drop)
        .map_err(|e| EmbeddedError::Engine(Box::new(e)))
}

/// A fresh token per cluster: nothing else on this machine can use the loopback port.
fn fresh_token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("{:016x}", splitmix64(u64::from(std::process::id()) ^ nanos))
}

impl EmbeddedCluster {
    /// Opens the database in `db` and starts the coordinator and `workers` workers sharing
    /// the cores (inside a tokio runtime). With a single worker there is no second worker to
    /// confirm a claim, so the coordinator judges every claim it can (from the midsolver's
    /// minimum stone count on).
    pub async fn open(
        db: &Path,
        workers: usize,
        settings: CoordinatorSettings,
    ) -> Result<EmbeddedCluster> {
        EmbeddedCluster::open_with_engines(db, workers, settings, EngineSettings::default()).await
    }

    /// [`EmbeddedCluster::open`] with workers that run these external engines. Each engine is
    /// started once first to ask its name and version: a broken one is an error and nothing
    /// is opened.
    pub async fn open_with_engines(
        db: &Path,
        workers: usize,
        mut settings: CoordinatorSettings,
        engines: EngineSettings,
    ) -> Result<EmbeddedCluster> {
        check_engines(&engines).await?;
        if workers < 2 && settings.crosscheck.judge_stones != 0 {
            settings.crosscheck.judge_stones = settings.crosscheck.judge_stones.min(MID_MIN_STONES);
        }
        let home = Home::Dir(db.to_owned());
        let mut cluster = EmbeddedCluster::start_in(home, settings, fresh_token(), None).await?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        cluster.threads = (cores / workers.max(1)).max(1);
        cluster.engines = engines;
        for i in 0..workers {
            let task = cluster.spawn_worker(
                &format!("local-{}", i + 1),
                cluster.threads,
                cluster.engines.clone(),
                cluster.stop.subscribe(),
            );
            cluster.workers.push(task);
        }
        Ok(cluster)
    }

    /// A cluster on a temporary database with `token` and no workers (add them with
    /// [`EmbeddedCluster::worker`]).
    pub async fn temporary(settings: CoordinatorSettings, token: &str) -> Result<EmbeddedCluster> {
        let dir =
            tempfile::tempdir().map_err(EmbeddedError::io("creating a temporary directory"))?;
        EmbeddedCluster::start_in(Home::Temporary(dir), settings, token.to_owned(), None).await
    }

    /// Opens the database in `home` and serves it on `address` (a fresh loopback port when
    /// `None`).
    async fn start_in(
        home: Home,
        settings: CoordinatorSettings,
        token: String,
        address: Option<SocketAddr>,
    ) -> Result<EmbeddedCluster> {
        // A coordinator that stopped a moment ago lets go of the database lock as its tasks
        // wind down.
        let started = Instant::now();
        let coordinator = loop {
            match Coordinator::open(home.path(), settings.clone()) {
                Ok(coordinator) => break coordinator,
                // Only sled's own errors (the lock) pass; a refused integrity check stays so.
                Err(error @ StoreError::Sled(_)) if started.elapsed() < Duration::from_secs(10) => {
                    tracing::debug!(%error, "database still locked");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(source) => {
                    return Err(EmbeddedError::Database {
                        path: home.path().display().to_string(),
                        source,
                    });
                }
            }
        };
        let wanted = address.unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
        let listener = tokio::net::TcpListener::bind(wanted)
            .await
            .map_err(EmbeddedError::io(format!("listening on {wanted}")))?;
        let address = listener
            .local_addr()
            .map_err(EmbeddedError::io("reading the loopback address"))?;
        // One token for every role: the embedded cluster has one user.
        let credentials = Credentials::all_roles(&token)
            .map_err(|e| EmbeddedError::Client(ClientError::Token(e.to_string())))?;
        let (stop, _) = watch::channel(false);
        let (server_stop, mut stopped) = watch::channel(false);
        let server = {
            let coordinator = coordinator.clone();
            tokio::spawn(async move {
                serve(listener, coordinator, credentials, None, async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })
                .await
            })
        };
        Ok(EmbeddedCluster {
            url: format!("http://{address}"),
            address,
            coordinator,
            threads: 1,
            engines: EngineSettings::default(),
            token,
            home,
            stop,
            server_stop,
            server,
            workers: Vec::new(),
        })
    }

    /// A client of the coordinator.
    pub fn client(&self) -> Client {
        pentagrid_proto::connect(&self.url, &self.token, None)
            .expect("a loopback URL and a generated token are valid")
    }

    /// Starts one more in-process worker; it stops when the returned sender says so (or the
    /// cluster stops).
    pub fn worker(&self, name: &str, threads: usize) -> (watch::Sender<bool>, WorkerTask) {
        self.worker_with_engines(name, threads, EngineSettings::default())
    }

    /// [`EmbeddedCluster::worker`] that runs these external engines (a broken one ends the
    /// worker's task with its error).
    pub fn worker_with_engines(
        &self,
        name: &str,
        threads: usize,
        engines: EngineSettings,
    ) -> (watch::Sender<bool>, WorkerTask) {
        let (stop, stopped) = watch::channel(false);
        (stop, self.spawn_worker(name, threads, engines, stopped))
    }

    fn spawn_worker(
        &self,
        name: &str,
        threads: usize,
        engines: EngineSettings,
        stopped: watch::Receiver<bool>,
    ) -> WorkerTask {
        let options = WorkerOptions {
            coordinator: self.url.clone(),
            token: self.token.clone(),
            tls_ca: None,
            name: name.into(),
            threads,
            ack_log: None,
            max_results: None,
            identity: pentagrid_worker::WorkerIdentity::Fresh,
            engines,
            // Workers on the one machine of an embedded cluster tell no speed: their time
            // limits are never scaled.
            speed: Some(0),
        };
        tokio::spawn(pentagrid_worker::run(options, stopped))
    }

    /// Stops the coordinator and opens the same database again on the same address, as
    /// after a crash that lost nothing acknowledged: workers started with
    /// [`EmbeddedCluster::worker`] keep running and find a coordinator that does not know
    /// them; those started with the cluster are stopped.
    pub async fn restart(self, settings: CoordinatorSettings) -> Result<EmbeddedCluster> {
        let (token, address) = (self.token.clone(), self.address);
        let home = self.shut_down().await?;
        EmbeddedCluster::start_in(home, settings, token, Some(address)).await
    }

    /// Stops the workers (each finishes its job) and the coordinator (which flushes).
    pub async fn stop(self) -> Result<()> {
        self.shut_down().await.map(drop)
    }

    async fn shut_down(self) -> Result<Home> {
        self.stop.send_replace(true);
        for worker in self.workers {
            let _ = worker.await;
        }
        let _ = self.server_stop.send(true);
        drop(self.coordinator);
        self.server
            .await
            .map_err(|e| ClientError::Runtime(format!("coordinator task: {e}")))??;
        Ok(self.home)
    }
}
