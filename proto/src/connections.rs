//! Accepting connections with bounds, for the gRPC server (and any other server over a
//! `TcpListener`): at most `max_connections` open at once; a connection that has not sent the
//! first bytes of its protocol within `handshake_timeout` ("pending") is closed, and when
//! room is needed the oldest pending connection is closed first, so idle sockets cannot
//! crowd out a real caller; a connection silent for `idle_timeout` is closed (HTTP/2 peers
//! answer the server's keepalive pings, so live ones are never silent that long); TCP
//! keepalive finds peers that vanished. When descriptors run out (EMFILE, ENFILE) the accept
//! loop frees the oldest pending connection or backs off, instead of spinning, and says so
//! once at WARN.

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::time::{Instant, Sleep};

/// Bytes a peer must send before it counts as speaking: the HTTP/2 client preface (a TLS
/// ClientHello is longer).
pub const HANDSHAKE_BYTES: u64 = 24;

/// Pending connections closed each time descriptors run out.
const EVICTED_PER_SHORTAGE: usize = 8;

/// The bounds on connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Most connections open at once (pending ones included).
    pub max_connections: usize,
    /// Most connections still in their handshake at once; past it the oldest is closed.
    pub max_pending: usize,
    /// Time a new connection has to send its first [`HANDSHAKE_BYTES`] bytes.
    pub handshake_timeout: Duration,
    /// Time a connection may stay silent before it is closed.
    pub idle_timeout: Duration,
    /// Interval of the server's HTTP/2 keepalive pings.
    pub keepalive_interval: Duration,
    /// Time a keepalive ping may go unanswered before the connection is closed.
    pub keepalive_timeout: Duration,
    /// Idle time before TCP keepalive probes start.
    pub tcp_keepalive: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 4_096,
            max_pending: 256,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            keepalive_interval: Duration::from_secs(30),
            keepalive_timeout: Duration::from_secs(20),
            tcp_keepalive: Duration::from_secs(60),
        }
    }
}

/// Why connection limits cannot serve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitsError {
    /// A count is out of range.
    #[error("{what} must be from {min} to {max}, not {given}")]
    Count {
        /// The setting.
        what: &'static str,
        /// Its smallest value.
        min: usize,
        /// Its largest value.
        max: usize,
        /// What was given.
        given: usize,
    },
    /// A duration is out of range.
    #[error("{what} must be from {min:?} to {max:?}, not {given:?}")]
    Duration {
        /// The setting.
        what: &'static str,
        /// Its shortest value.
        min: Duration,
        /// Its longest value.
        max: Duration,
        /// What was given.
        given: Duration,
    },
    /// Live connections would be closed as idle between two keepalive pings.
    #[error(
        "the idle timeout ({idle:?}) must exceed the keepalive interval plus its timeout ({keepalive:?}), or live connections are closed"
    )]
    IdleBelowKeepalive {
        /// The idle timeout.
        idle: Duration,
        /// Keepalive interval plus timeout.
        keepalive: Duration,
    },
}

impl ConnectionLimits {
    /// Checks every bound is in range and the timeouts agree with each other.
    pub fn validate(&self) -> Result<(), LimitsError> {
        let count = |what, given: usize, max: usize| {
            if (1..=max).contains(&given) {
                Ok(())
            } else {
                Err(LimitsError::Count {
                    what,
                    min: 1,
                    max,
                    given,
                })
            }
        };
        count("max connections", self.max_connections, 1_000_000)?;
        count(
            "max pending handshakes",
            self.max_pending,
            self.max_connections,
        )?;
        let second = Duration::from_secs(1);
        let day = Duration::from_secs(86_400);
        for (what, given) in [
            ("handshake timeout", self.handshake_timeout),
            ("idle timeout", self.idle_timeout),
            ("keepalive interval", self.keepalive_interval),
            ("keepalive timeout", self.keepalive_timeout),
            ("TCP keepalive", self.tcp_keepalive),
        ] {
            if !(second..=day).contains(&given) {
                return Err(LimitsError::Duration {
                    what,
                    min: second,
                    max: day,
                    given,
                });
            }
        }
        let keepalive = self.keepalive_interval + self.keepalive_timeout;
        if self.idle_timeout <= keepalive {
            return Err(LimitsError::IdleBelowKeepalive {
                idle: self.idle_timeout,
                keepalive,
            });
        }
        Ok(())
    }
}

/// The connections still in their handshake, oldest first, each with the way to close it.
#[derive(Default)]
struct Pending {
    next_id: u64,
    closers: BTreeMap<u64, oneshot::Sender<()>>,
}

type SharedPending = Arc<Mutex<Pending>>;

fn lock(pending: &SharedPending) -> std::sync::MutexGuard<'_, Pending> {
    pending
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Closes the oldest pending connection; whether there was one.
fn close_oldest(pending: &SharedPending) -> bool {
    let oldest = lock(pending).closers.pop_first();
    oldest.is_some_and(|(_, closer)| {
        let _ = closer.send(());
        true
    })
}

