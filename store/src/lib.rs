//! Storage: the only crate that touches sled (Cargo keeps it so: no other crate depends on
//! sled). Everything else uses this typed API, so the storage engine can be replaced here alone.
//! Beside the trees it holds the domain records it stores — jobs ([`job`]), games ([`game`]),
//! matches ([`match_record`]), tuning runs ([`tune_record`]), book builds ([`build_record`]),
//! deep solves ([`deep_record`]) and claims ([`claim`]) — so that it depends on no service.
//!
//! Trees: `jobs` (job id → [`StoredJob`]), `results` (result id → job id), `playouts` and
//! `game_tables` (canonical position key → move table, see [`table`]), `games` (job id →
//! [`StoredGame`]), `matches` (match id → [`StoredMatch`], match id ‖ pair index →
//! [`StoredPair`]), `puzzles` (canonical position key → the puzzle's stable JSON form),
//! `candidates` (canonical position key → one [`CandidateState`] byte), `proven`, `builds` and
//! `build_nodes` (see [`book`]), `build_deep` (the deep solves of builds, see
//! [`build_deep`]; exact values propagate up through the stored tables, see
//! [`propagate`]), `meta` (`totals` → [`Totals`]), `quarantine` (job id → the
//! raw bytes of a job record found unreadable at open, set aside so it neither blocks start-up
//! nor sits "queued" forever), `claims` and `flagged_workers` (cross-checks, see [`claims`]),
//! `deep_solves` and `deep_leaves` (deep solves and their proven leaves, see [`deep`]).
//! `solitaire` (solitaire deals and their totals, see [`solitaire`]), `imports` (the digests
//! of imported books, see [`book`]), `on_word` (the exact values each worker's results stored
//! on its word alone, to purge if it is caught lying, see [`word`]), `contributions` (each
//! worker's summed playout rows per position, to take back out of the book if it is caught,
//! see [`contributions`]), `game_contributions` (the same for its self-play games' rows in
//! `game_tables`), `sign_tallies` (the analysis cross-check's tally per worker, see
//! [`tallies`]), `worker_keys` (a digest of each worker's key, so that a restart does not hand
//! its id to another caller, see [`worker_keys`]), `tunes` (tuning runs and their steps, see
//! [`tunes`]).
//! Every write holds the write gate shared, so that a backup (see [`backup`]) can stop them all
//! for a consistent copy.
//! Ids and keys are 8 big-endian bytes. Every format here is stable:
//! records are the store's own protobuf messages (see [`records`]), never wire messages.
//!
//! Integrity: beside sled's files the directory holds the [`manifest`], a small checksummed
//! file in a stable format, rewritten after each flush that changed what it records (results
//! applied, running totals, puzzles, highest job, match, build and handed-out ids). Opening
//! compares it with what sled recovered and refuses any shortfall ([`StoreError::DataLoss`]),
//! a damaged manifest, and sled failing or panicking on damaged files, so that nothing
//! acknowledged goes missing unnoticed. It cannot see a loss that leaves these counts and ids
//! whole (a damaged table whose position count survives). A database from before manifests
//! (it has no identity) is adopted as it is; one that has kept a manifest and lost it is
//! refused ([`StoreError::MissingManifest`]).

mod access;
mod answer;
pub mod backup;
pub mod book;
mod build_deep;
pub mod build_record;
pub mod claim;
pub mod claims;
pub mod contributions;
pub mod deep;
pub mod deep_record;
mod demote;
mod error;
pub mod game;
mod games;
mod integrity;
pub mod job;
pub mod manifest;
pub mod match_record;
pub mod match_records;
mod propagate;
mod puzzles;
pub mod records;
mod results;
pub mod solitaire;
pub mod table;
pub mod tallies;
mod tune_purge;
pub mod tune_record;
pub mod tunes;
pub mod word;
pub mod worker_keys;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

use prost::Message;

use puzzles::CandidateTally;

use crate::game::Game;
use crate::job::Job;

pub use book::{
    BookEntry, ImportMark, ImportOutcome, Proven, ProvenRows, ProvenTable, add_values, rows_of,
    values_of,
};
pub use claims::{ReleasedClaim, StoredAnswer, StoredClaim, StoredFlags, UnreadableClaim};
pub use contributions::TakenBack;
pub use deep::StoredDeepSolve;
pub use manifest::{Identity, ManifestError, OpenCheck, Shortfall};
pub use match_records::{PurgedPair, StoredAccuracy, StoredMatch, StoredPair};
pub use propagate::{MAX_PROPAGATION_VISITS, Propagated, position_value};
pub use puzzles::CandidateCounts;
pub use records::{
    CandidateState, StoredBuild, StoredForfeit, StoredGame, StoredJob, StoredTask, Totals,
};
pub use results::{Applied, Flag, PairEffect, ResultEffect, WordSource};
pub use solitaire::{DealResult, SolitaireEffect, SolitaireSums};
pub use table::{Counts, Table};
pub use tallies::SignTally;
pub use tunes::{StoredTune, StoredTuneStep};
pub use word::{Purged, StoredWord};

