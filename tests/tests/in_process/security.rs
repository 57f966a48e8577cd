//! Authentication and bad input: refused with a clear status, and the database unchanged.

use pentago::SearchControl;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::v2::coordinator_client::CoordinatorClient;
use pentagrid_proto::{Outcome, PROTOCOL_HEADER, Row, Task, v2};
use pentagrid_tests::{TOKEN, TestCluster, hello, lease_one};
use tonic::Code;
use tonic::metadata::MetadataValue;

/// A client sending exactly these headers.
async fn raw_client(
    url: String,
    token: Option<&'static str>,
    protocol: Option<&'static str>,
) -> CoordinatorClient<
    tonic::service::interceptor::InterceptedService<
        tonic::transport::Channel,
        impl tonic::service::Interceptor,
    >,
> {
    let channel = tonic::transport::Endpoint::from_shared(url)
        .unwrap()
        .connect()
        .await
        .unwrap();
    CoordinatorClient::with_interceptor(channel, move |mut request: tonic::Request<()>| {
        if let Some(token) = token {
            request
                .metadata_mut()
                .insert("authorization", MetadataValue::from_static(token));
        }
        if let Some(protocol) = protocol {
            request
                .metadata_mut()
                .insert(PROTOCOL_HEADER, MetadataValue::from_static(protocol));
        }
        Ok(request)
    })
}

