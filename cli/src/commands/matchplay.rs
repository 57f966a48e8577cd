//! `pentagrid match`: engine A against engine B in game pairs, with Elo and an SPRT that stops
//! the match as soon as it decides — farmed out to a cluster, or played in this process. The
//! workflows are [`pentagrid_client::matches`]; this module parses and prints.

use anyhow::Result;
use clap::{Args, Subcommand};
use pentago::{
    ACCURACY_STONES, Accuracy, MatchAccuracy, MatchScore, OpeningSource, Player, Sprt,
    SprtDecision, TimeLimit,
};
use pentagrid_client::matches::{
    self, MatchOutcome, MatchPlan, report_accuracy, report_score, report_waiting,
};
use pentagrid_proto::{loss_reason_of_wire, pentanomial_counts, sprt_decision_of_wire, v2};
use serde_json::json;

use super::target::Target;
use crate::output::{self, outln};

/// Play engine A against engine B in game pairs (one opening, colours swapped) and report Elo
/// with a 95% interval (from pair scores); with --sprt, stop as soon as the test decides (on
/// the pair counts plus one lost and one won pair as a weak prior). The pairs are farmed out to
/// a cluster's workers and stored (`match show ID` reprints a match), or with --in-process
/// played right here without a cluster or database.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MatchArgs {
    #[command(subcommand)]
    command: Option<MatchCommand>,
    /// Player A (`uct:...`, `flat:playouts=N`, `random`, or `engine:NAME`, an engine program
    /// the cluster's workers run: see `pentagrid worker --engine`).
    #[arg(long, required = true)]
    a: Option<Player>,
    /// Player B.
    #[arg(long, required = true)]
    b: Option<Player>,
    /// Most game pairs to play.
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// Sequential test, e.g. `elo0=0,elo1=20,alpha=0.05,beta=0.05`.
    #[arg(long)]
    sprt: Option<Sprt>,
    /// Openings: `random:plies=N` (N random moves) or `book:plies=N` (a walk through the
    /// coordinator's stored tables; not with --in-process).
    #[arg(long, default_value = "random:plies=2")]
    openings: OpeningSource,
    /// Seed of the openings (and, with --in-process, of the engines).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads per search with --in-process (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Play the games right here, pair after pair, without a cluster or database (unlike
    /// --local, which runs an embedded cluster that stores the match).
    #[arg(long, conflicts_with = "local")]
    in_process: bool,
    /// Judge every move from positions with at least N stones (18 to 35) against perfect play
    /// and report each engine's accuracy (on a cluster the workers judge each pair, and the
    /// match keeps the totals).
    #[arg(long, value_name = "N", value_parser = accuracy_stones)]
    accuracy: Option<u32>,
    /// Every game's wall-clock time limit, refereed by the cluster's workers: `move:SECONDS`
    /// or `game:BASE+INCREMENT` (built-in UCT players then search for the time their clock
    /// gives them); needed with `engine:NAME` players.
    #[arg(long, value_name = "LIMIT")]
    time: Option<TimeLimit>,
    /// Print JSON: one object per update, then the final result.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: Target,
}

/// Parses `--accuracy N` within the range matches accept.
fn accuracy_stones(text: &str) -> Result<u32, String> {
    text.parse()
        .ok()
        .filter(|n| ACCURACY_STONES.contains(n))
        .ok_or_else(|| {
            format!(
                "expected a stone count from {} to {}",
                ACCURACY_STONES.start(),
                ACCURACY_STONES.end()
            )
        })
}

