//! Serving the coordinator over gRPC: authentication, message limits, per-call tracing spans,
//! lease expiry, book builds, and graceful shutdown (stop leasing, flush, exit).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::{Identity, Server, ServerTlsConfig};

use crate::api::auth::Credentials;
use crate::api::grpc_service;
use crate::coordinator::Coordinator;

/// How often the server requeues expired leases and advances book builds.
pub const TICK: Duration = Duration::from_millis(250);

/// A server failure.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The transport failed (bad TLS material, socket errors).
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The final flush failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
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
    let service = grpc_service(coordinator.clone(), credentials);
    // The ticker runs on tokio's clock (pausable in tests); what it does reads the
    // coordinator's own clock.
    let expiry = {
        let coordinator = coordinator.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(TICK);
            loop {
                tick.tick().await;
                coordinator.tick().await;
            }
        })
    };
    let mut builder = Server::builder()
        .trace_fn(|request| tracing::info_span!("rpc", method = %request.uri().path()));
    if let Some(tls) = tls {
        builder = builder
            .tls_config(ServerTlsConfig::new().identity(Identity::from_pem(tls.cert, tls.key)))?;
    }
    let draining = coordinator.clone();
    let result = builder
        .add_service(service)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async move {
            shutdown.await;
            tracing::info!("shutting down: no more leases, finishing calls in flight");
            draining.drain();
        })
        .await;
    expiry.abort();
    coordinator.flush().await?;
    tracing::info!("database flushed; coordinator stopped");
    Ok(result?)
}
