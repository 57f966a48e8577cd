//! Online backups over a real server and a real sled database: a backup taken while a real
//! worker submits results is a single point in time, a restore of it opens with the same
//! status and exports as its source at that point, and a backup needs the admin role.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use pentago::Position;
use pentagrid_client::Client;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_edge::{Credentials, Grant, Role};
use pentagrid_embedded::EmbeddedCluster;
use pentagrid_embedded::backup::{BackupSummary, fetch, restore, verify};
use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{Task, reason_of, v2};
use pentagrid_tests::ServedCoordinator;
use tonic::Code;

fn analyse(playouts: u64) -> Task {
    Task::Analyse {
        position: Position::START,
        config: "uct".parse().unwrap(),
        playouts,
    }
}

fn selfplay() -> Task {
    Task::Selfplay {
        start: Position::START,
        black: "uct:playouts=50".parse().unwrap(),
        white: pentago::Player::Random,
    }
}

async fn status(client: &Client) -> v2::StatusResponse {
    client
        .clone()
        .status(v2::StatusRequest::default())
        .await
        .unwrap()
        .into_inner()
}

/// Every book row (with games, tables and proven values), in key order.
async fn book(client: &Client) -> Vec<v2::BookExportRow> {
    let (mut rows, mut from_key) = (Vec::new(), 0);
    loop {
        let request = v2::BookExportRequest {
            from_key,
            limit: 500,
            min_games: 0,
        };
        let page = client
            .clone()
            .book_export(request)
            .await
            .unwrap()
            .into_inner();
        rows.extend(page.rows);
        if page.next_key == 0 {
            return rows;
        }
        from_key = page.next_key;
    }
}

/// The stored games of `job_ids`, by job id.
async fn games(client: &Client, job_ids: &[u64]) -> BTreeMap<u64, v2::GameRecord> {
    let (mut games, mut offset) = (BTreeMap::new(), 0);
    loop {
        let request = v2::GetGamesRequest {
            job_ids: job_ids.to_vec(),
            offset,
            page_size: 100,
        };
        let page = client
            .clone()
            .get_games(request)
            .await
            .unwrap()
            .into_inner();
        games.extend(page.games.into_iter().map(|game| (game.job_id, game)));
        if page.next_offset == 0 {
            return games;
        }
        offset = page.next_offset;
    }
}

/// What a restored database must agree with inside itself and with its backup's trailer:
/// a copy that caught one result half-applied, or the trees at different moments, breaks
/// one of these.
async fn assert_consistent(client: &Client, summary: &BackupSummary, job_ids: &[u64]) {
    let status = status(client).await;
    let results = summary.trees["results"];
    assert_eq!(status.done, results, "done jobs against stored results");
    assert_eq!(
        status.games, summary.trees["games"],
        "games total against the games tree"
    );
    let stored = games(client, job_ids).await;
    assert_eq!(
        stored.len() as u64,
        status.games,
        "games total against stored games"
    );
    let rows = book(client).await;
    let with = |source: i32| {
        let mut keys: Vec<&str> = rows
            .iter()
            .filter(|row| row.source == source)
            .map(|row| row.position.as_str())
            .collect();
        keys.dedup();
        keys.len() as u64
    };
    assert_eq!(
        with(v2::TableSource::Playouts as i32),
        status.playout_positions,
        "positions with playout tables"
    );
    assert_eq!(
        with(v2::TableSource::Games as i32),
        status.game_positions,
        "positions with game tables"
    );
    assert_eq!(
        status.queued + status.leased + status.done + status.failed + status.cancelled,
        job_ids.len() as u64,
        "every job is in the backup"
    );
}

