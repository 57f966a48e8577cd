//! `pentagrid-web`: the web explorer — the opening book, puzzles, matches and the live cluster
//! in a browser, over a read-only JSON API under `/api/v1/` (described by `web/openapi.json`).
//!
//! The server is a client of the coordinator's read API ([`Source`]), so it runs beside the
//! coordinator or on another host. Pages are plain HTML, CSS and JavaScript with SVG, compiled
//! into the binary; nothing is built at install time. Nothing in the API writes.
//!
//! The explorer is also an analysis board: [`ExactBoard`] gives every move's exact value from
//! the tablebase, the book's proofs and, for late positions, a bounded pool of solver threads.
//! Its game viewer steps through a stored match game with the same values; its charts take
//! their round ticks from one script (`assets/chart.js`).

mod api;
mod assets;
mod book_cache;
mod exact;
mod listener;
mod refusals;
mod source;
mod throughput;

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use pentagrid_connections::ConnectionLimits;
use tokio::net::TcpListener;

pub use api::{ApiError, OPENAPI, Unreadable};
pub use book_cache::BookCacheSettings;
pub use exact::{
    Busy, ExactBoard, ExactError, ExactSettings, SolverHold, SolverPool, SolverRun, SolverSettings,
    SolverStats,
};
pub use source::{Source, SourceError};

use book_cache::BookCache;
use throughput::{Sample, Throughput};

/// How often the server samples the coordinator's totals for the throughput chart.
pub const SAMPLE_INTERVAL: Duration = Duration::from_secs(5);

/// What every request handler shares.
#[derive(Clone)]
struct AppState {
    source: Source,
    book_cache: BookCache,
    exact: ExactBoard,
    throughput: Arc<Mutex<Throughput>>,
}

impl AppState {
    fn throughput(&self) -> MutexGuard<'_, Throughput> {
        // The history stays consistent even if a holder panicked: each record is one push.
        self.throughput
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the coordinator's totals now (a failed read is skipped: the chart shows a gap).
    async fn sample(&self) {
        match self.source.status().await {
            Ok(status) => self.throughput().record(Sample {
                at: Instant::now(),
                finished: status.jobs.done + status.jobs.failed + status.jobs.cancelled,
                playouts: status.stored.playouts,
                games: status.stored.games,
            }),
            Err(error) => tracing::debug!(%error, "throughput sample skipped"),
        }
    }
}

/// The explorer's routes (pages, assets and the API) over `source`, and the state to sample.
fn app(source: Source, book_cache: BookCacheSettings, exact: ExactBoard) -> (Router, AppState) {
    let state = AppState {
        source,
        book_cache: BookCache::new(book_cache),
        exact,
        throughput: Arc::default(),
    };
    let router = Router::new()
        .nest("/api/v1", api::routes())
        .merge(assets::routes())
        .layer(axum::middleware::from_fn(refusals::json_refusals))
        .with_state(state.clone());
    (router, state)
}

/// Serves the explorer on `listener` until `shutdown` completes, keeping `/book` answers as
/// `book_cache` says and sampling the cluster's throughput every [`SAMPLE_INTERVAL`].
pub async fn serve(
    listener: TcpListener,
    source: Source,
    book_cache: BookCacheSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = ConnectionLimits::default();
    serve_with(listener, source, book_cache, limits, shutdown).await
}

/// [`serve`] with connections bounded by `limits` (validated first), exact values from the
/// shipped tablebase and the default solver pool.
pub async fn serve_with(
    listener: TcpListener,
    source: Source,
    book_cache: BookCacheSettings,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let exact = ExactBoard::shipped()?;
    serve_with_exact(listener, source, book_cache, limits, exact, shutdown).await
}

/// [`serve_with`] with the analysis board's exact values from `exact` (its tablebase, solver
/// pool and budget).
pub async fn serve_with_exact(
    listener: TcpListener,
    source: Source,
    book_cache: BookCacheSettings,
    limits: ConnectionLimits,
    exact: ExactBoard,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    limits
        .validate()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let (router, state) = app(source, book_cache, exact);
    let sampler = tokio::spawn(async move {
        let mut ticks = tokio::time::interval(SAMPLE_INTERVAL);
        loop {
            ticks.tick().await;
            state.sample().await;
        }
    });
    // The accept loop sets TCP_NODELAY: without it a reply written in two segments waits
    // for the client's delayed acknowledgement (~40 ms).
    let served = listener::serve(listener, limits, router, shutdown).await;
    sampler.abort();
    served
}
