//! TLS: a coordinator started with a certificate serves https; a client that trusts the
//! certificate gets through, a plain-text client does not.

use pentagrid_coordinator::{Coordinator, CoordinatorSettings};
use pentagrid_edge::{Credentials, TlsFiles, serve};
use pentagrid_proto::v2;
use pentagrid_tests::TOKEN;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinator_serves_tls_to_clients_that_trust_it() {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = certified.cert.pem();
    let key = certified.signing_key.serialize_pem();
    let dir = tempfile::tempdir().unwrap();
    let coordinator = Coordinator::open(dir.path(), CoordinatorSettings::default()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let tls = TlsFiles {
        cert: cert.clone().into_bytes(),
        key: key.into_bytes(),
    };
    let server = tokio::spawn(async move {
        let credentials = Credentials::all_roles(TOKEN).unwrap();
        serve(listener, coordinator, credentials, Some(tls), async move {
            let _ = stopped.wait_for(|s| *s).await;
        })
        .await
        .unwrap();
    });
    let secure = pentagrid_proto::connect(
        &format!("https://localhost:{port}"),
        TOKEN,
        Some(cert.as_bytes()),
    )
    .unwrap();
    let status = secure.clone().status(v2::StatusRequest::default()).await;
    assert!(status.is_ok(), "{status:?}");
    let plain = pentagrid_proto::connect(&format!("http://localhost:{port}"), TOKEN, None).unwrap();
    assert!(
        plain
            .clone()
            .status(v2::StatusRequest::default())
            .await
            .is_err()
    );
    stop.send(true).unwrap();
    server.await.unwrap();
}
