//! Each worker's share of the book's tables, so that a worker caught lying (by any
//! cross-check) has its analyses and its self-play games taken back out of the book, as
//! fishtest purges a bad worker's games.
//!
//! Playout and game tables merge every analysis or game through a position into one row per
//! move (`docs/DESIGN.md` §4), so a table alone cannot say whose games it holds. Each applied result
//! therefore also adds its rows, in its own transaction, to its worker's record for the
//! position: one record per (worker, position) and kind of table, the sum of every row that
//! worker added there. When the worker is quarantined, [`take_back`] subtracts each of its
//! records from the position's table inside the purge's transaction (see [`super::word`]): a
//! row left without games goes, a table left without rows goes, and the records go. A row that
//! holds less than the record says (a database changed behind the coordinator's back) loses
//! the whole row rather than wrap; such rows are counted as `short`. Nothing underflows.
//! A self-play game's moves are replayed and its result follows from them, but which moves a
//! worker chose is its word: a liar can throw games to bend the statistics.
//!
//! Bounded: one record per (worker, position) the worker played through, each no longer than
//! the position's own table (at most one row per move group), whatever the number of results.
//! Rows imported from book files and rows stored before these trees existed belong to nobody
//! and are never taken back.
//!
//! Stable format. `contributions` (shares of `playouts`) and `game_contributions` (shares of
//! `game_tables`): key = the worker id's bytes, a zero byte (no worker id holds one), the
//! canonical position key (8 bytes, big-endian); value = a move table in the format of the
//! table trees (see [`super::table`]). A database without a tree reads as having no such
//! shares.

use std::collections::BTreeMap;

use sled::transaction::{
    ConflictableTransactionError, ConflictableTransactionResult, TransactionalTree,
};

use super::table::{self, Counts, Table};
use super::{StoreError, corrupt};

/// The `contributions` key of `worker`'s record for the canonical position `key`.
pub(super) fn contribution_key(worker: &str, key: u64) -> Vec<u8> {
    let mut bytes = worker_prefix(worker);
    bytes.extend_from_slice(&key.to_be_bytes());
    bytes
}

/// The prefix of every `contributions` key of `worker`.
pub(super) fn worker_prefix(worker: &str) -> Vec<u8> {
    let mut prefix = worker.as_bytes().to_vec();
    prefix.push(0);
    prefix
}

/// The canonical position key at the end of a `contributions` key, if it has the shape.
fn position_of(key: &[u8]) -> Option<u64> {
    let at = key.len().checked_sub(8).filter(|&at| at > 1)?;
    (key[at - 1] == 0).then(|| u64::from_be_bytes(key[at..].try_into().expect("8 bytes")))
}

fn overflow() -> ConflictableTransactionError<StoreError> {
    ConflictableTransactionError::Abort(StoreError::Overflow {
        what: "a worker's contributed counts",
    })
}

/// Adds the rows `worker`'s result adds to one kind of table (`rows`, by canonical key) to its
/// records of that kind, inside the result's transaction. A result without a worker (none leased it)
/// is nobody's.
pub(super) fn record_contributions(
    tree: &TransactionalTree,
    worker: &str,
    tables: &BTreeMap<u64, Table>,
) -> ConflictableTransactionResult<(), StoreError> {
    if worker.is_empty() {
        return Ok(());
    }
    for (key, rows) in tables {
        let record_key = contribution_key(worker, *key);
        let mut record = match tree.get(&record_key)? {
            Some(bytes) => table::decode(&bytes).ok_or_else(|| {
                ConflictableTransactionError::Abort(corrupt("contribution", "bad encoding"))
            })?,
            None => Table::new(),
        };
        table::merge(&mut record, rows).map_err(|table::Overflow| overflow())?;
        tree.insert(record_key, table::encode(&record))?;
    }
    Ok(())
}

/// The keys of every record of `worker`, read before the purge's transaction (which reads
/// each again: the transaction sees what it removes).
pub(super) fn keys_of(tree: &sled::Tree, worker: &str) -> Result<Vec<sled::IVec>, StoreError> {
    tree.scan_prefix(worker_prefix(worker))
        .keys()
        .map(|key| Ok(key?))
        .collect()
}

/// What taking a worker's rows back out of one kind of table removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TakenBack {
    /// Positions whose tables lost the worker's rows.
    pub positions: u64,
    /// Games through moves (playouts, or self-play games) removed from those tables.
    pub games: u64,
    /// Of those tables, the ones left without rows and removed.
    pub tables_removed: u64,
    /// Rows that held less than the worker's record and were removed whole.
    pub short: u64,
}

