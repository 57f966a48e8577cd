//! `/tunes` (every SPSA tuning run, newest first) and `/tunes/{id}`: a run's settings, the
//! trajectory of each parameter (its value after every iteration, with the two values that
//! iteration played), the tuned configuration and its follow-up SPRT match.

use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;

use super::ApiError;
use super::matches::MatchSummary;
use crate::AppState;
use crate::source::{TuneRun, TuneState};
use pentagrid_client::tunes::TunePurges;

/// Most steps a trajectory shows (longer ones are thinned evenly, the last always kept).
const MAX_STEPS: usize = 500;

/// One tuned parameter.
#[derive(Serialize)]
struct Param {
    /// Its key in the configuration (`k`, `playouts`, …).
    name: String,
    /// Its range.
    low: f64,
    high: f64,
    /// Its value in the base configuration, where the run started.
    start: f64,
    /// Its value at the run's current point.
    value: f64,
}

/// One finished iteration: the values it played and the values after it, by parameter.
#[derive(Serialize)]
struct Step {
    iteration: u64,
    match_id: u64,
    plus: Vec<f64>,
    minus: Vec<f64>,
    values: Vec<f64>,
    /// The plus side's games won, drawn, lost.
    wins: u64,
    draws: u64,
    losses: u64,
    /// Pairs of caught workers taken out of the iteration after its step (the games above
    /// are what stays).
    purged_pairs: u64,
}

/// A run as the API shows it.
#[derive(Serialize)]
pub struct TuneDetail {
    id: u64,
    state: TuneState,
    base: String,
    params: Vec<Param>,
    iterations: u64,
    iterations_done: u64,
    pairs_per_iteration: u64,
    c_end: f64,
    r_end: f64,
    stability: f64,
    alpha: f64,
    gamma: f64,
    seed: u64,
    openings: String,
    weight: u32,
    /// The user whose token created the run (null: none).
    owner: Option<String>,
    /// The configuration at the current point.
    tuned: String,
    /// The follow-up SPRT (text form; null: none).
    sprt: Option<String>,
    /// The SPRT match once created.
    sprt_match: Option<MatchSummary>,
    /// The steps, thinned to at most [`MAX_STEPS`].
    steps: Vec<Step>,
    /// What purges of caught workers took out of the run.
    purges: TunePurges,
}

/// A run in the listing.
#[derive(Serialize)]
pub struct TuneSummary {
    id: u64,
    state: TuneState,
    base: String,
    /// The ranges, `NAME=LOW..HIGH`.
    params: Vec<String>,
    iterations: u64,
    iterations_done: u64,
    /// The current value of each parameter, in `params` order.
    values: Vec<f64>,
    tuned: String,
}

/// Every run, newest first.
#[derive(Serialize)]
pub struct TuneList {
    tunes: Vec<TuneSummary>,
}

fn params(run: &TuneRun) -> Vec<Param> {
    let base = match run.base.parse() {
        Ok(pentago::Player::Uct(config)) => Some(config),
        _ => None,
    };
    run.params
        .iter()
        .zip(&run.values)
        .map(|(text, &value)| {
            let range: Option<pentago::ParamRange> = text.parse().ok();
            let start = range.zip(base.as_ref()).and_then(|(r, b)| r.param.value(b));
            Param {
                name: text.split('=').next().unwrap_or(text).to_owned(),
                low: range.map_or(f64::NAN, |r| r.low),
                high: range.map_or(f64::NAN, |r| r.high),
                start: start.unwrap_or(f64::NAN),
                value,
            }
        })
        .collect()
}

