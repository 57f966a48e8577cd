//! A damaged database is caught at open: copies of a real database (made by an in-process
//! coordinator and worker finishing dozens of jobs) are damaged in several ways, then opened.
//! Each open is refused with a clear error, or, where sled's own checksums recover everything,
//! opens with every acknowledged result there. Never an open with less than was acknowledged,
//! never a panic.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use pentago::Position;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_embedded::EmbeddedCluster;
use pentagrid_proto::Task;
use pentagrid_store::manifest::{self, Fact};
use pentagrid_store::{OpenCheck, Store, StoreError, Totals};

const ANALYSES: usize = 50;
const GAMES: usize = 20;
const JOBS: u64 = (ANALYSES + GAMES) as u64;

/// The database every test copies: 70 finished jobs, flushed and closed.
struct Original {
    _dir: tempfile::TempDir,
    db: PathBuf,
    totals: Totals,
}

fn original() -> &'static Original {
    static ORIGINAL: OnceLock<Original> = OnceLock::new();
    ORIGINAL.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let cluster = EmbeddedCluster::open(&db, 1, CoordinatorSettings::default())
                .await
                .unwrap();
            let mut tasks = Vec::new();
            for _ in 0..ANALYSES {
                tasks.push(Task::Analyse {
                    position: Position::START,
                    config: "uct:policy=uniform".parse().unwrap(),
                    playouts: 400,
                });
            }
            for _ in 0..GAMES {
                tasks.push(Task::Selfplay {
                    start: Position::START,
                    black: pentago::Player::Random,
                    white: pentago::Player::Random,
                });
            }
            let client = cluster.client();
            pentagrid_client::jobs::submit(&client, &tasks)
                .await
                .unwrap();
            let started = std::time::Instant::now();
            while pentagrid_client::jobs::status(&client)
                .await
                .unwrap()
                .jobs
                .done
                < JOBS
            {
                assert!(started.elapsed() < Duration::from_secs(300), "jobs stuck");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cluster.stop().await.unwrap();
        });
        drop(runtime);
        // The stopped coordinator lets go of the database lock as its last tasks wind down.
        let started = std::time::Instant::now();
        let store = loop {
            match Store::open(&db) {
                Err(StoreError::Sled(_)) if started.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                opened => break opened.unwrap(),
            }
        };
        let totals = store.totals().unwrap();
        drop(store);
        assert_eq!(totals.results, JOBS);
        assert_eq!(totals.games, GAMES as u64);
        Original {
            _dir: dir,
            db,
            totals,
        }
    })
}

/// A copy of the original database to damage.
fn copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("db");
    copy_dir(&original().db, &to);
    (dir, to)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Opens a damaged copy: refused with one of the integrity errors, or open with every
/// acknowledged result and job. Returns whether it was refused.
fn open_damaged(db: &Path, damage: &str) -> bool {
    match Store::open(db) {
        Err(error) if integrity_refusal(&error) => {
            let text = error.to_string();
            assert!(text.contains("Restore a backup"), "{damage}: {text}");
            eprintln!("{damage}: refused: {text}");
            true
        }
        Err(other) => panic!("{damage}: not an integrity refusal: {other}"),
        Ok(store) => {
            assert_eq!(store.totals().unwrap(), original().totals, "{damage}");
            let done = store
                .load_jobs()
                .unwrap()
                .iter()
                .filter(|(_, job)| job.task.is_none())
                .count();
            assert_eq!(done as u64, JOBS, "{damage}: every finished job is there");
            eprintln!("{damage}: sled recovered everything");
            false
        }
    }
}

fn edit(path: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = fs::read(path).unwrap();
    change(&mut bytes);
    fs::write(path, bytes).unwrap();
}

#[test]
fn the_undamaged_copy_opens_with_everything() {
    let (_dir, db) = copy();
    assert!(!open_damaged(&db, "no damage"));
    let recorded = manifest::read(&db).unwrap().unwrap();
    assert_eq!(recorded.get(Fact::Results), JOBS);
    assert!(recorded.get(Fact::LastJob) >= JOBS);
}

