//! Every peer's footprint is bounded, over real gRPC: worker ids and names are checked at
//! Hello, the worker registry has a bound with eviction, `Status` pages its workers far below
//! the message cap, errors quote bad input by a bounded prefix, oversized messages carry a
//! reason, and a lease for no jobs gets none.

use std::time::Instant;

use pentago::Position;
use pentagrid_coordinator::{CoordinatorSettings, JobSettings};
use pentagrid_proto::v2::coordinator_client::CoordinatorClient;
use pentagrid_proto::{MAX_MESSAGE_BYTES, PROTOCOL_HEADER, PROTOCOL_VERSION, Task, reason_of, v2};
use pentagrid_tests::{TOKEN, TestCluster, hello};
use prost::Message;
use tonic::Code;
use v2::ErrorReason;

fn hello_request(id: &str, name: &str) -> v2::HelloRequest {
    v2::HelloRequest {
        worker_id: id.into(),
        name: name.into(),
        threads: 1,
        engines: Vec::new(),
        worker_key: String::new(),
        speed: 0,
    }
}

/// Resident memory of this process, in KiB (from /proc).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches(" kB").trim().parse().ok())
        .expect("VmRSS")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_hellos_from_one_token_leave_status_paged_and_cheap() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let before = rss_kib();
    let started = Instant::now();
    // 10,000 distinct ids with the longest names allowed, 8 calls at a time.
    let ids: Vec<String> = (0..10_000).map(|i| format!("{i:0>200}")).collect();
    for chunk in ids.chunks(8) {
        let calls = chunk.iter().map(|id| {
            let mut client = client.clone();
            let request = hello_request(id, &"n".repeat(100));
            async move { client.hello(request).await }
        });
        for answer in futures_join(calls).await {
            answer.expect("hello");
        }
    }
    let hellos = started.elapsed();
    let grown = rss_kib().saturating_sub(before);
    let mut page_client = client.clone();
    let asked = Instant::now();
    let first = page_client
        .status(v2::StatusRequest::default())
        .await
        .expect("status with 10,000 workers")
        .into_inner();
    let status_time = asked.elapsed();
    assert_eq!(first.worker_count, 10_000);
    assert_eq!(first.workers.len(), 1_000, "one default page");
    let size = first.encoded_len();
    assert!(size < MAX_MESSAGE_BYTES / 2, "a status of {size} bytes");
    // Paging reaches every worker exactly once.
    let mut seen = first.workers.len();
    let mut after = first.next_workers_after.clone();
    while !after.is_empty() {
        let page = page_client
            .status(v2::StatusRequest {
                workers_limit: 1_000,
                workers_after: after,
            })
            .await
            .expect("a page")
            .into_inner();
        seen += page.workers.len();
        after = page.next_workers_after;
    }
    assert_eq!(seen, 10_000);
    // About 1 KB a worker, with generous room for the allocator and the client.
    assert!(grown < 64 * 1024, "RSS grew by {grown} KiB");
    eprintln!(
        "10,000 hellos in {hellos:?}; RSS +{grown} KiB; first status page in {status_time:?} ({size} bytes)"
    );
    cluster.stop().await;
}

/// Runs the futures concurrently and returns their answers in order.
async fn futures_join<F: std::future::Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut answers = Vec::with_capacity(handles.len());
    for handle in handles {
        answers.push(handle.await.expect("a call task"));
    }
    answers
}

