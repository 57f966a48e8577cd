//! The explorer's HTTP/1.1 server: connections bounded as the coordinator's are (see
//! `pentagrid_connections`: a connection counts toward the cap only once a request
//! from it reaches the router; until then it has the first-request timeout and is closed
//! first to make room), a header-read timeout on every request, TCP_NODELAY, hyper's own
//! bodiless refusals rewritten as JSON errors, and graceful shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::pin;

use axum::Router;
use axum::extract::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use pentagrid_connections::{BoundedStream, ConnectionLimits, bounded_incoming};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_stream::StreamExt;
use tower_service::Service;

use crate::refusals::JsonHeadRefusals;

/// Serves `router` on `listener` under `limits` until `shutdown` completes, then lets the
/// requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    limits: ConnectionLimits,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let mut incoming = bounded_incoming(listener, limits);
    let mut http = hyper::server::conn::http1::Builder::new();
    // A request's headers (the first one's included: it also has the first-request deadline)
    // must arrive within the handshake timeout: a header line every few seconds holds
    // nothing.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.handshake_timeout);
    let (stop, stopping) = watch::channel(false);
    // Every connection holds a receiver: the sender's `closed` is all of them ended.
    let (ended, ending) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            next = incoming.next() => match next {
                Some(Ok(stream)) => stream,
                Some(Err(_)) => continue,
                // The accept loop ended (its runtime is stopping).
                None => break,
            },
        };
        let connection = serve_connection(&http, stream, router.clone(), stopping.clone());
        let ending = ending.clone();
        tokio::spawn(async move {
            connection.await;
            drop(ending);
        });
    }
    // Stop accepting (the listener closes with the accept loop), then let connections end.
    drop(incoming);
    let _ = stop.send(true);
    drop(ending);
    ended.closed().await;
    Ok(())
}

/// Serves one connection until it ends, shutting it down gracefully once `stopping` says so.
fn serve_connection(
    http: &hyper::server::conn::http1::Builder,
    stream: BoundedStream,
    router: Router,
    mut stopping: watch::Receiver<bool>,
) -> impl Future<Output = ()> + Send + 'static {
    let proof = stream.proof();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        // A request reached the router: the connection counts as a real caller's.
        proof.prove();
        let mut router = router.clone();
        async move {
            let response: Result<Response, Infallible> = router.call(request).await;
            response
        }
    });
    let io = TokioIo::new(JsonHeadRefusals::new(stream));
    let connection = http.serve_connection(io, service);
    async move {
        let mut connection = pin!(connection);
        let mut asked_to_stop = false;
        loop {
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "explorer connection ended");
                    }
                    return;
                }
                _ = stopping.wait_for(|stop| *stop), if !asked_to_stop => {
                    asked_to_stop = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}