#[test]
fn single_bit_flips_in_the_log_are_refused_or_lose_nothing() {
    let mut refused = 0;
    for share in [10, 50, 90] {
        for bit in [0, 5] {
            let (_dir, db) = copy();
            if bit == 5 {
                remove_snapshots(&db);
            }
            edit(&db.join("db"), |bytes| {
                let at = bytes.len() * share / 100;
                bytes[at] ^= 1 << bit;
            });
            refused += usize::from(open_damaged(
                &db,
                &format!(
                    "bit {bit} flipped at {share}% (snapshot removed: {})",
                    bit == 5
                ),
            ));
        }
    }
    eprintln!("{refused} of 6 flips refused");
}

#[test]
fn a_truncated_log_is_refused_or_loses_nothing() {
    for without_snapshot in [false, true] {
        for keep in [0, 10, 50, 90] {
            let (_dir, db) = copy();
            if without_snapshot {
                remove_snapshots(&db);
            }
            edit(&db.join("db"), |bytes| {
                bytes.truncate(bytes.len() * keep / 100)
            });
            let damage = format!("truncated to {keep}%, snapshot removed: {without_snapshot}");
            let refused = open_damaged(&db, &damage);
            assert!(
                refused || keep > 0,
                "{damage}: an empty log cannot hold it all"
            );
        }
    }
}

/// Removes sled's snapshot files, so that it recovers from the log alone.
fn remove_snapshots(db: &Path) {
    for entry in fs::read_dir(db).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("snap.")
        {
            fs::remove_file(path).unwrap();
        }
    }
}

#[test]
fn a_zeroed_head_is_refused() {
    let (_dir, db) = copy();
    edit(&db.join("db"), |bytes| {
        let end = 64.min(bytes.len());
        bytes[..end].fill(0);
    });
    assert!(open_damaged(&db, "zeroed head"));
}

#[test]
fn a_zeroed_block_in_the_middle_is_refused_or_loses_nothing() {
    let (_dir, db) = copy();
    edit(&db.join("db"), |bytes| {
        let middle = bytes.len() / 2;
        let end = (middle + 4096).min(bytes.len());
        bytes[middle..end].fill(0);
    });
    open_damaged(&db, "4 KiB zeroed in the middle");
}

#[test]
fn a_deleted_log_is_refused() {
    let (_dir, db) = copy();
    fs::remove_file(db.join("db")).unwrap();
    remove_snapshots(&db);
    assert!(matches!(Store::open(&db), Err(StoreError::DataLoss { .. })));
}

#[test]
fn a_damaged_manifest_is_refused_and_changes_nothing() {
    let (_dir, db) = copy();
    let path = db.join(manifest::FILE_NAME);
    edit(&path, |bytes| bytes[30] ^= 0x04);
    let before = fs::read(&path).unwrap();
    let error = Store::open(&db).err().expect("refused");
    assert!(matches!(error, StoreError::Manifest { .. }), "{error}");
    assert!(error.can_be_accepted(), "{error}");
    assert!(error.to_string().contains("accepting the loss"), "{error}");
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "the manifest is left as found"
    );
    // Going on past it rewrites it from what the database holds.
    let store = Store::open_checked(&db, OpenCheck::AcceptDataLoss).unwrap();
    assert_eq!(store.totals().unwrap(), original().totals);
    drop(store);
    assert!(Store::open(&db).is_ok());
}

#[test]
fn a_lost_shortfall_is_named_and_accepting_it_goes_on_with_what_is_left() {
    let (_dir, db) = copy();
    // A manifest claiming more than the database holds: as after sled cut a damaged log.
    let mut claimed = manifest::read(&db).unwrap().unwrap();
    claimed.set(Fact::Results, JOBS + 4);
    claimed.set(Fact::Games, GAMES as u64 + 1);
    manifest::write(&db, &claimed).unwrap();
    let error = Store::open(&db).err().expect("refused");
    let text = error.to_string();
    assert!(
        text.contains(&format!(
            "the manifest records {} applied results, the database holds {JOBS} applied results",
            JOBS + 4
        )),
        "{text}"
    );
    assert!(text.contains("stored games"), "{text}");
    let StoreError::DataLoss { shortfalls, .. } = error else {
        panic!("not a data loss: {text}");
    };
    assert_eq!(shortfalls.len(), 2);
    let store = Store::open_checked(&db, OpenCheck::AcceptDataLoss).unwrap();
    assert_eq!(store.totals().unwrap(), original().totals);
    drop(store);
    let rewritten = manifest::read(&db).unwrap().unwrap();
    assert_eq!(rewritten.get(Fact::Results), JOBS);
    assert!(
        Store::open(&db).is_ok(),
        "the smaller state is the new normal"
    );
}

