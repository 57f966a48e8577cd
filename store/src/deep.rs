//! Deep solves (exact values below the midsolver's stone count, searched by the coordinator
//! with leaves solved by workers): the solve records and the proven leaf values they share.
//!
//! Stable formats. `deep_solves`: key = solve id (8 bytes, big-endian); value =
//! [`StoredDeepSolve`] (protobuf, fields only ever added). `deep_leaves`: key = the leaf's
//! canonical position key (8 bytes, big-endian, the engine's stable `PositionKey`); value = one
//! byte, the exact value for the leaf's side to move as a signed byte (1 win, 0 draw, -1 loss).
//! A leaf value is written only inside [`Store::apply`]'s transaction, with the result that
//! proved it; a value already stored is never rewritten, so a retried or duplicate result
//! changes nothing. A database without these trees reads as having no deep solves.

use pentago::{Move, MoveGroups, Position, PositionKey, Value};
use prost::Message;
use sled::Transactional;
use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::book::{ProvenTable, add_values, encode_rows};
use super::propagate::{BookTrees, Propagated, Seed};
use super::{Store, StoreError, all_records, corrupt, get_record, id_of, put_record};
use crate::deep_record::DeepSolve;
use pentagrid_model::ExactSource;

/// A deep solve, stored under its id in the `deep_solves` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredDeepSolve {
    /// The position as submitted (text form).
    #[prost(string, tag = "1")]
    pub position: String,
    /// Leaves per job.
    #[prost(uint32, tag = "2")]
    pub batch: u32,
    /// Whether the value is proven.
    #[prost(bool, tag = "3")]
    pub done: bool,
    /// The proven lower bound for the side to move (-1, 0 or 1).
    #[prost(sint32, tag = "4")]
    pub lower: i32,
    /// The proven upper bound.
    #[prost(sint32, tag = "5")]
    pub upper: i32,
    /// A move achieving the value once proven (text form; empty before or when none).
    #[prost(string, tag = "6")]
    pub best: String,
    /// Top nodes the last pass visited.
    #[prost(uint64, tag = "7")]
    pub nodes: u64,
    /// Leaf values the solve took in from results.
    #[prost(uint64, tag = "8")]
    pub leaves_solved: u64,
    /// Stones of its leaves (0 in no record: every record names them).
    #[prost(uint32, tag = "9")]
    pub leaf_stones: u32,
}

impl From<&DeepSolve> for StoredDeepSolve {
    fn from(solve: &DeepSolve) -> StoredDeepSolve {
        StoredDeepSolve {
            position: solve.position.clone(),
            batch: solve.batch,
            done: solve.done,
            lower: solve.lower,
            upper: solve.upper,
            best: solve.best.clone(),
            nodes: solve.nodes,
            leaves_solved: solve.leaves_solved,
            leaf_stones: solve.leaf_stones,
        }
    }
}

impl From<StoredDeepSolve> for DeepSolve {
    fn from(stored: StoredDeepSolve) -> DeepSolve {
        DeepSolve {
            position: stored.position,
            batch: stored.batch,
            done: stored.done,
            lower: stored.lower,
            upper: stored.upper,
            best: stored.best,
            nodes: stored.nodes,
            leaves_solved: stored.leaves_solved,
            leaf_stones: stored.leaf_stones,
        }
    }
}

/// The stored byte of a leaf value.
fn value_byte(value: Value) -> u8 {
    value.as_i8().to_be_bytes()[0]
}

/// A leaf value from its stored byte.
fn value_of_byte(bytes: &[u8]) -> Result<Value, StoreError> {
    match bytes {
        [b] => Value::try_from(i8::from_be_bytes([*b])).map_err(|e| corrupt("deep leaf", e)),
        _ => Err(corrupt("deep leaf", "a leaf value is one byte")),
    }
}

/// Stores the leaf values not stored yet (canonical key, value) inside a result's transaction;
/// returns the keys of those that were new.
pub(super) fn add_leaves(
    tree: &TransactionalTree,
    leaves: &[(u64, Value)],
) -> ConflictableTransactionResult<Vec<u64>, StoreError> {
    let mut added = Vec::new();
    for &(key, value) in leaves {
        if tree.get(key.to_be_bytes())?.is_none() {
            tree.insert(&key.to_be_bytes(), &[value_byte(value)])?;
            added.push(key);
        }
    }
    Ok(added)
}

