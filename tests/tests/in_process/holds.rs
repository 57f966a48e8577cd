//! Connections that cannot be held, over the real coordinator (plain and TLS): more holders
//! than the cap — sending only the HTTP/2 preface, or finishing a TLS handshake and going
//! silent — still leave `status` answering at once; a connection that makes no request is
//! closed at the first-request timeout; and one address crowds out only its own
//! connections.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pentagrid_coordinator::{Coordinator, CoordinatorSettings};
use pentagrid_edge::ConnectionLimits;
use pentagrid_edge::{Credentials, TlsFiles, serve_with};
use pentagrid_proto::v2;
use pentagrid_tests::TOKEN;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls;

/// The HTTP/2 client preface, and nothing after it.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The most time a call may take past a hold (the issue asks for 1 s; a loaded 2-core
/// machine gets room).
const PROMPT: Duration = Duration::from_secs(5);

/// Small bounds, so a few dozen holders exceed them.
fn limits() -> ConnectionLimits {
    ConnectionLimits {
        max_connections: 20,
        max_pending: 20,
        max_pending_per_address: 20,
        ..ConnectionLimits::default()
    }
}

/// A coordinator served under `limits` (with TLS when given), its address and the way to
/// stop it.
struct Served {
    address: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Served {
    async fn start(limits: ConnectionLimits, tls: Option<TlsFiles>) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let coordinator = Coordinator::open(dir.path(), CoordinatorSettings::default()).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let task = tokio::spawn(async move {
            let credentials = Credentials::all_roles(TOKEN).unwrap();
            let shutdown = async move {
                let _ = stopped.wait_for(|s| *s).await;
            };
            serve_with(listener, coordinator, credentials, tls, limits, shutdown)
                .await
                .unwrap();
        });
        Served {
            address,
            stop,
            task,
            _dir: dir,
        }
    }

    async fn stop(self) {
        self.stop.send(true).unwrap();
        // Holders may still be open: the server's graceful end is not waited for long.
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }
}

/// A TCP connection to `to` from the loopback address 127.0.0.`from`.
async fn connect_from(from: u8, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::from(([127, 0, 0, from], 0)))
        .unwrap();
    socket.connect(to).await.unwrap()
}

/// `status` through a fresh client; how long it took.
async fn timed_status(url: &str, ca: Option<&[u8]>) -> Duration {
    let started = Instant::now();
    let client = pentagrid_proto::connect(url, TOKEN, ca).unwrap();
    let answer =
        tokio::time::timeout(PROMPT, client.clone().status(v2::StatusRequest::default())).await;
    let took = started.elapsed();
    match answer {
        Ok(Ok(_)) => took,
        Ok(Err(status)) => panic!("status refused after {took:?}: {status:?}"),
        Err(_) => panic!("status did not answer within {PROMPT:?}"),
    }
}

/// Whether `stream` was closed by the server within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 256];
    let ended = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(within, ended).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preface_only_connections_past_the_cap_leave_status_answering() {
    let served = Served::start(limits(), None).await;
    let mut holders = Vec::new();
    for _ in 0..40 {
        let mut holder = connect_from(1, served.address).await;
        holder.write_all(PREFACE).await.unwrap();
        holders.push(holder);
    }
    let took = timed_status(&format!("http://{}", served.address), None).await;
    eprintln!("status past 40 preface-only holders (cap 20): {took:?}");
    // And again, with the holders still there.
    timed_status(&format!("http://{}", served.address), None).await;
    drop(holders);
    served.stop().await;
}

/// A self-signed certificate for localhost: (certificate PEM, key PEM, certificate DER).
fn certificate() -> (String, String, rustls::pki_types::CertificateDer<'static>) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let der = certified.cert.der().clone();
    (
        certified.cert.pem(),
        certified.signing_key.serialize_pem(),
        der,
    )
}

/// A TLS client that trusts `der` only.
fn tls_connector(der: rustls::pki_types::CertificateDer<'static>) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(der).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// Opens `n` connections to `to` that finish the TLS handshake and then send nothing.
async fn silent_tls_holders(
    n: usize,
    to: SocketAddr,
    connector: &TlsConnector,
) -> Vec<tokio_rustls::client::TlsStream<TcpStream>> {
    let mut holders = Vec::new();
    for _ in 0..n {
        let tcp = connect_from(1, to).await;
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        holders.push(connector.connect(name, tcp).await.expect("TLS handshake"));
    }
    holders
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_tls_connections_past_the_cap_leave_status_answering() {
    let (cert, key, der) = certificate();
    let tls = TlsFiles {
        cert: cert.clone().into_bytes(),
        key: key.into_bytes(),
    };
    let served = Served::start(limits(), Some(tls)).await;
    let connector = tls_connector(der);
    // Each handshake finishes (the first 20 are evicted by later ones only after theirs).
    let holders = silent_tls_holders(40, served.address, &connector).await;
    let url = format!("https://localhost:{}", served.address.port());
    let took = timed_status(&url, Some(cert.as_bytes())).await;
    eprintln!("status past 40 silent TLS holders (cap 20): {took:?}");
    drop(holders);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_tls_connection_is_closed_at_the_first_request_timeout() {
    let (cert, key, der) = certificate();
    let tls = TlsFiles {
        cert: cert.into_bytes(),
        key: key.into_bytes(),
    };
    let limits = ConnectionLimits {
        handshake_timeout: Duration::from_secs(1),
        ..ConnectionLimits::default()
    };
    let served = Served::start(limits, Some(tls)).await;
    let connector = tls_connector(der);
    let mut holders = silent_tls_holders(1, served.address, &connector).await;
    // The server's HTTP/2 settings may come first; then the end, far below the idle
    // timeout (300 s) that held such connections before.
    let holder = &mut holders[0];
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buf = [0u8; 256];
        while let Ok(n) = holder.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the silent connection stayed open");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_crowds_out_only_its_own_connections() {
    let limits = ConnectionLimits {
        max_pending: 40,
        max_pending_per_address: 10,
        ..ConnectionLimits::default()
    };
    let served = Served::start(limits, None).await;
    let mut bystanders = Vec::new();
    for _ in 0..5 {
        let mut bystander = connect_from(3, served.address).await;
        bystander.write_all(PREFACE).await.unwrap();
        bystanders.push(bystander);
    }
    let mut flood = Vec::new();
    for _ in 0..30 {
        let mut holder = connect_from(2, served.address).await;
        holder.write_all(PREFACE).await.unwrap();
        flood.push(holder);
    }
    // 35 unproven is below the 40 allowed in all: only the per-address bound closes any.
    let mut closed = 0;
    for holder in &mut flood[..20] {
        closed += usize::from(closed_within(holder, PROMPT).await);
    }
    assert_eq!(closed, 20, "the flooding address's oldest 20 were closed");
    for bystander in &mut bystanders {
        assert!(
            !closed_within(bystander, Duration::from_millis(100)).await,
            "another address's connection was closed"
        );
    }
    timed_status(&format!("http://{}", served.address), None).await;
    served.stop().await;
}
