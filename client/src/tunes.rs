//! SPSA tuning runs on a cluster: start one ([`create`]), follow it until it is done
//! ([`follow`]), read one with its trajectory ([`status`]), list them ([`list`]), stop one
//! ([`stop`]). The coordinator runs each iteration as a match of game pairs between the two
//! perturbed configurations and, after the last, a follow-up SPRT match of the tuned
//! configuration against the base ([`TuneRun::sprt_match`]). Plans are checked here first, by
//! the same engine rules the coordinator applies, so a bad plan sends nothing.

use pentago::{OpeningSource, ParamRange, SpsaSchedule, TuneSpace, UctConfig, excerpt};
use pentagrid_model::limits::{MAX_MATCH_PAIRS, MAX_MATCH_WEIGHT, MAX_TUNE_PAIRS_PER_ITERATION};
use pentagrid_proto::{Client, tune_purges_of_wire, tune_state_of_wire, tune_step_of_wire, v2};
use pentagrid_rating::Sprt;

use crate::error::{ClientError, ProgressResult, Result};
use crate::jobs::poll;
use crate::matches::{MatchRecord, match_record};
use crate::parameter::{Parameter, ParameterError, Problem};

pub use pentagrid_model::{TunePurges, TuneState, TuneStep};

/// A tuning run to start.
#[derive(Clone, Debug)]
pub struct TunePlan {
    /// The base configuration: the starting point, and the SPRT's opponent.
    pub base: UctConfig,
    /// The parameters tuned, each over its range.
    pub params: Vec<ParamRange>,
    /// The schedule (iterations, c_end, r_end, A, alpha, gamma).
    pub schedule: SpsaSchedule,
    /// Game pairs per iteration.
    pub pairs_per_iteration: u64,
    /// The seed of the perturbations and the openings.
    pub seed: u64,
    /// Where each iteration's openings come from (not a `file:` suite).
    pub openings: OpeningSource,
    /// The run's share of the workers among running matches.
    pub weight: u32,
    /// The follow-up test of tuned against base, with its most pairs; `None`: none.
    pub sprt: Option<(Sprt, u64)>,
}

impl TunePlan {
    /// Checks the plan as the coordinator will, naming what is wrong.
    pub fn validate(&self) -> Result<()> {
        let invalid = |why: String| Err(ClientError::Invalid(why));
        if let Err(error) = TuneSpace::new(self.base.clone(), self.params.clone()) {
            return invalid(error.to_string());
        }
        if let Err(error) = self.schedule.check() {
            return invalid(error.to_string());
        }
        if !(1..=MAX_TUNE_PAIRS_PER_ITERATION).contains(&self.pairs_per_iteration) {
            let given: &dyn std::fmt::Display = &self.pairs_per_iteration;
            return Err(ParameterError::range(
                Parameter::PairsPerIteration,
                1,
                MAX_TUNE_PAIRS_PER_ITERATION,
                Some(given),
            )
            .into());
        }
        if !(1..=MAX_MATCH_WEIGHT).contains(&self.weight) {
            let given: &dyn std::fmt::Display = &self.weight;
            return Err(
                ParameterError::range(Parameter::Weight, 1, MAX_MATCH_WEIGHT, Some(given)).into(),
            );
        }
        if let Some((_, pairs)) = self.sprt
            && !(1..=MAX_MATCH_PAIRS).contains(&pairs)
        {
            let problem = Problem::Rule(format!(
                "must be from 1 to {MAX_MATCH_PAIRS} with an SPRT, not {pairs}"
            ));
            return Err(ParameterError::new(Parameter::SprtPairs, problem).into());
        }
        if matches!(self.openings, OpeningSource::File { .. }) {
            return invalid(format!(
                "a tuning run takes random:plies=N, book:plies=N or exact:... openings, not {}",
                self.openings
            ));
        }
        Ok(())
    }

    fn request(&self) -> v2::CreateTuneRequest {
        let s = &self.schedule;
        v2::CreateTuneRequest {
            base: pentago::Player::Uct(self.base.clone()).to_string(),
            params: self.params.iter().map(ToString::to_string).collect(),
            iterations: s.iterations,
            pairs_per_iteration: self.pairs_per_iteration,
            c_end: Some(s.c_end),
            r_end: Some(s.r_end),
            stability: Some(s.stability),
            alpha: Some(s.alpha),
            gamma: Some(s.gamma),
            seed: self.seed,
            openings: self.openings.to_string(),
            weight: self.weight,
            sprt: self.sprt.map(|(s, _)| s.to_string()).unwrap_or_default(),
            sprt_pairs: self.sprt.map_or(0, |(_, pairs)| pairs),
        }
    }
}

