//! The explorer's book cache against a real coordinator: an answer is served again until it is
//! as old as the cache allows, even after the book changed, and with the cache off every
//! request reads the coordinator.

use std::time::Duration;

use pentago::{Position, Symmetry};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_tests::TestCluster;
use pentagrid_web::BookCacheSettings;

use crate::support::{Answer, get, start_explorer};

async fn start_book(base: &str) -> Answer {
    get(&format!("{base}/api/v1/book?position=start")).await
}

fn playout_games(answer: &Answer) -> u64 {
    answer.json()["sources"]["playouts"]["total"]
        .as_u64()
        .expect("a total")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn book_answers_are_kept_for_their_max_age_and_not_with_the_cache_off() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    // Long enough that the kept answer cannot expire during the test.
    let kept = BookCacheSettings {
        max_age: Duration::from_secs(3_600),
        ..BookCacheSettings::default()
    };
    let caching = start_explorer(&cluster, kept).await;
    let uncached = start_explorer(&cluster, BookCacheSettings::OFF).await;
    for base in [&caching, &uncached] {
        let answer = start_book(base).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(playout_games(&answer), 0);
    }
    let row = pentagrid_client::book::ExportRow {
        position: Position::START,
        mv: Position::START.legal_moves()[0],
        source: pentagrid_client::book::TableSource::Playouts,
        games: 100,
        wins: 40,
        draws: 10,
        proven: None,
        proven_by: None,
    };
    pentagrid_client::book::import(&cluster.client(), &[row])
        .await
        .expect("import");

    let kept_answer = start_book(&caching).await;
    assert_eq!(playout_games(&kept_answer), 0, "the kept answer is served");
    assert_eq!(kept_answer.cache_control, "public, max-age=3600");
    let fresh_answer = start_book(&uncached).await;
    assert_eq!(playout_games(&fresh_answer), 100, "{}", fresh_answer.body);
    assert_eq!(fresh_answer.cache_control, "no-cache");
    // A turned position is another answer: each is in its asker's frame.
    let first = Position::START.play_unchecked(Position::START.legal_moves()[0]);
    let turned = Symmetry::ALL[1].apply(&first);
    assert_ne!(first, turned);
    for position in [first, turned] {
        let answer = get(&format!("{caching}/api/v1/book?position={position}")).await;
        assert_eq!(answer.json()["position"], position.to_string());
    }
}
