//! `pentagrid tune`: SPSA tuning of a UCT configuration's numeric parameters on a cluster,
//! and `tune show|list|stop`. The calls are [`pentagrid_client::tunes`]; this module parses
//! and prints.

use anyhow::Result;
use clap::{Args, Subcommand};
use pentago::{
    DEFAULT_C_END, DEFAULT_R_END, OpeningSource, ParamRange, SPSA_ALPHA, SPSA_GAMMA, SpsaSchedule,
    UctConfig,
};
use pentagrid_client::tunes::{self, TunePlan, TunePurges, TuneRun, TuneState, TuneStep};
use pentagrid_rating::Sprt;
use serde_json::json;

use super::matchplay::{progress, record_json, state_name, verdict};
use super::target::Target;
use crate::output::{self, outln};

/// Tune numeric parameters of a UCT configuration by SPSA, as fishtest does: each iteration
/// plays game pairs (colours swapped) between the configuration pushed up and down along
/// random signs by c_k, and moves the parameters toward the winner by a_k/c_k per net game;
/// c_k and a_k decay by the standard schedule (alpha 0.602, gamma 0.101), given by their end
/// values as fractions of each range (c_end, r_end = a_end/c_end^2). After the last
/// iteration an SPRT match plays the tuned configuration against the base. Runs are stored
/// on the coordinator (`tune show ID`), share its workers with matches by --weight, and
/// carry on across restarts.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TuneArgs {
    #[command(subcommand)]
    command: Option<TuneCommand>,
    /// The base configuration (`uct:...`): the starting point, and the SPRT's opponent.
    #[arg(long, default_value = "uct")]
    base: UctConfig,
    /// A parameter to tune over a range, `NAME=LOW..HIGH` (k, expand, depth, cutoff, prior,
    /// playouts, seconds or nodes); repeat for more (at most 8). The base's value must lie in
    /// the range.
    #[arg(long = "param", value_name = "NAME=LOW..HIGH", required = true)]
    params: Vec<ParamRange>,
    /// SPSA iterations (1 to 10000).
    #[arg(long, default_value_t = 100)]
    iterations: u64,
    /// Game pairs per iteration (1 to 1000), all between the same two perturbed points.
    #[arg(long, default_value_t = 4)]
    pairs_per_iteration: u64,
    /// The perturbation of the last iteration, as a fraction of each range (0 to 0.5).
    #[arg(long, default_value_t = DEFAULT_C_END)]
    c_end: f64,
    /// The gain of the last iteration, a_end/c_end^2: a net game won then moves each
    /// parameter by r_end * c_end of its range.
    #[arg(long, default_value_t = DEFAULT_R_END)]
    r_end: f64,
    /// The stability constant A (default: a tenth of the iterations).
    #[arg(long = "stability", value_name = "A")]
    stability: Option<f64>,
    /// The gain's decay.
    #[arg(long, default_value_t = SPSA_ALPHA)]
    alpha: f64,
    /// The perturbation's decay.
    #[arg(long, default_value_t = SPSA_GAMMA)]
    gamma: f64,
    /// Seed of the perturbations and the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Openings of every iteration: `random:plies=N`, `book:plies=N` or `exact:...` (as
    /// `match --openings`; not a file suite).
    #[arg(long, default_value = "random:plies=2")]
    openings: OpeningSource,
    /// The run's share of the cluster's workers among running matches (1 to 1000).
    #[arg(long, default_value_t = 1)]
    weight: u32,
    /// The follow-up test of tuned against base.
    #[arg(long, default_value = "elo0=0,elo1=10,alpha=0.05,beta=0.05")]
    sprt: Sprt,
    /// Most pairs of the follow-up SPRT match (1 to 100000).
    #[arg(long, default_value_t = 200)]
    sprt_pairs: u64,
    /// Skip the follow-up SPRT match.
    #[arg(long, conflicts_with_all = ["sprt", "sprt_pairs"])]
    no_sprt: bool,
    /// Start the run and return at once with its id (`tune show ID` follows it later).
    #[arg(long, conflicts_with = "local")]
    detach: bool,
    /// Print JSON: one object per update, then the run.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: Target,
}