/// A run state from its wire number, unreadable when this version does not know it.
fn state_of_wire(number: i32) -> Result<TuneState> {
    tune_state_of_wire(number)
        .ok_or_else(|| ClientError::Unreadable(format!("tuning state {number}: unknown")))
}

/// A tuning run as the coordinator reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneRun {
    /// The run id.
    pub id: u64,
    /// The base player (text form).
    pub base: String,
    /// The parameter ranges (`NAME=LOW..HIGH`), in order.
    pub params: Vec<String>,
    /// The schedule, its constants resolved.
    pub schedule: SpsaSchedule,
    /// Game pairs per iteration.
    pub pairs_per_iteration: u64,
    /// The seed.
    pub seed: u64,
    /// Where the openings come from.
    pub openings: String,
    /// The share of the workers.
    pub weight: u32,
    /// The follow-up SPRT (text form; empty: none).
    pub sprt: String,
    /// Most pairs of the follow-up SPRT match.
    pub sprt_pairs: u64,
    /// Where it stands.
    pub state: TuneState,
    /// Iterations finished.
    pub iterations_done: u64,
    /// The current point, normalized.
    pub theta: Vec<f64>,
    /// The current parameter values.
    pub values: Vec<f64>,
    /// The configuration at the current point (the tuned one once iterating is over).
    pub tuned: String,
    /// While iterating: the current iteration's match and its pairs stored.
    pub iteration_match: Option<(u64, u64)>,
    /// The follow-up SPRT match, once created.
    pub sprt_match: Option<MatchRecord>,
    /// The steps, when asked for (every one, read page by page).
    pub steps: Vec<TuneStep>,
    /// What purges of caught workers took out of the run.
    pub purges: TunePurges,
    /// The user whose token created it (empty: none).
    pub owner: String,
}

impl TuneRun {
    fn of_wire(r: v2::TuneStatusResponse, steps: Vec<TuneStep>) -> Result<TuneRun> {
        Ok(TuneRun {
            id: r.tune_id,
            state: state_of_wire(r.state)?,
            schedule: SpsaSchedule {
                iterations: r.iterations,
                c_end: r.c_end,
                r_end: r.r_end,
                stability: r.stability,
                alpha: r.alpha,
                gamma: r.gamma,
            },
            iteration_match: (r.iteration_match_id != 0)
                .then_some((r.iteration_match_id, r.iteration_pairs_done)),
            sprt_match: r.sprt_match.map(match_record).transpose()?,
            base: r.base,
            params: r.params,
            pairs_per_iteration: r.pairs_per_iteration,
            seed: r.seed,
            openings: r.openings,
            weight: r.weight.max(1),
            sprt: r.sprt,
            sprt_pairs: r.sprt_pairs,
            iterations_done: r.iterations_done,
            theta: r.theta,
            values: r.values,
            tuned: r.tuned,
            purges: tune_purges_of_wire(r.purges),
            owner: r.owner,
            steps,
        })
    }

    /// Each parameter's name, in order.
    #[must_use]
    pub fn param_names(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|p| p.split('=').next().unwrap_or(p).to_owned())
            .collect()
    }
}

/// Starts a run (checked here first); returns its id.
pub async fn create(client: &Client, plan: &TunePlan) -> Result<u64> {
    plan.validate()?;
    Ok(client
        .clone()
        .create_tune(plan.request())
        .await?
        .into_inner()
        .tune_id)
}

/// Run `id`, with every step if `with_steps` (read page by page).
pub async fn status(client: &Client, id: u64, with_steps: bool) -> Result<TuneRun> {
    let page = |steps_from| v2::TuneStatusRequest {
        tune_id: id,
        include_steps: with_steps,
        steps_from,
        steps_page: 0,
    };
    let first = client.clone().tune_status(page(0)).await?.into_inner();
    let mut steps: Vec<TuneStep> = Vec::new();
    let mut next = first.next_steps_from;
    steps.extend(first.steps.iter().cloned().map(tune_step_of_wire));
    while next != 0 {
        let more = client.clone().tune_status(page(next)).await?.into_inner();
        steps.extend(more.steps.into_iter().map(tune_step_of_wire));
        next = more.next_steps_from;
    }
    TuneRun::of_wire(first, steps)
}