pub(crate) use access::{
    add_count, all_records, get_record, id_of, merge_tables, pair_key, put_record, read_table,
    read_u64, totals_in,
};
pub use error::StoreError;
pub(crate) use error::abort;
pub use error::corrupt;

/// The coordinator's database.
pub struct Store {
    db: sled::Db,
    /// The database's directory.
    path: PathBuf,
    /// Held shared by every write, exclusively by a backup's copy (see [`backup`]).
    write_gate: RwLock<()>,
    /// Added to sled's id counter: every id the source of a restored database handed out is
    /// below it (0 for a database never restored).
    id_base: u64,
    jobs: sled::Tree,
    results: sled::Tree,
    playouts: sled::Tree,
    game_tables: sled::Tree,
    games: sled::Tree,
    matches: sled::Tree,
    puzzles: sled::Tree,
    candidates: sled::Tree,
    proven: sled::Tree,
    builds: sled::Tree,
    build_nodes: sled::Tree,
    build_deep: sled::Tree,
    meta: sled::Tree,
    quarantine: sled::Tree,
    claims: sled::Tree,
    flagged_workers: sled::Tree,
    deep_solves: sled::Tree,
    deep_leaves: sled::Tree,
    solitaire: sled::Tree,
    imports: sled::Tree,
    on_word: sled::Tree,
    contributions: sled::Tree,
    game_contributions: sled::Tree,
    sign_tallies: sled::Tree,
    worker_keys: sled::Tree,
    tunes: sled::Tree,
    /// Purges made since open (see [`word`]).
    purges: AtomicU64,
    /// How many puzzles are stored (they are never removed), raised after each commit.
    stored_puzzles: AtomicU64,
    /// The candidates tree's counts by state.
    candidate_tally: CandidateTally,
    /// The integrity manifest, written after each flush.
    manifest: Arc<manifest::Keeper>,
}

/// What [`Store::sizes`] measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreSizes {
    /// Bytes the database takes on disk.
    pub bytes_on_disk: u64,
    /// Stored puzzles.
    pub puzzles: u64,
    /// Stored matches.
    pub matches: u64,
}

const TOTALS: &[u8] = b"totals";