/// Everything a client can see of the stored data.
pub(super) async fn snapshot(cluster: &TestCluster) -> (u64, u64, u64, u64, u64, Vec<v2::BookRow>) {
    let s = cluster.status().await;
    let book = cluster
        .client()
        .book_show(v2::BookShowRequest {
            position: "start".into(),
        })
        .await
        .unwrap()
        .into_inner();
    (
        s.done,
        s.playouts,
        s.playout_positions,
        s.game_positions,
        s.games,
        book.playouts,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_without_the_right_token_or_protocol_are_refused() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let bearer = Box::leak(format!("Bearer {TOKEN}").into_boxed_str());
    let code =
        |r: Result<tonic::Response<v2::StatusResponse>, tonic::Status>| r.unwrap_err().code();
    let mut none = raw_client(cluster.url.clone(), None, Some("2")).await;
    assert_eq!(
        code(none.status(v2::StatusRequest::default()).await),
        Code::Unauthenticated
    );
    let mut wrong = raw_client(cluster.url.clone(), Some("Bearer guess"), Some("2")).await;
    assert_eq!(
        code(wrong.status(v2::StatusRequest::default()).await),
        Code::Unauthenticated
    );
    let mut old = raw_client(cluster.url.clone(), Some(bearer), Some("1")).await;
    let refused = old.status(v2::StatusRequest::default()).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().contains("protocol"),
        "{}",
        refused.message()
    );
    let mut right = raw_client(cluster.url.clone(), Some(bearer), Some("2")).await;
    assert!(right.status(v2::StatusRequest::default()).await.is_ok());
    // A worker with a wrong token stops with a clear error instead of retrying forever.
    let options = pentagrid_worker::WorkerOptions {
        coordinator: cluster.url.clone(),
        token: "guess".into(),
        tls_ca: None,
        name: "intruder".into(),
        threads: 1,
        ack_log: None,
        max_results: None,
        identity: pentagrid_worker::WorkerIdentity::Fresh,
        engines: pentagrid_worker::EngineSettings::default(),
        speed: Some(0),
    };
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let error = pentagrid_worker::run(options, stopped).await.unwrap_err();
    assert!(error.to_string().contains("wrong token"), "{error}");
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_results_and_jobs_are_refused_and_change_nothing() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let task = Task::Analyse {
        position: pentago::Position::START,
        config: "uct".parse().unwrap(),
        playouts: 1000,
    };
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&task)],
        })
        .await
        .unwrap();
    let mut sessions = std::collections::HashMap::new();
    for id in ["holder", "other"] {
        sessions.insert(id, hello(&mut client, id).await);
    }
    let job = lease_one(&mut client, "holder", &sessions["holder"]).await;
    let good = pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new()).unwrap();
    let Outcome::Analyse {
        rows,
        simulations,
        seconds,
    } = good.clone()
    else {
        panic!()
    };
    let before = snapshot(&cluster).await;

    let submit = |worker: &str, result: v2::submit_request::Result| v2::SubmitRequest {
        worker_id: worker.into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: format!("{worker}-{}", rand_suffix()),
        result: Some(result),
        session: sessions[worker].clone(),
    };
    let with_rows = |rows: Vec<Row>| {
        v2::submit_request::Result::from(&Outcome::Analyse {
            rows,
            simulations,
            seconds,
        })
    };

    // Not the lease holder.
    let refused = client
        .submit(submit("other", (&good).into()))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    // An illegal move (b5 twice would need b5 empty; use a move text that cannot be read).
    let mut garbled = v2::AnalyseResult {
        rows: vec![v2::MoveRow::from(&rows[0])],
        simulations,
        seconds,
    };
    garbled.rows[0].r#move = "z9-9Q".into();
    let refused = client
        .submit(submit(
            "holder",
            v2::submit_request::Result::Analyse(garbled),
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("z9-9Q"), "{}", refused.message());
    // wins > games.
    let mut cheat = rows.clone();
    cheat[0].wins = cheat[0].games + 1;
    let refused = client
        .submit(submit("holder", with_rows(cheat)))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("exceed games"),
        "{}",
        refused.message()
    );
    // More games than the budget.
    let mut inflated = rows.clone();
    inflated[0].games += 1_000_000;
    let refused = client
        .submit(submit("holder", with_rows(inflated)))
        .await
        .unwrap_err();
    assert!(
        refused.message().contains("budget"),
        "{}",
        refused.message()
    );
    // A move that is not legal in the job's position (a finished-game move list for analysis).
    let wrong_kind = v2::submit_request::Result::from(&Outcome::Selfplay {
        moves: vec![],
        result: pentago::Status::Draw,
    });
    let refused = client
        .submit(submit("holder", wrong_kind))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    // An oversized message.
    let mut huge = v2::AnalyseResult {
        rows: vec![],
        simulations,
        seconds,
    };
    huge.rows = (0..40_000).map(|_| v2::MoveRow::from(&rows[0])).collect();
    let refused = client
        .submit(submit("holder", v2::submit_request::Result::Analyse(huge)))
        .await;
    assert!(refused.is_err(), "an oversized message is refused");
    // Absurd job budgets and unreadable jobs.
    for bad in [
        v2::AnalyseSpec {
            position: "start".into(),
            config: "uct".into(),
            playouts: 1 << 60,
        },
        v2::AnalyseSpec {
            position: "start".into(),
            config: "uct".into(),
            playouts: 0,
        },
        v2::AnalyseSpec {
            position: "start".into(),
            config: "uct:k=-3".into(),
            playouts: 10,
        },
        v2::AnalyseSpec {
            position: "xo".into(),
            config: "uct".into(),
            playouts: 10,
        },
    ] {
        let jobs = vec![v2::JobSpec {
            kind: Some(v2::job_spec::Kind::Analyse(bad)),
        }];
        let refused = client
            .submit_jobs(v2::SubmitJobsRequest { jobs })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument);
    }
    assert_eq!(snapshot(&cluster).await, before, "nothing changed");
    let status = cluster.status().await;
    assert_eq!(
        (status.queued, status.leased),
        (0, 1),
        "no job was added, the lease still stands"
    );

    // The honest result still goes through afterwards.
    let accepted = client
        .submit(submit("holder", (&good).into()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(accepted.outcome, v2::SubmitOutcome::Applied as i32);
    assert_ne!(snapshot(&cluster).await, before);
    cluster.stop().await;
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Everything a worker-token holder can learn of another worker — its id (the status lists
/// it), even its lease id — lets it do nothing in that worker's name: no result, heartbeat,
/// returned lease or hello under its id gets through, and the victim works on as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_token_cannot_act_in_another_workers_name() {
    use pentagrid_proto::reason_of;
    use v2::ErrorReason;
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let task = Task::Analyse {
        position: pentago::Position::START,
        config: "uct".parse().unwrap(),
        playouts: 300,
    };
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&task)],
        })
        .await
        .unwrap();
    let victim = hello(&mut client, "victim").await;
    let job = lease_one(&mut client, "victim", &victim).await;
    let thief = hello(&mut client, "thief").await;
    let before = snapshot(&cluster).await;
    let forged = Outcome::Analyse {
        rows: vec![Row {
            mv: "c4-1R".parse().unwrap(),
            games: 40_000_000,
            wins: 40_000_000,
            draws: 0,
        }],
        simulations: 40_000_000,
        seconds: 1.0,
    };
    // The victim's id and lease, with no session, a guessed one, or the thief's own.
    for session in [String::new(), "0".repeat(32), thief.clone()] {
        let refused = client
            .submit(v2::SubmitRequest {
                worker_id: "victim".into(),
                job_id: job.job_id,
                lease_id: job.lease_id,
                result_id: format!("forged-{}", session.len()),
                result: Some((&forged).into()),
                session: session.clone(),
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
        assert_eq!(reason_of(&refused), ErrorReason::WrongSession);
        let beat = client
            .heartbeat(v2::HeartbeatRequest {
                worker_id: "victim".into(),
                lease_ids: vec![job.lease_id],
                session: session.clone(),
            })
            .await
            .unwrap_err();
        assert_eq!(reason_of(&beat), ErrorReason::WrongSession);
        let returned = client
            .return_leases(v2::ReturnLeasesRequest {
                worker_id: "victim".into(),
                lease_ids: vec![job.lease_id],
                session,
            })
            .await
            .unwrap_err();
        assert_eq!(reason_of(&returned), ErrorReason::WrongSession);
    }
    // In its own name, the thief does not hold the lease.
    let refused = client
        .submit(v2::SubmitRequest {
            worker_id: "thief".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: "forged-own".into(),
            result: Some((&forged).into()),
            session: thief.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(reason_of(&refused), ErrorReason::LeaseNotHeld);
    // Nor can it take the live victim's id by saying hello under it, with or without a key.
    for key in ["", "the-thiefs-own-key-0123"] {
        let refused = client
            .hello(v2::HelloRequest {
                worker_id: "victim".into(),
                name: "victim".into(),
                threads: 1,
                engines: Vec::new(),
                worker_key: key.into(),
                speed: 0,
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::AlreadyExists, "{refused:?}");
        assert_eq!(reason_of(&refused), ErrorReason::WorkerIdInUse);
    }
    assert_eq!(snapshot(&cluster).await, before, "nothing changed");
    let status = cluster.status().await;
    assert_eq!(
        (status.queued, status.leased),
        (0, 1),
        "the victim keeps its lease"
    );
    // The victim's own session still works: its honest result is applied.
    let honest = pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new()).unwrap();
    let applied = client
        .submit(v2::SubmitRequest {
            worker_id: "victim".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: "honest".into(),
            result: Some((&honest).into()),
            session: victim,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(applied.outcome(), v2::SubmitOutcome::Applied);
    cluster.stop().await;
}

/// Sessions live in memory, yet a coordinator restart does not hand a worker's id to whoever
/// says hello first: for a lease period from the start the id stays with the key its worker
/// said hello with (the database keeps a digest of it), so a caller without that key is
/// refused, with or without a key of its own, and the returning worker takes its id back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_does_not_hand_a_workers_id_to_the_first_hello() {
    use pentagrid_proto::reason_of;
    use v2::ErrorReason;
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    hello(&mut cluster.client(), "victim").await;
    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    for key in ["", "the-thiefs-own-key-0123"] {
        let refused = client
            .hello(v2::HelloRequest {
                worker_id: "victim".into(),
                name: "thief".into(),
                threads: 1,
                engines: Vec::new(),
                worker_key: key.into(),
                speed: 0,
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::AlreadyExists, "{refused:?}");
        assert_eq!(reason_of(&refused), ErrorReason::WorkerIdInUse);
    }
    // Other ids are free as ever; the victim, with its key, gets its id and works.
    hello(&mut client, "newcomer").await;
    let victim = hello(&mut client, "victim").await;
    let leased = client
        .lease(v2::LeaseRequest {
            worker_id: "victim".into(),
            max_jobs: 1,
            session: victim,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(leased.jobs.is_empty(), "nothing queued");
    let status = cluster.status().await;
    let names: Vec<&str> = status.workers.iter().map(|w| w.name.as_str()).collect();
    assert!(!names.contains(&"thief"), "{names:?}");
    cluster.stop().await;
}

/// Lease ids carry no pattern one could guess another lease by: twenty leases in a row are
/// neither sequential nor close to each other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lease_ids_cannot_be_guessed_from_each_other() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let solve = Task::Solve {
        position: "xoxoxo/oxoxox/xoxoxo/....../....../......".parse().unwrap(),
    };
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(&solve); 20],
        })
        .await
        .unwrap();
    let session = hello(&mut client, "w").await;
    let mut ids = Vec::new();
    for _ in 0..20 {
        ids.push(lease_one(&mut client, "w", &session).await.lease_id);
    }
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            // Two random 64-bit ids within 2^40 of each other: about one chance in 2^23.
            assert!(a.abs_diff(*b) > 1 << 40, "{ids:?}");
        }
    }
    cluster.stop().await;
}

