//! Proven values carried up through the stored book (`docs/DESIGN.md` §5), in the transaction that
//! stores the exact values they come from.
//!
//! A canonical position's value follows from its `proven` table (see [`super::book`]) and the
//! rules: one move proven won proves it won; every move (one per group of moves reaching the
//! same position, up to symmetry) proven — by a stored value, or by the rules where the move
//! ends the game — proves it worth the best of them (all lost: lost; best a draw: drawn). See
//! [`position_value`]. Nothing else makes a position proven: the stored values come only from
//! checked solver results (solves, deep-solve leaves and finished deep solves, an immediate win
//! the coordinator checks itself), from the coordinator's tablebase (Irving's solution), from
//! imported books, and from this propagation over proven children.
//!
//! When a result stores exact values, every position they prove passes its value up: each
//! *stored* parent (one with any table: playouts, games or proven values) gets the value,
//! negated, for each of its moves that reaches the position (or a symmetric one), written into
//! the parent's `proven` table in the canonical frame like a solver's values; a parent this
//! newly proves passes its own value up in turn. A stored value that disagrees with the
//! propagated one (a wrong claim got through somewhere) is kept, logged, and not built on.
//!
//! Bounded: one update looks up the parents of at most [`MAX_PROPAGATION_VISITS`] proven
//! positions (each costs `parents` (at most 144 candidates), up to three reads per distinct
//! canonical parent, and the move groups of each stored one), breadth first from the results'
//! own positions, so a result's transaction stays short. What the cap cuts off is not lost for
//! good: the positions it did not reach keep their proven moves, and any later exact value
//! below them carries on from there.
//!
//! The records written are the `proven` table's own stable format; no other record changes.

use std::collections::VecDeque;

use pentago::{Move, MoveGroups, Position, PositionKey, Value, parents};
use pentagrid_model::ExactSource;
use sled::Transactional;
use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::book::{
    Proven, ProvenRows, ProvenTable, add_values, decode_rows, encode_rows, values_of,
};
use super::{Store, StoreError, abort};

/// Most proven positions whose parents one update looks up (see the module's documentation).
pub const MAX_PROPAGATION_VISITS: usize = 64;

/// The exact value of an ongoing canonical `position` for the side to move, from its proven
/// `table` (moves in its frame, one per group) and the rules, with a move that achieves it: the
/// first winning move, else — when every group's move is valued — the first move of the best
/// value. `None` while unproven (or for a finished game).
#[must_use]
pub fn position_value(position: &Position, table: &ProvenTable) -> Option<(Value, Move)> {
    let groups = MoveGroups::of(position, true);
    let mover = position.side_to_move();
    let mut best: Option<(Value, Move)> = None;
    let mut complete = true;
    for group in groups.iter() {
        let mv = group[0];
        let value = table.get(&mv).copied().or_else(|| {
            let child = position.play_unchecked(mv);
            Value::of_status(child.status(), mover)
        });
        match value {
            Some(Value::Win) => return Some((Value::Win, mv)),
            Some(value) => {
                if best.is_none_or(|(b, _)| value > b) {
                    best = Some((value, mv));
                }
            }
            None => complete = false,
        }
    }
    if complete { best } else { None }
}

/// Where propagation starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seed {
    /// A canonical position whose proven table just changed: it starts if that proves it.
    Table(u64),
    /// A canonical position proven as a whole (a deep-solve leaf).
    Value(u64, Value),
}

impl Store {
    /// The exact value of the canonical position `key` for the side to move, with a move (in
    /// its canonical frame) that achieves it, when its stored proven values and the rules prove
    /// one (see [`position_value`]).
    pub fn position_value(&self, key: u64) -> Result<Option<(Value, Move)>, StoreError> {
        let Ok(position) = pentago::Position::from_key(pentago::PositionKey(key)) else {
            return Ok(None);
        };
        Ok(position_value(&position, &self.proven_table(key)?))
    }

