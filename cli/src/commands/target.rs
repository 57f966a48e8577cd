//! Where a cluster command runs: on a coordinator (`--coordinator`, `--token-file`), or with
//! `--local` on the embedded cluster of the client library — a coordinator, its database and
//! workers in this process. `--local` means exactly that for every command.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use pentagrid_client::Client;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_embedded::EmbeddedCluster;

use super::cluster::{Connection, runtime};
use super::engines::EngineArgs;
use super::tablebase::CoordinatorTable;

/// Where a cluster command runs.
#[derive(Args)]
pub struct Target {
    /// Run on an embedded cluster in this process: a coordinator on a loopback port, its
    /// database (--db) and local workers (--workers), stopped when the command ends.
    #[arg(long)]
    pub local: bool,
    /// Database directory of the embedded cluster (with --local).
    #[arg(long, default_value = "pentagrid-data")]
    pub db: PathBuf,
    /// Local workers of the embedded cluster (with --local).
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    // External engines the local workers run (with --local; a coordinator's workers have
    // their own).
    #[command(flatten)]
    pub engines: EngineArgs,
    #[command(flatten)]
    pub connection: Connection,
    // The embedded coordinator's tablebase (with --local), also what `solve` answers from.
    #[command(flatten)]
    pub table: CoordinatorTable,
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
            anyhow::ensure!(
                !self.engines.any(),
                "--engine and --engines-file need --local: a coordinator's workers are told \
                 their engines on their own command lines"
            );
            let (rt, client) = self.connection.client()?;
            return rt.block_on(work(&client));
        }
        let engines = self.engines.settings()?;
        let settings = CoordinatorSettings {
            table: self.table.open()?,
            ..CoordinatorSettings::default()
        };
        runtime()?.block_on(async {
            let cluster =
                EmbeddedCluster::open_with_engines(&self.db, workers, settings, engines).await?;
            let outcome = work(&cluster.client()).await;
            cluster.stop().await?;
            outcome
        })
    }
}
