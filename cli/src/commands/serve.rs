//! `pentagrid serve`: the web explorer (book, puzzles, matches, cluster, and the analysis
//! board's exact values) as a client of a coordinator's read API; `run --serve` uses the same
//! server on its embedded cluster.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use pentago::SolveLimits;
use pentagrid_client::Client;
use pentagrid_web::{BookCacheSettings, ExactBoard, ExactSettings, SolverSettings, Source};

use super::cluster::{Connection, LimitArgs, shutdown_signal};
use super::tablebase::TablebaseOptions;
use crate::output::outln;

/// Serve the web explorer: the opening book, puzzles, matches and the live cluster in a
/// browser, with a read-only JSON API under /api/v1/.
#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the URL is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Seconds a book answer is kept and served again without asking the coordinator (0: ask
    /// every time). Browsers are told they may keep it as long.
    #[arg(long, value_name = "SECONDS", default_value_t = 5)]
    book_max_age: u64,
    /// Most megabytes of book answers kept.
    #[arg(long, value_name = "MB", default_value_t = 64)]
    book_cache_mb: u64,
    #[command(flatten)]
    connection: Connection,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    tablebase: TablebaseOptions,
    #[command(flatten)]
    solver: SolverArgs,
}

/// The analysis board's exact solver: which positions it takes and how much it may spend.
#[derive(Args)]
pub struct SolverArgs {
    /// Positions with at least this many stones that the tablebase and the book leave open
    /// are solved for the analysis board (from 18 stones the midsolver values every move in a
    /// time fixed by the stone count; below, alpha-beta within the budget).
    #[arg(long, value_name = "STONES", default_value_t = 17,
          value_parser = clap::value_parser!(u32).range(0..=36))]
    solver_from: u32,
    /// Threads that solve (at most this many solves run at once).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=256))]
    solver_threads: u64,
    /// Positions that may wait for a solver thread; past them a request is refused with 503
    /// and Retry-After.
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(0..=4096))]
    solver_queue: u64,
    /// Most nodes one alpha-beta solve may search (moves it leaves open are shown unknown).
    #[arg(long, value_name = "N", default_value_t = 20_000_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    solver_nodes: u64,
    /// Most seconds one alpha-beta solve may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    solver_seconds: u64,
}

impl SolverArgs {
    /// The analysis board's sources: the tablebase and the solver pool as the options say.
    pub fn exact(&self, tablebase: &TablebaseOptions) -> Result<ExactBoard> {
        let defaults = ExactSettings::default();
        let settings = ExactSettings {
            solver: SolverSettings {
                threads: usize::try_from(self.solver_threads)?,
                queue: usize::try_from(self.solver_queue)?,
                limits: SolveLimits {
                    max_nodes: self.solver_nodes,
                    max_time: Some(Duration::from_secs(self.solver_seconds)),
                },
                ..defaults.solver
            },
            solver_min_stones: self.solver_from,
            ..defaults
        };
        ExactBoard::new(tablebase.open()?, settings).context("starting the solver threads")
    }
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let limits = args.limits.limits()?;
    let exact = args.solver.exact(&args.tablebase)?;
    let (rt, client) = args.connection.client()?;
    let book_cache = BookCacheSettings {
        max_age: Duration::from_secs(args.book_max_age),
        max_bytes: args.book_cache_mb.saturating_mul(1 << 20),
    };
    rt.block_on(serve_explorer(
        client,
        &args.listen,
        book_cache,
        limits,
        exact,
    ))
}

/// Checks that the coordinator answers and takes the credential, then serves the explorer on
/// `listen` until Ctrl-C or SIGTERM, with the analysis board's exact values from `exact`.
pub async fn serve_explorer(
    client: Client,
    listen: &str,
    book_cache: BookCacheSettings,
    limits: pentagrid_connections::ConnectionLimits,
    exact: ExactBoard,
) -> Result<()> {
    let source = Source::new(client);
    source
        .check()
        .await
        .with_context(|| match super::cluster::tried_coordinator() {
            Some(url) => format!(
                "the explorer cannot start (coordinator {})",
                crate::output::peer(url)
            ),
            None => "the explorer cannot start".to_owned(),
        })?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening on {listen}"))?;
    let address = listener.local_addr()?;
    outln!("explorer on http://{address}/ (Ctrl-C stops it)");
    tracing::info!(%address, "explorer listening");
    let shutdown = shutdown_signal();
    pentagrid_web::serve_with_exact(listener, source, book_cache, limits, exact, shutdown).await?;
    Ok(())
}
