//! Tuning runs on the cluster: SPSA ([`pentago::SpsaSchedule`]) over named numeric parameters
//! of a UCT configuration ([`pentago::TuneSpace`]), farmed out as game pairs.
//!
//! Each iteration is an ordinary match ([`crate::matches`]) of the run's pairs per iteration
//! between `θ + cΔ` (player A, `plus`) and `θ − cΔ` (player B, `minus`), colours swapped
//! within each pair, tagged with the run's id (so match listings leave it out). When that match
//! is over — every pair stored, or none left to play — the run stores the step (the score and
//! the new point) and the id of the next match in one transaction, then creates that match
//! under the reserved id: a restart between the two creates it then, and only once
//! ([`Matches::create_as`]). After the last iteration the follow-up SPRT match plays the tuned
//! configuration against the base, an ordinary match that `match list` shows too.
//!
//! Runs advance as soon as a pair of their match is stored ([`Tunes::pair_stored`], called by
//! ingest) and on every tick ([`Tunes::drive`], which also carries them on after a restart).
//! They share the workers as matches do, each iteration's match holding the run's weight. A
//! run is reproducible: Δ and each match's openings come from the run's seed and the
//! iteration, and the games from seeds fixed by their job ids.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, PoisonError};

use pentago::{
    OpeningSource, ParamRange, Player, SpsaError, SpsaSchedule, TuneSpace, TuneSpaceError,
    UctConfig, perturbation, perturbed, spsa_update,
};
use pentagrid_model::{MatchState, TuneState, TuneStep};
use pentagrid_rating::Sprt;
use thiserror::Error;
use tokio::sync::Mutex;

use crate::jobs::JobQueue;
use crate::jobs::fair::MAX_MATCH_WEIGHT;
use crate::matches::{MAX_MATCH_PAIRS, MatchError, MatchReport, MatchSpec, Matches};
use crate::paging::{PageError, check_start, page_size};
use crate::tune_matches;
use pentagrid_store::match_record::MatchControl;
use pentagrid_store::tune_record::{TuneControl, TunePhase, TuneRecord};
use pentagrid_store::{Store, StoreError};

pub use pentagrid_model::limits::MAX_TUNE_PAIRS_PER_ITERATION;

/// Most runs one listing returns.
pub const MAX_LISTED_TUNES: u32 = 100;

/// Steps per status page unless asked for fewer, and at most: a step of eight parameters is
/// about 300 bytes on the wire, so a page stays far below the message cap.
pub const TUNE_PAGE_STEPS: u64 = 1_000;

/// A tuning run to start.
#[derive(Clone, Debug)]
pub struct TuneSpec {
    /// The base configuration: the starting point, and the SPRT's opponent.
    pub base: UctConfig,
    /// The parameters tuned, each over its range.
    pub params: Vec<ParamRange>,
    /// The SPSA schedule.
    pub schedule: SpsaSchedule,
    /// Game pairs per iteration, 1 to [`MAX_TUNE_PAIRS_PER_ITERATION`].
    pub pairs_per_iteration: u64,
    /// The seed of the perturbations and the openings.
    pub seed: u64,
    /// Where each iteration's openings come from (not a `file:` suite).
    pub openings: OpeningSource,
    /// The share of the workers of the run's matches, 1 to [`MAX_MATCH_WEIGHT`].
    pub weight: u32,
    /// The follow-up test of tuned against base, with its most pairs (1 to the match limit);
    /// `None`: none.
    pub sprt: Option<(Sprt, u64)>,
    /// The user whose token starts it (empty: none); its matches are this user's in the
    /// sharing of the workers.
    pub owner: String,
}

