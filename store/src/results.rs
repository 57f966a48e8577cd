//! Applying a worker's result: everything it changes, written in one transaction over every
//! tree it touches, so that a result counts once or not at all. The exact values it stores are
//! carried up through the stored book in the same transaction (see [`super::propagate`]).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use prost::Message;
use sled::Transactional;
use sled::transaction::{
    ConflictableTransactionError, ConflictableTransactionResult, TransactionalTree,
};

use super::contributions::record_contributions;
use super::propagate::{BookTrees, Seed};
use super::puzzles::{StateChange, set_candidate};
use super::solitaire::{SolitaireEffect, add_deals};
use super::word::{StoredWord, record_word};
use super::{
    CandidateState, ProvenTable, Store, StoreError, StoredClaim, StoredFlags, StoredGame,
    StoredJob, StoredMatch, StoredPair, TOTALS, Table, Totals, abort, add_count, book, corrupt,
    id_of, merge_tables, pair_key, totals_in,
};
use crate::claim::Claim;
use crate::game::Game;
use crate::job::{Job, JobState};
use pentago::MatchAccuracy;
use pentagrid_model::ExactSource;

/// What [`Store::apply`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The result was applied now.
    Applied,
    /// This result id had been applied before; nothing changed.
    Duplicate,
    /// The job already has another result; nothing changed.
    JobAlreadyDone,
    /// The result's worker was quarantined (a result committed since it was let in caught
    /// it): nothing changed, so that nothing of it escapes the purge of its worker.
    WorkerQuarantined,
}

/// Everything one result changes, prepared before the transaction.
#[derive(Clone, Debug, Default)]
pub struct ResultEffect {
    /// Rows to add to playout tables, by canonical position key.
    pub playouts: BTreeMap<u64, Table>,
    /// Rows to add to game tables, by canonical position key.
    pub games: BTreeMap<u64, Table>,
    /// The game to store, for self-play results.
    pub game: Option<Game>,
    /// Playouts this result adds.
    pub playout_count: u64,
    /// The pair to store, for match pair results.
    pub pair: Option<PairEffect>,
    /// Checked puzzle candidates: canonical key, outcome, and the puzzle's JSON for puzzles.
    pub verdicts: Vec<(u64, CandidateState, Option<String>)>,
    /// Exact move values of a solved position: canonical key and table.
    pub proven: Option<(u64, ProvenTable)>,
    /// Exact move values the tablebase gives for positions whose tables this result stores
    /// (the coordinator's tablebase): canonical key and table, stored with the source `table`
    /// where new, and carried up the book like a solver's.
    pub table_values: Vec<(u64, ProvenTable)>,
    /// Cross-check claims to write (made or settled by this result), by id.
    pub claims: Vec<(u64, Claim)>,
    /// Jobs to queue with this result (cross-checks of its claims), by id.
    pub new_jobs: Vec<(u64, Job)>,
    /// Workers a cross-check showed wrong (one flag each).
    pub flags: Vec<Flag>,
    /// Proven values of deep-solve leaves: canonical key and value (stored where new).
    pub deep_leaves: Vec<(u64, pentago::Value)>,
    /// Proven values of the leaves' rotated variants (what a midsolve valued besides a leaf),
    /// canonical key and value: one list per leaf of `deep_leaves`, or none at all.
    pub deep_rotated: Vec<Vec<(u64, pentago::Value)>>,
    /// Solitaire deals played, for solitaire results.
    pub solitaire: Option<SolitaireEffect>,
    /// Set when the exact values this result stores (its solve's, its deep leaves') are
    /// published on its worker's word alone: they are recorded as that worker's, to be purged
    /// if it is ever caught lying (see [`super::word`]).
    pub on_word: Option<WordSource>,
}

/// What a result whose exact values rest on its worker's word was about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordSource {
    /// The position it solved, for a solve: what to solve again after a purge.
    pub solved: Option<pentago::Position>,
    /// The deep solve its leaves were for.
    pub deep_solve: Option<u64>,
}

/// A worker a cross-check showed wrong, and what it got wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    /// The worker's id.
    pub worker: String,
    /// What it got wrong (kept as the worker's last reason).
    pub reason: String,
}