/// `row` less `taken`, or `None` when nothing honest is left of it (no games), or when it
/// holds less than `taken` or would no longer add up (wins and draws above the games).
fn less(row: Counts, taken: Counts) -> Result<Option<Counts>, Short> {
    let left = Counts {
        games: row.games.checked_sub(taken.games).ok_or(Short)?,
        wins: row.wins.checked_sub(taken.wins).ok_or(Short)?,
        draws: row.draws.checked_sub(taken.draws).ok_or(Short)?,
    };
    if left.wins.saturating_add(left.draws) > left.games {
        return Err(Short);
    }
    Ok((left.games > 0).then_some(left))
}

/// A row that holds less than a record says.
struct Short;

/// Subtracts the records under `keys` from `tables` (the kind of table the records are shares
/// of) and removes them, inside the purge's transaction; returns what went.
pub(super) fn take_back(
    contributions: &TransactionalTree,
    tables: &TransactionalTree,
    keys: &[sled::IVec],
) -> ConflictableTransactionResult<TakenBack, StoreError> {
    let mut taken = TakenBack::default();
    let bad = |why: &'static str| ConflictableTransactionError::Abort(corrupt("contribution", why));
    for record_key in keys {
        let Some(bytes) = contributions.get(record_key)? else {
            continue; // taken back already
        };
        let record = table::decode(&bytes).ok_or_else(|| bad("bad encoding"))?;
        let position = position_of(record_key).ok_or_else(|| bad("bad key"))?;
        contributions.remove(record_key)?;
        let book_key = position.to_be_bytes();
        let Some(stored) = tables.get(book_key)? else {
            taken.short += record.len() as u64;
            continue;
        };
        let mut rows = table::decode(&stored).ok_or_else(|| {
            ConflictableTransactionError::Abort(corrupt("move table", "bad encoding"))
        })?;
        let before: u64 = rows.values().map(|c| c.games).sum();
        for (mv, counts) in &record {
            let Some(row) = rows.get(mv).copied() else {
                taken.short += 1;
                continue;
            };
            match less(row, *counts) {
                Ok(Some(left)) => {
                    rows.insert(*mv, left);
                }
                Ok(None) => {
                    rows.remove(mv);
                }
                Err(Short) => {
                    taken.short += 1;
                    rows.remove(mv);
                }
            }
        }
        let after: u64 = rows.values().map(|c| c.games).sum();
        taken.positions += 1;
        taken.games = taken
            .games
            .checked_add(before - after)
            .ok_or_else(overflow)?;
        if rows.is_empty() {
            tables.remove(&book_key)?;
            taken.tables_removed += 1;
        } else {
            tables.insert(&book_key, table::encode(&rows))?;
        }
    }
    Ok(taken)
}