    /// Adds exact move values from the tablebase (source [`ExactSource::Table`]) to the
    /// proven tables of canonical positions, and carries what they prove up the stored book,
    /// in one transaction (not yet durable). Values already stored stay.
    pub fn add_table_values(
        &self,
        tables: &[(u64, ProvenTable)],
    ) -> Result<Propagated, StoreError> {
        let _writing = self.writing();
        let trees = (&self.proven, &self.playouts, &self.game_tables);
        let done = trees.transaction(|(proven, playouts, game_tables)| {
            let book = BookTrees {
                proven,
                playouts,
                game_tables,
            };
            let mut seeds = Vec::with_capacity(tables.len());
            for (key, table) in tables {
                let mut rows = book.proven_rows(*key)?;
                if add_values(&mut rows, table, ExactSource::Table) {
                    proven.insert(&key.to_be_bytes(), encode_rows(&rows))?;
                    seeds.push(Seed::Table(*key));
                }
            }
            book.propagate(&seeds)
        })?;
        Ok(done)
    }
}

/// What one propagation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Propagated {
    /// Proven positions whose parents were looked up.
    pub visited: usize,
    /// Parents' move values written.
    pub moves: usize,
    /// Parents newly proven.
    pub positions: usize,
    /// Whether the cap stopped it with proven positions left to pass up.
    pub cut: bool,
    /// Canonical keys of the `proven` tables it changed, in the order it changed them.
    pub written: Vec<u64>,
}

/// The trees propagation reads and writes, inside a transaction.
pub(crate) struct BookTrees<'a> {
    /// Exact move values (read and written).
    pub proven: &'a TransactionalTree,
    /// Playout tables (read: whether a position is in the book).
    pub playouts: &'a TransactionalTree,
    /// Game tables (read likewise).
    pub game_tables: &'a TransactionalTree,
}