/// A played pair and what it adds to its match.
#[derive(Clone, Debug)]
pub struct PairEffect {
    /// The match.
    pub match_id: u64,
    /// The pair's index.
    pub pair: u64,
    /// The job that played it.
    pub job_id: u64,
    /// Its two games, A black first.
    pub games: Vec<Game>,
    /// A's and B's accuracy in its games, when the match measures it.
    pub accuracy: Option<MatchAccuracy>,
    /// A's points in each game (1 win, ½ draw, 0 loss).
    pub game_points: [f64; 2],
}

impl PairEffect {
    /// The pair's stored record.
    fn stored(&self) -> StoredPair {
        StoredPair {
            job_id: self.job_id,
            a_half_points: (2.0 * (self.game_points[0] + self.game_points[1])) as u32,
            games: self.games.iter().map(StoredGame::from).collect(),
            ..StoredPair::default()
        }
        .with_accuracy(self.accuracy.as_ref())
    }
}

/// What a committed result transaction did, for the counts kept beside the trees.
struct Committed {
    outcome: Applied,
    candidate_changes: Vec<StateChange>,
    new_puzzles: u64,
}

impl Committed {
    /// An outcome that wrote nothing.
    fn nothing(outcome: Applied) -> Committed {
        Committed {
            outcome,
            candidate_changes: Vec::new(),
            new_puzzles: 0,
        }
    }
}

impl Store {
    /// The job a result id was applied to, if any.
    pub fn result_job(&self, result_id: &str) -> Result<Option<u64>, StoreError> {
        self.results
            .get(result_id.as_bytes())?
            .map(|v| id_of(&v, "result"))
            .transpose()
    }

    /// Applies a result in one transaction: records the result id, marks the job done (as
    /// `done`), adds the rows to the tables (and to the share of `done`'s worker in each, see
    /// [`super::contributions`]) and stores the game. Either all of it happens or none;
    /// nothing when the worker is quarantined by then. Not yet durable: call [`Store::flush`]
    /// before acknowledging.
    pub fn apply(
        &self,
        job_id: u64,
        done: &Job,
        result_id: &str,
        effect: &ResultEffect,
    ) -> Result<Applied, StoreError> {
        let trees = [
            &self.jobs,
            &self.results,
            &self.playouts,
            &self.game_tables,
            &self.games,
            &self.matches,
            &self.puzzles,
            &self.candidates,
            &self.proven,
            &self.meta,
            &self.claims,
            &self.flagged_workers,
            &self.deep_leaves,
            &self.solitaire,
            &self.on_word,
            &self.contributions,
            &self.game_contributions,
        ];
        let writing = self.writing();
        let committed = trees[..].transaction(|trees| {
            let trees = ResultTrees::of(trees);
            // Before any write: an outcome other than `Applied` must commit nothing.
            if let Some(outcome) = already_applied(&trees, job_id, result_id, effect)? {
                return Ok(Committed::nothing(outcome));
            }
            if quarantined(trees.flagged_workers, &done.worker_id)? {
                return Ok(Committed::nothing(Applied::WorkerQuarantined));
            }
            let mut totals = totals_in(trees.meta)?;
            add_tables(&trees, job_id, effect, &mut totals)?;
            record_contributions(trees.contributions, &done.worker_id, &effect.playouts)?;
            record_contributions(trees.game_contributions, &done.worker_id, &effect.games)?;
            let (candidate_changes, new_puzzles, new_leaves) = add_checks(&trees, effect)?;
            let written = propagate_values(&trees, effect)?;
            let mut word = StoredWord::default();
            if let Some(source) = &effect.on_word {
                word.proven = effect
                    .proven
                    .iter()
                    .map(|(key, _)| *key)
                    .chain(written)
                    .collect();
                word.leaves = new_leaves;
                word.deep_solve = source.deep_solve;
                word.solved = source.solved.map(|position| position.to_string());
            }
            if let Some(pair) = &effect.pair {
                word.pair_match = Some(pair.match_id);
                word.pair = Some(pair.pair);
                word.pair_half_points = pair.game_points.map(half_points).to_vec();
            }
            record_word(trees.on_word, &done.worker_id, job_id, &word)?;
            if let Some(played) = &effect.solitaire {
                add_deals(trees.solitaire, played)?;
            }
            add_count(&mut totals.playouts, effect.playout_count, "playout total")?;
            add_count(&mut totals.results, 1, "result total")?;
            trees.meta.insert(TOTALS, totals.encode_to_vec())?;
            let job_key = job_id.to_be_bytes();
            trees
                .jobs
                .insert(&job_key, StoredJob::from(done).encode_to_vec())?;
            trees.results.insert(result_id.as_bytes(), &job_key)?;
            Ok(Committed {
                outcome: Applied::Applied,
                candidate_changes,
                new_puzzles,
            })
        })?;
        drop(writing);
        self.candidate_tally.record(&committed.candidate_changes);
        // After the commit, so that a reader who saw the old count has not read the new
        // puzzles under it. Most results store none and leave the count's cache line alone.
        if committed.new_puzzles > 0 {
            self.stored_puzzles
                .fetch_add(committed.new_puzzles, Ordering::Release);
        }
        Ok(committed.outcome)
    }
}

