//! An accepted connection under its bounds: until it has made a request it must do so before
//! the first-request deadline (TLS handshake and headers included); after, it may stay silent
//! up to the idle timeout; either way the registry may close it to make room.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::time::{Instant, Sleep};

use super::ConnectionLimits;
use super::registry::{Activity, SharedRegistry, lock};

/// The way to count a connection as one that made a request: what the server's service
/// layer calls (see [`ProveLayer`](super::ProveLayer)) when a request reaches it.
#[derive(Clone, Debug)]
pub struct Proof {
    id: u64,
    registry: SharedRegistry,
    activity: Arc<Activity>,
}

impl Proof {
    /// Counts the connection as one that made a request: it leaves the unproven set (and its
    /// first-request deadline) for the proven one. Cheap after the first time.
    pub fn prove(&self) {
        if !self.activity.is_proven() {
            lock(&self.registry).prove(self.id);
        }
    }

    /// Whether the connection has made a request.
    #[must_use]
    pub fn is_proven(&self) -> bool {
        self.activity.is_proven()
    }
}

/// What a server learns of a connection: the peer's address and its [`Proof`]. Servers over
/// tonic find it in each request's extensions.
#[derive(Clone, Debug)]
pub struct ConnectionInfo {
    /// The peer's address, if it could be read.
    pub remote: Option<SocketAddr>,
    /// The way to count the connection as one that made a request.
    pub proof: Proof,
}

/// Which deadline a connection is under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// It has not made a request: the first-request deadline, from the accept.
    FirstRequest,
    /// It has: the idle timeout, from the last bytes read.
    Idle,
}

/// An accepted connection under its bounds: fails its reads and writes once closed to make
/// room, or past its first-request or idle deadline.
pub struct BoundedStream {
    stream: TcpStream,
    /// The peer, as the accept gave it.
    peer: SocketAddr,
    proof: Proof,
    /// Fires when the registry closes the connection to make room; `None` once it has
    /// answered (either way).
    evicted: Option<oneshot::Receiver<()>>,
    limits: ConnectionLimits,
    phase: Phase,
    deadline: Pin<Box<Sleep>>,
    closed: bool,
}

impl BoundedStream {
    /// Registers `stream` from `peer` in `registry` (which may close older connections to
    /// make room for it).
    pub(super) fn new(
        stream: TcpStream,
        peer: SocketAddr,
        registry: &SharedRegistry,
        limits: ConnectionLimits,
    ) -> BoundedStream {
        let admitted = lock(registry).admit(peer.ip());
        BoundedStream {
            stream,
            peer,
            proof: Proof {
                id: admitted.id,
                registry: registry.clone(),
                activity: admitted.activity,
            },
            evicted: Some(admitted.evicted),
            limits,
            phase: Phase::FirstRequest,
            deadline: Box::pin(tokio::time::sleep(limits.handshake_timeout)),
            closed: false,
        }
    }

    /// The way to count this connection as one that made a request.
    #[must_use]
    pub fn proof(&self) -> Proof {
        self.proof.clone()
    }

    /// Marks the connection closed: every later read and write fails.
    fn close(&mut self, why: &str) -> io::Error {
        self.closed = true;
        io::Error::new(io::ErrorKind::TimedOut, why.to_owned())
    }

    /// Whether the registry closed the connection to make room (registers the task to hear
    /// of it).
    fn poll_evicted(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(evicted) = &mut self.evicted else {
            return false;
        };
        match Pin::new(evicted).poll(cx) {
            Poll::Ready(Ok(())) => {
                self.evicted = None;
                true
            }
            // The registry is gone: nobody can close this connection any more.
            Poll::Ready(Err(_)) => {
                self.evicted = None;
                false
            }
            Poll::Pending => false,
        }
    }
}

impl Drop for BoundedStream {
    fn drop(&mut self) {
        lock(&self.proof.registry).remove(self.proof.id);
    }
}

impl AsyncRead for BoundedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.closed {
            return Poll::Ready(Err(io::ErrorKind::TimedOut.into()));
        }
        if this.poll_evicted(cx) {
            return Poll::Ready(Err(this.close("connection closed to make room")));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.proof.activity.touch();
                    if this.proof.is_proven() {
                        // The idle deadline runs from the last bytes.
                        this.phase = Phase::Idle;
                        let deadline = Instant::now() + this.limits.idle_timeout;
                        this.deadline.as_mut().reset(deadline);
                    }
                }
                Poll::Ready(result)
            }
            Poll::Pending => loop {
                ready!(this.deadline.as_mut().poll(cx));
                if this.phase == Phase::FirstRequest && this.proof.is_proven() {
                    // It made its request in time and has been silent since: the idle
                    // deadline now, from its last bytes.
                    this.phase = Phase::Idle;
                    let last = Instant::from_std(this.proof.activity.last_read());
                    this.deadline
                        .as_mut()
                        .reset(last + this.limits.idle_timeout);
                    continue;
                }
                let why = match this.phase {
                    Phase::FirstRequest => "no request before the first-request timeout",
                    Phase::Idle => "idle timeout",
                };
                return Poll::Ready(Err(this.close(why)));
            },
        }
    }
}

impl AsyncWrite for BoundedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.closed || self.poll_evicted(cx) {
            self.closed = true;
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.closed || self.poll_evicted(cx) {
            self.closed = true;
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl tonic::transport::server::Connected for BoundedStream {
    type ConnectInfo = ConnectionInfo;

    fn connect_info(&self) -> ConnectionInfo {
        ConnectionInfo {
            remote: Some(self.peer),
            proof: self.proof(),
        }
    }
}