impl TuneDetail {
    fn of(run: &TuneRun) -> TuneDetail {
        let every = run.steps.len().div_ceil(MAX_STEPS).max(1);
        let last = run.steps.len().saturating_sub(1);
        let s = &run.schedule;
        TuneDetail {
            id: run.id,
            state: run.state,
            base: run.base.clone(),
            params: params(run),
            iterations: s.iterations,
            iterations_done: run.iterations_done,
            pairs_per_iteration: run.pairs_per_iteration,
            c_end: s.c_end,
            r_end: s.r_end,
            stability: s.stability,
            alpha: s.alpha,
            gamma: s.gamma,
            seed: run.seed,
            openings: run.openings.clone(),
            weight: run.weight,
            owner: Some(run.owner.clone()).filter(|o| !o.is_empty()),
            tuned: run.tuned.clone(),
            sprt: Some(run.sprt.clone()).filter(|s| !s.is_empty()),
            sprt_match: run.sprt_match.as_ref().map(MatchSummary::of),
            steps: run
                .steps
                .iter()
                .enumerate()
                .filter(|(i, _)| i % every == 0 || *i == last)
                .map(|(_, step)| Step {
                    iteration: step.iteration,
                    match_id: step.match_id,
                    plus: step.plus.clone(),
                    minus: step.minus.clone(),
                    values: step.values.clone(),
                    wins: step.wins,
                    draws: step.draws,
                    losses: step.losses,
                    purged_pairs: step.purged_pairs,
                })
                .collect(),
            purges: run.purges.clone(),
        }
    }
}

/// `GET /api/v1/tunes`.
pub async fn list(State(state): State<AppState>) -> Result<Json<TuneList>, ApiError> {
    let tunes = state
        .source
        .tunes()
        .await?
        .into_iter()
        .map(|run| TuneSummary {
            id: run.id,
            state: run.state,
            base: run.base,
            params: run.params,
            iterations: run.schedule.iterations,
            iterations_done: run.iterations_done,
            values: run.values,
            tuned: run.tuned,
        })
        .collect();
    Ok(Json(TuneList { tunes }))
}

/// `GET /api/v1/tunes/{id}`.
pub async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TuneDetail>, ApiError> {
    let id: u64 = id.parse().ok().filter(|id| *id > 0).ok_or_else(|| {
        ApiError::bad(
            "id",
            format!("bad tuning run id {id:?}: expected a positive whole number"),
        )
    })?;
    let run = state.source.tune(id).await?;
    Ok(Json(TuneDetail::of(&run)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::SpsaSchedule;
    use pentagrid_client::tunes::TuneStep;

    #[test]
    fn long_trajectories_are_thinned_keeping_the_last_step() {
        let step = |iteration| TuneStep {
            iteration,
            match_id: 1,
            delta: vec![1],
            c: 0.1,
            plus: vec![2.0],
            minus: vec![1.0],
            wins: 1,
            draws: 0,
            losses: 1,
            theta: vec![0.5],
            values: vec![1.5],
            ..TuneStep::default()
        };
        let run = TuneRun {
            id: 4,
            base: "uct".into(),
            params: vec!["k=0..3".into()],
            schedule: SpsaSchedule::standard(1234),
            pairs_per_iteration: 1,
            seed: 1,
            openings: "random:plies=2".into(),
            weight: 1,
            owner: String::new(),
            sprt: String::new(),
            sprt_pairs: 0,
            state: TuneState::Iterating,
            iterations_done: 1234,
            theta: vec![0.5],
            values: vec![1.5],
            tuned: "uct:k=1.5".into(),
            iteration_match: None,
            sprt_match: None,
            steps: (0..1234).map(step).collect(),
            purges: Default::default(),
        };
        let detail = TuneDetail::of(&run);
        assert!(detail.steps.len() <= MAX_STEPS + 1);
        assert_eq!(detail.steps.last().unwrap().iteration, 1233);
        assert_eq!(detail.params[0].name, "k");
        assert_eq!((detail.params[0].low, detail.params[0].high), (0.0, 3.0));
        assert_eq!(detail.params[0].start, 0.3, "the base's k");
        assert!(detail.sprt.is_none());
    }
}