/// The trees a result transaction writes, by name.
struct ResultTrees<'a> {
    jobs: &'a TransactionalTree,
    results: &'a TransactionalTree,
    playouts: &'a TransactionalTree,
    game_tables: &'a TransactionalTree,
    games: &'a TransactionalTree,
    matches: &'a TransactionalTree,
    puzzles: &'a TransactionalTree,
    candidates: &'a TransactionalTree,
    proven: &'a TransactionalTree,
    meta: &'a TransactionalTree,
    claims: &'a TransactionalTree,
    flagged_workers: &'a TransactionalTree,
    deep_leaves: &'a TransactionalTree,
    solitaire: &'a TransactionalTree,
    on_word: &'a TransactionalTree,
    contributions: &'a TransactionalTree,
    game_contributions: &'a TransactionalTree,
}

impl<'a> ResultTrees<'a> {
    /// The transaction's trees, in the order [`Store::apply`] lists them.
    fn of(trees: &'a [TransactionalTree]) -> ResultTrees<'a> {
        let [
            jobs,
            results,
            playouts,
            game_tables,
            games,
            matches,
            puzzles,
            candidates,
            proven,
            meta,
            claims,
            flagged_workers,
            deep_leaves,
            solitaire,
            on_word,
            contributions,
            game_contributions,
        ] = trees
        else {
            unreachable!("Store::apply lists seventeen trees");
        };
        ResultTrees {
            jobs,
            results,
            playouts,
            game_tables,
            games,
            matches,
            puzzles,
            candidates,
            proven,
            meta,
            claims,
            flagged_workers,
            deep_leaves,
            solitaire,
            on_word,
            contributions,
            game_contributions,
        }
    }
}

/// Why the result must change nothing, if it must: its id was applied before, its job is done,
/// or its pair is already stored.
fn already_applied(
    trees: &ResultTrees<'_>,
    job_id: u64,
    result_id: &str,
    effect: &ResultEffect,
) -> ConflictableTransactionResult<Option<Applied>, StoreError> {
    if trees.results.get(result_id.as_bytes())?.is_some() {
        return Ok(Some(Applied::Duplicate));
    }
    if let Some(bytes) = trees.jobs.get(job_id.to_be_bytes())? {
        let stored = StoredJob::decode(bytes.as_ref()).map_err(abort("job"))?;
        if stored.state() == JobState::Done {
            return Ok(Some(Applied::JobAlreadyDone));
        }
    }
    if let Some(pair) = &effect.pair
        && trees
            .matches
            .get(pair_key(pair.match_id, pair.pair))?
            .is_some()
    {
        return Ok(Some(Applied::JobAlreadyDone));
    }
    Ok(None)
}

/// Whether `worker` (none: nobody) is quarantined by its stored flags.
fn quarantined(
    flagged_workers: &TransactionalTree,
    worker: &str,
) -> ConflictableTransactionResult<bool, StoreError> {
    if worker.is_empty() {
        return Ok(false);
    }
    let Some(bytes) = flagged_workers.get(worker.as_bytes())? else {
        return Ok(false);
    };
    let record = StoredFlags::decode(bytes.as_ref()).map_err(abort("flags"))?;
    Ok(record.flags >= super::claims::QUARANTINE_FLAGS)
}

/// Adds the result's table rows, its game and its pair, counting them in `totals`.
fn add_tables(
    trees: &ResultTrees<'_>,
    job_id: u64,
    effect: &ResultEffect,
    totals: &mut Totals,
) -> ConflictableTransactionResult<(), StoreError> {
    let new_positions = merge_tables(trees.playouts, &effect.playouts)?;
    add_count(
        &mut totals.playout_positions,
        new_positions,
        "playout positions",
    )?;
    let new_positions = merge_tables(trees.game_tables, &effect.games)?;
    add_count(&mut totals.game_positions, new_positions, "game positions")?;
    if let Some(game) = &effect.game {
        trees.games.insert(
            &job_id.to_be_bytes(),
            StoredGame::from(game).encode_to_vec(),
        )?;
        add_count(&mut totals.games, 1, "game total")?;
    }
    if let Some(pair) = &effect.pair {
        add_pair(trees.matches, pair)?;
    }
    Ok(())
}

/// Adds what the result decides about puzzles and exact values, and what its cross-checks
/// write (claims, check jobs, flags); returns the candidates' changes, the new puzzles and the
/// deep leaves stored new.
fn add_checks(
    trees: &ResultTrees<'_>,
    effect: &ResultEffect,
) -> ConflictableTransactionResult<(Vec<StateChange>, u64, Vec<u64>), StoreError> {
    let added = add_verdicts(trees.candidates, trees.puzzles, &effect.verdicts)?;
    if let Some((key, table)) = &effect.proven {
        add_proven(trees.proven, *key, table, ExactSource::Solver)?;
    }
    for (key, table) in &effect.table_values {
        add_proven(trees.proven, *key, table, ExactSource::Table)?;
    }
    for (id, claim) in &effect.claims {
        trees
            .claims
            .insert(&id.to_be_bytes(), StoredClaim::from(claim).encode_to_vec())?;
    }
    for (id, job) in &effect.new_jobs {
        trees
            .jobs
            .insert(&id.to_be_bytes(), StoredJob::from(job).encode_to_vec())?;
    }
    for Flag { worker, reason } in &effect.flags {
        flag_worker(trees.flagged_workers, worker, reason)?;
    }
    let mut new_leaves = super::deep::add_leaves(trees.deep_leaves, &effect.deep_leaves)?;
    for family in &effect.deep_rotated {
        new_leaves.extend(super::deep::add_leaves(trees.deep_leaves, family)?);
    }
    Ok((added.0, added.1, new_leaves))
}

/// Carries the exact values the result stores up through the stored book (see
/// [`super::propagate`]): its solved position's, and its deep-solve leaves'. Returns the keys
/// of the `proven` tables it changed.
fn propagate_values(
    trees: &ResultTrees<'_>,
    effect: &ResultEffect,
) -> ConflictableTransactionResult<Vec<u64>, StoreError> {
    let mut seeds: Vec<Seed> = effect
        .proven
        .iter()
        .chain(&effect.table_values)
        .map(|(key, _)| Seed::Table(*key))
        .collect();
    seeds.extend(
        effect
            .deep_leaves
            .iter()
            .chain(effect.deep_rotated.iter().flatten())
            .map(|&(key, value)| Seed::Value(key, value)),
    );
    if seeds.is_empty() {
        return Ok(Vec::new());
    }
    let book = BookTrees {
        proven: trees.proven,
        playouts: trees.playouts,
        game_tables: trees.game_tables,
    };
    let done = book.propagate(&seeds)?;
    if done.moves > 0 || done.cut {
        tracing::debug!(
            visited = done.visited,
            moves = done.moves,
            positions = done.positions,
            cut = done.cut,
            "proven values propagated through the book"
        );
    }
    Ok(done.written)
}

/// A's points in one game, doubled: 0 for a loss, 1 for a draw, 2 for a win.
fn half_points(points: f64) -> u32 {
    (points * 2.0).round().clamp(0.0, 2.0) as u32
}

/// Stores a played pair and adds it to its match.
fn add_pair(
    matches: &TransactionalTree,
    pair: &PairEffect,
) -> ConflictableTransactionResult<(), StoreError> {
    let match_key = pair.match_id.to_be_bytes();
    let bytes = matches
        .get(match_key)?
        .ok_or_else(|| ConflictableTransactionError::Abort(corrupt("match", "pair of no match")))?;
    let mut record = StoredMatch::decode(bytes.as_ref()).map_err(abort("match"))?;
    let stored = pair.stored();
    record.add_pair(pair.game_points, stored.accuracy().as_ref());
    matches.insert(&match_key, record.encode_to_vec())?;
    matches.insert(&pair_key(pair.match_id, pair.pair), stored.encode_to_vec())?;
    Ok(())
}

/// Records the candidates' verdicts and stores the puzzles not stored before; returns the
/// candidates' changes and how many puzzles were new.
fn add_verdicts(
    candidates: &TransactionalTree,
    puzzles: &TransactionalTree,
    verdicts: &[(u64, CandidateState, Option<String>)],
) -> ConflictableTransactionResult<(Vec<StateChange>, u64), StoreError> {
    let mut changes = Vec::with_capacity(verdicts.len());
    let mut new_puzzles = 0;
    for (key, state, puzzle) in verdicts {
        changes.push(set_candidate(candidates, *key, *state)?);
        let key = key.to_be_bytes();
        if let Some(json) = puzzle
            && puzzles.get(key)?.is_none()
        {
            puzzles.insert(&key, json.as_bytes())?;
            new_puzzles += 1;
        }
    }
    Ok((changes, new_puzzles))
}

/// Adds exact move values to those stored for a position. Exact values never change, so new
/// ones join the old (an analysis may prove one move of a position a solve filled in).
fn add_proven(
    proven: &TransactionalTree,
    key: u64,
    table: &ProvenTable,
    source: ExactSource,
) -> ConflictableTransactionResult<(), StoreError> {
    let mut merged = proven
        .get(key.to_be_bytes())?
        .and_then(|bytes| book::decode_rows(&bytes))
        .unwrap_or_default();
    if book::add_values(&mut merged, table, source) {
        proven.insert(&key.to_be_bytes(), book::encode_rows(&merged))?;
    }
    Ok(())
}

/// Counts one more flag against a worker a cross-check showed wrong.
fn flag_worker(
    flagged_workers: &TransactionalTree,
    worker: &str,
    reason: &str,
) -> ConflictableTransactionResult<(), StoreError> {
    let mut record = match flagged_workers.get(worker.as_bytes())? {
        Some(bytes) => StoredFlags::decode(bytes.as_ref()).map_err(abort("flags"))?,
        None => StoredFlags::default(),
    };
    record.flags = record
        .flags
        .checked_add(1)
        .ok_or(ConflictableTransactionError::Abort(StoreError::Overflow {
            what: "flag count",
        }))?;
    record.last_reason = reason.to_owned();
    flagged_workers.insert(worker.as_bytes(), record.encode_to_vec())?;
    Ok(())
}

#[cfg(test)]
impl Store {
    /// Applies `effect` as `worker`'s result for job `job` (result id `r{job}`): the store's
    /// tests hand in results of named workers this way.
    pub(crate) fn apply_as(&self, worker: &str, job: u64, effect: &ResultEffect) -> Applied {
        let done = Job {
            worker_id: worker.to_owned(),
            ..Job::in_state(JobState::Done)
        };
        self.apply(job, &done, &format!("r{job}"), effect).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use pentago::Move;

    use super::*;
    use crate::Counts;

    fn effect(games: u64) -> ResultEffect {
        let mut table = Table::new();
        table.insert(
            Move::from_index(3).unwrap(),
            Counts {
                games,
                wins: 1,
                draws: 0,
            },
        );
        ResultEffect {
            playouts: BTreeMap::from([(42, table)]),
            playout_count: games,
            ..ResultEffect::default()
        }
    }

    #[test]
    fn results_apply_once_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let done = Job::in_state(JobState::Done);
            assert_eq!(
                store.apply(7, &done, "r1", &effect(10)).unwrap(),
                Applied::Applied
            );
            assert_eq!(
                store.apply(7, &done, "r1", &effect(10)).unwrap(),
                Applied::Duplicate
            );
            assert_eq!(
                store.apply(7, &done, "r2", &effect(10)).unwrap(),
                Applied::JobAlreadyDone
            );
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        let table = store.playout_table(42).unwrap();
        assert_eq!(table[&Move::from_index(3).unwrap()].games, 10);
        assert_eq!(store.result_job("r1").unwrap(), Some(7));
        let totals = store.totals().unwrap();
        assert_eq!(
            (totals.results, totals.playouts, totals.playout_positions),
            (1, 10, 1)
        );
    }