/// Every run, newest first, without steps (read page by page).
pub async fn list(client: &Client) -> Result<Vec<TuneRun>> {
    let mut all = Vec::new();
    let mut before_id = 0;
    loop {
        let request = v2::ListTunesRequest {
            before_id,
            limit: 0,
        };
        let page = client.clone().list_tunes(request).await?.into_inner();
        for run in page.tunes {
            all.push(TuneRun::of_wire(run, Vec::new())?);
        }
        if page.next_before_id == 0 {
            return Ok(all);
        }
        before_id = page.next_before_id;
    }
}

/// What a stop did.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneStopped {
    /// The run after the stop.
    pub run: TuneRun,
    /// Pairs of its running match that were cancelled.
    pub cancelled_pairs: u64,
}

/// Stops running run `id` (admin): its running match is stopped, its steps kept. Refused
/// (reason `Finished`) when it is not running, `NotFound` when there is none.
pub async fn stop(client: &Client, id: u64) -> Result<TuneStopped> {
    let answer = client
        .clone()
        .stop_tune(v2::StopTuneRequest { tune_id: id })
        .await?
        .into_inner();
    let run = answer
        .tune
        .ok_or_else(|| ClientError::Unreadable("a stop's answer without its run".into()))?;
    Ok(TuneStopped {
        run: TuneRun::of_wire(run, Vec::new())?,
        cancelled_pairs: answer.cancelled_pairs,
    })
}

/// Follows run `id` until it is over, telling `progress` whenever it moved (an iteration
/// finished, the SPRT stored pairs, the state changed); returns the run with every step. A
/// failure of `progress` (the reader of the output went away) stops following at once.
pub async fn follow(
    client: &Client,
    id: u64,
    progress: &mut dyn FnMut(&TuneRun) -> ProgressResult,
) -> Result<TuneRun> {
    let mut shown = None;
    poll(async || {
        let run = status(client, id, false).await?;
        let mark = (
            run.state,
            run.iterations_done,
            run.sprt_match.as_ref().map_or(0, |m| m.pairs_done),
        );
        if shown != Some(mark) {
            shown = Some(mark);
            progress(&run).map_err(|source| ClientError::Stopped {
                context: "writing the tuning run's progress".into(),
                source,
            })?;
        }
        Ok(run.state.finished().then_some(()))
    })
    .await?;
    status(client, id, true).await
}

/// A parameter range from its text form, with the reason it does not read.
pub fn parse_range(text: &str) -> Result<ParamRange> {
    text.parse().map_err(|e| {
        let problem = Problem::Rule(format!("{}: {e}", excerpt(text)));
        ParameterError::new(Parameter::Param, problem).into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> TunePlan {
        TunePlan {
            base: "uct:playouts=50".parse().unwrap(),
            params: vec!["playouts=10..200".parse().unwrap()],
            schedule: SpsaSchedule::standard(10),
            pairs_per_iteration: 2,
            seed: 1,
            openings: OpeningSource::default(),
            weight: 1,
            sprt: None,
        }
    }

    #[test]
    fn bad_plans_are_refused_before_anything_is_sent() {
        plan().validate().unwrap();
        let refused = |plan: TunePlan| plan.validate().unwrap_err().to_string();
        let outside = TunePlan {
            params: vec!["playouts=100..200".parse().unwrap()],
            ..plan()
        };
        assert!(refused(outside).contains("outside the range"));
        let zero = TunePlan {
            schedule: SpsaSchedule::standard(0),
            ..plan()
        };
        assert!(refused(zero).contains("iterations"));
        let pairs = TunePlan {
            pairs_per_iteration: 1_001,
            ..plan()
        };
        assert!(refused(pairs).contains("pairs per iteration must be from 1"));
        let sprt = TunePlan {
            sprt: Some(("elo0=0,elo1=10".parse().unwrap(), 0)),
            ..plan()
        };
        assert!(refused(sprt).contains("sprt pairs must be from 1"));
        let file = TunePlan {
            openings: "file:x.txt".parse().unwrap(),
            ..plan()
        };
        assert!(refused(file).contains("not file:x.txt"));
    }

    #[test]
    fn states_read_back_and_unknown_ones_are_unreadable() {
        assert_eq!(
            state_of_wire(v2::TuneState::Verifying as i32).unwrap(),
            TuneState::Verifying
        );
        for number in [0, 9, -1] {
            assert!(state_of_wire(number).is_err());
        }
        assert!(TuneState::Done.finished() && !TuneState::Iterating.finished());
    }
}
