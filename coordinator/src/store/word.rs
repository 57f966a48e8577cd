//! Exact values stored on one worker's word, and the purge of a caught worker.
//!
//! Most exact claims are published without a second party (only a sampled share is
//! cross-checked, `docs/DESIGN.md` §6), so each result that stores such values also records, in the same
//! transaction, which values they were: the positions whose `proven` tables it wrote (its own
//! solve and every parent the propagation then changed) and the deep-solve leaves it stored.
//! When a cross-check catches the worker lying, [`Store::purge_worker`] removes every value it
//! stored that way, in one transaction, and says what it removed so the services can have it
//! worked out again by other workers. A finished deep solve that took in a purged leaf is
//! reopened (its record back to unproven, its root's `proven` table removed) in the same
//! transaction; values its finish had carried further up the book are not traced (a known
//! limit, see the README's cross-checks). The same transaction takes the worker's analyses
//! back out of the playout tables and its self-play games out of the game tables (see
//! [`super::contributions`]), counts what went in the totals (`purged_playouts`,
//! `purged_positions`, `purged_games`, `purged_game_positions`), takes the match pairs it
//! played out of their matches (a pair result is recorded here too, with A's points), and
//! out of the tuning runs whose iterations they were (see [`super::tune_purge`]), and
//! records it all on the worker's flag record.
//!
//! Stable format (a protobuf record, fields only ever added). `on_word`: key = the worker id's
//! bytes, a zero byte (no worker id holds one), the job id (8 bytes, big-endian); value =
//! [`StoredWord`]. A database without the tree reads as having no such values.

use std::collections::BTreeSet;

use prost::Message;
use sled::Transactional;
use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::contributions::{self, TakenBack};
use super::match_records::{PurgedPair, WordPair, take_back_pairs};
use super::tune_purge::take_back_from_runs;
use super::{
    Store, StoreError, StoredDeepSolve, StoredFlags, TOTALS, Totals, abort, corrupt, totals_in,
};

/// What one result stored on its worker's word alone.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredWord {
    /// Canonical keys of the positions whose `proven` tables the result wrote.
    #[prost(fixed64, repeated, tag = "1")]
    pub proven: Vec<u64>,
    /// Canonical keys of the deep-solve leaves (and rotated variants) it stored.
    #[prost(fixed64, repeated, tag = "2")]
    pub leaves: Vec<u64>,
    /// The deep solve its leaves were for, if any.
    #[prost(uint64, optional, tag = "3")]
    pub deep_solve: Option<u64>,
    /// The position it solved (text form), for a solve result: what to solve again.
    #[prost(string, optional, tag = "4")]
    pub solved: Option<String>,
    /// The match of the pair it played, for a pair result: a pair's games are its word too.
    #[prost(uint64, optional, tag = "5")]
    pub pair_match: Option<u64>,
    /// That pair's index in its match.
    #[prost(uint64, optional, tag = "6")]
    pub pair: Option<u64>,
    /// A's points in each of the pair's games, doubled (0 loss, 1 draw, 2 win): what the pair
    /// added to its match's score.
    #[prost(uint32, repeated, tag = "7")]
    pub pair_half_points: Vec<u32>,
}

impl StoredWord {
    /// The match pair the result played, if it was a pair.
    fn pair_played(&self) -> Option<WordPair> {
        Some(WordPair {
            match_id: self.pair_match?,
            pair: self.pair?,
            a_half_points: self.pair_half_points.clone(),
        })
    }
}

/// The `on_word` key of `worker`'s result for `job_id`.
fn word_key(worker: &str, job_id: u64) -> Vec<u8> {
    let mut key = worker_prefix(worker);
    key.extend_from_slice(&job_id.to_be_bytes());
    key
}

/// The prefix of every `on_word` key of `worker`.
fn worker_prefix(worker: &str) -> Vec<u8> {
    let mut prefix = worker.as_bytes().to_vec();
    prefix.push(0);
    prefix
}