impl Store {
    /// Opens (or creates) the database in `path` and checks it against its manifest
    /// ([`OpenCheck::Verify`]); see [`Store::open_checked`].
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_checked(path, OpenCheck::Verify)
    }

    /// Opens (or creates) the database in `path`, counting its puzzles and its puzzle
    /// candidates by state (one walk of each tree; the candidates take about 0.3 s a million),
    /// then compares what sled recovered with the [`manifest`] as `check` says. sled failing
    /// or panicking on damaged files is [`StoreError::Damaged`], never a panic.
    pub fn open_checked(path: &Path, check: OpenCheck) -> Result<Store, StoreError> {
        wait_for_release(path);
        Store::checked(path, check, || sled::Config::new().path(path).open())
    }

    /// The store over `db`, just opened on `path` by the caller, adopted as it is (see
    /// [`OpenCheck::Adopt`]). A restore loads and then adopts through one sled handle: sled lets
    /// go of a directory's lock a moment after its last handle drops, so closing and reopening
    /// could find it still held.
    pub(crate) fn adopt_open(path: &Path, db: sled::Db) -> Result<Store, StoreError> {
        Store::checked(path, OpenCheck::Adopt, move || Ok(db))
    }

    fn checked(
        path: &Path,
        check: OpenCheck,
        open_db: impl FnOnce() -> sled::Result<sled::Db>,
    ) -> Result<Store, StoreError> {
        // Read before sled opens: sled cuts a damaged log at once, as it recovers.
        let recorded = manifest::read(path);
        let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Store::open_trees(path, open_db()?)
        }));
        let damaged = |why: String| StoreError::Damaged {
            dir: path.to_owned(),
            why,
        };
        let store = match opened {
            Ok(Ok(store)) => store,
            Ok(Err(StoreError::Sled(sled::Error::Corruption { at, .. }))) => {
                let at = at.map_or_else(String::new, |at| format!(" at {at:?}"));
                return Err(damaged(format!("sled found corrupt data{at}")));
            }
            Ok(Err(StoreError::Sled(error @ sled::Error::ReportableBug(_)))) => {
                return Err(damaged(error.to_string()));
            }
            Ok(Err(StoreError::Corrupt { what, why })) => {
                return Err(damaged(format!("corrupt {what}: {why}")));
            }
            Ok(Err(error)) => return Err(error),
            Err(panic) => {
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "sled panicked".to_owned());
                return Err(damaged(why));
            }
        };
        store.check_integrity(check, recorded)?;
        Ok(store)
    }

    fn open_trees(path: &Path, db: sled::Db) -> Result<Store, StoreError> {
        let candidates = db.open_tree("candidates")?;
        let puzzles = db.open_tree("puzzles")?;
        let meta = db.open_tree("meta")?;
        Ok(Store {
            path: path.to_owned(),
            write_gate: RwLock::new(()),
            id_base: backup::read_id_base(&meta)?,
            candidate_tally: CandidateTally::count(&candidates)?,
            candidates,
            stored_puzzles: AtomicU64::new(puzzles.len() as u64),
            puzzles,
            jobs: db.open_tree("jobs")?,
            results: db.open_tree("results")?,
            playouts: db.open_tree("playouts")?,
            game_tables: db.open_tree("game_tables")?,
            games: db.open_tree("games")?,
            matches: db.open_tree("matches")?,
            proven: db.open_tree("proven")?,
            builds: db.open_tree("builds")?,
            build_nodes: db.open_tree("build_nodes")?,
            build_deep: db.open_tree("build_deep")?,
            meta,
            quarantine: db.open_tree("quarantine")?,
            claims: db.open_tree("claims")?,
            flagged_workers: db.open_tree("flagged_workers")?,
            deep_solves: db.open_tree("deep_solves")?,
            deep_leaves: db.open_tree("deep_leaves")?,
            solitaire: db.open_tree("solitaire")?,
            imports: db.open_tree("imports")?,
            on_word: db.open_tree("on_word")?,
            contributions: db.open_tree("contributions")?,
            game_contributions: db.open_tree("game_contributions")?,
            sign_tallies: db.open_tree("sign_tallies")?,
            worker_keys: db.open_tree("worker_keys")?,
            tunes: db.open_tree("tunes")?,
            purges: AtomicU64::new(0),
            manifest: Arc::new(manifest::Keeper::new(path)),
            db,
        })
    }

    /// A fresh id, never handed out before in this database.
    pub fn generate_id(&self) -> Result<u64, StoreError> {
        // sled's ids start at 0; keep 0 free as "none".
        let id = self
            .db
            .generate_id()?
            .checked_add(1)
            .and_then(|id| id.checked_add(self.id_base))
            .ok_or_else(|| corrupt("id counter", "every id has been handed out"))?;
        self.manifest.handed_out(id);
        Ok(id)
    }

    /// Writes a job (durable at the next flush).
    pub fn put_job(&self, id: u64, job: &Job) -> Result<(), StoreError> {
        let _writing = self.writing();
        put_record(&self.jobs, id, &StoredJob::from(job))
    }

    /// A job, if there is one (quarantined jobs have none).
    pub fn job(&self, id: u64) -> Result<Option<Job>, StoreError> {
        get_record::<StoredJob>(&self.jobs, id, "job")?
            .map(|stored| Job::try_from(stored).map_err(|e| corrupt("job", e)))
            .transpose()
    }

    /// Every stored job with its id, by id, for start-up: an unfinished one with its task, a
    /// finished one without (it is only counted, so its task is not read). A record that does
    /// not decode, or an unfinished job whose task does not read back, is moved to the
    /// `quarantine` tree and logged: it is reported in the status and never runs blindly.
    pub fn load_jobs(&self) -> Result<Vec<(u64, Job)>, StoreError> {
        let _writing = self.writing();
        let mut loaded = Vec::new();
        for entry in self.jobs.iter() {
            let (key, bytes) = entry?;
            let id = id_of(&key, "job")?;
            let readable = StoredJob::decode(bytes.as_ref())
                .map_err(|e| e.to_string())
                .and_then(|mut stored| {
                    if !stored.state().is_unfinished() {
                        stored.task = None;
                    }
                    Job::try_from(stored).map_err(|e| e.to_string())
                });
            match readable {
                Ok(job) => loaded.push((id, job)),
                Err(why) => {
                    tracing::error!(job = id, %why, "unreadable job record quarantined");
                    self.quarantine.insert(key.clone(), bytes)?;
                    self.jobs.remove(key)?;
                }
            }
        }
        Ok(loaded)
    }

    /// How many job records were found unreadable and set aside.
    #[must_use]
    pub fn quarantined(&self) -> u64 {
        self.quarantine.len() as u64
    }

    /// Writes raw bytes as a job record, as a damaged database would hold (tests only).
    ///
    /// # Errors
    ///
    /// A storage failure.
    #[cfg(any(test, feature = "test-support"))]
    pub fn put_raw_job(&self, id: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.jobs.insert(id.to_be_bytes(), bytes)?;
        Ok(())
    }

    /// The playout table of a canonical position (empty if none).
    pub fn playout_table(&self, key: u64) -> Result<Table, StoreError> {
        read_table(&self.playouts, key)
    }

    /// The game table of a canonical position (empty if none).
    pub fn game_table(&self, key: u64) -> Result<Table, StoreError> {
        read_table(&self.game_tables, key)
    }

    /// A stored game.
    pub fn game(&self, job_id: u64) -> Result<Option<Game>, StoreError> {
        Ok(get_record::<StoredGame>(&self.games, job_id, "game")?.map(Game::from))
    }

    /// Sizes for operators: bytes on disk and the numbers of stored puzzles and matches. Counts
    /// walk the keys of two small trees, so this is for scrapes, not hot paths.
    pub fn sizes(&self) -> Result<StoreSizes, StoreError> {
        Ok(StoreSizes {
            bytes_on_disk: self.db.size_on_disk()?,
            puzzles: self.stored_puzzles(),
            matches: self.match_count()?,
        })
    }

    /// Running totals.
    pub fn totals(&self) -> Result<Totals, StoreError> {
        match self.meta.get(TOTALS)? {
            Some(bytes) => Totals::decode(bytes.as_ref()).map_err(|e| corrupt("totals", e)),
            None => Ok(Totals::default()),
        }
    }

    /// Makes everything written so far durable on disk, then records it in the manifest: a
    /// commit (see [`integrity`]), on the blocking pool.
    pub async fn flush(&self) -> Result<(), StoreError> {
        let facts = self.facts()?;
        let store = self.handle();
        tokio::task::spawn_blocking(move || store.commit(facts))
            .await
            .map_err(|e| StoreError::Durability(format!("the manifest writer failed: {e}")))?
    }

    /// Blocking [`Store::flush`], for shutdown paths.
    pub fn flush_blocking(&self) -> Result<(), StoreError> {
        let facts = self.facts()?;
        self.handle().commit(facts)
    }
}

