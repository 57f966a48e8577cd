//! The book builder's deep solves: book positions the build meets (picks it analyses, stored
//! positions it walks through) whose stones are in its deep range (see
//! [`Build::deep_range`]) and that are not proven become the build's candidates, kept in the
//! store (`store::build_deep`), each at most once. Every round, the build's running deep solves
//! that finished are counted off and, while fewer than its window run, waiting candidates get
//! a cluster deep solve through [`crate::deep::DeepSolves::start`] — unless the book has proven
//! the position meanwhile (it is dropped) or a deep solve of the same position exists already
//! (the build joins it). A finished deep solve stores its value into the book itself, which
//! carries it up to the parents (see `Store::finish_deep_solve` and `store::propagate`); the
//! build is done only once its deep solves are.

use pentago::{Position, PositionKey};

use super::{BookBuilder, BuildError};
use crate::deep::DeepError;
use pentagrid_store::build_record::Build;
use pentagrid_store::position_value;

/// Deep solves a build keeps running at once when the spec leaves it open.
pub const DEFAULT_DEEP_WINDOW: u32 = 4;
/// Most deep solves a build may keep running at once.
pub const MAX_DEEP_WINDOW: u32 = 256;

/// What the build does with a waiting candidate.
enum Start {
    /// Nothing: it is proven, or cannot be deep-solved.
    Drop,
    /// It runs in this deep solve.
    Running(u64),
    /// This deep solve of it already finished.
    Finished(u64),
}

impl BookBuilder {
    /// One round of build `id`'s deep solves (see the module documentation), with the deep
    /// candidates `met` this round; updates and stores `record`. Whether deep work is left
    /// (solves running or candidates waiting).
    pub(super) async fn deep_round(
        &self,
        id: u64,
        record: &mut Build,
        met: &[Position],
    ) -> Result<bool, BuildError> {
        if record.deep_from == 0 {
            return Ok(false);
        }
        let keys: Vec<u64> = met.iter().map(|p| p.canonical_key().bits()).collect();
        self.store.add_deep_candidates(id, &keys)?;
        let mut running = Vec::with_capacity(record.deep_running.len());
        for &solve in &record.deep_running {
            match self.store.deep_solve(solve)? {
                Some(solve_record) if !solve_record.done => running.push(solve),
                _ => record.deep_finished += 1,
            }
        }
        if running != record.deep_running {
            record.deep_running = running;
            self.store.put_build(id, record)?;
        }
        let room = (record.deep_window as usize).saturating_sub(record.deep_running.len());
        for key in self.store.deep_candidates(id, room)? {
            let solve = match self.deep_start(key, record.deep_leaf_stones).await? {
                Start::Drop => None,
                Start::Running(solve) => {
                    record.deep_started += 1;
                    record.deep_running.push(solve);
                    Some(solve)
                }
                Start::Finished(solve) => {
                    record.deep_started += 1;
                    record.deep_finished += 1;
                    Some(solve)
                }
            };
            self.store.start_deep_candidate(id, key, solve, record)?;
            tracing::info!(build = id, key, solve, "book build deep solve");
        }
        Ok(!record.deep_running.is_empty() || !self.store.deep_candidates(id, 1)?.is_empty())
    }

    /// Starts (or joins) the deep solve of the canonical position `key`.
    async fn deep_start(&self, key: u64, leaf_stones: u32) -> Result<Start, BuildError> {
        let Ok(position) = Position::from_key(PositionKey(key)) else {
            return Ok(Start::Drop);
        };
        let proven = self.store.proven_table(key)?;
        if position.is_over() || position_value(&position, &proven).is_some() {
            return Ok(Start::Drop);
        }
        if let Some((solve, existing)) = self.store.deep_solve_of(key)? {
            return Ok(if existing.done {
                Start::Finished(solve)
            } else {
                Start::Running(solve)
            });
        }
        match self.deep.start(&position, 0, leaf_stones).await {
            Ok(solve) => Ok(Start::Running(solve)),
            Err(DeepError::Store(error)) => Err(error.into()),
            Err(error) => {
                tracing::warn!(%position, %error, "book build could not deep-solve a position");
                Ok(Start::Drop)
            }
        }
    }
}

