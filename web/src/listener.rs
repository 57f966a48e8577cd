//! The explorer's listener: connections bounded as the coordinator's are (a cap, handshake
//! and idle timeouts, TCP keepalive, an accept loop that backs off when descriptors run out;
//! see `pentagrid_proto::connections`), with TCP_NODELAY set.

use std::io;
use std::net::SocketAddr;

use pentagrid_proto::ConnectionLimits;
use pentagrid_proto::connections::{BoundedStream, bounded_incoming};
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

/// A `TcpListener` under [`ConnectionLimits`], for `axum::serve`.
pub struct BoundedListener {
    incoming: ReceiverStream<io::Result<BoundedStream>>,
    local: SocketAddr,
}

impl BoundedListener {
    /// Accepts from `listener` under `limits`.
    pub fn new(listener: TcpListener, limits: ConnectionLimits) -> io::Result<BoundedListener> {
        let local = listener.local_addr()?;
        Ok(BoundedListener {
            incoming: bounded_incoming(listener, limits),
            local,
        })
    }
}

impl axum::serve::Listener for BoundedListener {
    type Io = BoundedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (BoundedStream, SocketAddr) {
        loop {
            match self.incoming.next().await {
                Some(Ok(stream)) => match stream.peer_addr() {
                    Ok(peer) => return (stream, peer),
                    // Gone before it was served.
                    Err(_) => continue,
                },
                Some(Err(_)) => continue,
                // The accept loop ended (its runtime is stopping): accept nothing more.
                None => std::future::pending::<()>().await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }
}