impl BookTrees<'_> {
    pub(crate) fn proven_table(
        &self,
        key: u64,
    ) -> ConflictableTransactionResult<ProvenTable, StoreError> {
        Ok(values_of(&self.proven_rows(key)?))
    }

    /// The stored proven rows of a canonical position (empty if none).
    pub(crate) fn proven_rows(
        &self,
        key: u64,
    ) -> ConflictableTransactionResult<ProvenRows, StoreError> {
        match self.proven.get(key.to_be_bytes())? {
            Some(bytes) => decode_rows(&bytes)
                .ok_or("bad encoding")
                .map_err(abort("proven table")),
            None => Ok(ProvenRows::new()),
        }
    }

    pub(crate) fn stored(&self, key: u64) -> ConflictableTransactionResult<bool, StoreError> {
        let key = key.to_be_bytes();
        Ok(self.proven.get(key)?.is_some()
            || self.playouts.get(key)?.is_some()
            || self.game_tables.get(key)?.is_some())
    }

    /// Carries the values the seeds prove up through the stored book (see the module's
    /// documentation), at most [`MAX_PROPAGATION_VISITS`] positions.
    pub fn propagate(
        &self,
        seeds: &[Seed],
    ) -> ConflictableTransactionResult<Propagated, StoreError> {
        let mut queue: VecDeque<(Position, Value)> = VecDeque::new();
        for seed in seeds {
            let (key, value) = match *seed {
                Seed::Table(key) => (key, None),
                Seed::Value(key, value) => (key, Some(value)),
            };
            let Ok(position) = Position::from_key(PositionKey(key)) else {
                continue;
            };
            let value = match value {
                Some(value) => Some(value),
                None => position_value(&position, &self.proven_table(key)?).map(|(v, _)| v),
            };
            if let Some(value) = value {
                queue.push_back((position, value));
            }
        }
        let mut done = Propagated::default();
        while let Some((child, value)) = queue.pop_front() {
            if done.visited == MAX_PROPAGATION_VISITS {
                done.cut = true;
                tracing::debug!(left = queue.len() + 1, "proven-value propagation capped");
                break;
            }
            done.visited += 1;
            let child_key = child.key().bits();
            let mut keys: Vec<u64> = parents(&child)
                .iter()
                .map(|(parent, _)| parent.canonical_key().bits())
                .collect();
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                if !self.stored(key)? {
                    continue;
                }
                let Ok(parent) = Position::from_key(PositionKey(key)) else {
                    continue;
                };
                let mut rows = self.proven_rows(key)?;
                let mut table = values_of(&rows);
                let was_proven = position_value(&parent, &table).is_some();
                let wanted = value.negate();
                let mut changed = false;
                for group in MoveGroups::of(&parent, true).iter() {
                    let mv = group[0];
                    if parent.play_unchecked(mv).canonical_key().bits() != child_key {
                        continue;
                    }
                    match table.get(&mv) {
                        Some(&stored) if stored == wanted => {}
                        Some(&stored) => tracing::error!(
                            parent = %parent,
                            mv = %mv,
                            stored = stored.as_i8(),
                            propagated = wanted.as_i8(),
                            "a stored exact value contradicts the one proven below it; kept"
                        ),
                        None => {
                            table.insert(mv, wanted);
                            let source = ExactSource::Propagated;
                            rows.insert(
                                mv,
                                Proven {
                                    value: wanted,
                                    source,
                                },
                            );
                            changed = true;
                            done.moves += 1;
                        }
                    }
                }
                if !changed {
                    continue;
                }
                self.proven.insert(&key.to_be_bytes(), encode_rows(&rows))?;
                done.written.push(key);
                if !was_proven && let Some((parent_value, _)) = position_value(&parent, &table) {
                    done.positions += 1;
                    queue.push_back((parent, parent_value));
                }
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use pentago::random_opening;

    use super::*;
    use crate::job::{Job, JobState};
    use crate::{BookEntry, Counts, ResultEffect, Store, Table};

    /// A late, ongoing canonical position none of whose moves the rules decide, with its
    /// distinct canonical children (ongoing ones), a canonical parent none of whose moves the
    /// rules decide either, and another canonical parent.
    fn late_position() -> (Position, Vec<Position>, Position, Position) {
        for seed in 0.. {
            let position = random_opening(seed, 30).canonical().position;
            // No move the rules decide: every move's value has to come from below.
            if !undecided(&position) {
                continue;
            }
            let mut children: Vec<Position> = MoveGroups::of(&position, true)
                .iter()
                .map(|g| position.play_unchecked(g[0]))
                .filter(|child| !child.is_over())
                .map(|child| child.canonical().position)
                .collect();
            children.sort_unstable_by_key(|c| c.key().bits());
            children.dedup();
            let mut above: Vec<Position> = parents(&position)
                .iter()
                .map(|(p, _)| p.canonical().position)
                .collect();
            above.sort_unstable_by_key(|p| p.key().bits());
            above.dedup();
            let Some(&parent) = above.iter().find(|p| undecided(p)) else {
                continue;
            };
            if children.len() >= 2 && above.len() >= 2 && children.iter().any(undecided) {
                let other = *above.iter().find(|p| **p != parent).unwrap();
                return (position, children, parent, other);
            }
        }
        unreachable!()
    }

    /// Whether `position` is ongoing and none of its moves ends the game.
    fn undecided(position: &Position) -> bool {
        !position.is_over()
            && MoveGroups::of(position, true)
                .iter()
                .all(|g| !position.play_unchecked(g[0]).is_over())
    }

    /// Stores a playout table with one row for `position`.
    fn store_table(store: &Store, position: &Position) {
        let mv = MoveGroups::of(position, true).iter().next().unwrap()[0];
        let entry = BookEntry {
            playouts: Table::from([(
                mv,
                Counts {
                    games: 10,
                    wins: 5,
                    draws: 0,
                },
            )]),
            ..BookEntry::default()
        };
        store.import_one(position, entry);
    }

    /// Applies a solve result that stores `table` for the canonical `position`.
    fn solve(store: &Store, job: u64, position: &Position, table: ProvenTable) {
        let effect = ResultEffect {
            proven: Some((position.key().bits(), table)),
            ..ResultEffect::default()
        };
        let done = Job::in_state(JobState::Done);
        store
            .apply(job, &done, &format!("r{job}"), &effect)
            .unwrap();
    }

    /// The first move of `position`'s first group.
    fn first_move(position: &Position) -> Move {
        MoveGroups::of(position, true).iter().next().unwrap()[0]
    }

    #[test]
    fn a_position_value_needs_one_win_or_every_move() {
        let (position, _, _, _) = late_position();
        let groups: Vec<Move> = MoveGroups::of(&position, true)
            .iter()
            .map(|g| g[0])
            .collect();
        assert_eq!(position_value(&position, &ProvenTable::new()), None);
        let one_win = ProvenTable::from([(groups[1], Value::Win)]);
        assert_eq!(
            position_value(&position, &one_win),
            Some((Value::Win, groups[1]))
        );
        let mut all_lost: ProvenTable = groups.iter().map(|&m| (m, Value::Loss)).collect();
        assert_eq!(position_value(&position, &all_lost).unwrap().0, Value::Loss);
        all_lost.insert(groups[2], Value::Draw);
        assert_eq!(
            position_value(&position, &all_lost),
            Some((Value::Draw, groups[2]))
        );
        all_lost.remove(&groups[0]);
        // A move left unvalued leaves it unproven.
        assert_eq!(position_value(&position, &all_lost), None);
    }

    #[test]
    fn proven_leaves_flip_their_parent_and_its_parent_learns_the_move() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (position, children, parent, unstored) = late_position();
        let key = position.key().bits();
        store_table(&store, &position);
        store_table(&store, &parent);
        // Every child is proven won for its mover, one solve at a time: the position is
        // proven only by the last one.
        for (index, child) in children.iter().enumerate() {
            assert_eq!(store.position_value(key).unwrap(), None, "child {index}");
            assert!(store.proven_table(parent.key().bits()).unwrap().is_empty());
            let win = ProvenTable::from([(first_move(child), Value::Win)]);
            solve(&store, index as u64 + 1, child, win);
            // Each child's moves into it are lost for the position's mover.
            let table = store.proven_table(key).unwrap();
            let into_child: Vec<Move> = MoveGroups::of(&position, true)
                .iter()
                .map(|g| g[0])
                .filter(|&m| position.play_unchecked(m).canonical().position == *child)
                .collect();
            assert!(!into_child.is_empty());
            for mv in into_child {
                assert_eq!(table.get(&mv), Some(&Value::Loss), "{mv}");
            }
        }
        let (value, _) = store.position_value(key).unwrap().unwrap();
        assert_eq!(value, Value::Loss);
        // The stored parent's moves into the position are now proven wins: it is won.
        let (value, _) = store.position_value(parent.key().bits()).unwrap().unwrap();
        assert_eq!(value, Value::Win);
        let parent_table = store.proven_table(parent.key().bits()).unwrap();
        assert!(!parent_table.is_empty());
        for (mv, value) in &parent_table {
            assert_eq!(*value, Value::Win);
            assert_eq!(parent.play(*mv).unwrap().canonical().position, position);
        }
        // A parent outside the book gets nothing.
        assert!(
            store
                .proven_table(unstored.key().bits())
                .unwrap()
                .is_empty()
        );
        // And it all survives reopening.
        store.flush_blocking().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(
            store
                .position_value(parent.key().bits())
                .unwrap()
                .unwrap()
                .0,
            Value::Win
        );
    }

    #[test]
    fn nothing_is_marked_proven_without_a_proof() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (position, children, parent, _) = late_position();
        let key = position.key().bits();
        store_table(&store, &position);
        store_table(&store, &parent);
        let child = *children.iter().find(|c| undecided(c)).unwrap();
        // A child with one move proven lost (the rest unknown) proves nothing above it.
        let partial = ProvenTable::from([(first_move(&child), Value::Loss)]);
        solve(&store, 1, &child, partial);
        assert!(store.proven_table(key).unwrap().is_empty());
        // An analysis (playouts only) proves nothing either.
        let analysis = ResultEffect {
            playouts: BTreeMap::from([(
                child.key().bits(),
                Table::from([(
                    first_move(&child),
                    Counts {
                        games: 100,
                        wins: 0,
                        draws: 0,
                    },
                )]),
            )]),
            playout_count: 100,
            ..ResultEffect::default()
        };
        store
            .apply(2, &Job::in_state(JobState::Done), "r2", &analysis)
            .unwrap();
        assert!(store.proven_table(key).unwrap().is_empty());
        // A child proven lost makes the move into it a win: the position is won, and its
        // parent learns only that its moves into the position lose, which proves nothing
        // about the parent while it has other moves.
        let child_groups: Vec<Move> = MoveGroups::of(&child, true).iter().map(|g| g[0]).collect();
        let all_lost: ProvenTable = child_groups.iter().map(|&m| (m, Value::Loss)).collect();
        solve(&store, 3, &child, all_lost);
        let (value, best) = store.position_value(key).unwrap().unwrap();
        assert_eq!(value, Value::Win);
        assert_eq!(position.play(best).unwrap().canonical().position, child);
        let table = store.proven_table(key).unwrap();
        assert!(table.values().all(|&v| v == Value::Win), "{table:?}");
        let parent_table = store.proven_table(parent.key().bits()).unwrap();
        assert!(!parent_table.is_empty());
        assert!(parent_table.values().all(|&v| v == Value::Loss));
        assert_eq!(store.position_value(parent.key().bits()).unwrap(), None);
        // Nothing outside the stored book was written: only the three stored positions have
        // proven tables.
        assert_eq!(store.proven.len(), 3);
    }

    #[test]
    fn one_update_visits_at_most_the_cap() {
        use sled::Transactional;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // More proven leaves than the cap in one update (as a deep-leaves result may carry).
        let seeds: Vec<Seed> = (0..MAX_PROPAGATION_VISITS as u64 + 6)
            .map(|seed| {
                let leaf = random_opening(seed, 12).canonical().position;
                Seed::Value(leaf.key().bits(), Value::Draw)
            })
            .collect();
        let trees = (&store.proven, &store.playouts, &store.game_tables);
        let done = trees
            .transaction(|(proven, playouts, game_tables)| {
                let book = BookTrees {
                    proven,
                    playouts,
                    game_tables,
                };
                book.propagate(&seeds)
            })
            .unwrap();
        assert_eq!(done.visited, MAX_PROPAGATION_VISITS);
        assert!(done.cut);
        assert_eq!(
            (done.moves, done.positions),
            (0, 0),
            "nothing is stored above them"
        );
    }

    #[test]
    fn a_stored_value_that_contradicts_a_proof_below_is_kept_and_not_built_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (position, children, parent, _) = late_position();
        let key = position.key().bits();
        store_table(&store, &parent);
        let child = children[0];
        let into_child = MoveGroups::of(&position, true)
            .iter()
            .map(|g| g[0])
            .find(|&m| position.play_unchecked(m).canonical().position == child)
            .unwrap();
        // A (wrong) loss stored for the move into the child, then the child proven lost.
        solve(
            &store,
            1,
            &position,
            ProvenTable::from([(into_child, Value::Loss)]),
        );
        let all_lost: ProvenTable = MoveGroups::of(&child, true)
            .iter()
            .map(|g| (g[0], Value::Loss))
            .collect();
        solve(&store, 2, &child, all_lost);
        assert_eq!(
            store.proven_table(key).unwrap().get(&into_child),
            Some(&Value::Loss)
        );
        assert!(store.proven_table(parent.key().bits()).unwrap().is_empty());
    }
}
