//! `pentagrid serve`: the web explorer (book, puzzles, matches, cluster) as a client of a
//! coordinator's read API; `run --serve` uses the same server on its embedded cluster.

use anyhow::{Context, Result};
use clap::Args;
use pentagrid_client::Client;
use pentagrid_web::Source;

use super::cluster::{Connection, shutdown_signal};

/// Serve the web explorer: the opening book, puzzles, matches and the live cluster in a
/// browser, with a read-only JSON API under /api/v1/.
#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the URL is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    #[command(flatten)]
    connection: Connection,
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let (rt, client) = args.connection.client()?;
    rt.block_on(serve_explorer(client, &args.listen))
}

/// Checks that the coordinator answers and takes the credential, then serves the explorer on
/// `listen` until Ctrl-C or SIGTERM.
pub async fn serve_explorer(client: Client, listen: &str) -> Result<()> {
    let source = Source::new(client);
    source.check().await.context("the explorer cannot start")?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening on {listen}"))?;
    let address = listener.local_addr()?;
    println!("explorer on http://{address}/ (Ctrl-C stops it)");
    tracing::info!(%address, "explorer listening");
    pentagrid_web::serve(listener, source, shutdown_signal()).await?;
    Ok(())
}