#[derive(Subcommand)]
enum MatchCommand {
    /// Reprint a stored match: settings, score, Elo, the SPRT's verdict (and its games).
    Show {
        /// The match id `match` printed.
        id: u64,
        /// Also print every game.
        #[arg(long)]
        games: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
}

pub fn run(args: &MatchArgs) -> Result<()> {
    if let Some(MatchCommand::Show {
        id,
        games,
        json,
        target,
    }) = &args.command
    {
        return show(*id, *games, *json, target);
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        anyhow::bail!("--a and --b are required");
    };
    let plan = MatchPlan {
        a: a.clone(),
        b: b.clone(),
        pairs: args.pairs,
        sprt: args.sprt,
        openings: args.openings,
        seed: args.seed,
        accuracy: args.accuracy,
        time: args.time,
    };
    plan.validate()?;
    let outcome = if args.in_process {
        play_in_process(args, &plan)?
    } else {
        play_on_cluster(args, &plan)?
    };
    finish(args, a, b, &outcome.score, outcome.decision)?;
    if outcome.stopped {
        outln!("stopped before all pairs were played (failed or cancelled pairs)");
    }
    if let Some(accuracy) = &outcome.accuracy {
        if args.json {
            outln!("{}", json!({ "accuracy": accuracy_json(accuracy) }));
        } else {
            print_accuracy(accuracy)?;
        }
    }
    Ok(())
}

/// Each engine's moves judged, drops and share of moves that kept the exact value.
fn accuracy_json(accuracy: &MatchAccuracy) -> serde_json::Value {
    let side = |a: &Accuracy| json!({"moves": a.moves, "drops": a.drops, "accuracy": a.share()});
    json!({
        "min_stones": accuracy.min_stones,
        "a": side(&accuracy.sides[0]),
        "b": side(&accuracy.sides[1]),
    })
}

/// Each engine's share of moves that kept the exact value (positions with enough stones).
fn print_accuracy(accuracy: &MatchAccuracy) -> Result<()> {
    for (name, side) in ["A", "B"].iter().zip(accuracy.sides) {
        outln!(
            "accuracy  {name} {:.1}% of {} moves from {}+ stones kept the exact value ({} drops)",
            100.0 * side.share(),
            side.moves,
            accuracy.min_stones,
            side.drops
        );
    }
    Ok(())
}

/// The live line (or JSON object) for a score so far.
fn progress(score: &MatchScore, sprt: Option<&Sprt>, json: bool) -> String {
    let stats = score.pairs.stats();
    let elo = stats.map(|s| s.elo());
    let llr = sprt.map(|s| (score.test(s).0, s.bounds()));
    if json {
        return json!({
            "pairs": score.pairs.pairs(), "wins": score.games.wins, "draws": score.games.draws,
            "losses": score.games.losses, "pentanomial": score.pairs.counts, "elo": elo,
            "llr": llr.map(|l| l.0),
        })
        .to_string();
    }
    let games = score.games.games();
    let mut line = format!(
        "pairs {} games {games} score {}/{games}",
        score.pairs.pairs(),
        score.games.points()
    );
    if let (Some(stats), Some(elo)) = (stats, elo) {
        line += &format!(
            " ({:.1}%) elo {:+.0} [{:+.0}, {:+.0}]",
            100.0 * stats.mean,
            elo.elo,
            elo.low,
            elo.high
        );
    }
    if let Some((llr, (low, high))) = llr {
        line += &format!(" llr {llr:.2} [{low:.2}, {high:.2}]");
    }
    line
}

fn verdict(decision: SprtDecision, tested: bool) -> &'static str {
    match decision {
        SprtDecision::AcceptH1 => "SPRT accepts H1: A is stronger by at least elo1",
        SprtDecision::AcceptH0 => "SPRT accepts H0: A is not stronger by more than elo0",
        SprtDecision::Continue if tested => "SPRT undecided after all pairs",
        SprtDecision::Continue => "done",
    }
}

fn summary(
    a: &str,
    b: &str,
    score: &MatchScore,
    decision: SprtDecision,
    tested: bool,
) -> Result<()> {
    let t = score.games;
    outln!("A = {a}\nB = {b}");
    outln!(
        "A: {} wins, {} draws, {} losses; pairs (0..2 points) {:?}",
        t.wins,
        t.draws,
        t.losses,
        score.pairs.counts
    );
    outln!("{}", verdict(decision, tested));
    Ok(())
}

fn play_in_process(args: &MatchArgs, plan: &MatchPlan) -> Result<MatchOutcome> {
    let pool = super::thread_pool(args.threads)?;
    let outcome = matches::play_in_process(plan, &pool, &mut |result, score| {
        if args.json {
            let line = json!({
                "pair": score.pairs.pairs() - 1, "opening": result.opening.to_string(),
                "a_points": result.a_points, "games": result.games,
            });
            output::io_line(format_args!("{line}"))?;
        }
        output::io_line(format_args!(
            "{}",
            progress(score, args.sprt.as_ref(), args.json)
        ))
    })?;
    Ok(outcome)
}

fn finish(
    args: &MatchArgs,
    a: &Player,
    b: &Player,
    score: &MatchScore,
    decision: SprtDecision,
) -> Result<()> {
    let t = score.games;
    if args.json {
        outln!(
            "{}",
            json!({"a": a.to_string(), "b": b.to_string(), "wins": t.wins, "draws": t.draws, "losses": t.losses, "pentanomial": score.pairs.counts, "decision": decision})
        );
    } else {
        summary(
            &a.to_string(),
            &b.to_string(),
            score,
            decision,
            args.sprt.is_some(),
        )?;
    }
    Ok(())
}

fn play_on_cluster(args: &MatchArgs, plan: &MatchPlan) -> Result<MatchOutcome> {
    args.target.run(async |client| {
        let match_id = matches::create(client, plan).await?;
        if args.json {
            outln!("{}", json!({ "match_id": match_id }));
        } else {
            outln!(
                "match {match_id}: {} pairs queued (`pentagrid match show {match_id}` reprints it)",
                args.pairs
            );
        }
        let mut tell = |score: &MatchScore| {
            output::io_line(format_args!(
                "{}",
                progress(score, args.sprt.as_ref(), args.json)
            ))
        };
        Ok(matches::follow(client, match_id, &mut tell).await?)
    })
}

