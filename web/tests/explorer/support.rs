//! One in-process cluster with real data (self-play games, analyses, a solved position,
//! puzzles, a match) behind a real explorer on 127.0.0.1, shared by every test of this binary,
//! and a small HTTP client.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use pentago::{Player, Position, Puzzle, UctConfig};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Task, v2};
use pentagrid_tests::TestCluster;
use pentagrid_web::{BookCacheSettings, ExactBoard, Source};

/// The move the browser test plays from the start (the book has its own table).
pub const FIRST_MOVE: &str = "c4-1R";

/// The fixture match's time limit: far more than random players use, so nobody loses on time.
pub const FIXTURE_TIME_LIMIT: &str = "game:60+1";

/// The match judges moves from positions with this many stones on against perfect play (late
/// enough for the exact solver to be quick, early enough for random games to reach it).
pub const MATCH_ACCURACY_STONES: u32 = 26;

/// What the fixture holds, for the tests to look up.
pub struct Fixture {
    /// `http://127.0.0.1:<port>` of the explorer.
    pub base: String,
    /// A late position whose moves the solver settled, with its exact value (1, 0, -1).
    pub solved: (Position, i8),
    /// The stored puzzles.
    pub puzzles: Vec<Puzzle>,
    /// The match.
    pub match_id: u64,
    /// Pairs the match asked for.
    pub match_pairs: u64,
    /// The tuning run (finished, without a follow-up SPRT).
    pub tune_id: u64,
    /// The match's stored games, read through the client library (two per stored pair, in
    /// pair order, A black first).
    pub match_games: Vec<pentagrid_client::matches::MatchGame>,
}

impl Fixture {
    /// The stored puzzle with the longest mate (solving it takes a defender answer when ≥ 2).
    pub fn longest_puzzle(&self) -> &Puzzle {
        self.puzzles
            .iter()
            .max_by_key(|p| p.mate_in)
            .expect("the fixture found puzzles")
    }
}

/// The shared fixture, built on first use (a minute or so: every job really runs).
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel();
        // The cluster and the explorer live on their own runtime for the whole test process.
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let (fixture, _running) = build().await;
                sender.send(fixture).expect("the test waits");
                std::future::pending::<()>().await;
            });
        });
        receiver.recv().expect("the fixture was built")
    })
}

fn solved_position() -> (Position, i8) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    std::fs::read_to_string(path)
        .expect("reference positions")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (p, v) = l.split_once(' ')?;
            Some((p.parse::<Position>().ok()?, v.trim().parse().ok()?))
        })
        .find(|(p, _)| p.stone_count() >= 30)
        .expect("a position with 30 stones")
}

/// The cluster and its worker, kept running while the process lives.
type Running = (TestCluster, tokio::sync::watch::Sender<bool>);