/// Accepts connections from `listener` under `limits` on a task of its own; the stream of
/// accepted connections ends when the receiver is dropped.
#[must_use]
pub fn bounded_incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
) -> tokio_stream::wrappers::ReceiverStream<io::Result<BoundedStream>> {
    let (sender, receiver) = mpsc::channel(16);
    tokio::spawn(accept_loop(listener, limits, sender));
    tokio_stream::wrappers::ReceiverStream::new(receiver)
}

/// Whether an accept error means descriptors (or socket memory) ran out.
fn out_of_resources(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

async fn accept_loop(
    listener: TcpListener,
    limits: ConnectionLimits,
    sender: mpsc::Sender<io::Result<BoundedStream>>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let pending: SharedPending = Arc::default();
    let mut warned_full = false;
    let mut warned_descriptors = false;
    let mut backoff = Duration::ZERO;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = sender.closed() => return,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) if out_of_resources(&error) => {
                if !warned_descriptors {
                    warned_descriptors = true;
                    tracing::warn!(%error, "out of file descriptors: closing the oldest pending connections and backing off (lower --max-connections or raise the descriptor limit)");
                }
                // A few at once: the backlog may hold a flood, and a real caller behind it.
                let closed = (0..EVICTED_PER_SHORTAGE)
                    .take_while(|_| close_oldest(&pending))
                    .count();
                if closed == 0 {
                    backoff =
                        (backoff * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
                    tokio::time::sleep(backoff).await;
                } else {
                    // Let the closed connections' tasks drop their descriptors.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                continue;
            }
            // The peer gave up between SYN and accept, or a transient failure: next one.
            Err(error) => {
                tracing::debug!(%error, "accept failed");
                continue;
            }
        };
        backoff = Duration::ZERO;
        let permit = match slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) if close_oldest(&pending) => {
                // The closed connection gives its slot back once its task drops it.
                match tokio::time::timeout(Duration::from_secs(1), slots.clone().acquire_owned())
                    .await
                {
                    Ok(Ok(permit)) => permit,
                    _ => continue,
                }
            }
            Err(_) => {
                if !warned_full {
                    warned_full = true;
                    tracing::warn!(
                        max = limits.max_connections,
                        "connection limit reached: new connections are closed until some end"
                    );
                }
                continue;
            }
        };
        if lock(&pending).closers.len() >= limits.max_pending {
            close_oldest(&pending);
        }
        let _ = stream.set_nodelay(true);
        let keepalive = socket2::TcpKeepalive::new()
            .with_time(limits.tcp_keepalive)
            .with_interval(limits.tcp_keepalive / 4);
        let _ = socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive);
        let connection = BoundedStream::new(stream, permit, &pending, limits);
        if sender.send(Ok(connection)).await.is_err() {
            return;
        }
    }
}

/// An accepted connection under its bounds: holds a slot until dropped, and fails its reads
/// once closed as pending, or past its handshake or idle timeout.
pub struct BoundedStream {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    /// Set while pending: registered in `pending` under `id`.
    handshake: Option<(u64, SharedPending, oneshot::Receiver<()>)>,
    read: u64,
    limits: ConnectionLimits,
    deadline: Pin<Box<Sleep>>,
    closed: bool,
}

impl BoundedStream {
    fn new(
        stream: TcpStream,
        slot: OwnedSemaphorePermit,
        pending: &SharedPending,
        limits: ConnectionLimits,
    ) -> BoundedStream {
        let (closer, closed) = oneshot::channel();
        let id = {
            let mut pending = lock(pending);
            let id = pending.next_id;
            pending.next_id += 1;
            pending.closers.insert(id, closer);
            id
        };
        BoundedStream {
            stream,
            _slot: slot,
            handshake: Some((id, pending.clone(), closed)),
            read: 0,
            limits,
            deadline: Box::pin(tokio::time::sleep(limits.handshake_timeout)),
            closed: false,
        }
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.stream.peer_addr()
    }

    /// Leaves the pending set (handshake done, or connection gone).
    fn leave_pending(&mut self) {
        if let Some((id, pending, _)) = self.handshake.take() {
            lock(&pending).closers.remove(&id);
        }
    }

    /// Marks the connection closed: every later read and write fails.
    fn close(&mut self, why: &str) -> io::Error {
        self.closed = true;
        self.leave_pending();
        io::Error::new(io::ErrorKind::TimedOut, why.to_owned())
    }
}

