//! Bulk reads and writes in pages and batches over a real coordinator and real workers: games,
//! a match's games, puzzles and job submissions each span several pages (or batches) that
//! together give everything, every reply stays well below the message cap, and a bad page is
//! refused with INVALID_ARGUMENT and a message naming what was wrong.

use std::time::{Duration, Instant};

use pentago::{Opening, Position};
use pentagrid_client::{jobs, matches, puzzles, study};
use pentagrid_coordinator::{CoordinatorSettings, MAX_JOBS_PER_SUBMISSION};
use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{MAX_MESSAGE_BYTES, Task, reason_of, v2};
use pentagrid_tablebase::Tablebase;
use pentagrid_tests::TestCluster;
use prost::Message;
use tonic::{Code, Status};

/// "Well below the cap": a quarter of it.
const WELL_BELOW: usize = MAX_MESSAGE_BYTES / 4;

fn random_game() -> Task {
    Task::Selfplay {
        start: Position::START,
        black: "random".parse().unwrap(),
        white: "random".parse().unwrap(),
    }
}

fn analyse() -> Task {
    Task::Analyse {
        position: Position::START,
        config: "uct".parse().unwrap(),
        playouts: 100,
    }
}

/// Asserts `refused` is INVALID_ARGUMENT with the typed reason and a message containing
/// `needle`.
fn assert_invalid(refused: &Status, needle: &str) {
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert_eq!(reason_of(refused), ErrorReason::InvalidArgument);
    assert!(refused.message().contains(needle), "{}", refused.message());
}