async fn build() -> (Fixture, Running) {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let (stop_worker, _worker) = cluster.worker("web-test-worker", 2);
    let start = Position::START;
    let first = start
        .resolve(FIRST_MOVE.parse().expect("a move"))
        .expect("legal");
    let random = Player::Random;
    let config: UctConfig = "uct:policy=uniform".parse().expect("config");
    let solved = solved_position();
    let mut tasks: Vec<Task> = (0..12)
        .map(|_| Task::Selfplay {
            start,
            black: random.clone(),
            white: random.clone(),
        })
        .collect();
    for position in [start, start.play_unchecked(first)] {
        tasks.push(Task::Analyse {
            position,
            config: config.clone(),
            playouts: 4_000,
        });
    }
    tasks.push(Task::Solve { position: solved.0 });
    tasks.push(Task::Solitaire {
        variant: pentagrid_calculation::Variant::Standard,
        player: pentagrid_calculation::Player::Random,
        deals: 0..30,
        seed: 1,
    });
    let jobs = tasks.len() as u64;
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: tasks.iter().map(v2::JobSpec::from).collect(),
        })
        .await
        .expect("submit");
    // Evenly matched players: the Elo and its interval stay finite, so the chart has a curve.
    let match_pairs = 8;
    let match_id = client
        .create_match(v2::CreateMatchRequest {
            a: "random".into(),
            b: "random".into(),
            pairs: match_pairs,
            sprt: "elo0=0,elo1=100,alpha=0.05,beta=0.05".into(),
            openings: "random:plies=2".into(),
            seed: 3,
            accuracy_stones: Some(MATCH_ACCURACY_STONES),
            // A tournament of one match, so the tournament routes have one to show.
            tournament_kind: "round-robin".into(),
            // A whole-game control, refereed on the wall clock: the game viewer shows clocks.
            time_limit: FIXTURE_TIME_LIMIT.into(),
            ..v2::CreateMatchRequest::default()
        })
        .await
        .expect("match")
        .into_inner()
        .match_id;
    // A small tuning run of a cheap player's budget, played to the end before anything is read.
    let tune_id = client
        .create_tune(v2::CreateTuneRequest {
            base: "uct:playouts=20,exact=off".into(),
            params: vec!["playouts=10..100".into()],
            iterations: 3,
            pairs_per_iteration: 1,
            seed: 4,
            ..v2::CreateTuneRequest::default()
        })
        .await
        .expect("tune")
        .into_inner()
        .tune_id;
    pentagrid_client::tunes::follow(&client, tune_id, &mut |_| Ok(()))
        .await
        .expect("the tuning run ends");
    client
        .generate_puzzles(v2::GeneratePuzzlesRequest {
            candidates: 120,
            max_moves: 3,
            min_stones: 22,
            random_games: true,
            seed: 9,
            min_moves: 0,
        })
        .await
        .expect("puzzles");
    let started = Instant::now();
    loop {
        let status = cluster.status().await;
        let listing = client
            .list_puzzles(v2::ListPuzzlesRequest::default())
            .await
            .expect("list")
            .into_inner();
        if status.queued + status.leased == 0 && listing.pending == 0 {
            assert!(status.done > jobs, "{status:?}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "fixture jobs unfinished: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Every page of the collection, through the client library.
    let puzzles: Vec<Puzzle> = pentagrid_client::puzzles::list(
        &client,
        &pentagrid_client::puzzles::PuzzleFilter::default(),
    )
    .await
    .expect("list");
    assert!(!puzzles.is_empty(), "the fixture found no puzzles");
    let match_games = pentagrid_client::matches::record(&client, match_id)
        .await
        .expect("the match")
        .games;
    assert!(!match_games.is_empty(), "the fixture's match stored games");
    let base = start_explorer(&cluster, BookCacheSettings::default()).await;
    let fixture = Fixture {
        base,
        solved,
        puzzles,
        match_id,
        match_pairs,
        tune_id,
        match_games,
    };
    (fixture, (cluster, stop_worker))
}

/// Starts an explorer over `cluster` on 127.0.0.1, keeping book answers as `book_cache` says;
/// returns its URL.
pub async fn start_explorer(cluster: &TestCluster, book_cache: BookCacheSettings) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let source = Source::new(cluster.client());
    tokio::spawn(async move {
        pentagrid_web::serve(listener, source, book_cache, std::future::pending())
            .await
            .expect("serve");
    });
    base
}

/// Starts an explorer over `cluster` on 127.0.0.1 with connections bounded by `limits`;
/// returns its URL.
pub async fn start_explorer_with(
    cluster: &TestCluster,
    limits: pentagrid_connections::ConnectionLimits,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let source = Source::new(cluster.client());
    tokio::spawn(async move {
        let book_cache = BookCacheSettings::default();
        pentagrid_web::serve_with(listener, source, book_cache, limits, std::future::pending())
            .await
            .expect("serve");
    });
    base
}

/// Starts an explorer over `cluster` on 127.0.0.1 whose analysis board takes its exact values
/// from `exact`; returns its URL.
pub async fn start_explorer_exact(cluster: &TestCluster, exact: ExactBoard) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let source = Source::new(cluster.client());
    tokio::spawn(async move {
        let book_cache = BookCacheSettings::default();
        let limits = pentagrid_connections::ConnectionLimits::default();
        let shutdown = std::future::pending();
        pentagrid_web::serve_with_exact(listener, source, book_cache, limits, exact, shutdown)
            .await
            .expect("serve");
    });
    base
}

/// An HTTP answer.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `content-type` header.
    pub content_type: String,
    /// The `cache-control` header.
    pub cache_control: String,
    /// The `retry-after` header.
    pub retry_after: String,
    /// The body.
    pub body: String,
}

impl Answer {
    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// `GET url`.
pub async fn get(url: &str) -> Answer {
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<bytes::Bytes>>();
    let response = client
        .get(url.parse().expect("URL"))
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let content_type = header("content-type");
    let cache_control = header("cache-control");
    let retry_after = header("retry-after");
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    Answer {
        status,
        content_type,
        cache_control,
        retry_after,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// `GET <explorer>/api/v1/<path>`.
pub async fn api(path: &str) -> Answer {
    get(&format!("{}/api/v1/{path}", fixture().base)).await
}

/// Asserts that `answer` is a 400 JSON error about `parameter`, and returns its message.
pub fn assert_bad(answer: &Answer, parameter: &str) -> String {
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.content_type.starts_with("application/json"));
    let json = answer.json();
    assert_eq!(json["error"]["code"], "bad_parameter", "{json}");
    assert_eq!(json["error"]["parameter"], parameter, "{json}");
    let message = json["error"]["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(!message.is_empty());
    message
}