#[test]
fn a_database_whose_manifest_was_deleted_is_refused_until_adopted() {
    let (_dir, db) = copy();
    fs::remove_file(db.join(manifest::FILE_NAME)).unwrap();
    let error = open_released(&db).err().expect("refused");
    assert!(
        matches!(error, StoreError::MissingManifest { .. }),
        "{error}"
    );
    assert!(integrity_refusal(&error), "{error}");
    assert!(error.can_be_accepted(), "{error}");
    assert!(error.to_string().contains("accepting the loss"), "{error}");
    assert!(manifest::read(&db).unwrap().is_none(), "nothing written");
    // Accepting the loss adopts the database as it is, with a new manifest.
    let store = Store::open_checked(&db, OpenCheck::AcceptDataLoss).unwrap();
    assert_eq!(store.totals().unwrap(), original().totals);
    drop(store);
    let adopted = manifest::read(&db).unwrap().expect("written at adoption");
    assert_eq!(adopted.get(Fact::Results), JOBS);
    assert!(open_released(&db).is_ok());
}

#[test]
fn adopt_ignores_the_manifest_and_rewrites_it() {
    let (_dir, db) = copy();
    fs::write(db.join(manifest::FILE_NAME), b"rubbish").unwrap();
    let store = Store::open_checked(&db, OpenCheck::Adopt).unwrap();
    assert_eq!(store.totals().unwrap(), original().totals);
    drop(store);
    assert_eq!(
        manifest::read(&db).unwrap().unwrap().get(Fact::Results),
        JOBS
    );
}

#[test]
fn a_fresh_database_opens_and_gets_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new");
    let store = Store::open(&db).unwrap();
    assert_eq!(store.totals().unwrap(), Totals::default());
    drop(store);
    assert!(manifest::read(&db).unwrap().is_some());
    assert!(Store::open(&db).is_ok());
}

/// Whether `error` is one of the integrity refusals, each with its way out.
fn integrity_refusal(error: &StoreError) -> bool {
    let text = error.to_string();
    let known = matches!(
        error,
        StoreError::DataLoss { .. }
            | StoreError::LostWrites { .. }
            | StoreError::StaleManifest { .. }
            | StoreError::ForeignManifest { .. }
            | StoreError::MissingManifest { .. }
            | StoreError::Damaged { .. }
            | StoreError::Manifest { .. }
    );
    known && text.contains("estore a backup")
}

/// The state after acknowledged writes that change no count: `CANCELLED` jobs queued and
/// cancelled, and one proven value imported without counts, on a copy of the original.
struct Acknowledged {
    _dir: tempfile::TempDir,
    db: PathBuf,
    cancelled: Vec<u64>,
    proven_key: u64,
    /// The log before those writes.
    log_before: Vec<u8>,
}

const CANCELLED: usize = 5;

