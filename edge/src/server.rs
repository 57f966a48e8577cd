//! Serving the coordinator over gRPC: authentication, message limits, per-call tracing spans,
//! lease expiry, book builds, health, RPC latency, and graceful shutdown (stop leasing, flush,
//! exit).

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use pentagrid_connections::{ConnectionLimits, LimitsError, ProveLayer, bounded_incoming};
use pentagrid_proto::v2::coordinator_server::CoordinatorServer;
use tokio::net::TcpListener;
use tonic::transport::{Identity, Server, ServerTlsConfig};

use crate::api::auth::Credentials;
use crate::api::{Service, grpc_service};
use crate::health::{Gate, HealthSwitch};
use pentagrid_coordinator::coordinator::Coordinator;
use pentagrid_coordinator::metrics::{Metrics, RpcLatencyLayer};
use pentagrid_store::StoreError;

/// How often the server requeues expired leases and advances book builds.
pub const TICK: Duration = Duration::from_millis(250);

/// A server failure.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The transport failed (bad TLS material, socket errors).
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The connection limits are out of range.
    #[error("connection limits: {0}")]
    Limits(#[from] LimitsError),
    /// The final flush failed.
    #[error(transparent)]
    Store(#[from] pentagrid_store::StoreError),
}

/// PEM certificate and key for TLS.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// Certificate chain (PEM).
    pub cert: Vec<u8>,
    /// Private key (PEM).
    pub key: Vec<u8>,
}

/// Serves `coordinator` on `listener` to callers holding `credentials` until `shutdown`
/// completes, then stops leasing, lets calls in flight finish, and flushes the database.
pub async fn serve(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    credentials: Credentials,
    tls: Option<TlsFiles>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let limits = ConnectionLimits::default();
    serve_with(listener, coordinator, credentials, tls, limits, shutdown).await
}

/// [`serve`] under connection `limits` (validated first).
pub async fn serve_with(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    credentials: Credentials,
    tls: Option<TlsFiles>,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let metrics = coordinator.metrics().clone();
    let start = Start::Open(coordinator);
    let edge = Edge {
        credentials,
        tls,
        limits,
    };
    run(listener, start, metrics, edge, shutdown).await
}

/// Serves on `listener` at once — health checks answer NOT_SERVING and coordinator calls
/// UNAVAILABLE — while `open` opens the database on a blocking thread; then serves the
/// coordinator until `shutdown` completes, reporting NOT_SERVING again, stopping leases,
/// letting calls in flight finish and flushing the database. Calls are timed into `metrics`;
/// connections are bounded by `limits` (validated, with the TLS material, before the
/// database is opened).
pub async fn serve_opening(
    listener: TcpListener,
    open: impl FnOnce() -> Result<Arc<Coordinator>, StoreError> + Send + 'static,
    metrics: Metrics,
    credentials: Credentials,
    tls: Option<TlsFiles>,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let start = Start::Opening(Box::new(open));
    let edge = Edge {
        credentials,
        tls,
        limits,
    };
    run(listener, start, metrics, edge, shutdown).await
}

/// Who may call, over what, within which bounds.
struct Edge {
    credentials: Credentials,
    tls: Option<TlsFiles>,
    limits: ConnectionLimits,
}

/// How the coordinator comes to the server.
enum Start {
    /// Already open: served from the first call on.
    Open(Arc<Coordinator>),
    /// Opened on a blocking thread while the server answers NOT_SERVING.
    Opening(Box<dyn FnOnce() -> Result<Arc<Coordinator>, StoreError> + Send>),
}

async fn run(
    listener: TcpListener,
    start: Start,
    metrics: Metrics,
    edge: Edge,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let Edge {
        credentials,
        tls,
        limits,
    } = edge;
    limits.validate()?;
    let (health, health_service) = HealthSwitch::not_serving::<CoordinatorServer<Service>>().await;
    let (gate, slot) = Gate::closed();
    let opened: Arc<OnceLock<Arc<Coordinator>>> = Arc::default();
    let mut builder = Server::builder()
        // Peers that stop answering are found and closed; live ones answer the pings, so the
        // idle timeout below never closes them.
        .http2_keepalive_interval(Some(limits.keepalive_interval))
        .http2_keepalive_timeout(Some(limits.keepalive_timeout))
        // A connection counts toward the cap (and leaves its first-request deadline) once a
        // request from it reaches the services.
        .layer(ProveLayer)
        .layer(RpcLatencyLayer(metrics))
        .trace_fn(|request| tracing::info_span!("rpc", method = %request.uri().path()));
    if let Some(tls) = tls {
        let identity = Identity::from_pem(tls.cert, tls.key);
        let config = ServerTlsConfig::new()
            .identity(identity)
            .timeout(limits.handshake_timeout);
        builder = builder.tls_config(config)?;
    }
    let stopping = (health.clone(), opened.clone());
    // Sets TCP_NODELAY: without it a reply written in more than one segment (HTTP/2 headers,
    // data, trailers) waits for the peer's delayed acknowledgement: ~40 ms tails on loopback.
    let incoming = bounded_incoming(listener, limits);
    let server = builder
        .add_service(health_service)
        .add_service(gate)
        .serve_with_incoming_shutdown(incoming, async move {
            shutdown.await;
            tracing::info!("shutting down: no more leases, finishing calls in flight");
            let (health, opened) = stopping;
            health.stopping().await;
            if let Some(coordinator) = opened.get() {
                coordinator.drain();
            }
        });
    let mut server = Box::pin(server);
    let coordinator = match start {
        Start::Open(coordinator) => coordinator,
        Start::Opening(open) => {
            let mut opening = tokio::task::spawn_blocking(open);
            let joined = |r: Result<_, tokio::task::JoinError>| {
                r.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
            };
            tokio::select! {
                result = &mut server => {
                    // Shut down before the database was open: let the opening finish and
                    // close the database cleanly.
                    joined(opening.await)?.flush().await?;
                    return Ok(result?);
                }
                opened = &mut opening => joined(opened)?,
            }
        }
    };
    // Known to the shutdown hook before any call can reach it, so a shutdown drains it.
    let _ = opened.set(coordinator.clone());
    let _ = slot.set(grpc_service(coordinator.clone(), credentials));
    let expiry = spawn_housekeeping(coordinator.clone());
    health.serving().await;
    tracing::info!("database open; serving");
    let result = server.await;
    expiry.abort();
    coordinator.flush().await?;
    tracing::info!("database flushed; coordinator stopped");
    Ok(result?)
}

/// Runs the coordinator's periodic work every [`TICK`] until aborted. The ticker runs on
/// tokio's clock (pausable in tests); what it does reads the coordinator's own clock.
fn spawn_housekeeping(coordinator: Arc<Coordinator>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TICK);
        loop {
            tick.tick().await;
            coordinator.tick().await;
        }
    })
}
