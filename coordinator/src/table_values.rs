//! Exact values from Irving's tablebase for the stored book: every stored position whose moves
//! the loaded slices cover gets each move's value in its `proven` table (source `table`, one
//! move per group in the canonical frame, as a solver's values are stored), so that the book
//! shows the truth beside its statistics and the builder spends no playouts below them (it
//! analyses a build's root once, for its statistics, even when covered).
//!
//! A position's moves are covered when the tablebase holds the slice of one stone more (the
//! shipped slices 0–6 cover the moves of positions of 0–5 stones); a position of the largest
//! loaded slice has a known value but no move values, and is not filled.
//!
//! Values are written where a position's table is stored: with the result that stores it (in
//! that result's transaction, see `ingest`), or by the builder when its walk reaches a covered
//! position (without a job). A book stored before (or without) the tablebase gets its values
//! as results and builds touch its positions, and from a bounded walk over the whole stored
//! book that a start of the coordinator makes on its ticks, `book::BACKFILL_PER_TICK`
//! positions a tick ([`TableValues::backfill`]). A finished walk is recorded with the slices
//! it used, so later starts with the same slices skip it; a start without the tablebase
//! clears the record (its results store positions without table values). Probing reads files and decompresses blocks:
//! every call here runs on a blocking thread, never on the runtime's.

use std::sync::Arc;

use pentago::{MoveGroups, Position, PositionKey, Value};
use pentagrid_tablebase::{Tablebase, TablebaseError};

use pentagrid_store::{ProvenTable, ResultEffect, Store, StoreError};

/// Most book positions one [`TableValues::backfill`] call looks at.
pub const MAX_BACKFILL_POSITIONS: usize = 10_000;

/// The coordinator's tablebase, if it has one.
#[derive(Clone, Default)]
pub struct TableValues {
    tablebase: Option<Arc<Tablebase>>,
}

impl std::fmt::Debug for TableValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slices: Vec<u32> = self
            .tablebase
            .iter()
            .flat_map(|t| t.slices())
            .map(|s| s.stones)
            .collect();
        f.debug_struct("TableValues")
            .field("slices", &slices)
            .finish()
    }
}

/// What a backfill did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backfill {
    /// Book positions looked at.
    pub looked: u64,
    /// Of them, positions given table values.
    pub filled: u64,
    /// Where the next call starts (0: the book's end was reached).
    pub next_key: u64,
}

impl TableValues {
    /// Values from `tablebase`.
    #[must_use]
    pub fn new(tablebase: Arc<Tablebase>) -> TableValues {
        TableValues {
            tablebase: Some(tablebase),
        }
    }

    /// No tablebase: no table values (the book then knows only what solvers prove).
    #[must_use]
    pub fn none() -> TableValues {
        TableValues::default()
    }

    /// Whether there is a tablebase.
    #[must_use]
    pub fn is_some(&self) -> bool {
        self.tablebase.is_some()
    }

    /// Whether a slice of `stones` stones is loaded.
    #[must_use]
    pub fn covers_stones(&self, stones: u32) -> bool {
        self.tablebase.as_ref().is_some_and(|t| t.covers(stones))
    }

    /// The exact value of `position` for the side to move, when its slice is loaded (a
    /// finished game is valued by the rules); `None` when not.
    pub fn value(&self, position: &Position) -> Result<Option<Value>, TablebaseError> {
        match &self.tablebase {
            Some(tablebase) => tablebase.value(position),
            None => Ok(None),
        }
    }

    /// Whether the moves of an ongoing `position` are covered.
    #[must_use]
    pub fn covers(&self, position: &Position) -> bool {
        self.tablebase
            .as_ref()
            .is_some_and(|t| !position.is_over() && t.covers(position.stone_count() + 1))
    }

