//! `pentagrid serve`: the web explorer (book, puzzles, matches, cluster) as a client of a
//! coordinator's read API; `run --serve` uses the same server on its embedded cluster.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use pentagrid_client::Client;
use pentagrid_web::{BookCacheSettings, Source};

use super::cluster::{Connection, LimitArgs, shutdown_signal};
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
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let limits = args.limits.limits()?;
    let (rt, client) = args.connection.client()?;
    let book_cache = BookCacheSettings {
        max_age: Duration::from_secs(args.book_max_age),
        max_bytes: args.book_cache_mb.saturating_mul(1 << 20),
    };
    rt.block_on(serve_explorer(client, &args.listen, book_cache, limits))
}

/// Checks that the coordinator answers and takes the credential, then serves the explorer on
/// `listen` until Ctrl-C or SIGTERM.
pub async fn serve_explorer(
    client: Client,
    listen: &str,
    book_cache: BookCacheSettings,
    limits: pentagrid_proto::ConnectionLimits,
) -> Result<()> {
    let source = Source::new(client);
    source.check().await.context("the explorer cannot start")?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening on {listen}"))?;
    let address = listener.local_addr()?;
    outln!("explorer on http://{address}/ (Ctrl-C stops it)");
    tracing::info!(%address, "explorer listening");
    pentagrid_web::serve_with(listener, source, book_cache, limits, shutdown_signal()).await?;
    Ok(())
}