async fn wait_done_at_least(client: &Client, done: u64) -> u64 {
    let started = Instant::now();
    loop {
        let now = status(client).await.done;
        if now >= done {
            return now;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "only {now} jobs done"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_under_load_restores_to_its_point_and_a_quiet_one_to_equal_exports() {
    let dir = tempfile::tempdir().unwrap();
    let source_db = dir.path().join("source");
    let cluster = EmbeddedCluster::open(&source_db, 0, CoordinatorSettings::default())
        .await
        .unwrap();
    let client = cluster.client();
    let tasks: Vec<Task> = (0..400)
        .map(|i| {
            if i % 3 == 0 {
                selfplay()
            } else {
                analyse(200 + i)
            }
        })
        .collect();
    let job_ids = pentagrid_client::jobs::submit(&client, &tasks)
        .await
        .unwrap();
    let (stop_worker, worker) = cluster.worker("loader", 1);
    let before = wait_done_at_least(&client, 20).await;

    // Under load: the worker keeps submitting while the backup is copied and streamed.
    let loaded_file = dir.path().join("loaded.pgbak");
    let loaded = fetch(&client, &loaded_file).await.unwrap();
    let after = wait_done_at_least(&client, loaded.trees["results"] + 5).await;
    assert!(
        before <= loaded.trees["results"] && loaded.trees["results"] < after,
        "the backup ({}) is not between {before} and {after} results",
        loaded.trees["results"]
    );
    assert_eq!(verify(&loaded_file).unwrap(), loaded);

    // Quiet: the worker stopped (its leases returned), nothing moves.
    stop_worker.send(true).unwrap();
    worker.await.unwrap().unwrap();
    let quiet_file = dir.path().join("quiet.pgbak");
    let quiet = fetch(&client, &quiet_file).await.unwrap();
    let source_status = status(&client).await;
    let source_book = book(&client).await;
    let source_games = games(&client, &job_ids).await;
    assert!(source_status.done > loaded.trees["results"]);
    cluster.stop().await.unwrap();

    for (file, summary, name) in [
        (&loaded_file, &loaded, "loaded"),
        (&quiet_file, &quiet, "quiet"),
    ] {
        let restored_db = dir.path().join(format!("restored-{name}"));
        assert_eq!(&restore(file, &restored_db).unwrap(), summary);
        let restored = EmbeddedCluster::open(&restored_db, 0, CoordinatorSettings::default())
            .await
            .unwrap();
        let client = restored.client();
        assert_consistent(&client, summary, &job_ids).await;
        if name == "quiet" {
            let mut restored_status = status(&client).await;
            // Workers are the running cluster's, not the database's.
            restored_status.workers.clear();
            restored_status.worker_count = 0;
            let mut expected = source_status.clone();
            expected.workers.clear();
            expected.worker_count = 0;
            assert_eq!(restored_status, expected);
            assert_eq!(book(&client).await, source_book);
            assert_eq!(games(&client, &job_ids).await, source_games);
            // New jobs get ids the source never handed out.
            let new = pentagrid_client::jobs::submit(&client, &[analyse(10)])
                .await
                .unwrap();
            assert!(new[0] > *job_ids.iter().max().unwrap());
        }
        restored.stop().await.unwrap();
    }
}

#[tokio::test]
async fn only_an_admin_token_takes_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let credentials = Credentials::new(vec![
        (Grant::Role(Role::Worker), "worker-token".to_owned()),
        (Grant::Role(Role::Admin), "admin-token".to_owned()),
        (Grant::Role(Role::Read), "read-token".to_owned()),
    ])
    .unwrap();
    let db = dir.path().join("db");
    let served = ServedCoordinator::start(&db, CoordinatorSettings::default(), credentials).await;
    let out = dir.path().join("refused.pgbak");
    for token in ["worker-token", "read-token"] {
        let error = fetch(&served.client(token), &out).await.unwrap_err();
        let Some(pentagrid_client::ClientError::Rpc(status)) = error.client_error() else {
            panic!("{token}: {error}");
        };
        assert_eq!(status.code(), Code::PermissionDenied, "{token}");
        assert_eq!(reason_of(status), ErrorReason::Forbidden, "{token}");
        assert!(!out.exists(), "{token} left a file");
        assert_no_partial_files(dir.path());
    }
    let summary = fetch(&served.client("admin-token"), &out).await.unwrap();
    assert_eq!(summary, verify(&out).unwrap());
    served.stop().await;
}

fn assert_no_partial_files(dir: &Path) {
    let partial: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".partial-"))
        .collect();
    assert!(partial.is_empty(), "{partial:?}");
}