    /// The exact value of each move group of the canonical `position` (its first move, in the
    /// canonical frame), when covered; `None` when not.
    pub fn moves(&self, position: &Position) -> Result<Option<ProvenTable>, TablebaseError> {
        let Some(tablebase) = self.tablebase.as_ref().filter(|_| self.covers(position)) else {
            return Ok(None);
        };
        let mut table = ProvenTable::new();
        for group in MoveGroups::of(position, true).iter() {
            let mv = group[0];
            // A finished child is valued by the rules; every other one by its slice.
            let Some(value) = tablebase.value(&position.play_unchecked(mv))? else {
                return Ok(None);
            };
            table.insert(mv, value.negate());
        }
        Ok(Some(table))
    }

    /// The table values a stored canonical position still lacks (`None`: it lacks none, or is
    /// not covered). A file that fails to read is logged and gives none: no value is better
    /// than a guessed one, and the result or the walk goes on.
    pub fn missing(&self, store: &Store, key: u64) -> Result<Option<ProvenTable>, StoreError> {
        let Ok(position) = Position::from_key(PositionKey(key)) else {
            return Ok(None);
        };
        if !self.covers(&position) {
            return Ok(None);
        }
        let stored = store.proven_rows(key)?;
        let complete = MoveGroups::of(&position, true)
            .iter()
            .all(|group| stored.contains_key(&group[0]));
        if complete {
            return Ok(None);
        }
        match self.moves(&position) {
            Ok(table) => Ok(table),
            Err(error) => {
                tracing::error!(%error, %position, "tablebase probe failed: no table values");
                Ok(None)
            }
        }
    }