/// A spec's deep-solve settings, checked, with the defaults filled in: (from, window, leaf
/// stones).
pub(super) fn deep_settings(
    from: u32,
    window: u32,
    leaf_stones: u32,
) -> Result<(u32, u32, u32), BuildError> {
    let leaf_stones = if leaf_stones == 0 {
        pentago::MID_MIN_STONES
    } else {
        leaf_stones
    };
    let window = if window == 0 {
        DEFAULT_DEEP_WINDOW
    } else {
        window
    };
    let invalid = |why: String| Err(BuildError::Invalid(why));
    if !(pentago::MID_MIN_STONES..=crate::deep::MAX_LEAF_STONES).contains(&leaf_stones) {
        return invalid(format!(
            "deep_leaf_stones must be from {} to {}",
            pentago::MID_MIN_STONES,
            crate::deep::MAX_LEAF_STONES
        ));
    }
    if from != 0 && !(crate::deep::MIN_DEEP_STONES..leaf_stones).contains(&from) {
        return invalid(format!(
            "deep_from must be 0 (off) or from {} to {}",
            crate::deep::MIN_DEEP_STONES,
            leaf_stones - 1
        ));
    }
    if window > MAX_DEEP_WINDOW {
        return invalid(format!("deep_window must be at most {MAX_DEEP_WINDOW}"));
    }
    Ok((from, window, leaf_stones))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_settings_default_and_refuse_out_of_range_values() {
        assert_eq!(deep_settings(16, 0, 0).unwrap(), (16, 4, 18));
        assert_eq!(deep_settings(0, 2, 26).unwrap(), (0, 2, 26));
        assert!(deep_settings(18, 0, 0).is_err());
        assert!(deep_settings(9, 0, 0).is_err());
        assert!(deep_settings(16, 0, 17).is_err());
        assert!(deep_settings(16, MAX_DEEP_WINDOW + 1, 0).is_err());
    }

    #[test]
    fn the_deep_range_stops_below_the_leaves_and_the_solve_stones() {
        let mut build = Build {
            deep_from: 16,
            deep_leaf_stones: 18,
            ..Build::default()
        };
        assert_eq!(build.deep_range(), 16..18);
        build.solve_stones = 17;
        assert_eq!(build.deep_range(), 16..17);
        build.deep_from = 0;
        assert!(build.deep_range().is_empty());
    }
}

#[cfg(test)]
mod cluster_tests {
    //! Builds with deep solves on a coordinator over a real store on disk, its jobs answered
    //! here as a worker would: analyses with made-up counts, deep-solve leaves with the
    //! engine's exact solver.

    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use pentago::{Position, SolveLimits, Solver, Value};
    use pentagrid_model::{Outcome, Row, Task};

    use crate::builder::BuildSpec;
    use crate::clock::ManualClock;
    use crate::coordinator::Coordinator;
    use crate::crosscheck::CrossCheckSettings;
    use crate::identity::{ResultId, WorkerId};
    use crate::ingest::Submission;
    use crate::settings::CoordinatorSettings;
    use pentagrid_store::build_record::Build;

