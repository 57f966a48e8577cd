//! The explorer's bounds: refusals made before a handler (a method, a page that does not
//! exist, a URI or headers too long, a request hyper cannot read) are the API's JSON errors, and a coordinator with 10,000
//! workers still gives a cluster page.

use std::io::{Read, Write};
use std::time::Instant;

use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::v2;
use pentagrid_tests::TestCluster;
use pentagrid_web::BookCacheSettings;

use crate::support::{fixture, get, start_explorer};

/// Sends `request` (raw HTTP/1.1) to the explorer at `base`; returns the status and the body.
fn raw(base: &str, request: &str) -> (u16, String) {
    let address = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, body.to_owned())
}

fn error_code(body: &str) -> String {
    let value: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"));
    value["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_before_a_handler_are_json_errors() {
    let base = fixture().base.clone();
    tokio::task::spawn_blocking(move || {
        let close = "Connection: close\r\n\r\n";
        let host = "Host: x\r\n";
        let cases = [
            (
                format!("POST /api/v1/cluster HTTP/1.1\r\n{host}Content-Length: 0\r\n{close}"),
                405,
                "method_not_allowed",
            ),
            (
                format!("GET /no/such/page HTTP/1.1\r\n{host}{close}"),
                404,
                "no_route",
            ),
            (
                format!("GET /assets/nothing.js HTTP/1.1\r\n{host}{close}"),
                404,
                "no_route",
            ),
            (
                format!(
                    "GET /api/v1/book?position={} HTTP/1.1\r\n{host}{close}",
                    "x".repeat(10_000)
                ),
                414,
                "uri_too_long",
            ),
            (
                format!(
                    "GET /api/v1/cluster HTTP/1.1\r\n{host}X-Big: {}\r\n{close}",
                    "y".repeat(40_000)
                ),
                431,
                "headers_too_large",
            ),
        ];
        // Refused by hyper itself, before the router: still JSON errors.
        let many_headers: String = (0..120).map(|i| format!("X-H{i}: v\r\n")).collect();
        let unreadable = [
            (
                format!(
                    "GET /api/v1/book?position={} HTTP/1.1\r\n{host}{close}",
                    "x".repeat(70_000)
                ),
                414,
                "uri_too_long",
            ),
            (
                format!("GET /api/v1/cluster HTTP/1.1\r\n{host}{many_headers}{close}"),
                431,
                "headers_too_large",
            ),
            (
                format!("GET /api/v1/cluster HTTP/1.1\r\n{host}Bad Header\r\n{close}"),
                400,
                "bad_request",
            ),
        ];
        for (request, status, code) in cases.into_iter().chain(unreadable) {
            let (got, body) = raw(&base, &request);
            assert_eq!((got, error_code(&body).as_str()), (status, code), "{body}");
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_page_answers_with_ten_thousand_workers() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let base = start_explorer(&cluster, BookCacheSettings::default()).await;
    let client = cluster.client();
    for chunk in (0..10_000).collect::<Vec<u32>>().chunks(16) {
        let calls: Vec<_> = chunk
            .iter()
            .map(|i| {
                let mut client = client.clone();
                let request = v2::HelloRequest {
                    worker_id: format!("{i:0>200}"),
                    name: "n".repeat(100),
                    threads: 1,
                    engines: Vec::new(),
                    worker_key: String::new(),
                    speed: 0,
                };
                tokio::spawn(async move { client.hello(request).await })
            })
            .collect();
        for call in calls {
            call.await.unwrap().expect("hello");
        }
    }
    let asked = Instant::now();
    let answer = get(&format!("{base}/api/v1/cluster")).await;
    let took = asked.elapsed();
    assert_eq!(answer.status, 200, "{}", answer.body);
    let cluster_json = answer.json();
    assert_eq!(cluster_json["worker_count"], 10_000);
    assert_eq!(
        cluster_json["workers"].as_array().map(Vec::len),
        Some(1_000)
    );
    eprintln!(
        "/api/v1/cluster with 10,000 workers: {took:?}, {} bytes",
        answer.body.len()
    );
    cluster.stop().await;
}