fn acknowledged() -> Acknowledged {
    let (dir, db) = copy();
    let log_before = fs::read(db.join("db")).unwrap();
    let position = Position::START;
    let mv = pentago::MoveGroups::of(&position, true)
        .iter()
        .next()
        .unwrap()[0];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cancelled = runtime.block_on(async {
        // No workers: the jobs stay queued until cancelled.
        let cluster = EmbeddedCluster::open(&db, 0, CoordinatorSettings::default())
            .await
            .unwrap();
        let client = cluster.client();
        let tasks = vec![
            Task::Solve {
                position: Position::START,
            };
            CANCELLED
        ];
        let ids = pentagrid_client::jobs::submit(&client, &tasks)
            .await
            .unwrap();
        let cancelled = pentagrid_client::jobs::cancel(&client, &ids).await.unwrap();
        assert_eq!(cancelled.cancelled as usize, CANCELLED);
        let row = pentagrid_client::book::ExportRow {
            position,
            mv,
            source: pentagrid_client::book::TableSource::Playouts,
            games: 0,
            wins: 0,
            draws: 0,
            proven: Some(pentago::Value::Draw),
            proven_by: None,
        };
        pentagrid_client::book::import(&client, &[row])
            .await
            .unwrap();
        cluster.stop().await.unwrap();
        ids
    });
    drop(runtime);
    let started = std::time::Instant::now();
    let store = loop {
        match Store::open(&db) {
            Err(StoreError::Sled(_)) if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            opened => break opened.unwrap(),
        }
    };
    let acknowledged = Acknowledged {
        _dir: dir,
        db,
        cancelled,
        proven_key: position.key().bits(),
        log_before,
    };
    assert!(served_whole(&store, &acknowledged));
    acknowledged
}

/// Whether `store` holds every acknowledged write of `acknowledged`.
fn served_whole(store: &Store, acknowledged: &Acknowledged) -> bool {
    let cancelled = acknowledged.cancelled.iter().all(|id| {
        store
            .job(*id)
            .unwrap()
            .is_some_and(|job| job.state == pentagrid_coordinator::JobState::Cancelled)
    });
    let proven = !store
        .proven_table(acknowledged.proven_key)
        .unwrap()
        .is_empty();
    cancelled && proven && store.totals().unwrap() == original().totals
}

#[test]
fn bit_flips_in_the_tail_of_acknowledged_cancellations_and_imports_are_refused_or_lose_nothing() {
    let acknowledged = acknowledged();
    let after = fs::read(acknowledged.db.join("db")).unwrap();
    // The tail: every byte those writes (and the open after them) changed.
    let changed: Vec<usize> = (0..after.len())
        .filter(|i| acknowledged.log_before.get(*i) != Some(&after[*i]))
        .collect();
    assert!(!changed.is_empty());
    let mut refused = 0;
    let picks = [
        0,
        changed.len() / 4,
        changed.len() / 2,
        changed.len() * 3 / 4,
        changed.len() - 1,
    ];
    for (n, pick) in picks.into_iter().enumerate() {
        let at = changed[pick];
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        copy_dir(&acknowledged.db, &db);
        edit(&db.join("db"), |bytes| bytes[at] ^= 1 << (n % 8));
        match Store::open(&db) {
            Err(error) => {
                assert!(integrity_refusal(&error), "flip at {at}: {error}");
                eprintln!("flip at {at}: refused: {error}");
                refused += 1;
            }
            Ok(store) => {
                let whole = served_whole(&store, &acknowledged);
                assert!(whole, "flip at {at}: served without an acknowledged write");
            }
        }
    }
    eprintln!("{refused} of {} flips refused", picks.len());
}

#[test]
fn a_tail_cut_off_after_acknowledged_cancellations_is_refused() {
    let acknowledged = acknowledged();
    let after = fs::read(acknowledged.db.join("db")).unwrap();
    let first_change = (0..after.len())
        .find(|i| acknowledged.log_before.get(*i) != Some(&after[*i]))
        .unwrap();
    // Everything from the first byte those writes changed is zeroed, as a lost tail reads.
    edit(&acknowledged.db.join("db"), |bytes| {
        bytes[first_change..].fill(0)
    });
    remove_snapshots(&acknowledged.db);
    match Store::open(&acknowledged.db) {
        Err(error) => assert!(integrity_refusal(&error), "{error}"),
        Ok(store) => assert!(served_whole(&store, &acknowledged)),
    }
}