/// Longest wait for sled's lock on a database whose last handle just closed.
const LOCK_RELEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Waits (at most [`LOCK_RELEASE_WAIT`]) until nobody holds sled's lock on the database in
/// `path`. sled lets go of it a moment after its last handle drops, so a store reopened at
/// once (a restart, a test) could be refused for a lock that is on its way out; a lock that
/// another live process holds is still refused, by sled, once the wait is over.
fn wait_for_release(path: &Path) {
    use std::os::fd::AsRawFd;
    let Ok(file) = std::fs::File::open(path.join("db")) else {
        return; // a new database: nothing to wait for
    };
    let deadline = std::time::Instant::now() + LOCK_RELEASE_WAIT;
    loop {
        // SAFETY: `flock` on a descriptor this function owns, released at once when taken.
        let free = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if free {
            // SAFETY: as above.
            unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
            return;
        }
        if std::time::Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobState;
    use pentago::Position;
    use pentagrid_model::Task;

    #[test]
    fn matches_list_newest_first_a_page_at_a_time_past_their_pairs() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for id in [5, 9, 12] {
            let record = StoredMatch {
                pairs: id,
                ..StoredMatch::default()
            };
            store.put_match(id, &record).unwrap();
        }
        for pair in 0..3 {
            let bytes = StoredPair::default().encode_to_vec();
            store.matches.insert(pair_key(9, pair), bytes).unwrap();
        }
        let ids = |before, limit| -> Vec<u64> {
            let listed = store.matches_before(before, limit).unwrap();
            assert!(listed.iter().all(|(id, record)| record.pairs == *id));
            listed.into_iter().map(|(id, _)| id).collect()
        };
        assert_eq!(ids(0, 10), [12, 9, 5]);
        assert_eq!(ids(0, 2), [12, 9]);
        assert_eq!(ids(9, 10), [5]);
        assert_eq!(ids(10, 1), [9]);
        assert!(ids(5, 10).is_empty());
    }

    #[test]
    fn sizes_count_matches_past_their_pairs_and_each_puzzle_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for id in [1, 2, u64::MAX] {
            store.put_match(id, &StoredMatch::default()).unwrap();
            for pair in 0..3 {
                let bytes = StoredPair::default().encode_to_vec();
                store.matches.insert(pair_key(id, pair), bytes).unwrap();
            }
        }
        let puzzles = |keys: &[u64]| ResultEffect {
            verdicts: keys
                .iter()
                .map(|key| {
                    (
                        *key,
                        CandidateState::Puzzle,
                        Some(format!("{{\"k\":{key}}}")),
                    )
                })
                .collect(),
            ..ResultEffect::default()
        };
        let done = Job::in_state(JobState::Done);
        store.apply(1, &done, "r1", &puzzles(&[10, 11])).unwrap();
        // A puzzle stored before is not stored again, nor counted.
        store.apply(2, &done, "r2", &puzzles(&[11, 12])).unwrap();
        store.apply(2, &done, "r2", &puzzles(&[13])).unwrap();
        let sizes = store.sizes().unwrap();
        assert_eq!((sizes.matches, sizes.puzzles), (3, 3));
        store.flush_blocking().unwrap();
        drop(store);
        let sizes = Store::open(dir.path()).unwrap().sizes().unwrap();
        assert_eq!((sizes.matches, sizes.puzzles), (3, 3));
    }

    /// A job in stored state `state` whose task does not read back.
    fn banana(state: u32) -> StoredJob {
        StoredJob {
            task: Some(StoredTask {
                kind: Some(records::StoredTaskKind::Solve(records::StoredSolve {
                    position: "banana".into(),
                })),
            }),
            state,
            ..StoredJob::default()
        }
    }

    #[test]
    fn job_records_written_in_the_stored_format_read_back_as_jobs_and_write_back_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let task = Task::Solve {
            position: Position::START,
        };
        // Every field set, as today's code writes a check job that was leased twice.
        let stored = StoredJob {
            task: Some(StoredTask::from(&task)),
            state: 1,
            attempts: 2,
            lease_id: 17,
            worker_id: "w1".into(),
            seed: 99,
            result_id: "r".into(),
            error: "boom".into(),
            playouts: 5,
            games: 1,
            excluded_workers: vec!["liar".into()],
            claim_id: 3,
        };
        let bytes = stored.encode_to_vec();
        store.put_raw_job(1, &bytes).unwrap();
        let job = store.job(1).unwrap().unwrap();
        let expected = Job {
            task: Some(task),
            state: JobState::Leased,
            attempts: 2,
            lease_id: 17,
            worker_id: "w1".into(),
            seed: 99,
            result_id: "r".into(),
            error: "boom".into(),
            playouts: 5,
            games: 1,
            excluded_workers: vec!["liar".into()],
            claim_id: Some(3),
        };
        assert_eq!(job, expected);
        store.put_job(2, &job).unwrap();
        assert_eq!(store.jobs.get(2u64.to_be_bytes()).unwrap().unwrap(), bytes);
        // The stored state numbers; an unknown one reads as failed, never as runnable.
        let states = [
            (0, JobState::Queued),
            (1, JobState::Leased),
            (2, JobState::Done),
            (3, JobState::Failed),
            (4, JobState::Cancelled),
            (77, JobState::Failed),
        ];
        for (number, state) in states {
            let record = StoredJob {
                state: number,
                ..stored.clone()
            };
            store.put_raw_job(3, &record.encode_to_vec()).unwrap();
            assert_eq!(store.job(3).unwrap().unwrap().state, state, "{number}");
        }
        let (ids, jobs): (Vec<u64>, Vec<Job>) = store.load_jobs().unwrap().into_iter().unzip();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!(jobs[..2], [expected.clone(), expected]);
    }

    #[test]
    fn unreadable_jobs_are_quarantined_at_load() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let task = Task::Solve {
            position: Position::START,
        };
        store.put_job(1, &Job::queued(task.clone(), 0)).unwrap();
        store.put_raw_job(2, &[0xff, 0xff, 0xff]).unwrap();
        store.put_raw_job(3, &banana(0).encode_to_vec()).unwrap();
        // A finished job whose task no longer reads back is kept (finished jobs load without
        // their tasks).
        store.put_raw_job(4, &banana(2).encode_to_vec()).unwrap();
        let loaded = store.load_jobs().unwrap();
        assert_eq!(loaded.len(), 2);
        assert_eq!((loaded[0].0, &loaded[0].1.task), (1, &Some(task)));
        assert_eq!((loaded[1].0, loaded[1].1.state), (4, JobState::Done));
        assert_eq!(loaded[1].1.task, None);
        assert_eq!(store.quarantined(), 2);
        assert_eq!(
            store.load_jobs().unwrap().len(),
            2,
            "quarantined jobs stay out"
        );
    }
}