/// Records, inside a result's transaction, what `worker`'s result for `job_id` stored on its
/// word (nothing when it stored nothing exact and played no pair).
pub(super) fn record_word(
    tree: &TransactionalTree,
    worker: &str,
    job_id: u64,
    word: &StoredWord,
) -> ConflictableTransactionResult<(), StoreError> {
    if word.proven.is_empty() && word.leaves.is_empty() && word.pair.is_none() {
        return Ok(());
    }
    tree.insert(word_key(worker, job_id), word.encode_to_vec())?;
    Ok(())
}

/// What a purge removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Purged {
    /// Results whose values were removed.
    pub results: u64,
    /// `proven` tables removed (a table holds one position's move values; the honest values
    /// in it come back as the book is worked on again).
    pub proven_tables: u64,
    /// Deep-solve leaf values removed.
    pub leaves: u64,
    /// The positions its solve results solved, to be solved again by others.
    pub solves: Vec<String>,
    /// The deep solves whose leaves were removed, to be carried on (or reopened).
    pub deep_solves: BTreeSet<u64>,
    /// Of those, the finished ones that were reopened.
    pub reopened: u64,
    /// What went from the playout tables: its analyses' rows.
    pub analyses: TakenBack,
    /// What went from the game tables: its self-play games' rows.
    pub games: TakenBack,
    /// The match pairs it played, taken out of their matches (to be played again by others).
    pub pairs: Vec<PurgedPair>,
}

impl Store {
    /// Removes every exact value `worker` stored on its word alone — the `proven` tables its
    /// results wrote and the deep leaves they stored — with their records, takes its analyses'
    /// rows back out of the playout tables and its games' rows out of the game tables, and adds
    /// the counts to the worker's flag record and the totals, in one transaction. Idempotent: a second purge finds nothing.
    pub fn purge_worker(&self, worker: &str) -> Result<Purged, StoreError> {
        let mut records = Vec::new();
        for entry in self.on_word.scan_prefix(worker_prefix(worker)) {
            let (key, value) = entry?;
            let word =
                StoredWord::decode(value.as_ref()).map_err(|e| corrupt("on-word record", e))?;
            records.push((key, word));
        }
        // Read again inside the transaction; no result of the worker commits after the one
        // that caught it (see `Applied::WorkerQuarantined`), so no record is missed.
        let analyses = contributions::keys_of(&self.contributions, worker)?;
        let games = contributions::keys_of(&self.game_contributions, worker)?;
        let pairs: Vec<WordPair> = records
            .iter()
            .filter_map(|(_, w)| w.pair_played())
            .collect();
        let located = self.tune_iterations(pairs.iter().map(|pair| pair.match_id))?;
        // Results that stored exact values (a pair's record holds none).
        let exact = records
            .iter()
            .filter(|(_, w)| !w.proven.is_empty() || !w.leaves.is_empty())
            .count() as u64;
        let mut purged = Purged {
            results: exact,
            ..Purged::default()
        };
        let proven: BTreeSet<u64> = records.iter().flat_map(|(_, w)| w.proven.clone()).collect();
        let leaves: BTreeSet<u64> = records.iter().flat_map(|(_, w)| w.leaves.clone()).collect();
        for (_, word) in &records {
            purged.solves.extend(word.solved.clone());
            purged.deep_solves.extend(word.deep_solve);
        }
        let _writing = self.writing();
        let trees = (
            &self.on_word,
            &self.proven,
            &self.deep_leaves,
            &self.flagged_workers,
            &self.deep_solves,
            &self.contributions,
            &self.playouts,
            &self.game_contributions,
            &self.game_tables,
            &self.matches,
            &self.meta,
            &self.tunes,
        );
        let solves = purged.deep_solves.clone();
        let (tables, leaf_count, reopened, taken) = trees.transaction(
            |(
                on_word,
                proven_tree,
                deep_leaves,
                flagged,
                deep_solves,
                shares,
                playouts,
                game_shares,
                game_tables,
                matches,
                meta,
                tunes,
            )| {
                let mut tables = 0;
                for key in &proven {
                    tables += u64::from(proven_tree.remove(&key.to_be_bytes())?.is_some());
                }
                let mut leaf_count = 0;
                for key in &leaves {
                    leaf_count += u64::from(deep_leaves.remove(&key.to_be_bytes())?.is_some());
                }
                for (key, _) in &records {
                    on_word.remove(key.as_ref())?;
                }
                let reopened = reopen(deep_solves, proven_tree, &solves)?;
                let analysed = contributions::take_back(shares, playouts, &analyses)?;
                let played = contributions::take_back(game_shares, game_tables, &games)?;
                count_taken_back(meta, &analysed, &played)?;
                let mut taken_pairs = take_back_pairs(matches, &pairs)?;
                take_back_from_runs(tunes, &mut taken_pairs, &located)?;
                let mut flags = match flagged.get(worker.as_bytes())? {
                    Some(bytes) => {
                        StoredFlags::decode(bytes.as_ref()).map_err(abort("flagged worker"))?
                    }
                    None => StoredFlags::default(),
                };
                flags.purged_results += exact;
                flags.purged_values += tables + leaf_count;
                flags.purged_positions = flags.purged_positions.saturating_add(analysed.positions);
                flags.purged_playouts = flags.purged_playouts.saturating_add(analysed.games);
                flags.purged_game_positions =
                    flags.purged_game_positions.saturating_add(played.positions);
                flags.purged_games = flags.purged_games.saturating_add(played.games);
                flags.purged_pairs = flags.purged_pairs.saturating_add(taken_pairs.len() as u64);
                flagged.insert(worker.as_bytes(), flags.encode_to_vec())?;
                Ok((
                    tables,
                    leaf_count,
                    reopened,
                    (analysed, played, taken_pairs),
                ))
            },
        )?;
        purged.proven_tables = tables;
        purged.leaves = leaf_count;
        purged.reopened = reopened;
        (purged.analyses, purged.games, purged.pairs) = taken;
        // Only a purge that removed exact values invalidates what the deep searches learnt.
        if purged.results > 0 {
            self.purges
                .fetch_add(1, std::sync::atomic::Ordering::Release);
        }
        Ok(purged)
    }