/// A finished deep solve's canonical position key, value, and — for a win — its best move as
/// the representative of its group in the canonical frame; `None` unless done and exact.
pub(super) fn proven_root(record: &StoredDeepSolve) -> Option<(u64, Value, Option<Move>)> {
    if !record.done || record.lower != record.upper {
        return None;
    }
    let value = Value::try_from(i8::try_from(record.lower).ok()?).ok()?;
    let position: Position = record.position.parse().ok()?;
    let canonical = position.canonical();
    let best = record
        .best
        .parse::<Move>()
        .ok()
        .filter(|_| value == Value::Win)
        .and_then(|mv| {
            let mapped = canonical.symmetry.apply_move(mv);
            MoveGroups::of(&canonical.position, true)
                .group_of(mapped)
                .map(|group| group[0])
        });
    Some((canonical.position.key().bits(), value, best))
}

impl Store {
    /// Stores a deep solve's record (durable at the next flush).
    pub fn put_deep_solve(&self, id: u64, record: &DeepSolve) -> Result<(), StoreError> {
        let _writing = self.writing();
        put_record(&self.deep_solves, id, &StoredDeepSolve::from(record))
    }

    /// Stores a deep solve's record and, once it is done with an exact value, carries that
    /// value up the stored book, in one transaction (durable at the next flush): a won position
    /// in the book gets its best move proven won in its `proven` table, and its stored parents'
    /// moves into it get the value (see [`super::propagate`]). Returns what propagation did.
    pub fn finish_deep_solve(&self, id: u64, record: &DeepSolve) -> Result<Propagated, StoreError> {
        let record = StoredDeepSolve::from(record);
        let proven = proven_root(&record);
        let _writing = self.writing();
        let trees = (
            &self.deep_solves,
            &self.proven,
            &self.playouts,
            &self.game_tables,
        );
        let done = trees.transaction(|(deep_solves, proven_tree, playouts, game_tables)| {
            deep_solves.insert(&id.to_be_bytes(), record.encode_to_vec())?;
            let Some((key, value, best)) = proven else {
                return Ok(Propagated::default());
            };
            let book = BookTrees {
                proven: proven_tree,
                playouts,
                game_tables,
            };
            if let Some(best) = best
                && book.stored(key)?
            {
                let mut rows = book.proven_rows(key)?;
                let win = ProvenTable::from([(best, Value::Win)]);
                if add_values(&mut rows, &win, ExactSource::Solver) {
                    proven_tree.insert(&key.to_be_bytes(), encode_rows(&rows))?;
                }
            }
            book.propagate(&[Seed::Value(key, value)])
        })?;
        Ok(done)
    }

    /// A deep solve's record.
    pub fn deep_solve(&self, id: u64) -> Result<Option<DeepSolve>, StoreError> {
        Ok(
            get_record::<StoredDeepSolve>(&self.deep_solves, id, "deep solve")?
                .map(DeepSolve::from),
        )
    }

    /// Every deep solve, by id.
    pub fn deep_solves(&self) -> Result<Vec<(u64, DeepSolve)>, StoreError> {
        all_records::<StoredDeepSolve>(&self.deep_solves, "deep solve")
            .map(|entry| entry.map(|(id, stored)| (id, DeepSolve::from(stored))))
            .collect()
    }

    /// The proven value of the leaf of canonical key `key`, if stored.
    pub fn deep_leaf(&self, key: u64) -> Result<Option<Value>, StoreError> {
        self.deep_leaves
            .get(key.to_be_bytes())?
            .map(|bytes| value_of_byte(&bytes))
            .transpose()
    }

    /// Number of proven leaf values stored.
    #[must_use]
    pub fn deep_leaf_count(&self) -> usize {
        self.deep_leaves.len()
    }

