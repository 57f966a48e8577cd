//! Proven values taken back when what they were derived from goes, inside a purge's
//! transaction (see [`super::word`]). Propagation (see [`super::propagate`]) writes into each
//! stored parent of a proven position the value of the moves reaching it, marked
//! [`ExactSource::Propagated`]; a parent so proven passes its own value up in turn, in that
//! transaction or a later one. When a purge removes a caught worker's values (its `proven`
//! tables and deep leaves) or reopens a deep solve that took in its leaves, the positions
//! they proved may no longer be proven, and every propagated value that rested on them has to
//! go too, however far up the book it was carried and by whichever later result.
//!
//! Starting from the positions whose values went, each stored parent's propagated values of
//! the moves into such a position are removed unless the position is still proven with the
//! value they carry (by other stored values, a deep-solve leaf, a finished deep solve, or the
//! rules); a parent whose value so changes is visited in turn. Values from any other source (a
//! solver's, the tablebase's, an import's, an older database's unrecorded ones) are
//! independent of the purged values and stay, and so does a propagated value whose child is
//! still proven. Unbounded on purpose (a purge is rare and must leave nothing unsupported):
//! only the positions whose values went and the parents that lost theirs are visited, each
//! again only if its value changed since.
//!
//! The records written are the `proven` table's own stable format; no other record changes.

use std::collections::{BTreeMap, HashMap, VecDeque};

use pentago::{MoveGroups, Position, PositionKey, Value, parents};
use pentagrid_model::ExactSource;
use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::book::{ProvenRows, decode_rows, encode_rows, values_of};
use super::propagate::position_value;
use super::{StoreError, abort};

/// Canonical position key → value, of the finished deep solves a purge leaves finished: their
/// roots are proven by their records, whatever their `proven` tables hold.
pub(super) type SolvedRoots = BTreeMap<u64, Value>;

/// The trees demotion reads and writes, inside a purge's transaction.
pub(super) struct Demotion<'a> {
    /// Exact move values (read and written).
    pub proven: &'a TransactionalTree,
    /// Deep-solve leaf values (read: a leaf is proven as a whole).
    pub deep_leaves: &'a TransactionalTree,
    /// The finished deep solves' roots that stay proven.
    pub solved: &'a SolvedRoots,
}

