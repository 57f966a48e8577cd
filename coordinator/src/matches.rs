//! Engine matches on the cluster: a match becomes one job per game pair; each pair result
//! updates the match's counts in the same transaction that stores it (the store counts each pair
//! with [`pentago::sprt_stop`]), and once the SPRT decides,
//! the match's unplayed pairs are cancelled — here, in [`Matches::stop_if_decided`]. A running
//! match may be stopped ([`Matches::stop`]), and shares the workers with the other running
//! matches by its weight ([`crate::jobs::fair`]).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use pentago::{
    ACCURACY_STONES, Accuracy, Adjudication, MAX_SUITE_OPENINGS, MatchAccuracy, MatchScore,
    NamedPlayer, OpeningSource, Player, Position, TimeLimit, TournamentKind,
};
use pentagrid_model::Task;
use pentagrid_model::{MatchState, MatchWait};
use pentagrid_rating::{Sprt, SprtDecision};
use thiserror::Error;

use crate::jobs::JobQueue;
use crate::jobs::fair::MAX_MATCH_WEIGHT;
use crate::match_openings::{OpeningsError, draw_openings};
use crate::offload::blocking;
use crate::paging::{PageError, check_start, page_size};
use crate::table_values::TableValues;
use pentagrid_store::game::Game;
use pentagrid_store::match_record::{MatchControl, MatchRecord};
use pentagrid_store::{PurgedPair, Store, StoreError};

pub use pentagrid_model::limits::{MATCH_PAGE_PAIRS, MAX_MATCH_PAIRS};

/// Most matches one listing returns.
pub const MAX_LISTED_MATCHES: u32 = 100;

/// Most bytes of engine text (standard error and forfeit details) per status page: a page
/// ends early, after at least one pair, rather than go past it, so a page of refereed games
/// (up to about 48 KB of engine text a pair) stays far below the message cap too.
pub const MATCH_PAGE_NOTE_BYTES: usize = 256 * 1024;

/// Which page of a match's games a status call wants.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GamesPageRequest {
    /// The first pair index of the page (0: the first pair).
    pub from_pair: u64,
    /// Most pairs (0: [`MATCH_PAGE_PAIRS`]).
    pub pairs: u64,
}

/// A match to play.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    /// Player A, with the name it is stored and shown under.
    pub a: NamedPlayer,
    /// Player B.
    pub b: NamedPlayer,
    /// Pairs to play at most, 1 to [`MAX_MATCH_PAIRS`].
    pub pairs: u64,
    /// The sequential test that may stop it early.
    pub sprt: Option<Sprt>,
    /// Where openings come from.
    pub openings: OpeningSource,
    /// With [`OpeningSource::File`]: the suite's positions (ongoing, 1 to
    /// [`MAX_SUITE_OPENINGS`]); empty otherwise.
    pub opening_positions: Vec<Position>,
    /// Seed of the openings.
    pub seed: u64,
    /// Judge both players' moves from positions with at least this many stones (within
    /// [`ACCURACY_STONES`]) against perfect play, and keep their accuracy with the match.
    pub accuracy_stones: Option<u32>,
    /// The tournament the match is part of, if any.
    pub tournament: Option<TournamentEntry>,
    /// Every game's wall-clock time limit (games are then refereed); `None`: the players'
    /// own budgets. Required when a player is an external engine.
    pub time: Option<TimeLimit>,
    /// Its share of the workers among running matches, 1 to [`MAX_MATCH_WEIGHT`].
    pub weight: u32,
    /// The user it belongs to (empty: none): the workers are shared equally among users
    /// first, then among one user's matches by weight.
    pub owner: String,
    /// End each game as soon as its position's exact value is known; `None`: play them out.
    pub adjudicate: Option<Adjudication>,
    /// The tuning run whose iteration it plays (0: none; see [`crate::tunes`]).
    pub tune: u64,
}

/// How a match belongs to a tournament: a tournament is the set of matches sharing its id, the
/// id of its first match (so it needs no record of its own, and resumes as its matches do).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TournamentEntry {
    /// The first match of a new tournament of this kind.
    First(TournamentKind),
    /// A further match of an existing tournament.
    Join {
        /// The tournament's id.
        id: u64,
        /// Its kind (checked against the tournament's).
        kind: TournamentKind,
    },
}

/// A match as stored, with its state and (if asked) its games by pair.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The match id.
    pub id: u64,
    /// Its record.
    pub record: MatchRecord,
    /// Its state.
    pub state: MatchState,
    /// Its games (one page of pairs, when asked), by pair index, A black first.
    pub games: Vec<(u64, Game)>,
    /// The first pair index of the next page of games; 0 after the last page.
    pub next_from_pair: u64,
    /// Set while it is running but cannot go on.
    pub waiting: Option<MatchWait>,
    /// Its pairs leased to workers now.
    pub pairs_leased: u64,
}