    /// Up to `limit` proven leaves (canonical position, value) with keys above `after`, in key
    /// order.
    pub fn deep_leaves_after(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(Position, Value)>, StoreError> {
        let start = after.checked_add(1).map_or([0xFF; 8], u64::to_be_bytes);
        let mut leaves = Vec::new();
        if after == u64::MAX {
            return Ok(leaves);
        }
        for entry in self.deep_leaves.range(start..).take(limit) {
            let (key, value) = entry?;
            let key = id_of(&key, "deep leaf")?;
            let position =
                Position::from_key(PositionKey(key)).map_err(|e| corrupt("deep leaf", e))?;
            leaves.push((position, value_of_byte(&value)?));
        }
        Ok(leaves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Job, JobState};
    use crate::{Applied, ResultEffect};

    fn leaf(text: &str) -> Position {
        text.parse::<Position>().unwrap().canonical().position
    }

    #[test]
    fn leaf_values_are_stored_once_with_their_result_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let a = leaf("xoxoxo/oxoxox/xoxoxo/....../....../......");
        let b = leaf("xoxoxo/oxoxox/....../xoxoxo/....../......");
        let key = |p: &Position| p.canonical_key().bits();
        {
            let store = Store::open(dir.path()).unwrap();
            let first = ResultEffect {
                deep_leaves: vec![(key(&a), Value::Win)],
                ..ResultEffect::default()
            };
            let done = Job::in_state(JobState::Done);
            assert_eq!(
                store.apply(1, &done, "r1", &first).unwrap(),
                Applied::Applied
            );
            // Another job with an overlapping leaf: the stored value stays.
            let second = ResultEffect {
                deep_leaves: vec![(key(&a), Value::Loss), (key(&b), Value::Draw)],
                ..ResultEffect::default()
            };
            assert_eq!(
                store.apply(2, &done, "r2", &second).unwrap(),
                Applied::Applied
            );
            assert_eq!(
                store.apply(2, &done, "r2", &second).unwrap(),
                Applied::Duplicate
            );
            store
                .put_deep_solve(
                    9,
                    &DeepSolve {
                        position: "start".into(),
                        batch: 4,
                        ..DeepSolve::default()
                    },
                )
                .unwrap();
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.deep_leaf(key(&a)).unwrap(), Some(Value::Win));
        assert_eq!(store.deep_leaf(key(&b)).unwrap(), Some(Value::Draw));
        assert_eq!(store.deep_leaf_count(), 2);
        let all = store.deep_leaves_after(0, 10).unwrap();
        assert_eq!(all.len(), 2);
        let first_key = all[0].0.canonical_key().bits();
        let rest = store.deep_leaves_after(first_key, 10).unwrap();
        assert_eq!(rest, all[1..].to_vec());
        assert_eq!(store.deep_solves().unwrap().len(), 1);
        assert_eq!(store.deep_solve(9).unwrap().unwrap().batch, 4);
    }

    #[test]
    fn a_finished_deep_solve_proves_its_place_in_the_book() {
        use crate::{BookEntry, Counts, Table};
        use pentago::{MoveGroups, Symmetry, random_opening};
        let undecided = |p: &Position| {
            !p.is_over()
                && MoveGroups::of(p, true)
                    .iter()
                    .all(|g| !p.play_unchecked(g[0]).is_over())
        };
        // A stored parent none of whose moves the rules decide, and one of its children.
        let (parent, child) = (0..)
            .find_map(|seed| {
                let parent = random_opening(seed, 14).canonical().position;
                let first = MoveGroups::of(&parent, true).iter().next()?[0];
                undecided(&parent).then(|| (parent, parent.play_unchecked(first)))
            })
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let book = |position: &Position| {
            let mv = MoveGroups::of(position, true).iter().next().unwrap()[0];
            let counts = Counts {
                games: 10,
                wins: 5,
                draws: 0,
            };
            let entry = BookEntry {
                playouts: Table::from([(mv, counts)]),
                ..BookEntry::default()
            };
            store.import_one(position, entry);
        };
        book(&parent);
        book(&child.canonical().position);
        // Asked in another frame; not done yet: nothing is proven.
        let asked = Symmetry::ALL[5].apply(&child);
        let best = asked.legal_moves()[0];
        let mut record = DeepSolve {
            position: asked.to_string(),
            lower: 1,
            upper: 1,
            best: best.to_string(),
            ..DeepSolve::default()
        };
        store.finish_deep_solve(1, &record).unwrap();
        assert!(store.proven_table(parent.key().bits()).unwrap().is_empty());
        // Done and won: the child's best move is proven won, the parent's moves into it lost.
        record.done = true;
        let done = store.finish_deep_solve(1, &record).unwrap();
        assert_eq!((done.visited, done.positions), (1, 0));
        assert!(done.moves >= 1);
        let child_key = child.canonical_key().bits();
        let (value, mv) = store.position_value(child_key).unwrap().unwrap();
        assert_eq!(value, Value::Win);
        let canonical = asked.canonical();
        assert_eq!(
            asked.play(best).unwrap().canonical_key(),
            canonical.position.play(mv).unwrap().canonical_key()
        );
        let table = store.proven_table(parent.key().bits()).unwrap();
        assert!(!table.is_empty() && table.values().all(|&v| v == Value::Loss));
        assert_eq!(store.position_value(parent.key().bits()).unwrap(), None);
        assert_eq!(store.deep_solve(1).unwrap().unwrap(), record);
    }

    #[test]
    fn a_bad_leaf_byte_is_corrupt_not_a_panic() {
        assert!(value_of_byte(&[7]).is_err());
        assert!(value_of_byte(&[]).is_err());
        for value in [Value::Win, Value::Draw, Value::Loss] {
            assert_eq!(value_of_byte(&[value_byte(value)]).unwrap(), value);
        }
    }
}