/// A run as stored, with its state, a page of its steps and its matches.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The run id.
    pub id: u64,
    /// Its record.
    pub record: TuneRecord,
    /// Its state.
    pub state: TuneState,
    /// The configuration at its current point (text form).
    pub tuned: String,
    /// The parameter values at its current point.
    pub values: Vec<f64>,
    /// Steps (one page, when asked), by iteration.
    pub steps: Vec<TuneStep>,
    /// The first iteration of the next page of steps; 0 after the last page.
    pub next_step: u64,
    /// The current iteration's match while iterating.
    pub iteration_match: Option<MatchReport>,
    /// The follow-up SPRT match, once created.
    pub sprt_match: Option<MatchReport>,
}

/// What a stop did.
#[derive(Clone, Debug)]
pub struct TuneStopReport {
    /// The run after the stop.
    pub report: TuneReport,
    /// Pairs of its running match that were queued or leased, now cancelled.
    pub cancelled_pairs: u64,
}

/// Why a tuning call was refused (nothing changed).
#[derive(Debug, Error)]
pub enum TuneError {
    /// The parameters do not fit the base.
    #[error(transparent)]
    Space(#[from] TuneSpaceError),
    /// A bad schedule.
    #[error(transparent)]
    Schedule(#[from] SpsaError),
    /// The pairs per iteration are out of range.
    #[error("pairs per iteration must be from 1 to {MAX_TUNE_PAIRS_PER_ITERATION}, not {0}")]
    Pairs(u64),
    /// The SPRT's pairs are out of range.
    #[error("the SPRT's pairs must be from 1 to {MAX_MATCH_PAIRS}, not {0}")]
    SprtPairs(u64),
    /// The weight is out of range.
    #[error("weight must be from 1 to {MAX_MATCH_WEIGHT}, not {0}")]
    Weight(u32),
    /// A `file:` opening suite.
    #[error(
        "a tuning run takes random:plies=N, book:plies=N or exact:... openings, not {0} (a \
         suite's positions would have to travel with every iteration)"
    )]
    Openings(String),
    /// The first iteration's match was refused.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// No such run.
    #[error("no tuning run {0}")]
    NotFound(u64),
    /// A user asked to stop another user's tuning run.
    #[error(
        "tuning run {id} belongs to {owner}: only its owner (or a token naming no user) may stop it"
    )]
    NotOwner {
        /// The run.
        id: u64,
        /// Its owner.
        owner: String,
    },
    /// A stop of a run that is not running.
    #[error("tuning run {id} is {state}, not running: nothing to stop")]
    NotRunning {
        /// The run.
        id: u64,
        /// Its state.
        state: TuneState,
    },
    /// A stored run whose settings no longer read.
    #[error("tuning run {id} is stored with settings this coordinator cannot read: {why}")]
    Unreadable {
        /// The run.
        id: u64,
        /// What does not read.
        why: String,
    },
    /// A bad page of steps.
    #[error(transparent)]
    Page(#[from] PageError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The space of stored run `id`, read back from its text forms.
fn space_of(id: u64, record: &TuneRecord) -> Result<TuneSpace, TuneError> {
    tune_matches::space_of(record).map_err(|e| TuneError::Unreadable { id, why: e.0 })
}

/// The match that plays stored run `id`'s next match.
fn next_match(id: u64, record: &TuneRecord, space: &TuneSpace) -> Result<MatchSpec, TuneError> {
    tune_matches::next_match(id, record, space).map_err(|e| TuneError::Unreadable { id, why: e.0 })
}

/// The runs the service drives; held while a run is changed, so that one change happens at
/// a time.
#[derive(Debug, Default)]
struct Running {
    /// Runs that may still need driving (iterating, or verifying without their SPRT match).
    ids: BTreeSet<u64>,
    /// Runs whose iteration's match a tick found with no pair queued or leased though not
    /// every pair is stored: (match, pairs stored then). A pair being applied at that moment
    /// is neither, so the run moves on only if the next tick finds the same: the match's
    /// missing pairs failed or were cancelled.
    suspects: HashMap<u64, (u64, u64)>,
}

impl Running {
    /// Whether `tune`'s iteration match `report`, not running, was found so by the previous
    /// tick too (only ticks confirm: `tick`).
    fn confirmed(&mut self, tune: u64, report: &MatchReport, tick: bool) -> bool {
        let seen = (report.id, report.record.pairs_done);
        if !tick {
            return false;
        }
        if self.suspects.get(&tune) == Some(&seen) {
            self.suspects.remove(&tune);
            return true;
        }
        self.suspects.insert(tune, seen);
        false
    }

    fn remove(&mut self, tune: u64) {
        self.ids.remove(&tune);
        self.suspects.remove(&tune);
    }
}

/// The tuning service.
pub struct Tunes {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    matches: Arc<Matches>,
    running: Mutex<Running>,
    /// Matches being created now: stored, their pairs not yet queued, so a reader must not
    /// take one for over.
    creating: std::sync::Mutex<BTreeSet<u64>>,
}

impl Tunes {
    /// The service, with the stored runs that are still iterating.
    pub(crate) fn open(
        store: Arc<Store>,
        jobs: Arc<JobQueue>,
        matches: Arc<Matches>,
    ) -> Result<Tunes, StoreError> {
        let ids = store
            .tunes_before(0, usize::MAX)?
            .into_iter()
            .filter(|(_, r)| r.control == TuneControl::Open && r.phase != TunePhase::Done)
            .map(|(id, _)| id)
            .collect();
        Ok(Tunes {
            store,
            jobs,
            matches,
            running: Mutex::new(Running {
                ids,
                suspects: HashMap::new(),
            }),
            creating: std::sync::Mutex::new(BTreeSet::new()),
        })
    }

    /// Starts a run: checks everything, creates its first iteration's match (a refusal
    /// stores nothing), then the run; answers once both are durable.
    pub async fn create(&self, spec: &TuneSpec) -> Result<u64, TuneError> {
        let space = TuneSpace::new(spec.base.clone(), spec.params.clone())?;
        spec.schedule.check()?;
        if !(1..=MAX_TUNE_PAIRS_PER_ITERATION).contains(&spec.pairs_per_iteration) {
            return Err(TuneError::Pairs(spec.pairs_per_iteration));
        }
        if !(1..=MAX_MATCH_WEIGHT).contains(&spec.weight) {
            return Err(TuneError::Weight(spec.weight));
        }
        if let Some((_, pairs)) = spec.sprt
            && !(1..=MAX_MATCH_PAIRS).contains(&pairs)
        {
            return Err(TuneError::SprtPairs(pairs));
        }
        if matches!(spec.openings, OpeningSource::File { .. }) {
            return Err(TuneError::Openings(spec.openings.to_string()));
        }
        let mut running = self.running.lock().await;
        let id = self.store.generate_id()?;
        let record = TuneRecord {
            base: Player::Uct(spec.base.clone()).to_string(),
            params: spec.params.iter().map(ToString::to_string).collect(),
            schedule: spec.schedule,
            pairs_per_iteration: spec.pairs_per_iteration,
            seed: spec.seed,
            openings: spec.openings.to_string(),
            weight: spec.weight,
            sprt: spec.sprt.map(|(s, _)| s.to_string()).unwrap_or_default(),
            sprt_pairs: spec.sprt.map_or(0, |(_, pairs)| pairs),
            iterations_done: 0,
            theta: space.start(),
            phase: TunePhase::Iterating,
            control: TuneControl::Open,
            current_match: self.store.generate_id()?,
            sprt_match: 0,
            purges: Default::default(),
            owner: spec.owner.clone(),
        };
        let first = next_match(id, &record, &space)?;
        self.create_match(record.current_match, &first).await?;
        self.store.put_tune(id, &record)?;
        self.jobs.durable().await?;
        running.ids.insert(id);
        tracing::info!(
            tune_id = id,
            base = %record.base,
            params = %record.params.join(" "),
            iterations = record.schedule.iterations,
            "tuning run created"
        );
        Ok(id)
    }

    /// Creates match `id` (reserved) as `spec` says, marked as being created meanwhile.
    async fn create_match(&self, id: u64, spec: &MatchSpec) -> Result<(), TuneError> {
        let creating = || self.creating.lock().unwrap_or_else(PoisonError::into_inner);
        creating().insert(id);
        let created = self.matches.create_as(Some(id), spec).await;
        creating().remove(&id);
        created.map(drop).map_err(TuneError::from)
    }

    /// After a pair of match `match_id` was stored: advances its run when the match belongs
    /// to one and is over. Failures are logged; the next tick tries again.
    pub(crate) async fn pair_stored(&self, match_id: u64) {
        let tune = match self.store.match_record(match_id) {
            Ok(Some(record)) if record.tune != 0 => record.tune,
            Ok(_) => return,
            Err(error) => {
                tracing::error!(%error, match_id, "could not read a match for its tuning run");
                return;
            }
        };
        let mut running = self.running.lock().await;
        if let Err(error) = self.advance(&mut running, tune, false).await {
            tracing::error!(%error, tune_id = tune, "could not advance a tuning run");
        }
    }

    /// The periodic work: advances every run whose match is over, and creates the match a
    /// restart left uncreated. Failures are logged per run; a run whose stored settings do not
    /// read is not driven again.
    pub async fn drive(&self) {
        let mut running = self.running.lock().await;
        let ids: Vec<u64> = running.ids.iter().copied().collect();
        for id in ids {
            if let Err(error) = self.advance(&mut running, id, true).await {
                tracing::error!(%error, tune_id = id, "could not advance a tuning run");
                if matches!(error, TuneError::Unreadable { .. }) {
                    running.remove(id);
                }
            }
        }
    }

    /// Advances run `id` as far as it goes now (see the module documentation); `tick`: called
    /// by the periodic work, which alone may confirm that a match's missing pairs are lost.
    async fn advance(&self, running: &mut Running, id: u64, tick: bool) -> Result<(), TuneError> {
        loop {
            let Some(record) = self.store.tune(id)? else {
                running.remove(id);
                return Ok(());
            };
            if record.control == TuneControl::Stopped || record.phase == TunePhase::Done {
                running.remove(id);
                return Ok(());
            }
            let space = space_of(id, &record)?;
            let current = self.store.match_record(record.current_match)?;
            if current.is_none() {
                // Reserved by the stored step, never created (a restart came between).
                let spec = next_match(id, &record, &space)?;
                self.create_match(record.current_match, &spec).await?;
            }
            if record.phase == TunePhase::Verifying {
                running.remove(id);
                return Ok(());
            }
            let report = self.matches.status(record.current_match, None)?;
            let over = report.record.pairs_done >= report.record.pairs
                || report.record.control == MatchControl::Stopped
                || (report.state != MatchState::Running && running.confirmed(id, &report, tick));
            if !over {
                return Ok(());
            }
            if !self.step(id, &record, &space, &report)? {
                // A purge or a stop came between: the next tick looks again.
                return Ok(());
            }
        }
    }

    /// Stores the step of `record`'s iteration, whose match `report` is over, with the
    /// run's record after it (and the id of its next match, reserved), adding the shift the
    /// run owes for purged pairs of earlier steps. `false`: nothing stored, the run or the
    /// match changed since they were read.
    fn step(
        &self,
        id: u64,
        record: &TuneRecord,
        space: &TuneSpace,
        report: &MatchReport,
    ) -> Result<bool, TuneError> {
        let k = record.iterations_done;
        let schedule = &record.schedule;
        let delta = perturbation(record.seed, k, record.theta.len());
        let c = schedule.c(k);
        let [plus, minus] = perturbed(&record.theta, &delta, c);
        let games = report.record.score.games;
        let net = i64::try_from(games.wins).unwrap_or(i64::MAX)
            - i64::try_from(games.losses).unwrap_or(i64::MAX);
        // What purged pairs of earlier steps had moved the point goes back with this step.
        let correction = record.purges.owed.clone();
        let theta = corrected(
            &spsa_update(&record.theta, &delta, schedule.step(k), net),
            &correction,
        );
        let step = TuneStep {
            iteration: k,
            match_id: record.current_match,
            delta: delta.iter().copied().map(TuneStep::sign).collect(),
            c,
            plus: space.values(&plus),
            minus: space.values(&minus),
            wins: games.wins,
            draws: games.draws,
            losses: games.losses,
            values: space.values(&theta),
            theta: theta.clone(),
            correction,
            ..TuneStep::default()
        };
        let mut after = TuneRecord {
            iterations_done: k + 1,
            theta,
            ..record.clone()
        };
        after.purges.owed.clear();
        after.purges.owed_pairs = 0;
        if after.iterations_done < schedule.iterations {
            after.current_match = self.store.generate_id()?;
        } else if record.sprt.is_empty() {
            after.phase = TunePhase::Done;
        } else {
            after.phase = TunePhase::Verifying;
            after.current_match = self.store.generate_id()?;
            after.sprt_match = after.current_match;
        }
        if !self.store.record_tune_step(id, record, &step, &after)? {
            return Ok(false);
        }
        tracing::info!(
            tune_id = id,
            iteration = k,
            wins = games.wins,
            losses = games.losses,
            values = ?step.values,
            "tuning step"
        );
        Ok(true)
    }

    /// Where run `id` stands, with a page of its steps if asked: `(from, most)` (most 0:
    /// [`TUNE_PAGE_STEPS`]).
    pub fn status(&self, id: u64, steps: Option<(u64, u64)>) -> Result<TuneReport, TuneError> {
        let record = self.store.tune(id)?.ok_or(TuneError::NotFound(id))?;
        let mut report = self.report(id, record)?;
        let Some((from, asked)) = steps else {
            return Ok(report);
        };
        let limit = page_size("steps_page", asked, TUNE_PAGE_STEPS, TUNE_PAGE_STEPS)?;
        check_start("steps_from", from, report.record.iterations_done)?;
        let mut steps = self.store.tune_steps(id, from, limit as usize + 1)?;
        if steps.len() > limit as usize {
            report.next_step = steps.pop().map_or(0, |step| step.iteration);
        }
        report.steps = steps;
        Ok(report)
    }

    /// Runs with ids below `before` (all when 0), newest first, at most `limit`, without
    /// their steps.
    pub fn list(&self, before: u64, limit: usize) -> Result<Vec<TuneReport>, TuneError> {
        self.store
            .tunes_before(before, limit)?
            .into_iter()
            .map(|(id, record)| self.report(id, record))
            .collect()
    }

    /// Stops a running run: records the stop, then stops its running match (its stored
    /// pairs and the run's steps are kept).
    pub async fn stop(&self, id: u64, by: &str) -> Result<TuneStopReport, TuneError> {
        let mut running = self.running.lock().await;
        let mut record = self.store.tune(id)?.ok_or(TuneError::NotFound(id))?;
        if !crate::matches::may_stop(by, &record.owner) {
            return Err(TuneError::NotOwner {
                id,
                owner: record.owner,
            });
        }
        let state = self.report(id, record.clone())?.state;
        if !matches!(state, TuneState::Iterating | TuneState::Verifying) {
            return Err(TuneError::NotRunning { id, state });
        }
        record.control = TuneControl::Stopped;
        self.store.put_tune(id, &record)?;
        running.remove(id);
        let cancelled_pairs = match self.matches.stop(record.current_match, "").await {
            Ok(stopped) => stopped.cancelled_pairs,
            Err(MatchError::NotRunning { .. } | MatchError::NotFound(_)) => 0,
            Err(error) => return Err(error.into()),
        };
        self.jobs.durable().await?;
        tracing::info!(
            tune_id = id,
            cancelled = cancelled_pairs,
            "tuning run stopped"
        );
        Ok(TuneStopReport {
            report: self.status(id, None)?,
            cancelled_pairs,
        })
    }

    fn being_created(&self, match_id: u64) -> bool {
        self.creating
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&match_id)
    }

    fn report(&self, id: u64, record: TuneRecord) -> Result<TuneReport, TuneError> {
        let space = space_of(id, &record)?;
        let read = |match_id: u64| -> Result<Option<MatchReport>, TuneError> {
            match self.matches.status(match_id, None) {
                Ok(report) => Ok(Some(report)),
                Err(MatchError::NotFound(_)) => Ok(None),
                Err(error) => Err(error.into()),
            }
        };
        let iterating = record.phase == TunePhase::Iterating;
        let iteration_match = if iterating {
            read(record.current_match)?
        } else {
            None
        };
        let sprt_match = match record.sprt_match {
            0 => None,
            match_id => read(match_id)?,
        };
        let state = match record.phase {
            _ if record.control == TuneControl::Stopped => TuneState::Stopped,
            TunePhase::Iterating => TuneState::Iterating,
            TunePhase::Done => TuneState::Done,
            TunePhase::Verifying => match &sprt_match {
                Some(m) if m.state != MatchState::Running && !self.being_created(m.id) => {
                    TuneState::Done
                }
                _ => TuneState::Verifying,
            },
        };
        Ok(TuneReport {
            id,
            tuned: Player::Uct(space.config(&record.theta)).to_string(),
            values: space.values(&record.theta),
            record,
            state,
            steps: Vec::new(),
            next_step: 0,
            iteration_match,
            sprt_match,
        })
    }
}