    #[test]
    fn a_caught_workers_pairs_leave_their_match_and_an_honest_workers_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let record = StoredMatch {
            pairs: 4,
            pentanomial: vec![0; 5],
            ..StoredMatch::default()
        };
        store.put_match(3, &record).unwrap();
        let play = |worker: &str, job: u64, pair: u64, game_points: [f64; 2]| {
            let effect = ResultEffect {
                pair: Some(PairEffect {
                    match_id: 3,
                    pair,
                    job_id: job,
                    games: Vec::new(),
                    accuracy: None,
                    game_points,
                }),
                ..ResultEffect::default()
            };
            store.apply_as(worker, job, &effect)
        };
        assert_eq!(play("honest", 10, 0, [0.5, 0.5]), Applied::Applied);
        assert_eq!(play("liar", 11, 1, [1.0, 1.0]), Applied::Applied);
        assert_eq!(play("liar", 12, 2, [1.0, 0.5]), Applied::Applied);
        let caught = Flag {
            worker: "liar".to_owned(),
            reason: "lied".to_owned(),
        };
        let flag = ResultEffect {
            flags: vec![caught],
            ..ResultEffect::default()
        };
        let done = Job::in_state(JobState::Done);
        assert_eq!(
            store.apply(13, &done, "r13", &flag).unwrap(),
            Applied::Applied
        );