    /// How many purges this store has made since it was opened: a cache of stored exact values
    /// (a running deep solve's) that was filled under another count must be rebuilt.
    pub fn purges(&self) -> u64 {
        self.purges.load(std::sync::atomic::Ordering::Acquire)
    }

    /// How many results of `worker` stored values on its word that are still kept.
    pub fn words_of(&self, worker: &str) -> usize {
        self.on_word.scan_prefix(worker_prefix(worker)).count()
    }
}

/// Reopens the finished deep solves among `solves` (their leaves are being purged): each goes
/// back to unproven and its root's `proven` table is removed. Returns how many were reopened.
fn reopen(
    deep_solves: &TransactionalTree,
    proven: &TransactionalTree,
    solves: &BTreeSet<u64>,
) -> ConflictableTransactionResult<u64, StoreError> {
    let mut reopened = 0;
    for id in solves {
        let Some(bytes) = deep_solves.get(id.to_be_bytes())? else {
            continue;
        };
        let mut record = StoredDeepSolve::decode(bytes.as_ref()).map_err(abort("deep solve"))?;
        if !record.done {
            continue;
        }
        if let Some((key, ..)) = super::deep::proven_root(&record) {
            proven.remove(&key.to_be_bytes())?;
        }
        record.done = false;
        (record.lower, record.upper) = (-1, 1);
        record.best.clear();
        deep_solves.insert(&id.to_be_bytes(), record.encode_to_vec())?;
        reopened += 1;
    }
    Ok(reopened)
}