#[derive(Subcommand)]
enum TuneCommand {
    /// Reprint a stored run: settings, state, the parameter trajectory, the tuned
    /// configuration and the follow-up SPRT.
    Show {
        /// The run id `tune` printed.
        id: u64,
        /// Print every iteration (by default at most 40 rows, evenly spaced).
        #[arg(long)]
        all: bool,
        /// Print JSON (every step).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// List the stored runs, newest first.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// Stop a running run: its running match is stopped, its steps kept.
    Stop {
        /// The run id.
        id: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
}

/// Rows `tune show` prints at most without `--all`.
const SHOWN_STEPS: usize = 40;

pub fn run(args: &TuneArgs) -> Result<()> {
    match &args.command {
        Some(TuneCommand::Show {
            id,
            all,
            json,
            target,
        }) => return show(*id, *all, *json, target),
        Some(TuneCommand::List { json, target }) => return list(*json, target),
        Some(TuneCommand::Stop { id, json, target }) => return stop(*id, *json, target),
        None => {}
    }
    let plan = TunePlan {
        base: args.base.clone(),
        params: args.params.clone(),
        schedule: SpsaSchedule {
            c_end: args.c_end,
            r_end: args.r_end,
            stability: args
                .stability
                .unwrap_or(SpsaSchedule::standard(args.iterations).stability),
            alpha: args.alpha,
            gamma: args.gamma,
            ..SpsaSchedule::standard(args.iterations)
        },
        pairs_per_iteration: args.pairs_per_iteration,
        seed: args.seed,
        openings: args.openings.clone(),
        weight: args.weight,
        sprt: (!args.no_sprt).then_some((args.sprt, args.sprt_pairs)),
    };
    plan.validate()?;
    if args.detach {
        let id = args
            .target
            .read(async |client| Ok(tunes::create(client, &plan).await?))?;
        if args.json {
            outln!("{}", json!({ "tune_id": id }));
        } else {
            outln!(
                "tuning run {id}: {} iterations queued one at a time (`pentagrid tune show {id}` \
                 follows it, `pentagrid tune stop {id}` stops it)",
                plan.schedule.iterations
            );
        }
        return Ok(());
    }
    let run = args.target.run(async |client| {
        let id = tunes::create(client, &plan).await?;
        if args.json {
            outln!("{}", json!({ "tune_id": id }));
        } else {
            outln!("tuning run {id} (`pentagrid tune show {id}` reprints it)");
        }
        let mut tell = |run: &TuneRun| {
            let line = if args.json {
                progress_json(run).to_string()
            } else {
                progress_line(run)
            };
            output::progress_line(format_args!("{line}"))
        };
        Ok(tunes::follow(client, id, &mut tell).await?)
    })?;
    print_run(&run, false, args.json)
}

/// A parameter value as tables show it: whole numbers as they are, others with at most four
/// decimals (the tuned configuration's spec keeps every digit).
fn short(value: f64) -> String {
    if value.fract() == 0.0 || !value.is_finite() {
        return value.to_string();
    }
    let text = format!("{value:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `name=value` for each parameter.
fn values_text(run: &TuneRun, values: &[f64]) -> String {
    run.param_names()
        .iter()
        .zip(values)
        .map(|(name, value)| format!("{name}={}", short(*value)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn progress_line(run: &TuneRun) -> String {
    let iterations = run.schedule.iterations;
    match (&run.sprt_match, run.state) {
        (Some(m), _) => format!(
            "sprt {}: {}",
            values_text(run, &run.values),
            progress(&m.score, m.sprt.as_ref(), false)
        ),
        (None, state) => format!(
            "iteration {}/{iterations} {}: {}",
            run.iterations_done,
            state.name(),
            values_text(run, &run.values)
        ),
    }
}

fn progress_json(run: &TuneRun) -> serde_json::Value {
    json!({
        "tune_id": run.id, "state": run.state.name(), "iterations_done": run.iterations_done,
        "values": run.values,
        "sprt_pairs_done": run.sprt_match.as_ref().map(|m| m.pairs_done),
    })
}

/// A run as one JSON object (with its steps when read with them).
fn run_json(run: &TuneRun) -> serde_json::Value {
    let s = &run.schedule;
    let steps: Vec<&TuneStep> = run.steps.iter().collect();
    let mut object = json!({
        "tune_id": run.id, "state": run.state.name(), "base": run.base, "params": run.params,
        "param_names": run.param_names(),
        "iterations": s.iterations, "pairs_per_iteration": run.pairs_per_iteration,
        "c_end": s.c_end, "r_end": s.r_end, "stability": s.stability, "alpha": s.alpha,
        "gamma": s.gamma, "seed": run.seed, "openings": run.openings, "weight": run.weight,
        "sprt": run.sprt, "sprt_pairs": run.sprt_pairs,
        "iterations_done": run.iterations_done, "theta": run.theta, "values": run.values,
        "tuned": run.tuned,
        "iteration_match_id": run.iteration_match.map(|(id, _)| id),
        "sprt_match": run.sprt_match.as_ref().map(record_json),
        "steps": steps,
    });
    // Only a run something was purged from says so: others read as they always did.
    if run.purges != TunePurges::default() {
        object["purges"] = json!(run.purges);
    }
    if !run.owner.is_empty() {
        object["owner"] = json!(run.owner);
    }
    object
}

/// The steps a table shows: every one, or at most [`SHOWN_STEPS`] evenly spaced, the last
/// always among them.
fn shown_steps(steps: &[TuneStep], all: bool) -> Vec<&TuneStep> {
    if all || steps.len() <= SHOWN_STEPS {
        return steps.iter().collect();
    }
    let every = steps.len().div_ceil(SHOWN_STEPS);
    let mut shown: Vec<&TuneStep> = steps.iter().step_by(every).collect();
    if let Some(last) = steps.last()
        && shown.last().map(|s| s.iteration) != Some(last.iteration)
    {
        shown.push(last);
    }
    shown
}

fn print_run(run: &TuneRun, all: bool, as_json: bool) -> Result<()> {
    if as_json {
        outln!("{}", run_json(run));
        return Ok(());
    }
    let s = &run.schedule;
    outln!("tuning run {}: {}", run.id, run.state.name());
    if !run.owner.is_empty() {
        outln!("owner     {}", output::peer(&run.owner));
    }
    outln!("base      {}", output::peer_full(&run.base));
    outln!("params    {}", run.params.join(" "));
    outln!(
        "schedule  {} iterations of {} pairs; c_end {} r_end {} A {} alpha {} gamma {}",
        s.iterations,
        run.pairs_per_iteration,
        s.c_end,
        s.r_end,
        s.stability,
        s.alpha,
        s.gamma
    );
    outln!(
        "          seed {}, openings {}, weight {}",
        run.seed,
        run.openings,
        run.weight
    );
    if !run.steps.is_empty() {
        let names = run.param_names().join(",");
        outln!("iteration      c  plus vs minus ({names}): plus won/drew/lost -> {names}");
        for step in shown_steps(&run.steps, all) {
            outln!(
                "{:>9} {:>6.3}  {} vs {}: {}/{}/{} -> {}{}",
                step.iteration,
                step.c,
                numbers(&step.plus),
                numbers(&step.minus),
                step.wins,
                step.draws,
                step.losses,
                numbers(&step.values),
                step_purges(step)
            );
        }
        if !all && run.steps.len() > SHOWN_STEPS {
            outln!("(every iteration: --all; --json has every step)");
        }
    }
    outln!(
        "after {} of {} iterations: {}",
        run.iterations_done,
        s.iterations,
        values_text(run, &run.values)
    );
    outln!("tuned     {}", output::peer_full(&run.tuned));
    for line in purge_lines(run) {
        outln!("{line}");
    }
    match &run.sprt_match {
        Some(m) => {
            outln!(
                "sprt      match {} ({}): {}",
                m.id,
                state_name(m.state),
                progress(&m.score, m.sprt.as_ref(), false)
            );
            outln!("          {}", verdict(m.decision, m.sprt.is_some()));
        }
        None if run.sprt.is_empty() => outln!("sprt      none"),
        None => outln!("sprt      {} after the last iteration", run.sprt),
    }
    Ok(())
}

/// `s` when `count` is not one.
fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// What purges changed in a step, for the end of its row: the pairs taken out of it (the row's
/// games are what stays) and the shift it added for earlier steps' purged pairs.
fn step_purges(step: &TuneStep) -> String {
    let mut notes = Vec::new();
    if step.purged_pairs > 0 {
        notes.push(format!(
            "{} purged pair{} taken out: {}/{}/{}",
            step.purged_pairs,
            plural(step.purged_pairs),
            step.purged_wins,
            step.purged_draws,
            step.purged_losses
        ));
    }
    if !step.correction.is_empty() {
        notes.push(format!(
            "undid purged pairs' shift {}",
            numbers(&step.correction)
        ));
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!("  [{}]", notes.join("; "))
    }
}

/// The lines `tune show` prints about what purges of caught workers took out of a run (none
/// when nothing was purged).
fn purge_lines(run: &TuneRun) -> Vec<String> {
    let p = &run.purges;
    if p.stepped_pairs == 0 && p.replayed_pairs == 0 {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "purged    {} pair{} of caught workers taken out of steps already taken, {} of the \
         iteration being played (played again by others)",
        p.stepped_pairs,
        plural(p.stepped_pairs),
        p.replayed_pairs
    )];
    if p.owed_pairs > 0 {
        let when = if run.state == TuneState::Iterating {
            "is added at the next step"
        } else {
            "was not added: the run takes no more steps, so its point still includes them"
        };
        lines.push(format!(
            "          the shift undoing {} of them ({}) {when}",
            p.owed_pairs,
            numbers(&p.owed)
        ));
    } else if p.stepped_pairs > 0 {
        lines.push("          their shift of the point was undone at a later step".to_owned());
    }
    lines
}

/// Values separated by commas, as [`short`] prints them.
fn numbers(values: &[f64]) -> String {
    values
        .iter()
        .copied()
        .map(short)
        .collect::<Vec<_>>()
        .join(",")
}

/// `tune show ID`.
fn show(id: u64, all: bool, as_json: bool, target: &Target) -> Result<()> {
    let run = target.read(async |client| Ok(tunes::status(client, id, true).await?))?;
    print_run(&run, all, as_json)
}

/// `tune list`.
fn list(as_json: bool, target: &Target) -> Result<()> {
    let runs = target.read(async |client| Ok(tunes::list(client).await?))?;
    if as_json {
        let all: Vec<_> = runs.iter().map(run_json).collect();
        outln!("{}", json!({ "tunes": all }));
        return Ok(());
    }
    if runs.is_empty() {
        outln!("no tuning runs");
        return Ok(());
    }
    outln!(
        "{:>6}  {:<9}  {:>17}  {:>6}  values",
        "tune",
        "state",
        "iterations done",
        "weight"
    );
    for run in &runs {
        outln!(
            "{:>6}  {:<9}  {:>7} of {:<7}  {:>6}  {}",
            run.id,
            run.state.name(),
            run.iterations_done,
            run.schedule.iterations,
            run.weight,
            values_text(run, &run.values)
        );
    }
    Ok(())
}

/// `tune stop ID`.
fn stop(id: u64, as_json: bool, target: &Target) -> Result<()> {
    let stopped = target.read(async |client| Ok(tunes::stop(client, id).await?))?;
    if as_json {
        let mut answer = run_json(&stopped.run);
        answer["cancelled_pairs"] = stopped.cancelled_pairs.into();
        outln!("{answer}");
    } else {
        outln!(
            "tuning run {id} stopped after {} of {} iterations: {} unplayed pairs cancelled",
            stopped.run.iterations_done,
            stopped.run.schedule.iterations,
            stopped.cancelled_pairs
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(iteration: u64) -> TuneStep {
        TuneStep {
            iteration,
            match_id: 1,
            delta: vec![1],
            c: 0.1,
            plus: vec![1.0],
            minus: vec![0.0],
            wins: 0,
            draws: 0,
            losses: 0,
            theta: vec![0.5],
            values: vec![0.5],
            ..TuneStep::default()
        }
    }

    #[test]
    fn values_print_short() {
        assert_eq!(short(0.628_306_57), "0.6283");
        assert_eq!(short(0.3), "0.3");
        assert_eq!(short(300.0), "300");
        assert_eq!(short(0.000_01), "0");
    }

    #[test]
    fn long_trajectories_show_at_most_forty_rows_with_the_last() {
        let steps: Vec<TuneStep> = (0..101).map(step).collect();
        let shown = shown_steps(&steps, false);
        assert!(shown.len() <= SHOWN_STEPS + 1, "{}", shown.len());
        assert_eq!(shown.first().unwrap().iteration, 0);
        assert_eq!(shown.last().unwrap().iteration, 100);
        assert_eq!(shown_steps(&steps, true).len(), 101);
        assert_eq!(shown_steps(&steps[..5], false).len(), 5);
    }

    fn run(state: TuneState, purges: TunePurges) -> TuneRun {
        TuneRun {
            id: 4,
            base: "uct".into(),
            params: vec!["k=0..3".into()],
            schedule: SpsaSchedule::standard(10),
            pairs_per_iteration: 2,
            seed: 1,
            openings: "random:plies=2".into(),
            weight: 1,
            sprt: String::new(),
            sprt_pairs: 0,
            state,
            iterations_done: 3,
            theta: vec![0.5],
            values: vec![1.5],
            tuned: "uct:k=1.5".into(),
            iteration_match: None,
            sprt_match: None,
            steps: Vec::new(),
            purges,
            owner: String::new(),
        }
    }

    #[test]
    fn a_runs_owner_is_shown_only_when_it_has_one() {
        let mut owned = run(TuneState::Iterating, TunePurges::default());
        assert!(run_json(&owned).get("owner").is_none());
        owned.owner = "ann".into();
        assert_eq!(run_json(&owned)["owner"], "ann");
    }

    #[test]
    fn purges_are_told_per_step_and_for_the_run() {
        assert!(purge_lines(&run(TuneState::Iterating, TunePurges::default())).is_empty());
        let owing = TunePurges {
            stepped_pairs: 2,
            replayed_pairs: 1,
            owed: vec![0.0125],
            owed_pairs: 2,
        };
        let lines = purge_lines(&run(TuneState::Iterating, owing.clone()));
        assert_eq!(
            lines,
            [
                "purged    2 pairs of caught workers taken out of steps already taken, 1 of the \
                 iteration being played (played again by others)",
                "          the shift undoing 2 of them (0.0125) is added at the next step"
            ]
        );
        let done = purge_lines(&run(TuneState::Done, owing));
        assert!(done[1].contains("was not added"), "{done:?}");
        let undone = TunePurges {
            stepped_pairs: 1,
            ..TunePurges::default()
        };
        let lines = purge_lines(&run(TuneState::Done, undone));
        assert!(lines[1].contains("undone at a later step"), "{lines:?}");
        let purged = TuneStep {
            purged_pairs: 1,
            purged_wins: 2,
            correction: vec![-0.0125],
            ..step(3)
        };
        assert_eq!(
            step_purges(&purged),
            "  [1 purged pair taken out: 2/0/0; undid purged pairs' shift -0.0125]"
        );
        assert_eq!(step_purges(&step(4)), "");
        // JSON: a run and a step no purge touched read as before; others say what went.
        let clean = run_json(&run(TuneState::Done, TunePurges::default()));
        assert!(clean.get("purges").is_none(), "{clean}");
        assert!(
            serde_json::to_value(step(4))
                .unwrap()
                .get("purged_pairs")
                .is_none()
        );
        let owing = TunePurges {
            stepped_pairs: 1,
            owed: vec![0.5],
            owed_pairs: 1,
            ..TunePurges::default()
        };
        let told = run_json(&run(TuneState::Iterating, owing));
        assert_eq!(told["purges"]["owed_pairs"], 1, "{told}");
        let step = serde_json::to_value(&purged).unwrap();
        assert_eq!(
            (step["purged_pairs"].clone(), step["purged_wins"].clone()),
            (1.into(), 2.into())
        );
    }
}
