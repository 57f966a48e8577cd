//! Explorer load: `GET /api/v1/book` under many concurrent HTTP connections, with the whole
//! path real — HTTP server, gRPC to a coordinator on loopback, sled book of N positions.
//! Run with `cargo bench -p pentagrid-bench --bench explorer -- [positions] [connections]
//! [seconds] [rate] [max-age] [distinct]` (defaults 1000000, 200, 20, 0, 5, 50000). Each
//! connection asks for stored positions in turned orientations (every answer maps frames),
//! `distinct` of them spread over the book: one request after another (closed loop, rate 0),
//! or on a schedule that sums to `rate` requests per second over all connections (open loop:
//! latency counts from each request's scheduled time). The explorer keeps answers for `max-age` seconds, as
//! `pentagrid serve --book-max-age` (0: every request reads the coordinator). With 0
//! connections it only serves, for `bench/wrk.sh` to load it with wrk.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use pentago::{Position, Symmetry};
use pentagrid_bench::{book_positions, fill_book};
use pentagrid_coordinator::{Coordinator, CoordinatorSettings};
use pentagrid_edge::{Credentials, serve};
use pentagrid_web::{BookCacheSettings, Source};

const TOKEN: &str = "bench-token";

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Starts the coordinator and the explorer on loopback ports; returns the explorer's URL.
async fn start_servers(dir: &std::path::Path, book_cache: BookCacheSettings) -> String {
    let coordinator =
        Coordinator::open(dir, CoordinatorSettings::default()).expect("open the book");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let credentials = Credentials::all_roles(TOKEN).expect("a token");
        serve(
            listener,
            coordinator,
            credentials,
            None,
            std::future::pending(),
        )
        .await
        .expect("coordinator");
    });
    let client = pentagrid_proto::connect(&url, TOKEN, None).expect("client");
    let source = Source::new(client);
    source.check().await.expect("the coordinator answers");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let explorer = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        pentagrid_web::serve(listener, source, book_cache, std::future::pending())
            .await
            .expect("explorer");
    });
    explorer
}

/// One connection's loop: requests until `until`, latencies in µs of those started from
/// `measured` on (the ones before warm the connection and the caches). With a `gap`, requests go
/// out on a fixed schedule (open loop) and each latency counts from the request's scheduled
/// time, so a late answer also delays the ones behind it in the count (no coordinated
/// omission); without one, each request follows the last answer (closed loop).
async fn connection(
    base: Arc<String>,
    asked: Arc<Vec<String>>,
    start: usize,
    measured: Instant,
    until: Instant,
    gap: Option<Duration>,
) -> (Vec<f64>, u64) {
    // One client per task with one pooled connection: one keep-alive connection each.
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client = Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(1)
        .build::<_, Empty<Bytes>>(connector);
    let mut latencies = Vec::new();
    let mut errors = 0;
    let mut i = start;
    // Connections start spread over one gap, not all at once.
    let mut scheduled = Instant::now() + gap.map_or(Duration::ZERO, |g| g.mul_f64(spread(start)));
    while Instant::now() < until {
        let uri = format!("{base}/api/v1/book?position={}", asked[i % asked.len()]);
        i += 7919;
        let started = match gap {
            Some(gap) => {
                tokio::time::sleep_until(scheduled.into()).await;
                let due = scheduled;
                scheduled += gap;
                due
            }
            None => Instant::now(),
        };
        let answered = match client.get(uri.parse().unwrap()).await {
            Ok(response) if response.status().is_success() => {
                response.into_body().collect().await.is_ok()
            }
            _ => false,
        };
        if started >= measured {
            if answered {
                latencies.push(started.elapsed().as_secs_f64() * 1e6);
            } else {
                errors += 1;
            }
        }
    }
    (latencies, errors)
}

/// Serves for `seconds` without a load generator of its own, for an outside one such as wrk
/// (`bench/wrk.sh`): writes the positions to ask, one a line, and says where, and on which URL.
fn serve_only(base: &str, asked: &[String], dir: &std::path::Path, seconds: u64) {
    let file = dir.join("asked.txt");
    std::fs::write(&file, asked.join("\n") + "\n").expect("write the positions to ask");
    println!(
        "serving {base} for {seconds} s; positions to ask in {}",
        file.display()
    );
    std::thread::sleep(Duration::from_secs(seconds));
}

/// A share of one in [0, 1) that spreads connection `index` over a gap.
fn spread(index: usize) -> f64 {
    (index as f64 * 0.618_033_988_7).fract()
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let count = args.first().copied().unwrap_or(1_000_000) as usize;
    let connections = args.get(1).copied().unwrap_or(200) as usize;
    let seconds = args.get(2).copied().unwrap_or(20);
    // Requests per second over all connections; 0 (the default) asks as fast as answers come.
    let rate = args.get(3).copied().unwrap_or(0);
    let gap = (rate > 0).then(|| Duration::from_secs_f64(connections as f64 / rate as f64));
    let book_cache = BookCacheSettings {
        max_age: Duration::from_secs(args.get(4).copied().unwrap_or(5)),
        ..BookCacheSettings::default()
    };
    let distinct = args.get(5).copied().unwrap_or(50_000).max(1) as usize;
    let dir = tempfile::tempdir().expect("temporary directory");
    let stored = book_positions(count);
    let started = Instant::now();
    fill_book(dir.path(), &stored).expect("fill the book");
    println!(
        "book of {count} positions loaded in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Every query is a stored position seen in another orientation.
    let asked: Vec<String> = stored
        .iter()
        .enumerate()
        .step_by((count / distinct).max(1))
        .map(|(i, p): (usize, &Position)| Symmetry::ALL[1 + i % 7].apply(p).to_string())
        .collect();
    // Server and load generator each get their own runtime (both share the machine's cores).
    let server = tokio::runtime::Runtime::new().expect("server runtime");
    let base = Arc::new(server.block_on(start_servers(dir.path(), book_cache)));
    if connections == 0 {
        serve_only(&base, &asked, dir.path(), seconds);
        return;
    }
    let load = tokio::runtime::Runtime::new().expect("load runtime");
    let asked = Arc::new(asked);
    let (mut latencies, errors) = load.block_on(async {
        // Two seconds of warm-up open the connections, which then go on being measured.
        let measured = Instant::now() + Duration::from_secs(2);
        let until = measured + Duration::from_secs(seconds);
        let tasks: Vec<_> = (0..connections)
            .map(|c| {
                let task = connection(base.clone(), asked.clone(), c * 31, measured, until, gap);
                tokio::spawn(task)
            })
            .collect();
        let mut all = Vec::new();
        let mut errors = 0;
        for task in tasks {
            let (latencies, failed) = task.await.expect("load task");
            all.extend(latencies);
            errors += failed;
        }
        (all, errors)
    });
    latencies.sort_by(f64::total_cmp);
    println!(
        "GET /api/v1/book, {connections} connections, {}, {} positions asked, answers kept {} s, {seconds} s: {} requests ({:.0}/s), {errors} errors; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        if rate > 0 {
            format!("open loop at {rate} requests/s")
        } else {
            "closed loop".to_owned()
        },
        asked.len(),
        book_cache.max_age.as_secs(),
        latencies.len(),
        latencies.len() as f64 / seconds as f64,
        percentile(&latencies, 0.5) / 1e3,
        percentile(&latencies, 0.9) / 1e3,
        percentile(&latencies, 0.99) / 1e3,
        latencies[latencies.len() - 1] / 1e3,
    );
}
