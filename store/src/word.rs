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
//! transaction, and every propagated value that rested on a removed value or a reopened root,
//! however far up the book it was carried, is taken back too (see [`super::demote`]). The
//! same transaction takes the worker's analyses
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
use super::demote::{Demotion, SolvedRoots};
use super::match_records::{PurgedPair, WordPair, take_back_pairs};
use super::tune_purge::take_back_from_runs;
use super::{
    Store, StoreError, StoredDeepSolve, StoredFlags, TOTALS, Totals, abort, all_records, corrupt,
    totals_in,
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
    /// Propagated move values taken back because what they were derived from went (see
    /// [`super::demote`]).
    pub demoted: u64,
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
        let exact_values = self.word_values(worker)?;
        // Read again inside the transaction; no result of the worker commits after the one
        // that caught it (see `Applied::WorkerQuarantined`), so no record is missed.
        let analyses = contributions::keys_of(&self.contributions, worker)?;
        let games = contributions::keys_of(&self.game_contributions, worker)?;
        let pairs = &exact_values.pairs;
        let located = self.tune_iterations(pairs.iter().map(|pair| pair.match_id))?;
        let exact = exact_values.results;
        let mut purged = Purged {
            results: exact,
            solves: exact_values.solved_positions.clone(),
            deep_solves: exact_values.solves.clone(),
            ..Purged::default()
        };
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
        let (removed, taken) = trees.transaction(
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
                let trees = ExactTrees {
                    on_word,
                    proven: proven_tree,
                    deep_leaves,
                    deep_solves,
                };
                let removed = trees.remove(&exact_values)?;
                let analysed = contributions::take_back(shares, playouts, &analyses)?;
                let played = contributions::take_back(game_shares, game_tables, &games)?;
                count_taken_back(meta, &analysed, &played)?;
                let mut taken_pairs = take_back_pairs(matches, pairs)?;
                take_back_from_runs(tunes, &mut taken_pairs, &located)?;
                let counts = PurgeCounts {
                    results: exact,
                    removed,
                    analysed: &analysed,
                    played: &played,
                    pairs: taken_pairs.len() as u64,
                };
                add_to_flags(flagged, worker, &counts)?;
                Ok((removed, (analysed, played, taken_pairs)))
            },
        )?;
        purged.proven_tables = removed.tables;
        purged.leaves = removed.leaves;
        purged.reopened = removed.reopened;
        purged.demoted = removed.demoted;
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

/// What a worker's results stored on its word, read before its purge's transaction.
struct ExactValues {
    /// The worker's `on_word` records (key, record).
    records: Vec<(sled::IVec, StoredWord)>,
    /// Of those, the results that stored exact values (a pair's record holds none).
    results: u64,
    /// The `proven` tables its results wrote.
    proven: BTreeSet<u64>,
    /// The deep leaves they stored.
    leaves: BTreeSet<u64>,
    /// The positions its solves solved (text form).
    solved_positions: Vec<String>,
    /// The deep solves its leaves were for.
    solves: BTreeSet<u64>,
    /// The finished deep solves that stay finished.
    solved: SolvedRoots,
    /// The match pairs it played.
    pairs: Vec<WordPair>,
}

impl Store {
    /// What `worker`'s results stored on its word (see [`ExactValues`]).
    fn word_values(&self, worker: &str) -> Result<ExactValues, StoreError> {
        let mut records = Vec::new();
        for entry in self.on_word.scan_prefix(worker_prefix(worker)) {
            let (key, value) = entry?;
            let word =
                StoredWord::decode(value.as_ref()).map_err(|e| corrupt("on-word record", e))?;
            records.push((key, word));
        }
        let words = || records.iter().map(|(_, word)| word);
        let solves: BTreeSet<u64> = words().filter_map(|w| w.deep_solve).collect();
        Ok(ExactValues {
            results: words()
                .filter(|w| !w.proven.is_empty() || !w.leaves.is_empty())
                .count() as u64,
            proven: words().flat_map(|w| w.proven.clone()).collect(),
            leaves: words().flat_map(|w| w.leaves.clone()).collect(),
            solved_positions: words().filter_map(|w| w.solved.clone()).collect(),
            solved: self.solved_roots(&solves)?,
            solves,
            pairs: words().filter_map(StoredWord::pair_played).collect(),
            records,
        })
    }
}

/// What a purge removed of exact values.
#[derive(Clone, Copy, Debug, Default)]
struct Removed {
    /// `proven` tables.
    tables: u64,
    /// Deep leaves.
    leaves: u64,
    /// Finished deep solves reopened.
    reopened: u64,
    /// Propagated move values demoted.
    demoted: u64,
}