fn state_name(state: v2::MatchState) -> &'static str {
    match state {
        v2::MatchState::Running => "running",
        v2::MatchState::AcceptedH0 => "h0",
        v2::MatchState::AcceptedH1 => "h1",
        v2::MatchState::Complete => "complete",
        v2::MatchState::Stopped => "stopped",
        v2::MatchState::Unspecified => "unknown",
    }
}

fn show(id: u64, games: bool, as_json: bool, target: &Target) -> Result<()> {
    let report = target.read(async |client| Ok(matches::status(client, id, games).await?))?;
    let score = report_score(&report);
    let state = state_name(report.state());
    let decision = sprt_decision_of_wire(report.decision());
    let sprt: Option<Sprt> = report.sprt.parse().ok();
    let accuracy = report_accuracy(&report);
    let waiting = report_waiting(&report);
    if as_json {
        let games: Vec<_> = report
            .games
            .iter()
            .map(|g| {
                json!({
                    "pair": g.pair, "opening": g.opening, "black": g.black, "white": g.white,
                    "moves": g.moves, "result": g.result,
                    "forfeit": g.forfeit.as_ref().map(forfeit_json),
                    "stderr_black": g.stderr_black, "stderr_white": g.stderr_white,
                })
            })
            .collect();
        let elo = score.pairs.stats().map(|s| s.elo());
        outln!(
            "{}",
            json!({
                "match_id": report.match_id, "a": report.a, "b": report.b, "pairs": report.pairs,
                "sprt": report.sprt, "openings": report.openings, "seed": report.seed,
                "pairs_done": report.pairs_done, "wins": report.wins, "draws": report.draws,
                "losses": report.losses,
                "pentanomial": pentanomial_counts(report.pentanomial.as_ref()), "state": state,
                "decided_after": report.decided_after, "elo": elo,
                "llr": sprt.map(|s| score.test(&s).0), "games": games,
                "accuracy": accuracy.as_ref().map(accuracy_json),
                "time_limit": report.time_limit, "waiting": waiting,
            })
        );
        return Ok(());
    }
    outln!(
        "match {}  ({}, seed {})",
        report.match_id,
        report.openings,
        report.seed
    );
    if !report.sprt.is_empty() {
        outln!("sprt      {}", report.sprt);
    }
    if !report.time_limit.is_empty() {
        outln!("time      {} per game side, refereed", report.time_limit);
    }
    outln!(
        "state     {} ({} of {} pairs stored)",
        state,
        report.pairs_done,
        report.pairs
    );
    if let Some(wait) = &waiting {
        outln!("          {wait}");
    }
    if report.decided_after > 0 {
        outln!("decided   after {} pairs", report.decided_after);
    }
    outln!("{}", progress(&score, sprt.as_ref(), false));
    summary(
        &output::peer(&report.a),
        &output::peer(&report.b),
        &score,
        decision,
        sprt.is_some(),
    )?;
    if let Some(accuracy) = &accuracy {
        print_accuracy(accuracy)?;
    }
    for (index, game) in report.games.iter().enumerate() {
        outln!(
            "pair {} game {}: black {} white {} from {}: {} -> {}",
            game.pair,
            index % 2 + 1,
            output::peer(&game.black),
            output::peer(&game.white),
            game.opening,
            game.moves.join(" "),
            game.result
        );
        print_notes(game)?;
    }
    Ok(())
}

/// A game's forfeit (its loser and typed reason) and the engines' standard error.
fn print_notes(game: &v2::MatchGame) -> Result<()> {
    if let Some(forfeit) = &game.forfeit {
        let json = forfeit_json(forfeit);
        outln!(
            "  forfeit: {} lost ({}): {}",
            json["loser"].as_str().unwrap_or("?"),
            json["reason"].as_str().unwrap_or("unknown"),
            output::peer(&forfeit.detail)
        );
    }
    for (colour, stderr) in [("black", &game.stderr_black), ("white", &game.stderr_white)] {
        if !stderr.is_empty() {
            outln!("  {colour}'s engine stderr:");
            for line in stderr.lines() {
                outln!("    {}", output::peer(line));
            }
        }
    }
    Ok(())
}

/// A forfeit: the loser, the reason's stable name, the detail.
fn forfeit_json(forfeit: &v2::GameForfeit) -> serde_json::Value {
    let reason = loss_reason_of_wire(forfeit.reason).map(|r| r.name()).ok();
    json!({"loser": forfeit.loser, "reason": reason, "detail": forfeit.detail})
}