/// What a stop did.
#[derive(Clone, Debug)]
pub struct StopReport {
    /// The match as it stands after the stop.
    pub report: MatchReport,
    /// Its pairs that were queued or leased, now cancelled.
    pub cancelled_pairs: u64,
}

/// Why a match call was refused.
#[derive(Debug, Error)]
pub enum MatchError {
    /// The pair count is out of range.
    #[error("pairs must be from 1 to {MAX_MATCH_PAIRS}, not {0}")]
    PairsOutOfRange(u64),
    /// The accuracy stone threshold is out of range.
    #[error(
        "accuracy stones must be from {min} to {max}, not {0}",
        min = ACCURACY_STONES.start(),
        max = ACCURACY_STONES.end()
    )]
    AccuracyStonesOutOfRange(u32),
    /// An external engine plays without a time limit.
    #[error(
        "engine:{0} plays only under a time limit: give one (move:SECONDS or game:BASE+INCREMENT)"
    )]
    EngineNeedsTimeLimit(String),
    /// The weight is out of range.
    #[error("weight must be from 1 to {MAX_MATCH_WEIGHT}, not {0}")]
    WeightOutOfRange(u32),
    /// No such match.
    #[error("no match {0}")]
    NotFound(u64),
    /// A user asked to stop another user's match.
    #[error(
        "match {id} belongs to {owner}: only its owner (or a token naming no user) may stop it"
    )]
    NotOwner {
        /// The match.
        id: u64,
        /// Its owner.
        owner: String,
    },
    /// A stop of a match that is not running.
    #[error("match {id} is {state}, not running: nothing to stop")]
    NotRunning {
        /// The match.
        id: u64,
        /// Its state.
        state: MatchState,
    },
    /// No tournament of that id and kind to join.
    #[error("no {kind} tournament {id}")]
    NoTournament {
        /// The tournament id asked for.
        id: u64,
        /// The kind asked for.
        kind: TournamentKind,
    },
    /// A `file:` source without positions, positions with another source, or too many.
    #[error(
        "opening source {openings} with {positions} opening positions: file: takes 1 to \
         {MAX_SUITE_OPENINGS}, every other source none"
    )]
    SuiteMismatch {
        /// The opening source (text form).
        openings: String,
        /// Positions sent.
        positions: usize,
    },
    /// A suite position that is a finished game.
    #[error("opening position {index} ({position}) is a finished game")]
    FinishedOpening {
        /// Its index in the suite, from 1.
        index: usize,
        /// The position.
        position: Position,
    },
    /// The openings could not be drawn.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// A bad page of games.
    #[error(transparent)]
    Page(#[from] PageError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whether a match's SPRT has decided or it was stopped (so its pairs are not played).
fn closed(record: &MatchRecord) -> bool {
    record.decided_after > 0 || record.control == MatchControl::Stopped
}

/// Whether a task is a pair of match `match_id`.
fn is_pair_of(task: &Task, match_id: u64) -> bool {
    pair_of(task).is_some_and(|(m, _)| m == match_id)
}

/// The match and pair index of a pair task.
fn pair_of(task: &Task) -> Option<(u64, u64)> {
    match task {
        Task::Pair { match_id, pair, .. } => Some((*match_id, *pair)),
        _ => None,
    }
}

/// The matches service.
pub struct Matches {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    table: TableValues,
}

impl Matches {
    pub(crate) fn new(store: Arc<Store>, jobs: Arc<JobQueue>, table: TableValues) -> Matches {
        Matches { store, jobs, table }
    }

    /// At start-up: gives the running matches their weights, and cancels the queued pairs of
    /// matches whose SPRT has decided or that were stopped (a shutdown right after the deciding
    /// pair or the stop may have left some).
    pub(crate) fn restore_pairs(&self) -> Result<(), StoreError> {
        let mut match_ids: Vec<u64> = self
            .jobs
            .active_tasks(|task| matches!(task, Task::Pair { .. }))
            .into_iter()
            .filter_map(|(_, task)| pair_of(&task).map(|(match_id, _)| match_id))
            .collect();
        match_ids.sort_unstable();
        match_ids.dedup();
        for match_id in match_ids {
            let Some(record) = self.store.match_record(match_id)? else {
                continue;
            };
            if closed(&record) {
                self.jobs.cancel_unflushed(&self.pending_pairs(match_id))?;
            } else {
                self.jobs
                    .set_match_share(match_id, &record.owner, record.weight);
            }
        }
        Ok(())
    }

    /// Whether the match's SPRT has decided or it was stopped (so its pairs are not played).
    fn closed(&self, match_id: u64) -> Result<bool, StoreError> {
        Ok(self
            .store
            .match_record(match_id)?
            .is_some_and(|r| closed(&r)))
    }

    /// Creates a match and queues its pairs; answers once they are durable.
    pub async fn create(&self, spec: &MatchSpec) -> Result<u64, MatchError> {
        self.create_as(None, spec).await
    }

    /// [`Matches::create`] under id `reserved` when given (an id from
    /// [`Store::generate_id`]); a match already stored under it is left as it is (a run
    /// creating its next match again after a restart), and its id answered.
    pub(crate) async fn create_as(
        &self,
        reserved: Option<u64>,
        spec: &MatchSpec,
    ) -> Result<u64, MatchError> {
        if let Some(id) = reserved
            && self.store.match_record(id)?.is_some()
        {
            return Ok(id);
        }
        if !(1..=MAX_MATCH_PAIRS).contains(&spec.pairs) {
            return Err(MatchError::PairsOutOfRange(spec.pairs));
        }
        if !(1..=MAX_MATCH_WEIGHT).contains(&spec.weight) {
            return Err(MatchError::WeightOutOfRange(spec.weight));
        }
        if let Some(stones) = spec
            .accuracy_stones
            .filter(|s| !ACCURACY_STONES.contains(s))
        {
            return Err(MatchError::AccuracyStonesOutOfRange(stones));
        }
        if spec.time.is_none()
            && let Some(engine) = [&spec.a.player, &spec.b.player]
                .into_iter()
                .find_map(Player::engine)
        {
            return Err(MatchError::EngineNeedsTimeLimit(engine.to_owned()));
        }
        let is_file = matches!(spec.openings, OpeningSource::File { .. });
        let positions = spec.opening_positions.len();
        if is_file != (1..=MAX_SUITE_OPENINGS).contains(&positions) {
            return Err(MatchError::SuiteMismatch {
                openings: spec.openings.to_string(),
                positions,
            });
        }
        if let Some((index, position)) = spec
            .opening_positions
            .iter()
            .enumerate()
            .find(|(_, p)| p.is_over())
        {
            return Err(MatchError::FinishedOpening {
                index: index + 1,
                position: *position,
            });
        }
        if let Some(TournamentEntry::Join { id, kind }) = spec.tournament {
            let found = self.store.match_record(id)?.is_some_and(|first| {
                first.tournament == id && first.tournament_kind == kind.to_string()
            });
            if !found {
                return Err(MatchError::NoTournament { id, kind });
            }
        }
        // Up to 10^5 openings, each a few table reads: drawn on the blocking pool, before an id is
        // taken, so that a refused source changes nothing.
        let (store, table, drawn) = (self.store.clone(), self.table.clone(), spec.clone());
        let openings = blocking(move || {
            draw_openings(
                &store,
                &table,
                &drawn.openings,
                &drawn.opening_positions,
                drawn.seed,
                drawn.pairs,
            )
        })
        .await?;
        let match_id = match reserved {
            Some(id) => id,
            None => self.store.generate_id()?,
        };
        let (tournament, tournament_kind) = match spec.tournament {
            None => (0, String::new()),
            Some(TournamentEntry::First(kind)) => (match_id, kind.to_string()),
            Some(TournamentEntry::Join { id, kind }) => (id, kind.to_string()),
        };
        let tasks = (0..spec.pairs)
            .zip(openings)
            .map(|(pair, opening)| Task::Pair {
                match_id,
                pair,
                opening,
                a: spec.a.player.clone(),
                b: spec.b.player.clone(),
                accuracy_stones: spec.accuracy_stones,
                time: spec.time,
                adjudicate: spec.adjudicate,
            })
            .collect();
        let record = MatchRecord {
            a: spec.a.to_string(),
            b: spec.b.to_string(),
            pairs: spec.pairs,
            sprt: spec.sprt.map(|s| s.to_string()).unwrap_or_default(),
            openings: spec.openings.to_string(),
            seed: spec.seed,
            pairs_done: 0,
            score: MatchScore::default(),
            decision: SprtDecision::Continue,
            decided_after: 0,
            accuracy: spec.accuracy_stones.map(|min_stones| MatchAccuracy {
                min_stones,
                sides: [Accuracy::default(); 2],
            }),
            tournament,
            tournament_kind,
            time_limit: spec.time.map(|t| t.to_string()).unwrap_or_default(),
            weight: spec.weight,
            control: MatchControl::Open,
            opening_positions: spec
                .opening_positions
                .iter()
                .map(ToString::to_string)
                .collect(),
            adjudicate: spec.adjudicate.map(|a| a.to_string()).unwrap_or_default(),
            tune: spec.tune,
            owner: spec.owner.clone(),
        };
        self.store.create_match(match_id, &record)?;
        self.jobs
            .set_match_share(match_id, &spec.owner, spec.weight);
        self.jobs.queue(tasks).await?;
        tracing::info!(
            match_id,
            a = %record.a,
            b = %record.b,
            pairs = record.pairs,
            weight = record.weight,
            tournament = record.tournament,
            "match created"
        );
        Ok(match_id)
    }

    /// Where a match stands, with its games if asked.
    pub fn status(
        &self,
        match_id: u64,
        games: Option<GamesPageRequest>,
    ) -> Result<MatchReport, MatchError> {
        let record = self
            .store
            .match_record(match_id)?
            .ok_or(MatchError::NotFound(match_id))?;
        let mut report = self.report(match_id, record, Vec::new());
        let Some(asked) = games else {
            return Ok(report);
        };
        let limit = page_size(
            "games_page_pairs",
            asked.pairs,
            MATCH_PAGE_PAIRS,
            MATCH_PAGE_PAIRS,
        )?;
        check_start("games_from_pair", asked.from_pair, report.record.pairs)?;
        let pairs = self
            .store
            .match_pairs(match_id, asked.from_pair, limit as usize + 1)?;
        // One pair more than the page tells whether another page follows.
        if let Some((next, _)) = pairs.get(limit as usize) {
            report.next_from_pair = *next;
        }
        let mut note_bytes = 0;
        for (pair, games) in pairs.into_iter().take(limit as usize) {
            note_bytes += games.iter().map(Game::note_bytes).sum::<usize>();
            if note_bytes > MATCH_PAGE_NOTE_BYTES && !report.games.is_empty() {
                report.next_from_pair = pair;
                break;
            }
            report
                .games
                .extend(games.into_iter().map(|game| (pair, game)));
        }
        Ok(report)
    }

    /// Matches with ids below `before` (all when 0), newest first, at most `limit`, without
    /// their games; only those in one of `states` unless it is empty. The matches of tuning
    /// runs' iterations are the runs' and left out.
    pub fn list(
        &self,
        before: u64,
        limit: usize,
        states: &[MatchState],
    ) -> Result<Vec<MatchReport>, MatchError> {
        let mut found = Vec::new();
        let mut bound = before;
        while found.len() < limit {
            let page = self.store.matches_before(bound, limit)?;
            let Some((last, _)) = page.last() else {
                break;
            };
            bound = *last;
            let more = page.len() == limit;
            let reports = page
                .into_iter()
                .filter(|(_, record)| record.tune == 0)
                .map(|(id, record)| self.report(id, record, Vec::new()))
                .filter(|report| states.is_empty() || states.contains(&report.state));
            found.extend(reports);
            if !more {
                break;
            }
        }
        found.truncate(limit);
        Ok(found)
    }

    /// Stops a running match: records the stop, then cancels its queued and leased pairs
    /// (their workers' results are refused from then on); its stored pairs are kept. `by` is
    /// the user asking: a user may stop only their own matches (and those of nobody); empty
    /// (a token naming no user, or the coordinator itself) may stop any.
    pub async fn stop(&self, match_id: u64, by: &str) -> Result<StopReport, MatchError> {
        let report = self.status(match_id, None)?;
        if !may_stop(by, &report.record.owner) {
            return Err(MatchError::NotOwner {
                id: match_id,
                owner: report.record.owner,
            });
        }
        let state = report.state;
        if state != MatchState::Running {
            return Err(MatchError::NotRunning {
                id: match_id,
                state,
            });
        }
        // Recorded first: a restart between the two cancels the rest ([`Matches::restore_pairs`]).
        self.store
            .stop_match(match_id)?
            .ok_or(MatchError::NotFound(match_id))?;
        let pending = self.pending_pairs(match_id);
        let cancelled_pairs = self.jobs.cancel(&pending).await? as u64;
        tracing::info!(match_id, cancelled = cancelled_pairs, "match stopped");
        Ok(StopReport {
            report: self.status(match_id, None)?,
            cancelled_pairs,
        })
    }

    fn report(&self, match_id: u64, record: MatchRecord, games: Vec<(u64, Game)>) -> MatchReport {
        let (queued, leased) = self.jobs.match_pairs(match_id);
        let state = match record.decision {
            _ if record.control == MatchControl::Stopped => MatchState::Stopped,
            SprtDecision::AcceptH1 => MatchState::AcceptedH1,
            SprtDecision::AcceptH0 => MatchState::AcceptedH0,
            SprtDecision::Continue if record.pairs_done == record.pairs => MatchState::Complete,
            SprtDecision::Continue if queued + leased > 0 => MatchState::Running,
            SprtDecision::Continue => MatchState::Stopped,
        };
        let waiting = (state == MatchState::Running)
            .then(|| self.wait_reason(&record))
            .flatten();
        MatchReport {
            id: match_id,
            record,
            state,
            games,
            next_from_pair: 0,
            waiting,
            pairs_leased: leased,
        }
    }

    /// Why a running match cannot go on: no known worker runs its external engines.
    fn wait_reason(&self, record: &MatchRecord) -> Option<MatchWait> {
        let players: Vec<Player> = [&record.a, &record.b]
            .into_iter()
            .filter_map(|text| text.parse::<NamedPlayer>().ok())
            .map(|named| named.player)
            .collect();
        let mut names: Vec<&str> = players.iter().filter_map(Player::engine).collect();
        names.dedup();
        (!self.jobs.someone_runs(&names))
            .then(|| MatchWait::NoWorkerHasEngines(names.into_iter().map(str::to_owned).collect()))
    }

    /// Jobs of a match's pairs still queued or leased.
    fn pending_pairs(&self, match_id: u64) -> Vec<u64> {
        self.jobs
            .active_tasks(|task| is_pair_of(task, match_id))
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    /// Queues again, for workers other than `worker`, the pairs a purge took out of their
    /// matches (see [`Store::purge_worker`]): those of matches neither stopped nor decided
    /// (of a tuning run's, only those of the iteration being played: a step already taken
    /// has its purged pairs' shift undone instead), and for a match whose SPRT decision
    /// rested on a purged pair, the pairs that decision cancelled.
    /// Returns how many pairs were queued.
    pub(crate) async fn replay_purged(
        &self,
        worker: &str,
        purged: Vec<PurgedPair>,
    ) -> Result<usize, StoreError> {
        if purged.is_empty() {
            return Ok(0);
        }
        let mut queued: HashSet<(u64, u64)> = self
            .jobs
            .active_tasks(|task| matches!(task, Task::Pair { .. }))
            .into_iter()
            .filter_map(|(_, task)| pair_of(&task))
            .collect();
        let store = self.store.clone();
        let (tasks, weights) = blocking(move || {
            let mut tasks = Vec::new();
            let mut weights = BTreeMap::new();
            let mut undecided = BTreeSet::new();
            for taken in &purged {
                let Some(record) = store.match_record(taken.match_id)? else {
                    continue;
                };
                if closed(&record) || !taken.replay {
                    continue;
                }
                weights.insert(taken.match_id, (record.owner, record.weight));
                if taken.undecided {
                    undecided.insert(taken.match_id);
                }
                let task = store.job(taken.job_id)?.and_then(|job| job.task);
                if let Some(task) = task
                    && queued.insert((taken.match_id, taken.pair))
                {
                    tasks.push(task);
                }
            }
            if !undecided.is_empty() {
                for task in store.cancelled_pairs(&undecided)? {
                    if pair_of(&task).is_some_and(|pair| queued.insert(pair)) {
                        tasks.push(task);
                    }
                }
            }
            Ok::<_, StoreError>((tasks, weights))
        })
        .await?;
        for (match_id, (owner, weight)) in weights {
            self.jobs.set_match_share(match_id, &owner, weight);
        }
        let count = tasks.len();
        if count > 0 {
            self.jobs
                .queue_excluding(tasks, vec![worker.to_owned()])
                .await?;
        }
        Ok(count)
    }

    /// Cancels the unplayed pairs of a match whose SPRT has decided (or that was stopped).
    pub(crate) async fn stop_if_decided(&self, match_id: u64) -> Result<(), StoreError> {
        if self.closed(match_id)? {
            let pending = self.pending_pairs(match_id);
            if !pending.is_empty() {
                tracing::info!(
                    match_id,
                    cancelled = pending.len(),
                    "SPRT decided; stopping the match"
                );
                self.jobs.cancel(&pending).await?;
            }
        }
        Ok(())
    }
}

/// Whether the user `by` may stop what `owner` started: the same user, or either of them none
/// (a token naming no user administers every run, and a run nobody owns is everyone's).
pub fn may_stop(by: &str, owner: &str) -> bool {
    by.is_empty() || owner.is_empty() || by == owner
}