    /// Sets `effect`'s table values: those of every position whose tables it stores that the
    /// tablebase covers and the store lacks. Runs on a blocking thread.
    pub fn fill_effect(&self, store: &Store, effect: &mut ResultEffect) -> Result<(), StoreError> {
        if self.tablebase.is_none() {
            return Ok(());
        }
        let mut keys: Vec<u64> = effect
            .playouts
            .keys()
            .chain(effect.games.keys())
            .copied()
            .collect();
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            if let Some(table) = self.missing(store, key)? {
                effect.table_values.push((key, table));
            }
        }
        Ok(())
    }

    /// Gives the stored canonical position `key` the table values it lacks, in one
    /// transaction that also carries them up the book; whether it wrote any. Runs on a
    /// blocking thread.
    pub fn fill(&self, store: &Store, key: u64) -> Result<bool, StoreError> {
        match self.missing(store, key)? {
            Some(table) => {
                store.add_table_values(&[(key, table)])?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The stone counts of the loaded slices, ascending (none without a tablebase): what a
    /// finished walk over the book records ([`Store::table_walk`]).
    #[must_use]
    pub fn stones(&self) -> Option<Vec<u8>> {
        let tablebase = self.tablebase.as_ref()?;
        let mut stones: Vec<u8> = tablebase
            .slices()
            .iter()
            .filter_map(|slice| u8::try_from(slice.stones).ok())
            .collect();
        stones.sort_unstable();
        stones.dedup();
        Some(stones)
    }

    /// Fills up to `limit` (at most [`MAX_BACKFILL_POSITIONS`]) stored positions in key order
    /// from `from` on: the bounded way an older book gets its table values at once. Runs on a
    /// blocking thread.
    pub fn backfill(&self, store: &Store, from: u64, limit: usize) -> Result<Backfill, StoreError> {
        let limit = limit.clamp(1, MAX_BACKFILL_POSITIONS);
        let keys = store.book_keys(from, limit)?;
        let mut done = Backfill::default();
        for &key in &keys {
            done.looked += 1;
            if self.fill(store, key)? {
                done.filled += 1;
            }
        }
        if keys.len() == limit
            && let Some(&last) = keys.last()
        {
            done.next_key = last.saturating_add(1);
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pentago::{ExactOracle, Value};
    use pentagrid_model::{Outcome, Row, Task};

    use super::*;
    use crate::coordinator::Coordinator;
    use crate::identity::{ResultId, WorkerId};
    use crate::ingest::Submission;
    use crate::settings::CoordinatorSettings;
    use pentagrid_model::ExactSource;
    use pentagrid_store::{BookEntry, Counts, Table};

    fn shipped() -> TableValues {
        TableValues::new(Arc::new(Tablebase::shipped().unwrap()))
    }

    /// A canonical position of `stones` stones from a fixed line.
    fn canonical(stones: usize) -> Position {
        let mut at = Position::START;
        for pick in [3, 30, 90, 120, 50, 70].into_iter().take(stones) {
            at = at
                .play(at.legal_moves()[pick % at.legal_moves().len()])
                .unwrap();
        }
        at.canonical().position
    }

    #[test]
    fn move_values_are_the_tablebases_one_per_group_where_the_next_slice_is_loaded() {
        let table = shipped();
        let oracle = Tablebase::shipped().unwrap();
        for stones in 0..=5 {
            let position = canonical(stones);
            assert!(table.covers(&position));
            let values = table.moves(&position).unwrap().unwrap();
            let groups: Vec<_> = MoveGroups::of(&position, true)
                .iter()
                .map(|g| g[0])
                .collect();
            assert_eq!(values.keys().copied().collect::<Vec<_>>(), {
                let mut sorted = groups.clone();
                sorted.sort_unstable();
                sorted
            });
            for (mv, value) in oracle.probe_moves(&position).unwrap().unwrap() {
                if let Some(&stored) = values.get(&mv) {
                    assert_eq!(stored, value, "{position} {mv}");
                }
            }
        }
        // Six stones: the shipped slices hold no seventh, so the moves are not covered.
        let six = canonical(6);
        assert!(!table.covers(&six));
        assert_eq!(table.moves(&six).unwrap(), None);
        assert_eq!(TableValues::none().moves(&Position::START).unwrap(), None);
    }

    #[test]
    fn a_stored_position_is_filled_once_and_its_counts_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let table = shipped();
        let position = canonical(3);
        let key = position.key().bits();
        let mv = MoveGroups::of(&position, true).iter().next().unwrap()[0];
        let counts = Counts {
            games: 10,
            wins: 4,
            draws: 1,
        };
        let entry = BookEntry {
            playouts: Table::from([(mv, counts)]),
            ..BookEntry::default()
        };
        store.import_one(&position, entry);
        assert!(table.fill(&store, key).unwrap());
        assert!(
            !table.fill(&store, key).unwrap(),
            "nothing is missing any more"
        );
        let rows = store.proven_rows(key).unwrap();
        assert_eq!(rows.len(), MoveGroups::of(&position, true).iter().count());
        assert!(rows.values().all(|p| p.source == ExactSource::Table));
        assert_eq!(store.playout_table(key).unwrap()[&mv], counts);
        let oracle = Tablebase::shipped().unwrap();
        let (value, _) = store.position_value(key).unwrap().unwrap();
        assert_eq!(Some(value), oracle.value(&position).unwrap());
        // A backfill walks the book and finds nothing more to do.
        let done = table.backfill(&store, 0, 10).unwrap();
        assert_eq!((done.looked, done.filled, done.next_key), (1, 0, 0));
    }

    #[tokio::test]
    async fn a_result_stores_the_table_values_of_the_positions_it_stores() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = CoordinatorSettings::default();
        // The analysis below is invented; the statistical check would rightly catch it.
        settings.crosscheck.analysis_sample = 0.0;
        settings.table = shipped();
        let coordinator = Coordinator::open(dir.path(), settings).unwrap();
        let position = canonical(4);
        let task = Task::Analyse {
            position,
            config: "uct".parse().unwrap(),
            playouts: 10,
        };
        coordinator.jobs.submit(vec![task]).await.unwrap();
        let worker = WorkerId::parse("w").unwrap();
        coordinator.jobs.hello(&worker, "w", 1).unwrap();
        let [job] = coordinator
            .jobs
            .lease(&worker, 1)
            .unwrap()
            .try_into()
            .unwrap();
        let Task::Analyse {
            position: asked, ..
        } = job.task
        else {
            panic!("{:?}", job.task);
        };
        let outcome = Outcome::Analyse {
            rows: vec![Row {
                mv: asked.legal_moves()[0],
                games: 10,
                wins: 5,
                draws: 0,
            }],
            simulations: 10,
            seconds: 0.0,
        };
        let submission = Submission {
            worker_id: worker,
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: ResultId::parse("r").unwrap(),
            outcome,
        };
        coordinator.ingest.submit(&submission).await.unwrap();
        let key = position.key().bits();
        let view = coordinator.book.show(&position).unwrap();
        let oracle = Tablebase::shipped().unwrap();
        assert_eq!(view.proven, oracle.value(&position).unwrap());
        assert_eq!(view.proven_by, Some(ExactSource::Table));
        let valued = view.playouts.iter().filter(|r| r.proven.is_some()).count();
        assert_eq!(valued, MoveGroups::of(&position, true).iter().count());
        assert!(view.playouts.iter().any(|r| r.games == 10));
        assert!(
            view.playouts
                .iter()
                .all(|r| r.proven_by == Some(ExactSource::Table))
        );
        let win = view.playouts.iter().find(|r| r.proven == Some(Value::Win));
        assert_eq!(win.is_some(), view.proven == Some(Value::Win), "{key}");
    }

    /// Leaves in `dir` a closed store holding `position`'s counts without exact values, and
    /// (when given) the record of a finished walk with the slices `walked`.
    fn seeded(dir: &std::path::Path, position: &Position, walked: Option<&[u8]>) {
        let store = Store::open(dir).unwrap();
        let mv = MoveGroups::of(position, true).iter().next().unwrap()[0];
        let counts = Counts {
            games: 3,
            wins: 1,
            draws: 0,
        };
        let entry = BookEntry {
            playouts: Table::from([(mv, counts)]),
            ..BookEntry::default()
        };
        store.import_one(position, entry);
        store.set_table_walk(walked).unwrap();
        store.flush_blocking().unwrap();
    }

    fn with_table() -> CoordinatorSettings {
        CoordinatorSettings {
            table: shipped(),
            ..CoordinatorSettings::default()
        }
    }

    #[tokio::test]
    async fn a_finished_walk_is_recorded_and_not_made_again_with_the_same_slices() {
        let stones = shipped().stones().unwrap();
        assert_eq!(stones, [0, 1, 2, 3, 4, 5, 6]);
        let position = canonical(3);
        // Walked with these slices before: the start skips the walk, so a position planted
        // without its values keeps lacking them.
        let walked = tempfile::tempdir().unwrap();
        seeded(walked.path(), &position, Some(&stones));
        let coordinator = Coordinator::open(walked.path(), with_table()).unwrap();
        coordinator.book.backfill_tick().await.unwrap();
        assert_eq!(coordinator.book.show(&position).unwrap().proven, None);
        // Walked with fewer slices: the walk fills the position and records these slices.
        let fewer = tempfile::tempdir().unwrap();
        seeded(fewer.path(), &position, Some(&stones[..4]));
        let coordinator = Coordinator::open(fewer.path(), with_table()).unwrap();
        coordinator.book.backfill_tick().await.unwrap();
        let truth = Tablebase::shipped().unwrap().value(&position).unwrap();
        assert!(truth.is_some());
        assert_eq!(coordinator.book.show(&position).unwrap().proven, truth);
        assert_eq!(coordinator.store().table_walk().unwrap(), Some(stones));
    }

    #[tokio::test]
    async fn a_start_without_the_tablebase_clears_the_record_of_a_walk() {
        let dir = tempfile::tempdir().unwrap();
        let stones = shipped().stones().unwrap();
        seeded(dir.path(), &canonical(3), Some(&stones));
        let coordinator = Coordinator::open(dir.path(), CoordinatorSettings::default()).unwrap();
        assert_eq!(coordinator.store().table_walk().unwrap(), None);
        coordinator.book.backfill_tick().await.unwrap();
        assert_eq!(coordinator.store().table_walk().unwrap(), None);
    }
}