impl Demotion<'_> {
    fn rows(&self, key: u64) -> ConflictableTransactionResult<Option<ProvenRows>, StoreError> {
        match self.proven.get(key.to_be_bytes())? {
            Some(bytes) => decode_rows(&bytes)
                .ok_or("bad encoding")
                .map(Some)
                .map_err(abort("proven table")),
            None => Ok(None),
        }
    }

    /// The exact value of canonical `position` for its mover as the store has it now.
    fn value_now(
        &self,
        key: u64,
        position: &Position,
        rows: Option<&ProvenRows>,
    ) -> ConflictableTransactionResult<Option<Value>, StoreError> {
        let table = rows.map(values_of).unwrap_or_default();
        if let Some((value, _)) = position_value(position, &table) {
            return Ok(Some(value));
        }
        if let Some(bytes) = self.deep_leaves.get(key.to_be_bytes())? {
            let byte = bytes
                .first()
                .copied()
                .ok_or("empty")
                .map_err(abort("deep leaf"))?;
            return Ok(Value::try_from(i8::from_be_bytes([byte])).ok());
        }
        Ok(self.solved.get(&key).copied())
    }

    /// Removes every propagated value that rested on the positions of canonical keys `gone`
    /// (whose values were just removed or reopened), however far up; returns how many move
    /// values it removed.
    pub fn demote(&self, gone: &[u64]) -> ConflictableTransactionResult<u64, StoreError> {
        let mut queue: VecDeque<u64> = gone.iter().copied().collect();
        // Each position's value when its parents were last looked at: a value only ever goes
        // here, so a position is looked at again only if it lost its value since.
        let mut seen: HashMap<u64, Option<Value>> = HashMap::new();
        let mut removed = 0;
        while let Some(child_key) = queue.pop_front() {
            let Ok(child) = Position::from_key(PositionKey(child_key)) else {
                continue;
            };
            let child_value = self.value_now(child_key, &child, self.rows(child_key)?.as_ref())?;
            if seen.insert(child_key, child_value) == Some(child_value) {
                continue;
            }
            let mut keys: Vec<u64> = parents(&child)
                .iter()
                .map(|(parent, _)| parent.canonical_key().bits())
                .collect();
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                let Some(mut rows) = self.rows(key)? else {
                    continue;
                };
                let Ok(parent) = Position::from_key(PositionKey(key)) else {
                    continue;
                };
                let before = self.value_now(key, &parent, Some(&rows))?;
                let supported = child_value.map(Value::negate);
                let unsupported: Vec<_> = MoveGroups::of(&parent, true)
                    .iter()
                    .map(|group| group[0])
                    .filter(|&mv| {
                        rows.get(&mv).is_some_and(|row| {
                            row.source == ExactSource::Propagated && Some(row.value) != supported
                        })
                    })
                    .filter(|&mv| parent.play_unchecked(mv).canonical_key().bits() == child_key)
                    .collect();
                if unsupported.is_empty() {
                    continue;
                }
                for mv in &unsupported {
                    rows.remove(mv);
                }
                removed += unsupported.len() as u64;
                if rows.is_empty() {
                    self.proven.remove(&key.to_be_bytes())?;
                } else {
                    self.proven.insert(&key.to_be_bytes(), encode_rows(&rows))?;
                }
                if self.value_now(key, &parent, Some(&rows))? != before {
                    queue.push_back(key);
                }
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use pentago::{Move, random_opening};

    use super::*;
    use crate::deep_record::DeepSolve;
    use crate::{BookEntry, Counts, ProvenTable, ResultEffect, Store, Table, WordSource};

    /// Whether `position` is ongoing and none of its moves ends the game.
    fn undecided(position: &Position) -> bool {
        !position.is_over()
            && MoveGroups::of(position, true)
                .iter()
                .all(|g| !position.play_unchecked(g[0]).is_over())
    }

    /// The canonical parents of `position` none of whose moves the rules decide.
    fn undecided_parents(position: &Position) -> Vec<Position> {
        let mut above: Vec<Position> = parents(position)
            .iter()
            .map(|(p, _)| p.canonical().position)
            .filter(undecided)
            .collect();
        above.sort_unstable_by_key(|p| p.key().bits());
        above.dedup();
        above
    }

    /// A late canonical root with two undecided canonical parents, the first of which has an
    /// undecided canonical parent of its own that is not a parent of the root's: (root, p1,
    /// p2, g1).
    fn chain() -> (Position, Position, Position, Position) {
        for seed in 0.. {
            let root = random_opening(seed, 28).canonical().position;
            if !undecided(&root) {
                continue;
            }
            let above = undecided_parents(&root);
            if above.len() < 2 {
                continue;
            }
            let (p1, p2) = (above[0], above[1]);
            if let Some(&g1) = undecided_parents(&p1).iter().find(|g| **g != p2) {
                return (root, p1, p2, g1);
            }
        }
        unreachable!()
    }

    /// A playout table of one row for `position`: it is in the book.
    fn store_table(store: &Store, position: &Position) {
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
    }

    /// The first move of `position`'s groups that does not reach `child`.
    fn other_move(position: &Position, child: &Position) -> Move {
        MoveGroups::of(position, true)
            .iter()
            .map(|g| g[0])
            .find(|&mv| position.play_unchecked(mv).canonical().position != *child)
            .unwrap()
    }

    /// Propagated rows of `position`'s table.
    fn propagated(store: &Store, position: &Position) -> usize {
        let rows = store.proven_rows(position.key().bits()).unwrap();
        rows.values()
            .filter(|row| row.source == ExactSource::Propagated)
            .count()
    }

    #[test]
    fn a_reopened_solves_carried_values_go_and_independent_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (root, p1, p2, g1) = chain();
        let unrelated = random_opening(99, 10).canonical().position;
        for position in [&root, &p1, &p2, &g1, &unrelated] {
            store_table(&store, position);
        }
        let key = |p: &Position| p.key().bits();
        // An honest proof of its own for p2 (one move won), and an unrelated proven value.
        let honest = |job: u64, position: &Position, table: ProvenTable| {
            let effect = ResultEffect {
                proven: Some((key(position), table)),
                ..ResultEffect::default()
            };
            store.apply_as("honest", job, &effect);
        };
        let p2_own = other_move(&p2, &root);
        honest(1, &p2, ProvenTable::from([(p2_own, Value::Win)]));
        let u_move = MoveGroups::of(&unrelated, true).iter().next().unwrap()[0];
        honest(2, &unrelated, ProvenTable::from([(u_move, Value::Draw)]));
        // The liar's leaf goes into deep solve 5 of the root, which then finishes: the root is
        // lost for its mover, so both parents' moves into it are won and p1 is proven won,
        // which g1 learns as lost moves into p1.
        let solving = DeepSolve {
            position: root.to_string(),
            batch: 1,
            lower: -1,
            upper: 1,
            leaf_stones: 30,
            ..DeepSolve::default()
        };
        store.put_deep_solve(5, &solving).unwrap();
        let leaf = random_opening(7, 30).canonical().position;
        let effect = ResultEffect {
            deep_leaves: vec![(key(&leaf), Value::Loss)],
            on_word: Some(WordSource {
                solved: None,
                deep_solve: Some(5),
            }),
            ..ResultEffect::default()
        };
        store.apply_as("liar", 3, &effect);
        let finished = DeepSolve {
            done: true,
            lower: -1,
            upper: -1,
            ..solving
        };
        let carried = store.finish_deep_solve(5, &finished).unwrap();
        assert!(carried.moves >= 3, "{carried:?}");
        assert_eq!(
            store.position_value(key(&p1)).unwrap().unwrap().0,
            Value::Win
        );
        assert!(propagated(&store, &p1) >= 1 && propagated(&store, &p2) >= 1);
        assert!(propagated(&store, &g1) >= 1, "carried two levels up");
        let before = (
            store.proven_table(key(&g1)).unwrap(),
            store.proven_table(key(&unrelated)).unwrap(),
        );

        let purged = store.purge_worker("liar").unwrap();
        assert_eq!((purged.leaves, purged.reopened), (1, 1));
        assert_eq!(
            purged.demoted as usize, carried.moves,
            "every carried value, no more"
        );
        assert!(!store.deep_solve(5).unwrap().unwrap().done, "reopened");
        // The root and p1 are unproven again, and g1 lost what p1's value gave it.
        assert_eq!(store.position_value(key(&root)).unwrap(), None);
        assert!(store.proven_table(key(&p1)).unwrap().is_empty());
        assert_eq!(store.position_value(key(&p1)).unwrap(), None);
        assert_eq!(propagated(&store, &g1), 0);
        // p2 keeps its own proof (and so its value) and only that.
        assert_eq!(
            store.proven_table(key(&p2)).unwrap(),
            ProvenTable::from([(p2_own, Value::Win)])
        );
        assert_eq!(
            store.position_value(key(&p2)).unwrap().unwrap().0,
            Value::Win
        );
        // g1 keeps what did not come from p1; the unrelated value stays whole.
        let g1_now = store.proven_table(key(&g1)).unwrap();
        assert!(g1_now.len() < before.0.len());
        assert!(g1_now.iter().all(|(mv, v)| before.0.get(mv) == Some(v)));
        assert_eq!(store.proven_table(key(&unrelated)).unwrap(), before.1);
        let flags = store.flagged_workers().unwrap();
        let (_, liar) = flags.iter().find(|(id, _)| id == "liar").unwrap();
        assert_eq!(
            (liar.reopened_solves, liar.demoted_values),
            (1, purged.demoted)
        );
        // Nothing more on a second purge.
        assert_eq!(store.purge_worker("liar").unwrap().demoted, 0);
    }
}