/// Counts in the totals what a purge took out of the playout tables (`analysed`) and the game
/// tables (`played`). What was ever merged stays as it was (it only grows, as the integrity
/// manifest expects); the tables removed leave `playout_positions` or `game_positions` and
/// join `purged_positions` or `purged_game_positions`.
fn count_taken_back(
    meta: &TransactionalTree,
    analysed: &TakenBack,
    played: &TakenBack,
) -> ConflictableTransactionResult<(), StoreError> {
    if analysed.positions == 0 && played.positions == 0 {
        return Ok(());
    }
    let mut totals: Totals = totals_in(meta)?;
    super::add_count(
        &mut totals.purged_playouts,
        analysed.games,
        "purged playouts",
    )?;
    super::add_count(
        &mut totals.purged_positions,
        analysed.tables_removed,
        "purged positions",
    )?;
    totals.playout_positions = totals
        .playout_positions
        .saturating_sub(analysed.tables_removed);
    super::add_count(&mut totals.purged_games, played.games, "purged games")?;
    super::add_count(
        &mut totals.purged_game_positions,
        played.tables_removed,
        "purged game positions",
    )?;
    totals.game_positions = totals.game_positions.saturating_sub(played.tables_removed);
    meta.insert(TOTALS, totals.encode_to_vec())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ProvenTable, ResultEffect, WordSource};
    use pentago::{Move, Position, Value};

    /// Applies a solve result of `worker` for `job` that stores `table` for `position` and a
    /// deep leaf `leaf`, on its word alone or not.
    fn apply(store: &Store, worker: &str, job: u64, position: &Position, leaf: u64, alone: bool) {
        let table = ProvenTable::from([(Move::from_index(job as u16).unwrap(), Value::Win)]);
        let effect = ResultEffect {
            proven: Some((position.key().bits(), table)),
            deep_leaves: vec![(leaf, Value::Draw)],
            on_word: alone.then_some(WordSource {
                solved: Some(*position),
                deep_solve: Some(5),
            }),
            ..ResultEffect::default()
        };
        store.apply_as(worker, job, &effect);
    }

    #[test]
    fn a_purge_removes_what_the_worker_stored_on_its_word_alone_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let [a, b, c]: [Position; 3] = [
            "x...../....../....../....../....../......",
            ".x..../....../....../....../....../......",
            "..x.../....../....../....../....../......",
        ]
        .map(|text| text.parse::<Position>().unwrap().canonical().position);
        apply(&store, "liar", 1, &a, 100, true);
        apply(&store, "liar", 2, &b, 101, false);
        apply(&store, "honest", 3, &c, 102, true);
        assert_eq!((store.words_of("liar"), store.words_of("honest")), (1, 1));
        assert_eq!(store.purges(), 0);
        let purged = store.purge_worker("liar").unwrap();
        assert_eq!(
            (purged.results, purged.proven_tables, purged.leaves),
            (1, 1, 1)
        );
        assert_eq!(purged.solves, [a.to_string()]);
        assert_eq!(purged.deep_solves, BTreeSet::from([5]));
        assert_eq!(store.purges(), 1);
        let key = |p: &Position| p.key().bits();
        assert!(store.proven_table(key(&a)).unwrap().is_empty(), "purged");
        assert_eq!(store.deep_leaf(100).unwrap(), None);
        // What a second party vouched for, and what another worker said, stay.
        assert!(!store.proven_table(key(&b)).unwrap().is_empty());
        assert!(!store.proven_table(key(&c)).unwrap().is_empty());
        assert_eq!(store.deep_leaf(101).unwrap(), Some(Value::Draw));
        assert_eq!(store.deep_leaf(102).unwrap(), Some(Value::Draw));
        assert_eq!(store.words_of("liar"), 0);
        let record = store.flagged_workers().unwrap();
        let (_, flags) = record.iter().find(|(id, _)| id == "liar").unwrap();
        assert_eq!((flags.purged_results, flags.purged_values), (1, 2));
        // A second purge finds nothing more.
        let again = store.purge_worker("liar").unwrap();
        assert_eq!(
            (again.results, again.proven_tables, again.leaves),
            (0, 0, 0)
        );
    }

    #[test]
    fn keys_group_by_worker_and_never_mix_two_ids() {
        assert!(word_key("w", 7).starts_with(&worker_prefix("w")));
        // "w" and "w1" share bytes, not the zero byte after the id.
        assert!(!word_key("w1", 7).starts_with(&worker_prefix("w")));
        assert_eq!(word_key("w", 258)[2..], 258u64.to_be_bytes());
    }

    #[test]
    fn records_read_back_in_their_stable_form() {
        let word = StoredWord {
            proven: vec![1, u64::MAX],
            leaves: vec![42],
            deep_solve: Some(9),
            solved: None,
            pair_match: Some(3),
            pair: Some(0),
            pair_half_points: vec![2, 1],
        };
        let bytes = word.encode_to_vec();
        assert_eq!(StoredWord::decode(bytes.as_slice()).unwrap(), word);
        assert_eq!(StoredWord::decode(&[][..]).unwrap(), StoredWord::default());
    }
}