#[test]
fn an_older_manifest_over_a_newer_database_is_refused() {
    let (_dir, db) = copy();
    let older = fs::read(db.join(manifest::FILE_NAME)).unwrap();
    // More acknowledged writes, each flushed: the database moves past that manifest.
    let store = Store::open(&db).unwrap();
    for _ in 0..3 {
        let id = store.generate_id().unwrap();
        store
            .put_job(
                id,
                &pentagrid_coordinator::Job::in_state(pentagrid_coordinator::JobState::Cancelled),
            )
            .unwrap();
        store.flush_blocking().unwrap();
    }
    drop(store);
    let newer = manifest::read(&db).unwrap().unwrap();
    fs::write(db.join(manifest::FILE_NAME), &older).unwrap();
    let error = open_released(&db).err().expect("refused");
    assert!(matches!(error, StoreError::StaleManifest { .. }), "{error}");
    assert!(
        error.to_string().contains("older than the database"),
        "{error}"
    );
    assert!(error.can_be_accepted(), "{error}");
    assert!(error.to_string().contains("accepting the loss"), "{error}");
    assert_eq!(
        fs::read(db.join(manifest::FILE_NAME)).unwrap(),
        older,
        "left as found"
    );
    // The newer manifest, put back, opens it.
    manifest::write(&db, &newer).unwrap();
    assert!(open_released(&db).is_ok());
}

#[test]
fn another_databases_manifest_is_refused() {
    let (_dir, db) = copy();
    let (_other_dir, other) = copy();
    // The copy is a database of its own once it has an identity of its own.
    drop(Store::open_checked(&other, OpenCheck::Adopt).unwrap());
    let theirs = manifest::read(&other).unwrap().unwrap();
    let ours = manifest::read(&db).unwrap().unwrap();
    assert_ne!(theirs.identity, ours.identity);
    manifest::write(&db, &theirs).unwrap();
    let error = open_released(&db).err().expect("refused");
    assert!(
        matches!(error, StoreError::ForeignManifest { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("not this database's"), "{error}");
    // A manifest from before identities over a database that has one is refused too.
    let mut old = ours;
    old.identity = None;
    manifest::write(&db, &old).unwrap();
    let error = open_released(&db).err().expect("refused");
    assert!(
        matches!(error, StoreError::ForeignManifest { .. }),
        "{error}"
    );
}

#[test]
fn all_zero_manifests_with_valid_checksums_are_refused() {
    let (_dir, db) = copy();
    for identity in [
        None,
        Some(pentagrid_store::Identity(0)),
        Some(pentagrid_store::Identity(7)),
    ] {
        let zero = manifest::Manifest {
            identity,
            generation: 0,
            facts: manifest::Facts::default(),
        };
        manifest::write(&db, &zero).unwrap();
        let error = open_released(&db).err().expect("refused");
        assert!(
            matches!(error, StoreError::Manifest { .. }),
            "{identity:?}: {error}"
        );
    }
}

#[test]
fn a_manifest_that_is_no_regular_file_or_too_large_is_refused_without_waiting() {
    let (_dir, db) = copy();
    let path = db.join(manifest::FILE_NAME);
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let error = open_released(&db).err().expect("refused");
    assert!(error.to_string().contains("not a regular file"), "{error}");
    fs::remove_file(&path).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(made.success());
    let error = open_released(&db).err().expect("refused");
    assert!(error.to_string().contains("a FIFO"), "{error}");
    fs::remove_file(&path).unwrap();
    fs::write(&path, vec![0u8; 10 << 20]).unwrap();
    let error = open_released(&db).err().expect("refused");
    assert!(
        matches!(
            error,
            StoreError::Manifest {
                error: manifest::ManifestError::TooLarge(_),
                ..
            }
        ),
        "{error}"
    );
    // --accept-data-loss replaces any of them with a manifest of what the database holds.
    let store = Store::open_checked(&db, OpenCheck::AcceptDataLoss).unwrap();
    assert_eq!(store.totals().unwrap(), original().totals);
    drop(store);
    assert!(open_released(&db).is_ok());
}

/// Opens `db`, waiting while an earlier handle still lets go of its lock.
fn open_released(db: &Path) -> Result<Store, StoreError> {
    let started = std::time::Instant::now();
    loop {
        match Store::open(db) {
            Err(StoreError::Sled(_)) if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            opened => return opened,
        }
    }
}