/// Plays `count` random self-play games on the cluster's workers; returns their job ids.
async fn play_games(cluster: &TestCluster, count: usize) -> Vec<u64> {
    let before = cluster.status().await.done;
    let ids = jobs::submit(&cluster.client(), &vec![random_game(); count])
        .await
        .unwrap();
    cluster
        .wait_done(before + count as u64, Duration::from_secs(600))
        .await;
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn games_come_in_pages_that_together_give_every_game() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let _worker = cluster.worker("w", 2);
    let ids = play_games(&cluster, 23).await;
    let client = cluster.client();

    // Pages of 5 ids: 5 calls, each under the cap, the games in the ids' order.
    let (mut offset, mut pages, mut paged) = (0, 0, Vec::new());
    loop {
        let page = client
            .clone()
            .get_games(v2::GetGamesRequest {
                job_ids: ids.clone(),
                offset,
                page_size: 5,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.encoded_len() < WELL_BELOW);
        assert!(page.games.len() <= 5);
        pages += 1;
        paged.extend(page.games);
        if page.next_offset == 0 {
            break;
        }
        offset = page.next_offset;
    }
    assert_eq!(pages, 5);
    let order: Vec<u64> = paged.iter().map(|g| g.job_id).collect();
    assert_eq!(order, ids);
    assert!(paged.iter().all(|g| !g.moves.is_empty()));

    // The library reads every page, here with ids that hold no game mixed in: 25,000 ids span
    // three calls' worth of ids and many pages, and only the real games come back.
    let read: Vec<(u64, Vec<String>)> = paged.iter().map(|g| (g.job_id, g.moves.clone())).collect();
    let library = |games: Vec<study::SelfplayGame>| -> Vec<(u64, Vec<String>)> {
        games
            .iter()
            .map(|g| (g.job_id, g.moves.iter().map(ToString::to_string).collect()))
            .collect()
    };
    assert_eq!(
        library(study::games_in_pages(&client, &ids, 4).await.unwrap()),
        read
    );
    let mut many: Vec<u64> = (1_000_000..1_024_977).collect();
    many.extend(&ids);
    assert_eq!(library(study::games(&client, &many).await.unwrap()), read);

    // Bad pages are refused, naming what was wrong.
    let ask = |job_ids: Vec<u64>, offset, page_size| {
        let mut client = client.clone();
        async move {
            client
                .get_games(v2::GetGamesRequest {
                    job_ids,
                    offset,
                    page_size,
                })
                .await
                .unwrap_err()
        }
    };
    assert_invalid(
        &ask(ids.clone(), 0, 501).await,
        "page_size must be at most 500, not 501",
    );
    assert_invalid(
        &ask(ids.clone(), 24, 0).await,
        "offset 24 is past the end (23)",
    );
    assert_invalid(
        &ask(vec![1; 10_001], 0, 0).await,
        "at most 10000 game ids per call, not 10001",
    );
    cluster.stop().await;
}

async fn finished_match(cluster: &TestCluster, pairs: u64) -> u64 {
    let match_id = cluster
        .client()
        .create_match(v2::CreateMatchRequest {
            a: "random".into(),
            b: "random".into(),
            pairs,
            sprt: String::new(),
            openings: String::new(),
            seed: 5,
            accuracy_stones: None,
            ..v2::CreateMatchRequest::default()
        })
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let started = Instant::now();
    loop {
        let report = matches::status(&cluster.client(), match_id, false)
            .await
            .unwrap();
        if report.state != matches::MatchState::Running {
            assert_eq!(report.state, matches::MatchState::Complete);
            return match_id;
        }
        assert!(started.elapsed() < Duration::from_secs(1200), "{report:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every game of a match read in pages of `page_pairs`: two per pair, in pair order.
async fn check_all_games(cluster: &TestCluster, match_id: u64, pairs: u64, page_pairs: u32) {
    let report = matches::status_in_pages(&cluster.client(), match_id, true, page_pairs)
        .await
        .unwrap();
    let order: Vec<u64> = report.games.iter().map(|g| g.pair).collect();
    let expected: Vec<u64> = (0..pairs).flat_map(|p| [p, p]).collect();
    assert_eq!(order, expected);
    assert_eq!(report.pairs_done, pairs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_matchs_games_come_in_pages_of_pairs() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let _worker = cluster.worker("w", 2);
    let match_id = finished_match(&cluster, 11).await;
    let mut client = cluster.client();
    let page = |games_from_pair, games_page_pairs| v2::MatchStatusRequest {
        match_id,
        include_games: true,
        games_from_pair,
        games_page_pairs,
    };
    let first = client.match_status(page(0, 4)).await.unwrap().into_inner();
    assert_eq!(first.games.len(), 8);
    assert_eq!(first.next_games_from_pair, 4);
    let last = client.match_status(page(8, 4)).await.unwrap().into_inner();
    assert_eq!(last.games.len(), 6);
    assert_eq!(last.next_games_from_pair, 0, "the last page says so");
    check_all_games(&cluster, match_id, 11, 4).await;
    check_all_games(&cluster, match_id, 11, 0).await;

    for (request, needle) in [
        (
            page(0, 251),
            "games_page_pairs must be at most 250, not 251",
        ),
        (page(12, 0), "games_from_pair 12 is past the end (11)"),
    ] {
        assert_invalid(&client.match_status(request).await.unwrap_err(), needle);
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn submissions_over_the_cap_are_refused_and_the_client_batches() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let specs = vec![v2::JobSpec::from(&analyse()); MAX_JOBS_PER_SUBMISSION + 1];
    let refused = cluster
        .client()
        .submit_jobs(v2::SubmitJobsRequest { jobs: specs })
        .await
        .unwrap_err();
    assert_invalid(&refused, "at most 1000 jobs per call, not 1001");
    assert_eq!(cluster.status().await.queued, 0, "nothing was queued");

    let count = 2 * MAX_JOBS_PER_SUBMISSION + 345;
    let ids = jobs::submit(&cluster.client(), &vec![analyse(); count])
        .await
        .unwrap();
    assert_eq!(ids.len(), count);
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ids in order, distinct"
    );
    assert_eq!(cluster.status().await.queued, count as u64);
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn puzzles_come_in_pages_and_one_by_its_key() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let _worker = cluster.worker("w", 2);
    let client = cluster.client();
    let goal = puzzles::Goal {
        count: 3,
        max_moves: 3,
        min_moves: 0,
        min_stones: 20,
        stored_only: false,
        seed: 3,
        rounds: 10,
    };
    puzzles::generate(&client, &goal, &mut |_| {})
        .await
        .unwrap();
    let all = puzzles::list(&client, &pentagrid_client::puzzles::PuzzleFilter::default())
        .await
        .unwrap();
    assert!(all.len() >= 2, "{} puzzles", all.len());

    // One per page: page k holds the k-th puzzle, and each reads back by its key.
    let mut mine = client.clone();
    let page = |page, page_size| v2::ListPuzzlesRequest {
        page,
        page_size,
        ..v2::ListPuzzlesRequest::default()
    };
    for (index, puzzle) in all.iter().enumerate() {
        let reply = mine
            .list_puzzles(page(index as u32 + 1, 1))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reply.total, all.len() as u64);
        assert_eq!(reply.puzzles_json.len(), 1);
        assert!(reply.encoded_len() < WELL_BELOW);
        let key = puzzle.position.key().bits();
        let one = puzzles::get(&client, key).await.unwrap();
        assert_eq!(&one, puzzle);
        let json = mine
            .get_puzzle(v2::GetPuzzleRequest { key })
            .await
            .unwrap()
            .into_inner()
            .puzzle_json;
        assert_eq!(reply.puzzles_json[0], json);
    }

    let missing = mine
        .get_puzzle(v2::GetPuzzleRequest {
            key: Position::START.key().bits(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
    let past = all.len() as u32 + 1;
    for (request, needle) in [
        (page(past, 1), format!("page {past} is past the end")),
        (
            page(1, 101),
            "page_size must be at most 100, not 101".into(),
        ),
        (
            v2::ListPuzzlesRequest {
                theme: "nonsense".into(),
                ..v2::ListPuzzlesRequest::default()
            },
            "bad theme \"nonsense\"".into(),
        ),
        (
            v2::ListPuzzlesRequest {
                level: "trivial".into(),
                ..v2::ListPuzzlesRequest::default()
            },
            "bad level \"trivial\"".into(),
        ),
    ] {
        assert_invalid(&mine.list_puzzles(request).await.unwrap_err(), &needle);
    }
    let bad_key = mine
        .get_puzzle(v2::GetPuzzleRequest { key: u64::MAX })
        .await
        .unwrap_err();
    assert_invalid(&bad_key, "bad puzzle key");
    cluster.stop().await;
}

/// About 4 minutes in debug (20,000 jobs, each result made durable before it is acknowledged);
/// the always-run tests above span several pages of games the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "heavy (20,000 games, about 4 minutes in debug): run with --ignored, in release"]
async fn a_study_of_twenty_thousand_games_reads_them_all() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let _workers = [cluster.worker("w1", 4), cluster.worker("w2", 4)];
    let plan = study::StudyPlan {
        budget: 200,
        depth: 0,
        positions: 1,
        playouts: 100,
        solve_stones: 0,
        deep_from: 0,
        games: 20_000,
        player: "random".parse().unwrap(),
        config: "uct".parse().unwrap(),
    };
    let report = study::study(
        &cluster.client(),
        Opening::MonicasFive,
        &plan,
        &Tablebase::shipped().unwrap(),
        &mut |_| {},
    )
    .await
    .unwrap();
    assert_eq!(report.games, 20_000);
    assert_eq!(report.black_wins + report.white_wins + report.draws, 20_000);
    cluster.stop().await;
}

/// About 20 s in debug: cheap enough to run always (random players, two workers).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_match_of_five_thousand_pairs_reads_all_its_games() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let _workers = [cluster.worker("w1", 4), cluster.worker("w2", 4)];
    let match_id = finished_match(&cluster, 5_000).await;
    let mut client = cluster.client();
    let full = client
        .match_status(v2::MatchStatusRequest {
            match_id,
            include_games: true,
            ..v2::MatchStatusRequest::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(full.games.len(), 500, "a default page is 250 pairs");
    assert!(full.encoded_len() < WELL_BELOW, "{}", full.encoded_len());
    check_all_games(&cluster, match_id, 5_000, 0).await;
    cluster.stop().await;
}
