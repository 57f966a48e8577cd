//! `pentagrid-connections`: accepting connections with bounds, for the gRPC edge and the
//! explorer (any server over a `TcpListener`). A connection counts toward the cap only once it
//! has made a request: until then it is "unproven", must make that request within
//! `handshake_timeout` (TLS handshake and request headers included) and is bounded separately,
//! in all and per peer address, the oldest closed first to make room; past the cap, the
//! longest-idle connection that made a request is closed for the newcomer. A newcomer is never
//! refused, so connections that never make a request cannot lock out a real caller. A
//! connection silent for `idle_timeout` is closed (HTTP/2 peers answer the server's keepalive
//! pings, so live ones are never silent that long); TCP keepalive finds peers that vanished.
//! When descriptors run out (EMFILE, ENFILE) the accept loop frees the oldest unproven
//! connections (else the longest idle) or backs off, instead of spinning, and says so once at
//! WARN. Servers mark a connection proven through its [`Proof`]: over tonic with
//! [`ProveLayer`], which reads the [`ConnectionInfo`] each request carries.
//!
//! Its own crate so that clients, which link the wire types, do not link server networking.

mod layer;
mod registry;
mod stream;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub use layer::{ProveLayer, Proving};
pub use stream::{BoundedStream, ConnectionInfo, Proof};

use registry::{Registry, SharedRegistry, lock};

/// Unproven connections closed each time descriptors run out.
const EVICTED_PER_SHORTAGE: usize = 8;

/// The bounds on connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Most connections that have made a request open at once; past it the longest idle is
    /// closed.
    pub max_connections: usize,
    /// Most connections that have not yet made a request ("unproven") open at once; past it
    /// the oldest is closed.
    pub max_pending: usize,
    /// Most unproven connections from one peer address; past it that address's oldest is
    /// closed.
    pub max_pending_per_address: usize,
    /// Time a new connection has to make its first request, from the accept (TLS handshake
    /// and request headers included); the explorer also gives any request's headers this
    /// long.
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
            max_pending_per_address: 64,
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
        count("max pending connections", self.max_pending, 1_000_000)?;
        count(
            "max pending connections per address",
            self.max_pending_per_address,
            self.max_pending,
        )?;
        let second = Duration::from_secs(1);
        let day = Duration::from_secs(86_400);
        for (what, given) in [
            ("handshake (first-request) timeout", self.handshake_timeout),
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
    let registry: SharedRegistry = Arc::new(Mutex::new(Registry::new(limits)));
    let mut backoff = Duration::ZERO;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = sender.closed() => return,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if out_of_resources(&error) => {
                // A few at once: the backlog may hold a flood, and a real caller behind it.
                let closed = lock(&registry).free_descriptors(EVICTED_PER_SHORTAGE);
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
        let _ = stream.set_nodelay(true);
        let keepalive = socket2::TcpKeepalive::new()
            .with_time(limits.tcp_keepalive)
            .with_interval(limits.tcp_keepalive / 4);
        let _ = socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive);
        let connection = BoundedStream::new(stream, peer, &registry, limits);
        if sender.send(Ok(connection)).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;
    use tokio::time::Instant;
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
        let per_address = ConnectionLimits {
            max_pending: 10,
            max_pending_per_address: 11,
            ..ConnectionLimits::default()
        };
        assert!(matches!(
            per_address.validate(),
            Err(LimitsError::Count {
                what: "max pending connections per address",
                ..
            })
        ));
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

    /// Serves `incoming` as a server that takes a line starting with `R` for a request: it
    /// proves the connection, as a server's service layer does; everything else is read and
    /// ignored.
    fn serve(
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
                        if buf[0] == b'R' {
                            connection.proof().prove();
                        }
                    }
                });
            }
        });
    }

    /// Whether `peer` is still open after a short wait.
    async fn still_open(peer: &mut TcpStream) -> bool {
        let mut buf = [0u8; 1];
        tokio::time::timeout(Duration::from_millis(200), peer.read(&mut buf))
            .await
            .is_err()
    }

    #[tokio::test]
    async fn connections_without_a_request_are_closed_oldest_first_when_room_is_needed() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let limits = ConnectionLimits {
            handshake_timeout: Duration::from_secs(30),
            ..limits()
        };
        serve(bounded_incoming(listener, limits));
        let mut first = TcpStream::connect(address).await.unwrap();
        // A whole HTTP/2 preface is not a request.
        first
            .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            .await
            .unwrap();
        let mut requested = TcpStream::connect(address).await.unwrap();
        requested.write_all(b"R").await.unwrap();
        let _second = TcpStream::connect(address).await.unwrap();
        // Two unproven (first, second) is the most: a third evicts the oldest.
        let _third = TcpStream::connect(address).await.unwrap();
        let evicted = tokio::time::timeout(Duration::from_secs(5), closed(first)).await;
        assert_eq!(
            evicted,
            Ok(true),
            "the oldest connection without a request went"
        );
        assert!(
            still_open(&mut requested).await,
            "the one that made a request stays"
        );
    }

    #[tokio::test]
    async fn past_the_cap_the_longest_idle_connection_makes_room() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let limits = ConnectionLimits {
            max_connections: 2,
            handshake_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            ..limits()
        };
        serve(bounded_incoming(listener, limits));
        let mut peers = Vec::new();
        for _ in 0..2 {
            let mut peer = TcpStream::connect(address).await.unwrap();
            peer.write_all(b"R").await.unwrap();
            peers.push(peer);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // The second speaks again: the first is the longest idle.
        peers[1].write_all(b"x").await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut newcomer = TcpStream::connect(address).await.unwrap();
        newcomer.write_all(b"R").await.unwrap();
        let idlest = peers.remove(0);
        let evicted = tokio::time::timeout(Duration::from_secs(5), closed(idlest)).await;
        assert_eq!(evicted, Ok(true), "the longest idle went");
        assert!(still_open(&mut peers[0]).await);
        assert!(still_open(&mut newcomer).await);
    }

    #[tokio::test]
    async fn a_connection_that_talks_but_makes_no_request_times_out() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut incoming = bounded_incoming(listener, limits());
        let mut talker = TcpStream::connect(address).await.unwrap();
        talker
            .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n..")
            .await
            .unwrap();
        let mut connection = incoming.next().await.unwrap().unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(connection.read(&mut buf).await.unwrap(), 26);
        let started = Instant::now();
        let error = connection.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            (Duration::from_millis(250)..Duration::from_secs(5)).contains(&waited),
            "the first-request timeout runs from the accept: {waited:?}"
        );
        drop(talker);
    }

    #[tokio::test]
    async fn a_connection_that_made_a_request_is_closed_after_the_idle_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut incoming = bounded_incoming(listener, limits());
        let mut peer = TcpStream::connect(address).await.unwrap();
        peer.write_all(&[7; 30]).await.unwrap();
        let mut connection = incoming.next().await.unwrap().unwrap();
        connection.proof().prove();
        let mut buf = [0u8; 64];
        assert_eq!(connection.read(&mut buf).await.unwrap(), 30);
        let started = Instant::now();
        let error = connection.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        // Past the first-request deadline (300 ms): the idle one (600 ms) held.
        assert!(
            (Duration::from_millis(550)..Duration::from_secs(5)).contains(&waited),
            "the idle timeout runs from the last bytes: {waited:?}"
        );
    }
}
