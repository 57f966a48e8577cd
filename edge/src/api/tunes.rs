//! Tuning runs on the wire: a create request read into a [`TuneSpec`], and reports and steps
//! written back.

use pentago::{OpeningSource, ParamRange, Player, SpsaSchedule};
use pentagrid_proto::{tune_purges_to_wire, tune_state_to_wire, tune_step_to_wire, v2};
use pentagrid_rating::Sprt;
use tonic::Status;

use super::errors::invalid;
use super::{convert, parse};
use pentagrid_coordinator::tunes::{TuneReport, TuneSpec};

/// The run a create request of `owner` (empty: no user) asks for; a malformed field is
/// refused, naming it.
pub(super) fn spec(r: &v2::CreateTuneRequest, owner: String) -> Result<TuneSpec, Status> {
    let base = match parse::<Player>("base", &r.base)? {
        Player::Uct(config) => config,
        other => {
            return Err(invalid(format!(
                "the base must be a uct: configuration, not {}",
                pentago::excerpt(&other.to_string())
            )));
        }
    };
    let params = r
        .params
        .iter()
        .map(|text| parse::<ParamRange>("parameter range", text))
        .collect::<Result<Vec<_>, _>>()?;
    let standard = SpsaSchedule::standard(r.iterations);
    let schedule = SpsaSchedule {
        c_end: r.c_end.unwrap_or(standard.c_end),
        r_end: r.r_end.unwrap_or(standard.r_end),
        stability: r.stability.unwrap_or(standard.stability),
        alpha: r.alpha.unwrap_or(standard.alpha),
        gamma: r.gamma.unwrap_or(standard.gamma),
        ..standard
    };
    let sprt = match r.sprt.as_str() {
        "" => None,
        text => Some((parse::<Sprt>("SPRT", text)?, r.sprt_pairs)),
    };
    Ok(TuneSpec {
        base,
        params,
        schedule,
        pairs_per_iteration: r.pairs_per_iteration,
        seed: r.seed,
        openings: match r.openings.as_str() {
            "" => OpeningSource::default(),
            text => parse("opening source", text)?,
        },
        weight: r.weight.max(1),
        sprt,
        owner,
    })
}

/// The wire form of a run's report.
pub(super) fn report(report: TuneReport) -> v2::TuneStatusResponse {
    let TuneReport {
        id,
        record,
        state,
        tuned,
        values,
        steps,
        next_step,
        iteration_match,
        sprt_match,
    } = report;
    let schedule = record.schedule;
    v2::TuneStatusResponse {
        tune_id: id,
        base: record.base,
        params: record.params,
        iterations: schedule.iterations,
        pairs_per_iteration: record.pairs_per_iteration,
        c_end: schedule.c_end,
        r_end: schedule.r_end,
        stability: schedule.stability,
        alpha: schedule.alpha,
        gamma: schedule.gamma,
        seed: record.seed,
        openings: record.openings,
        weight: record.weight,
        sprt: record.sprt,
        sprt_pairs: record.sprt_pairs,
        state: tune_state_to_wire(state) as i32,
        iterations_done: record.iterations_done,
        theta: record.theta,
        values,
        tuned,
        iteration_match_id: iteration_match.as_ref().map_or(0, |m| m.id),
        iteration_pairs_done: iteration_match.as_ref().map_or(0, |m| m.record.pairs_done),
        sprt_match: sprt_match.map(convert::match_report),
        steps: steps.into_iter().map(tune_step_to_wire).collect(),
        next_steps_from: next_step,
        purges: tune_purges_to_wire(record.purges),
        owner: record.owner,
    }
}