        let purged = store.purge_worker("liar").unwrap();
        let pairs: Vec<(u64, u64, u64)> = purged
            .pairs
            .iter()
            .map(|p| (p.match_id, p.pair, p.job_id))
            .collect();
        assert_eq!(pairs, [(3, 1, 11), (3, 2, 12)]);
        assert_eq!(purged.results, 0, "a pair stores no exact value");
        let record = store.match_record(3).unwrap().unwrap();
        assert_eq!(record.pairs_done, 1);
        assert_eq!(
            (
                record.score.games.wins,
                record.score.games.draws,
                record.score.games.losses
            ),
            (0, 2, 0)
        );
        assert_eq!(record.score.pairs.counts, [0, 0, 1, 0, 0]);
        let kept: Vec<u64> = store
            .match_pairs(3, 0, 10)
            .unwrap()
            .iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(kept, [0]);
        let flags = store.flagged_workers().unwrap();
        let (_, liar) = flags.iter().find(|(id, _)| id == "liar").unwrap();
        assert_eq!((liar.purged_pairs, liar.purged_results), (2, 0));
        assert!(
            store.purge_worker("liar").unwrap().pairs.is_empty(),
            "idempotent"
        );
    }

    #[test]
    fn a_pair_played_twice_is_counted_once_and_its_replay_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.put_match(3, &StoredMatch::default()).unwrap();
        let pair = |job: u64| ResultEffect {
            pair: Some(PairEffect {
                match_id: 3,
                pair: 0,
                job_id: job,
                games: Vec::new(),
                accuracy: None,
                game_points: [1.0, 0.5],
            }),
            ..effect(10)
        };
        let done = Job::in_state(JobState::Done);
        assert_eq!(
            store.apply(7, &done, "r1", &pair(7)).unwrap(),
            Applied::Applied
        );
        // Another job that played the same pair (its lease had lapsed) changes nothing.
        assert_eq!(
            store.apply(8, &done, "r2", &pair(8)).unwrap(),
            Applied::JobAlreadyDone
        );
        assert_eq!(store.match_record(3).unwrap().unwrap().pairs_done, 1);
        let table = store.playout_table(42).unwrap();
        assert_eq!(table[&Move::from_index(3).unwrap()].games, 10);
        assert_eq!(store.totals().unwrap().results, 1);
    }
}