/// The trees exact values live in, inside a purge's transaction.
struct ExactTrees<'a> {
    on_word: &'a TransactionalTree,
    proven: &'a TransactionalTree,
    deep_leaves: &'a TransactionalTree,
    deep_solves: &'a TransactionalTree,
}

impl ExactTrees<'_> {
    /// Removes `values` with their records, reopens the finished deep solves that took in
    /// their leaves, and demotes what the book had derived from any of it.
    fn remove(&self, values: &ExactValues) -> ConflictableTransactionResult<Removed, StoreError> {
        // The positions whose values go: what proved them may have been carried up.
        let mut gone = Vec::new();
        for key in &values.proven {
            if self.proven.remove(&key.to_be_bytes())?.is_some() {
                gone.push(*key);
            }
        }
        let tables = gone.len() as u64;
        let mut leaves = 0;
        for key in &values.leaves {
            if self.deep_leaves.remove(&key.to_be_bytes())?.is_some() {
                leaves += 1;
                gone.push(*key);
            }
        }
        for (key, _) in &values.records {
            self.on_word.remove(key.as_ref())?;
        }
        let (reopened, roots) = reopen(self.deep_solves, self.proven, &values.solves)?;
        gone.extend(roots);
        let demotion = Demotion {
            proven: self.proven,
            deep_leaves: self.deep_leaves,
            solved: &values.solved,
        };
        let demoted = demotion.demote(&gone)?;
        Ok(Removed {
            tables,
            leaves,
            reopened,
            demoted,
        })
    }
}

/// What one purge counts on its worker's flag record.
struct PurgeCounts<'a> {
    results: u64,
    removed: Removed,
    analysed: &'a TakenBack,
    played: &'a TakenBack,
    pairs: u64,
}

/// Adds `counts` to `worker`'s flag record, inside the purge's transaction.
fn add_to_flags(
    flagged: &TransactionalTree,
    worker: &str,
    counts: &PurgeCounts<'_>,
) -> ConflictableTransactionResult<(), StoreError> {
    let mut flags = match flagged.get(worker.as_bytes())? {
        Some(bytes) => StoredFlags::decode(bytes.as_ref()).map_err(abort("flagged worker"))?,
        None => StoredFlags::default(),
    };
    let removed = counts.removed;
    flags.purged_results = flags.purged_results.saturating_add(counts.results);
    flags.purged_values = flags
        .purged_values
        .saturating_add(removed.tables + removed.leaves);
    flags.purged_positions = flags
        .purged_positions
        .saturating_add(counts.analysed.positions);
    flags.purged_playouts = flags.purged_playouts.saturating_add(counts.analysed.games);
    flags.purged_game_positions = flags
        .purged_game_positions
        .saturating_add(counts.played.positions);
    flags.purged_games = flags.purged_games.saturating_add(counts.played.games);
    flags.purged_pairs = flags.purged_pairs.saturating_add(counts.pairs);
    flags.reopened_solves = flags.reopened_solves.saturating_add(removed.reopened);
    flags.demoted_values = flags.demoted_values.saturating_add(removed.demoted);
    flagged.insert(worker.as_bytes(), flags.encode_to_vec())?;
    Ok(())
}

/// Reopens the finished deep solves among `solves` (their leaves are being purged): each goes
/// back to unproven and its root's `proven` table is removed. Returns how many were reopened,
/// and their roots' canonical keys.
fn reopen(
    deep_solves: &TransactionalTree,
    proven: &TransactionalTree,
    solves: &BTreeSet<u64>,
) -> ConflictableTransactionResult<(u64, Vec<u64>), StoreError> {
    let mut reopened = 0;
    let mut roots = Vec::new();
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
            roots.push(key);
        }
        record.done = false;
        (record.lower, record.upper) = (-1, 1);
        record.best.clear();
        deep_solves.insert(&id.to_be_bytes(), record.encode_to_vec())?;
        reopened += 1;
    }
    Ok((reopened, roots))
}

impl Store {
    /// The roots of the finished deep solves outside `reopening` (the ones a purge reopens),
    /// with their values: they stay proven whatever their `proven` tables hold. Read before
    /// the purge's transaction.
    fn solved_roots(&self, reopening: &BTreeSet<u64>) -> Result<SolvedRoots, StoreError> {
        let mut roots = SolvedRoots::new();
        for entry in all_records::<StoredDeepSolve>(&self.deep_solves, "deep solve") {
            let (id, record) = entry?;
            if reopening.contains(&id) {
                continue;
            }
            if let Some((key, value, _)) = super::deep::proven_root(&record) {
                roots.insert(key, value);
            }
        }
        Ok(roots)
    }
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
    use crate::{ProvenTable, ResultEffect, WordSource};
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