#[tokio::test]
async fn past_the_registry_bound_the_longest_silent_worker_without_leases_is_evicted() {
    let settings = CoordinatorSettings {
        jobs: JobSettings {
            max_workers: 100,
            ..JobSettings::default()
        },
        ..CoordinatorSettings::default()
    };
    let cluster = TestCluster::start(settings).await;
    let mut client = cluster.client();
    let task = Task::Solve {
        position: Position::START,
    };
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&task)],
        })
        .await
        .unwrap();
    // The oldest worker holds a lease: it is never the one evicted.
    let session = hello(&mut client, "holder").await;
    let lease = client
        .lease(v2::LeaseRequest {
            worker_id: "holder".into(),
            max_jobs: 1,
            session,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(lease.jobs.len(), 1);
    for i in 0..300 {
        hello(&mut client, &format!("w{i:03}")).await;
    }
    let status = cluster.status().await;
    assert_eq!(status.worker_count, 100);
    let listed: Vec<&str> = status
        .workers
        .iter()
        .map(|w| w.worker_id.as_str())
        .collect();
    assert!(listed.contains(&"holder"), "the leaseholder stays");
    assert!(listed.contains(&"w299"), "the newest is in");
    assert!(!listed.contains(&"w000"), "the longest silent is out");
    // An evicted worker is told to say hello again, as after a restart.
    let evicted = client
        .lease(v2::LeaseRequest {
            worker_id: "w000".into(),
            max_jobs: 1,
            session: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(reason_of(&evicted), ErrorReason::UnknownWorker);
    cluster.stop().await;
}

#[tokio::test]
async fn ids_and_names_that_could_forge_lines_are_refused_at_hello() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    for (id, name) in [
        ("w1\n2026-01-01T00:00:00Z  INFO forged", "ok"),
        ("w2", "\u{1b}[2J\u{1b}[Hcleared"),
        ("w3", &"n".repeat(101)),
        (&"i".repeat(201)[..], "ok"),
        ("", "ok"),
        ("w4\u{202e}", "ok"),
    ] {
        let refused = client.hello(hello_request(id, name)).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{id:?} {name:?}");
        assert_eq!(reason_of(&refused), ErrorReason::InvalidArgument);
        assert!(
            refused.message().starts_with("bad worker"),
            "{}",
            refused.message()
        );
        assert!(!refused.message().contains('\u{1b}') && !refused.message().contains('\n'));
    }
    assert_eq!(cluster.status().await.worker_count, 0, "nothing registered");
    client
        .hello(hello_request("wörker-ünicode", "Rechner 7"))
        .await
        .expect("printable text is welcome");
    cluster.stop().await;
}

#[tokio::test]
async fn a_lease_for_no_jobs_gets_none() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&Task::Solve {
                position: Position::START,
            })],
        })
        .await
        .unwrap();
    let session = hello(&mut client, "w").await;
    let none = client
        .lease(v2::LeaseRequest {
            worker_id: "w".into(),
            max_jobs: 0,
            session,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(none.jobs.is_empty());
    assert_eq!(cluster.status().await.queued, 1, "the job is still queued");
    cluster.stop().await;
}

#[tokio::test]
async fn a_huge_bad_position_makes_a_short_error_with_its_reason() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let position = format!("{}\u{1b}", "x".repeat(20_000));
    let refused = client
        .book_show(v2::BookShowRequest { position })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert_eq!(reason_of(&refused), ErrorReason::InvalidArgument);
    let message = refused.message();
    assert!(message.len() < 1_100, "{} bytes", message.len());
    assert!(message.contains("20001 bytes in all"), "{message}");
    cluster.stop().await;
}

#[tokio::test]
async fn a_message_over_the_cap_is_refused_with_the_too_large_reason() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let channel = tonic::transport::Endpoint::from_shared(cluster.url.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    // A client that sends more than the cap (the project's own client refuses to).
    let mut big = CoordinatorClient::with_interceptor(channel, |mut request: tonic::Request<()>| {
        let metadata = request.metadata_mut();
        metadata.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
        metadata.insert(PROTOCOL_HEADER, PROTOCOL_VERSION.into());
        Ok(request)
    })
    .max_encoding_message_size(4 * MAX_MESSAGE_BYTES);
    let jobs = vec![
        v2::JobSpec::from(&Task::Solve {
            position: Position::START,
        });
        MAX_MESSAGE_BYTES / 40
    ];
    let request = v2::SubmitJobsRequest { jobs };
    assert!(request.encoded_len() > MAX_MESSAGE_BYTES);
    let refused = big.submit_jobs(request).await.unwrap_err();
    assert_eq!(refused.code(), Code::OutOfRange, "{refused:?}");
    assert_eq!(reason_of(&refused), ErrorReason::TooLarge);
    assert!(
        refused.message().contains("message cap"),
        "{}",
        refused.message()
    );
    assert_eq!(cluster.status().await.queued, 0, "nothing queued");
    cluster.stop().await;
}