/// `HelloRequest` as its bytes go over the wire, with the worker id as raw bytes: what a peer
/// that does not check its strings sends.
#[derive(Clone, PartialEq, prost::Message)]
struct RawHello {
    #[prost(bytes = "vec", tag = "1")]
    worker_id: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    name: Vec<u8>,
    #[prost(uint32, tag = "3")]
    threads: u32,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_string_that_is_not_utf8_is_an_invalid_argument_with_a_reason() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let channel = tonic::transport::Endpoint::from_shared(cluster.url.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let grpc = tonic::client::Grpc::new(channel);
    let call = |worker_id: Vec<u8>| {
        let mut request = tonic::Request::new(RawHello {
            worker_id,
            name: b"raw".to_vec(),
            threads: 1,
        });
        let metadata = request.metadata_mut();
        metadata.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
        metadata.insert(PROTOCOL_HEADER, MetadataValue::from_static("2"));
        let mut grpc = grpc.clone();
        async move {
            grpc.ready().await.unwrap();
            grpc.unary::<_, v2::HelloResponse, _>(
                request,
                tonic::codegen::http::uri::PathAndQuery::from_static(
                    "/pentagrid.v2.Coordinator/Hello",
                ),
                tonic_prost::ProstCodec::default(),
            )
            .await
        }
    };
    // The same bytes as UTF-8 pass: the call itself is right.
    call(b"raw-worker".to_vec()).await.expect("a valid hello");
    let refused = call(vec![b'w', 0xff, 0xfe]).await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert_eq!(
        pentagrid_proto::reason_of(&refused),
        v2::ErrorReason::InvalidArgument
    );
    assert!(refused.message().contains("UTF-8"), "{refused:?}");
}