impl Drop for BoundedStream {
    fn drop(&mut self) {
        self.leave_pending();
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
        if let Some((_, _, evict)) = &mut this.handshake
            && let Poll::Ready(Ok(())) = Pin::new(evict).poll(cx)
        {
            return Poll::Ready(Err(this.close("pending connection closed to make room")));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                let read = (buf.filled().len() - before) as u64;
                if read > 0 {
                    this.read += read;
                    if this.read >= HANDSHAKE_BYTES {
                        this.leave_pending();
                    }
                    // The handshake deadline runs from the accept; the idle one from the
                    // last bytes.
                    if this.handshake.is_none() {
                        let deadline = Instant::now() + this.limits.idle_timeout;
                        this.deadline.as_mut().reset(deadline);
                    }
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                ready!(this.deadline.as_mut().poll(cx));
                let why = match this.handshake {
                    Some(_) => "handshake timeout",
                    None => "idle timeout",
                };
                Poll::Ready(Err(this.close(why)))
            }
        }
    }
}

impl AsyncWrite for BoundedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.closed {
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
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl tonic::transport::server::Connected for BoundedStream {
    type ConnectInfo = tonic::transport::server::TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.stream.connect_info()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_stream::StreamExt;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 4,
            max_pending: 2,
            // Short, on the real clock (these bounds are below what `validate` allows).
            handshake_timeout: Duration::from_millis(300),
            idle_timeout: Duration::from_millis(600),
            ..ConnectionLimits::default()
        }
    }

    #[test]
    fn limits_are_validated() {
        assert_eq!(ConnectionLimits::default().validate(), Ok(()));
        let zero = ConnectionLimits {
            max_connections: 0,
            ..ConnectionLimits::default()
        };
        assert!(matches!(zero.validate(), Err(LimitsError::Count { .. })));
        let idle = ConnectionLimits {
            idle_timeout: Duration::from_secs(40),
            ..ConnectionLimits::default()
        };
        assert!(matches!(
            idle.validate(),
            Err(LimitsError::IdleBelowKeepalive { .. })
        ));
        let tiny = ConnectionLimits {
            handshake_timeout: Duration::from_millis(10),
            ..ConnectionLimits::default()
        };
        assert!(matches!(tiny.validate(), Err(LimitsError::Duration { .. })));
    }

    /// Reads from a served connection until it ends; true when it was closed (EOF or reset).
    async fn closed(mut peer: TcpStream) -> bool {
        let mut buf = [0u8; 64];
        matches!(peer.read(&mut buf).await, Ok(0) | Err(_))
    }

    /// Serves `incoming` by echoing nothing: each accepted connection reads until it fails.
    fn drain(
        mut incoming: impl tokio_stream::Stream<Item = io::Result<BoundedStream>>
        + Unpin
        + Send
        + 'static,
    ) {
        tokio::spawn(async move {
            while let Some(Ok(mut connection)) = incoming.next().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 64];
                    while let Ok(n) = connection.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                    }
                });
            }
        });
    }

    #[tokio::test]
    async fn silent_connections_are_closed_oldest_first_when_room_is_needed() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drain(bounded_incoming(listener, limits()));
        let first = TcpStream::connect(address).await.unwrap();
        let mut speaking = TcpStream::connect(address).await.unwrap();
        speaking
            .write_all(&[0; HANDSHAKE_BYTES as usize])
            .await
            .unwrap();
        let _second = TcpStream::connect(address).await.unwrap();
        // Two pending (first, second) is the most: a third pending evicts the oldest.
        let _third = TcpStream::connect(address).await.unwrap();
        let evicted = tokio::time::timeout(Duration::from_secs(5), closed(first)).await;
        assert_eq!(evicted, Ok(true), "the oldest silent connection was closed");
        // The one that spoke stays open.
        let mut buf = [0u8; 1];
        let still_open =
            tokio::time::timeout(Duration::from_millis(200), speaking.read(&mut buf)).await;
        assert!(still_open.is_err(), "{still_open:?}");
    }

    #[tokio::test]
    async fn a_handshake_that_never_completes_times_out() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut incoming = bounded_incoming(listener, limits());
        let mut half = TcpStream::connect(address).await.unwrap();
        half.write_all(b"PRI * HTTP/2.0").await.unwrap();
        let mut connection = incoming.next().await.unwrap().unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(connection.read(&mut buf).await.unwrap(), 14);
        let started = Instant::now();
        let error = connection.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            (Duration::from_millis(250)..Duration::from_secs(5)).contains(&waited),
            "the handshake timeout runs from the accept: {waited:?}"
        );
        drop(half);
    }

    #[tokio::test]
    async fn a_connection_that_spoke_is_closed_after_the_idle_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut incoming = bounded_incoming(listener, limits());
        let mut peer = TcpStream::connect(address).await.unwrap();
        peer.write_all(&[7; 30]).await.unwrap();
        let mut connection = incoming.next().await.unwrap().unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(connection.read(&mut buf).await.unwrap(), 30);
        let started = Instant::now();
        let error = connection.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            (Duration::from_millis(550)..Duration::from_secs(5)).contains(&waited),
            "the idle timeout runs from the last bytes: {waited:?}"
        );
    }
}