/// `theta` shifted by `shift` (when given), each coordinate kept in 0..1.
fn corrected(theta: &[f64], shift: &[f64]) -> Vec<f64> {
    if shift.len() != theta.len() {
        return theta.to_vec();
    }
    theta
        .iter()
        .zip(shift)
        .map(|(t, s)| (t + s).clamp(0.0, 1.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_store::StoredMatch;

    #[test]
    fn an_owed_shift_moves_the_point_within_its_range() {
        assert_eq!(corrected(&[0.5, 0.9], &[0.25, 0.25]), [0.75, 1.0]);
        assert_eq!(corrected(&[0.5, 0.1], &[-0.25, -0.25]), [0.25, 0.0]);
        assert_eq!(corrected(&[0.5], &[]), [0.5], "nothing owed");
    }

    fn report(id: u64, pairs_done: u64) -> MatchReport {
        let stored = StoredMatch {
            pairs: 4,
            pairs_done,
            ..StoredMatch::default()
        };
        MatchReport {
            id,
            record: (&stored).into(),
            state: MatchState::Stopped,
            games: Vec::new(),
            next_from_pair: 0,
            waiting: None,
            pairs_leased: 0,
        }
    }

    #[test]
    fn only_two_ticks_in_a_row_take_a_match_with_missing_pairs_for_over() {
        let mut running = Running::default();
        // A pair result's follow-up never confirms: a pair may be in the middle of being applied.
        assert!(!running.confirmed(1, &report(9, 2), false));
        assert!(!running.confirmed(1, &report(9, 2), false));
        assert!(!running.confirmed(1, &report(9, 2), true), "first seen");
        assert!(
            running.confirmed(1, &report(9, 2), true),
            "seen again, unchanged"
        );
        // A pair stored between the ticks starts the wait again.
        assert!(!running.confirmed(1, &report(9, 2), true));
        assert!(!running.confirmed(1, &report(9, 3), true));
        assert!(running.confirmed(1, &report(9, 3), true));
        // Runs are kept apart, and a removed run forgets what was seen.
        assert!(!running.confirmed(2, &report(10, 0), true));
        running.remove(2);
        assert!(!running.confirmed(2, &report(10, 0), true));
    }
}
