//! The whole cluster in this process: a coordinator on a loopback port with its sled database
//! and local workers sharing the cores. `run` and every `--local` cluster command use it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use pentago::splitmix64;
use pentagrid_coordinator::{Coordinator, ServeError, Settings, serve};
use pentagrid_proto::Client;
use pentagrid_worker::{WorkerOptions, WorkerReport};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::cluster::{Connection, runtime};

/// A running embedded cluster.
pub struct Embedded {
    /// A client of its coordinator.
    pub client: Client,
    /// Where the coordinator listens.
    pub address: SocketAddr,
    /// Threads per worker.
    pub threads: usize,
    stop: watch::Sender<bool>,
    workers: Vec<JoinHandle<Result<WorkerReport, pentagrid_worker::WorkerError>>>,
    server: JoinHandle<Result<(), ServeError>>,
}

impl Embedded {
    /// Opens the database in `db` and starts the coordinator and `workers` workers (inside a
    /// tokio runtime).
    pub async fn start(db: &Path, workers: usize) -> Result<Embedded> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (cores / workers.max(1)).max(1);
        // A fresh token per run: nothing else on this machine can use the loopback port.
        let token = format!(
            "{:016x}",
            splitmix64(u64::from(std::process::id()) ^ Instant::now().elapsed().as_nanos() as u64)
        );
        let coordinator = Coordinator::open(db, Settings::default())
            .with_context(|| format!("opening the database in {}", db.display()))?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (stop, stopped) = watch::channel(false);
        let server = {
            let mut stopped = stopped.clone();
            let token = token.clone();
            tokio::spawn(async move {
                serve(listener, coordinator, &token, None, async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })
                .await
            })
        };
        let url = format!("http://{address}");
        let workers = (0..workers)
            .map(|i| {
                let options = WorkerOptions {
                    coordinator: url.clone(),
                    token: token.clone(),
                    tls_ca: None,
                    name: format!("local-{}", i + 1),
                    threads,
                    ack_log: None,
                    max_results: None,
                };
                tokio::spawn(pentagrid_worker::run(options, stopped.clone()))
            })
            .collect();
        let client = pentagrid_proto::connect(&url, &token, None)?;
        Ok(Embedded {
            client,
            address,
            threads,
            stop,
            workers,
            server,
        })
    }

    /// Stops the workers (each finishes its job) and the coordinator (which flushes).
    pub async fn stop(self) -> Result<()> {
        let _ = self.stop.send(true);
        for worker in self.workers {
            let _ = worker.await;
        }
        self.server.await.context("coordinator task")??;
        Ok(())
    }
}

/// Where a cluster command runs: on a coordinator, or with `--local` on an embedded cluster.
#[derive(Args)]
pub struct Target {
    /// Run on an embedded cluster in this process (coordinator, database and workers).
    #[arg(long)]
    pub local: bool,
    /// Database directory of the embedded cluster (with --local).
    #[arg(long, default_value = "pentagrid-data")]
    pub db: PathBuf,
    /// Local workers of the embedded cluster (with --local).
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    #[command(flatten)]
    pub connection: Connection,
}

impl Target {
    /// Runs `work` with a client of the chosen coordinator (an embedded one has its workers).
    pub fn run<T>(&self, work: impl AsyncFnOnce(&Client) -> Result<T>) -> Result<T> {
        anyhow::ensure!(
            (1..=64).contains(&self.workers),
            "--workers must be from 1 to 64"
        );
        self.with_workers(self.workers, work)
    }

    /// Like [`Target::run`] for work that queues no jobs (reading or importing the book): an
    /// embedded coordinator then starts no workers.
    pub fn read<T>(&self, work: impl AsyncFnOnce(&Client) -> Result<T>) -> Result<T> {
        self.with_workers(0, work)
    }

    fn with_workers<T>(
        &self,
        workers: usize,
        work: impl AsyncFnOnce(&Client) -> Result<T>,
    ) -> Result<T> {
        if !self.local {
            let (rt, client) = self.connection.client()?;
            return rt.block_on(work(&client));
        }
        runtime()?.block_on(async {
            let cluster = Embedded::start(&self.db, workers).await?;
            let outcome = work(&cluster.client).await;
            cluster.stop().await?;
            outcome
        })
    }
}