/// Checks one backed-up `contributions` record: a worker id (1 to `max_id` bytes, no zero
/// byte), a zero byte, a position key; a move table as value. Says what is wrong otherwise.
pub(super) fn check_record(key: &[u8], value: &[u8], max_id: usize) -> Result<(), &'static str> {
    let id_len = key.len().saturating_sub(9);
    if key.len() < 10 || id_len > max_id || key[..id_len].contains(&0) || key[id_len] != 0 {
        return Err("not a worker id, a zero byte and a position key");
    }
    if table::decode(value).is_none() {
        return Err("a contributed move table that does not read");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Applied, Flag, ResultEffect, Store};
    use pentago::{Move, Position};

    /// Two canonical positions and three moves legal in each.
    fn places() -> ([u64; 2], [Move; 3]) {
        let start = Position::START;
        let child = start
            .play(start.legal_moves()[0])
            .unwrap()
            .canonical()
            .position;
        let moves = child.legal_moves();
        // The child's free squares are free at the start too.
        (
            [start.key().bits(), child.key().bits()],
            [moves[0], moves[8], moves[16]],
        )
    }

    fn rows(entries: &[(Move, u64, u64, u64)]) -> Table {
        entries
            .iter()
            .map(|&(mv, games, wins, draws)| (mv, Counts { games, wins, draws }))
            .collect()
    }

    /// Applies `worker`'s result for `job` adding `playouts`, and `flags`.
    fn apply(
        store: &Store,
        worker: &str,
        job: u64,
        playouts: BTreeMap<u64, Table>,
        flags: Vec<Flag>,
    ) -> Applied {
        let effect = ResultEffect {
            playout_count: playouts
                .values()
                .flat_map(|t| t.values())
                .map(|c| c.games)
                .sum(),
            playouts,
            flags,
            ..ResultEffect::default()
        };
        store.apply_as(worker, job, &effect)
    }

    #[test]
    fn a_purge_takes_back_exactly_the_caught_workers_rows() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let ([a, b], [m0, m1, m2]) = places();
        let honest = rows(&[(m0, 100, 40, 10), (m1, 50, 20, 5)]);
        apply(
            &store,
            "honest",
            1,
            BTreeMap::from([(a, honest.clone())]),
            vec![],
        );
        let lie = rows(&[(m0, 300, 300, 0), (m2, 7, 7, 0)]);
        apply(
            &store,
            "liar",
            2,
            BTreeMap::from([(a, lie.clone())]),
            vec![],
        );
        apply(
            &store,
            "liar",
            3,
            BTreeMap::from([(a, lie.clone())]),
            vec![],
        );
        apply(&store, "liar", 4, BTreeMap::from([(b, lie)]), vec![]);
        assert_eq!(store.playout_table(a).unwrap()[&m0].games, 700);
        assert_eq!(keys_of(&store.contributions, "liar").unwrap().len(), 2);
        let before = store.totals().unwrap();
        assert_eq!(
            (before.playouts, before.playout_positions),
            (150 + 3 * 307, 2)
        );
        // Caught by a later result (any worker's): from then on its results change nothing.
        let caught = Flag {
            worker: "liar".to_owned(),
            reason: "leans".to_owned(),
        };
        apply(&store, "checker", 5, BTreeMap::new(), vec![caught]);
        let late = BTreeMap::from([(a, rows(&[(m1, 9, 9, 0)]))]);
        assert_eq!(
            apply(&store, "liar", 6, late, vec![]),
            Applied::WorkerQuarantined
        );
        assert_eq!(store.result_job("r6").unwrap(), None);

        let purged = store.purge_worker("liar").unwrap();
        let taken = TakenBack {
            positions: 2,
            games: 3 * 307,
            tables_removed: 1,
            short: 0,
        };
        assert_eq!(purged.analyses, taken);
        // The honest worker's rows stay exactly; the position only the liar analysed is gone.
        assert_eq!(store.playout_table(a).unwrap(), honest);
        assert!(store.playout_table(b).unwrap().is_empty());
        assert!(keys_of(&store.contributions, "liar").unwrap().is_empty());
        assert_eq!(keys_of(&store.contributions, "honest").unwrap().len(), 1);
        let totals = store.totals().unwrap();
        assert_eq!(
            (
                totals.playouts,
                totals.purged_playouts,
                totals.kept_playouts()
            ),
            (before.playouts, 3 * 307, 150)
        );
        assert_eq!((totals.playout_positions, totals.purged_positions), (1, 1));
        let flags = store.flagged_workers().unwrap();
        let (_, liar) = flags.iter().find(|(id, _)| id == "liar").unwrap();
        assert_eq!((liar.purged_positions, liar.purged_playouts), (2, 3 * 307));
        // Idempotent, and the database reopens over its manifest.
        let again = store.purge_worker("liar").unwrap();
        assert_eq!(again.analyses, TakenBack::default());
        store.flush_blocking().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.playout_table(a).unwrap(), honest);
    }

    /// Applies `worker`'s self-play result for `job` adding `games` to the game tables.
    fn apply_games(store: &Store, worker: &str, job: u64, games: BTreeMap<u64, Table>) {
        let effect = ResultEffect {
            games,
            ..ResultEffect::default()
        };
        assert_eq!(store.apply_as(worker, job, &effect), Applied::Applied);
    }

    #[test]
    fn a_purge_takes_back_the_caught_workers_self_play_games_too() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let ([a, b], [m0, m1, _]) = places();
        let honest = rows(&[(m0, 2, 1, 0), (m1, 1, 0, 1)]);
        apply_games(&store, "honest", 1, BTreeMap::from([(a, honest.clone())]));
        // Thrown games: every one through m1 lost, and a line of its own below.
        let thrown = rows(&[(m1, 3, 0, 0)]);
        apply_games(&store, "liar", 2, BTreeMap::from([(a, thrown.clone())]));
        apply_games(
            &store,
            "liar",
            3,
            BTreeMap::from([(a, thrown), (b, rows(&[(m0, 3, 0, 0)]))]),
        );
        apply(
            &store,
            "honest",
            4,
            BTreeMap::from([(b, rows(&[(m0, 5, 5, 0)]))]),
            vec![],
        );
        assert_eq!(store.game_table(a).unwrap()[&m1].games, 7);
        assert_eq!(store.totals().unwrap().game_positions, 2);

        let caught = Flag {
            worker: "liar".to_owned(),
            reason: "lied".to_owned(),
        };
        apply(&store, "checker", 5, BTreeMap::new(), vec![caught]);
        let purged = store.purge_worker("liar").unwrap();
        let taken = TakenBack {
            positions: 2,
            games: 9,
            tables_removed: 1,
            short: 0,
        };
        assert_eq!(purged.games, taken);
        assert_eq!(purged.analyses, TakenBack::default());
        // The honest games stay exactly, the liar's own line is gone, and the playout table
        // of the same position (an honest analysis) is untouched.
        assert_eq!(store.game_table(a).unwrap(), honest);
        assert!(store.game_table(b).unwrap().is_empty());
        assert_eq!(store.playout_table(b).unwrap(), rows(&[(m0, 5, 5, 0)]));
        let totals = store.totals().unwrap();
        assert_eq!(
            (
                totals.game_positions,
                totals.purged_game_positions,
                totals.purged_games
            ),
            (1, 1, 9)
        );
        let flags = store.flagged_workers().unwrap();
        let (_, liar) = flags.iter().find(|(id, _)| id == "liar").unwrap();
        assert_eq!((liar.purged_game_positions, liar.purged_games), (2, 9));
        assert_eq!(
            store.purge_worker("liar").unwrap().games,
            TakenBack::default()
        );
        // The manifest counts the removed game table as purged, not lost.
        store.flush_blocking().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.game_table(a).unwrap(), honest);
    }

    #[test]
    fn a_row_that_holds_less_than_the_record_goes_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let ([a, _], [m0, m1, _]) = places();
        let lie = rows(&[(m0, 10, 10, 0), (m1, 10, 10, 0)]);
        apply(&store, "liar", 1, BTreeMap::from([(a, lie)]), vec![]);
        apply(
            &store,
            "honest",
            2,
            BTreeMap::from([(a, rows(&[(m1, 5, 0, 5)]))]),
            vec![],
        );
        // The book lost part of m0's row behind the coordinator's back.
        let mut table = store.playout_table(a).unwrap();
        table.get_mut(&m0).unwrap().games = 4;
        table.get_mut(&m0).unwrap().wins = 4;
        store
            .playouts
            .insert(a.to_be_bytes(), table::encode(&table))
            .unwrap();
        let purged = store.purge_worker("liar").unwrap();
        assert_eq!((purged.analyses.short, purged.analyses.games), (1, 14));
        assert_eq!(store.playout_table(a).unwrap(), rows(&[(m1, 5, 0, 5)]));
    }

    #[test]
    fn keys_group_by_worker_and_end_in_their_position() {
        assert!(contribution_key("w", 7).starts_with(&worker_prefix("w")));
        assert!(!contribution_key("w1", 7).starts_with(&worker_prefix("w")));
        assert_eq!(position_of(&contribution_key("w", 258)), Some(258));
        assert_eq!(position_of(&[0; 8]), None);
        assert_eq!(position_of(&[1, 1, 0, 0, 0, 0, 0, 0, 0, 7]), None);
        assert_eq!(check_record(&contribution_key("w", 1), &[1], 200), Ok(()));
        assert!(check_record(&contribution_key("", 1), &[1], 200).is_err());
        assert!(check_record(&contribution_key("w\0x", 1), &[1], 200).is_err());
        assert!(check_record(&contribution_key("w", 1), &[9], 200).is_err());
        assert!(check_record(&contribution_key(&"w".repeat(201), 1), &[1], 200).is_err());
    }

    #[test]
    fn a_row_loses_what_was_taken_and_never_underflows() {
        let c = |games, wins, draws| Counts { games, wins, draws };
        assert_eq!(less(c(10, 4, 2), c(3, 1, 1)).ok(), Some(Some(c(7, 3, 1))));
        assert_eq!(less(c(10, 4, 2), c(10, 4, 2)).ok(), Some(None));
        assert!(less(c(10, 4, 2), c(11, 0, 0)).is_err());
        assert!(less(c(10, 4, 2), c(1, 5, 0)).is_err());
        // What is left must still add up.
        assert!(less(c(10, 9, 0), c(5, 0, 0)).is_err());
    }
}