    /// A reference position of 24 stones won for the side to move, without a win at once.
    fn won_24() -> Position {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/data/solved-positions.txt"
        );
        std::fs::read_to_string(path)
            .expect("shared/data beside the repository")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let position: Position = words.next()?.parse().ok()?;
                (words.next()? == "1").then_some(position)
            })
            .find(|p| p.stone_count() == 24 && !p.has_immediate_win())
            .expect("a won 24-stone reference position")
    }

    fn exact(position: &Position) -> Value {
        Solver::new(18)
            .solve(position, SolveLimits::default())
            .value
            .expect("decided")
    }

    /// What a worker returns for `task`: an analysis spreading its playouts over the first
    /// three moves, or the exact values of deep-solve leaves.
    fn answer(task: &Task) -> Outcome {
        match task {
            Task::Analyse {
                position, playouts, ..
            } => {
                let share = (playouts / 3).max(1);
                let rows: Vec<Row> = position.legal_moves()[..3]
                    .iter()
                    .map(|&mv| Row {
                        mv,
                        games: share,
                        wins: share / 2,
                        draws: 0,
                    })
                    .collect();
                Outcome::Analyse {
                    simulations: share * rows.len() as u64,
                    rows,
                    seconds: 0.0,
                }
            }
            Task::DeepLeaves { leaves, .. } => Outcome::DeepLeaves {
                values: leaves.iter().map(exact).collect(),
                rotated: Vec::new(),
            },
            other => panic!("a build with deep solves queued {other:?}"),
        }
    }

    /// A coordinator on the database in `dir` (waiting while a stopped one still holds it)
    /// with one worker, and no cross-checks of solves or analyses.
    async fn open(dir: &std::path::Path) -> Arc<Coordinator> {
        let settings = CoordinatorSettings {
            crosscheck: CrossCheckSettings {
                solve_sample: 0.0,
                // Its analyses are invented: the statistical check would rightly catch them.
                analysis_sample: 0.0,
                ..CrossCheckSettings::default()
            },
            ..CoordinatorSettings::default()
        };
        let clock = Arc::new(ManualClock::default());
        let mut tries = 0;
        let coordinator = loop {
            match Coordinator::open_with_clock(dir, settings.clone(), clock.clone()) {
                Ok(coordinator) => break coordinator,
                Err(error) if tries < 200 => {
                    tries += 1;
                    tracing::debug!(%error, "database still locked");
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                Err(error) => panic!("open the coordinator: {error}"),
            }
        };
        coordinator.jobs.hello(&worker(), "w", 1).unwrap();
        coordinator
    }

    fn worker() -> WorkerId {
        WorkerId::parse("w").unwrap()
    }

    /// Starts a build from `root` (depth 1, leaves of 26 stones, two deep solves at a time)
    /// with deep solves from `deep_from` stones.
    async fn start(coordinator: &Coordinator, root: Position, deep_from: u32) -> u64 {
        let spec = BuildSpec {
            roots: vec![root],
            depth: 1,
            max_positions: 100,
            budget: 1_000_000,
            playouts_per_position: 300,
            config: "uct".parse().unwrap(),
            solve_stones: 0,
            deep_from,
            deep_window: 2,
            deep_leaf_stones: 26,
        };
        coordinator.builder.start(&spec).await.unwrap()
    }

    /// Answers the build's jobs for at most `rounds` rounds (one lease and one tick each), or
    /// until it is done; returns its record.
    async fn work(coordinator: &Coordinator, id: u64, rounds: usize) -> Build {
        let started = Instant::now();
        for _ in 0..rounds {
            if coordinator.builder.status(id).unwrap().record.done {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(600),
                "build never ended"
            );
            for job in coordinator.jobs.lease(&worker(), 16).unwrap() {
                let submission = Submission {
                    worker_id: worker(),
                    job_id: job.job_id,
                    lease_id: job.lease_id,
                    result_id: ResultId::parse(&format!("r{}-{}", job.job_id, job.lease_id))
                        .unwrap(),
                    outcome: answer(&job.task),
                };
                // A deep-leaves job cancelled meanwhile (its solve was proven) refuses it.
                let _ = coordinator.ingest.submit(&submission).await;
            }
            coordinator.tick().await;
        }
        coordinator.builder.status(id).unwrap().record
    }

    /// Runs a build from `root` with deep solves from `deep_from` stones to its end; returns
    /// the coordinator and the build's record.
    async fn build(
        dir: &std::path::Path,
        root: Position,
        deep_from: u32,
    ) -> (Arc<Coordinator>, Build) {
        let coordinator = open(dir).await;
        let id = start(&coordinator, root, deep_from).await;
        let record = work(&coordinator, id, usize::MAX).await;
        assert!(record.done);
        (coordinator, record)
    }

    /// The canonical keys of the stored deep solves' positions, sorted.
    fn solved_keys(coordinator: &Coordinator) -> Vec<u64> {
        let mut keys: Vec<u64> = coordinator
            .deep
            .list()
            .unwrap()
            .iter()
            .map(|s| s.record.position.parse::<Position>().unwrap())
            .map(|p| p.canonical_key().bits())
            .collect();
        keys.sort_unstable();
        keys
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_restarted_build_carries_on_without_deep_solving_a_position_twice() {
        let dir = tempfile::tempdir().unwrap();
        let root = won_24();
        let coordinator = open(dir.path()).await;
        let id = start(&coordinator, root, 24).await;
        let before = work(&coordinator, id, 1).await;
        assert!(!before.done && before.deep_started >= 1, "{before:?}");
        coordinator.flush().await.unwrap();
        drop(coordinator);
        let coordinator = open(dir.path()).await;
        let record = work(&coordinator, id, usize::MAX).await;
        assert!(record.done, "{record:?}");
        assert!(record.deep_started >= before.deep_started);
        assert_eq!(record.deep_finished, record.deep_started, "{record:?}");
        let keys = solved_keys(&coordinator);
        let mut distinct = keys.clone();
        distinct.dedup();
        assert_eq!(keys, distinct, "a position was deep-solved twice");
        assert_eq!(keys.len() as u64, record.deep_started);
        assert_eq!(
            coordinator.book.show(&root).unwrap().proven,
            Some(Value::Win)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_build_deep_solves_its_positions_in_range_and_the_book_gets_their_values() {
        let dir = tempfile::tempdir().unwrap();
        let root = won_24();
        let (coordinator, record) = build(dir.path(), root, 24).await;
        assert!(record.deep_started >= 1, "{record:?}");
        assert_eq!(record.deep_finished, record.deep_started, "{record:?}");
        assert!(record.deep_running.is_empty());
        let solves = coordinator.deep.list().unwrap();
        assert!(!solves.is_empty());
        for solve in &solves {
            let position: Position = solve.record.position.parse().unwrap();
            assert!((24..26).contains(&position.stone_count()), "{position}");
            assert_eq!(solve.record.value(), Some(exact(&position)), "{position}");
        }
        // The root is won: the book proves it, from its own deep solve or its children's.
        let view = coordinator.book.show(&root).unwrap();
        assert_eq!(view.proven, Some(Value::Win));
        assert!(view.playouts.iter().any(|row| row.proven.is_some()));
        for row in view.playouts.iter().filter(|row| row.proven.is_some()) {
            let child = root.play(row.mv).unwrap();
            assert_eq!(row.proven, Some(exact(&child).negate()), "{}", row.mv);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn nothing_is_deep_solved_below_the_threshold_or_when_off() {
        let root = won_24();
        for deep_from in [0, 25] {
            let dir = tempfile::tempdir().unwrap();
            let (coordinator, record) = build(dir.path(), root, deep_from).await;
            let stones: Vec<u32> = coordinator
                .deep
                .list()
                .unwrap()
                .iter()
                .map(|s| s.record.position.parse::<Position>().unwrap().stone_count())
                .collect();
            if deep_from == 0 {
                assert_eq!((record.deep_started, stones.len()), (0, 0));
            } else {
                // The root's children (25 stones) are deep-solved, the root (24) is not.
                assert!(!stones.is_empty(), "{record:?}");
                assert!(stones.iter().all(|&s| s == 25), "{stones:?}");
                assert_eq!(record.deep_started, stones.len() as u64);
            }
        }
    }
}
