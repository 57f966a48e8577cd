//! `pentagrid match`: engine A against engine B in game pairs, with Elo and an SPRT that stops
//! the match as soon as it decides — farmed out to the cluster, or played on this machine.

use std::time::Duration;

use anyhow::{Result, ensure};
use clap::{Args, Subcommand};
use pentago::{
    Accuracy, MatchScore, OpeningSource, Player, Sprt, SprtDecision, game_accuracy, opening_seed,
    play_pair, random_opening,
};
use pentagrid_coordinator::MAX_MATCH_PAIRS;
use pentagrid_proto::v1;
use serde_json::json;

use super::cluster::Connection;

/// Play engine A against engine B in game pairs (one opening, colours swapped) and report Elo
/// with a 95% interval (from pair scores); with --sprt, stop as soon as the test decides (on
/// the pair counts plus one lost and one won pair as a weak prior). Without --local the pairs
/// are farmed out to the coordinator's workers and stored; `match show ID` reprints a match.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MatchArgs {
    #[command(subcommand)]
    command: Option<MatchCommand>,
    /// Player A (`uct:...`, `flat:playouts=N`, `random`).
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
    /// coordinator's stored tables; not with --local).
    #[arg(long, default_value = "random:plies=2")]
    openings: OpeningSource,
    /// Seed of the openings (and, with --local, of the engines).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads per search with --local (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Play on this machine instead of the cluster.
    #[arg(long)]
    local: bool,
    /// With --local: judge every move from positions with at least N stones (18 or more)
    /// against perfect play and report each engine's accuracy.
    #[arg(long, value_name = "N", requires = "local", value_parser = clap::value_parser!(u32).range(18..=35))]
    accuracy: Option<u32>,
    /// Print JSON: one object per update, then the final result.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    connection: Connection,
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
        connection: Connection,
    },
}

pub fn run(args: &MatchArgs) -> Result<()> {
    if let Some(MatchCommand::Show {
        id,
        games,
        json,
        connection,
    }) = &args.command
    {
        return show(*id, *games, *json, connection);
    }
    ensure!(
        (1..=MAX_MATCH_PAIRS).contains(&args.pairs),
        "--pairs must be from 1 to {MAX_MATCH_PAIRS}"
    );
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        anyhow::bail!("--a and --b are required");
    };
    if args.local {
        play_locally(args, a, b)
    } else {
        play_on_cluster(args, a, b)
    }
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

fn summary(a: &str, b: &str, score: &MatchScore, decision: SprtDecision, tested: bool) {
    let t = score.games;
    println!("A = {a}\nB = {b}");
    println!(
        "A: {} wins, {} draws, {} losses; pairs (0..2 points) {:?}",
        t.wins, t.draws, t.losses, score.pairs.counts
    );
    println!("{}", verdict(decision, tested));
}

fn play_locally(args: &MatchArgs, a: &Player, b: &Player) -> Result<()> {
    let OpeningSource::Random { plies } = args.openings else {
        anyhow::bail!(
            "book openings need the coordinator's book: drop --local or use random:plies=N"
        );
    };
    let pool = super::thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let mut score = MatchScore::default();
    let mut decision = SprtDecision::Continue;
    let mut accuracy = [Accuracy::default(); 2];
    for pair in 0..args.pairs {
        let seed = opening_seed(args.seed, pair);
        let opening = random_opening(seed, plies);
        let result = pool.install(|| play_pair(&opening, a, b, seed, threads));
        score.record(&result);
        if let Some(stones) = args.accuracy {
            // Game 0 has A as black, game 1 has A as white.
            for (game, a_side) in result.games.iter().zip([0, 1]) {
                let sides = pool.install(|| game_accuracy(game, stones));
                accuracy[0] += sides[a_side];
                accuracy[1] += sides[1 - a_side];
            }
        }
        if let Some(sprt) = &args.sprt {
            decision = score.test(sprt).1;
        }
        if args.json {
            let line = json!({
                "pair": pair, "opening": result.opening.to_string(), "a_points": result.a_points,
                "games": result.games,
            });
            println!("{line}");
        }
        println!("{}", progress(&score, args.sprt.as_ref(), args.json));
        if decision != SprtDecision::Continue {
            break;
        }
    }
    finish(args, a, b, &score, decision);
    if let Some(stones) = args.accuracy {
        print_accuracy(&accuracy, stones, args.json);
    }
    Ok(())
}

/// Each engine's share of moves that kept the exact value (positions with `stones`+ stones).
fn print_accuracy(accuracy: &[Accuracy; 2], stones: u32, json: bool) {
    if json {
        let side =
            |a: &Accuracy| json!({"moves": a.moves, "drops": a.drops, "accuracy": a.share()});
        println!(
            "{}",
            json!({"accuracy": {"min_stones": stones, "a": side(&accuracy[0]), "b": side(&accuracy[1])}})
        );
        return;
    }
    for (name, side) in ["A", "B"].iter().zip(accuracy) {
        println!(
            "accuracy  {name} {:.1}% of {} moves from {stones}+ stones kept the exact value ({} drops)",
            100.0 * side.share(),
            side.moves,
            side.drops
        );
    }
}

fn finish(args: &MatchArgs, a: &Player, b: &Player, score: &MatchScore, decision: SprtDecision) {
    let t = score.games;
    if args.json {
        println!(
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
        );
    }
}

/// A's results in a match report.
fn report_score(report: &v1::MatchReport) -> MatchScore {
    MatchScore::from_counts(
        report.wins,
        report.draws,
        report.losses,
        &report.pentanomial,
    )
}

fn report_decision(report: &v1::MatchReport) -> SprtDecision {
    match report.state.as_str() {
        "h1" => SprtDecision::AcceptH1,
        "h0" => SprtDecision::AcceptH0,
        _ => SprtDecision::Continue,
    }
}

fn play_on_cluster(args: &MatchArgs, a: &Player, b: &Player) -> Result<()> {
    let (rt, mut client) = args.connection.client()?;
    let request = v1::CreateMatchRequest {
        a: a.to_string(),
        b: b.to_string(),
        pairs: args.pairs,
        sprt: args.sprt.map(|s| s.to_string()).unwrap_or_default(),
        openings: args.openings.to_string(),
        seed: args.seed,
    };
    let match_id = rt
        .block_on(client.create_match(request))?
        .into_inner()
        .match_id;
    if args.json {
        println!("{}", json!({ "match_id": match_id }));
    } else {
        println!(
            "match {match_id}: {} pairs queued (`pentagrid match show {match_id}` reprints it)",
            args.pairs
        );
    }
    let mut shown = u64::MAX;
    let report = loop {
        let report = rt
            .block_on(client.match_status(v1::MatchStatusRequest {
                match_id,
                include_games: false,
            }))?
            .into_inner();
        if report.pairs_done != shown && report.pairs_done > 0 {
            shown = report.pairs_done;
            println!(
                "{}",
                progress(&report_score(&report), args.sprt.as_ref(), args.json)
            );
        }
        if report.state != "running" {
            break report;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    finish(args, a, b, &report_score(&report), report_decision(&report));
    if report.state == "stopped" {
        println!("stopped before all pairs were played (failed or cancelled pairs)");
    }
    Ok(())
}

fn show(id: u64, games: bool, as_json: bool, connection: &Connection) -> Result<()> {
    let (rt, mut client) = connection.client()?;
    let report = rt
        .block_on(client.match_status(v1::MatchStatusRequest {
            match_id: id,
            include_games: games,
        }))?
        .into_inner();
    let score = report_score(&report);
    let sprt: Option<Sprt> = report.sprt.parse().ok();
    if as_json {
        let games: Vec<_> = report
            .games
            .iter()
            .map(|g| json!({"pair": g.pair, "opening": g.opening, "black": g.black, "white": g.white, "moves": g.moves, "result": g.result}))
            .collect();
        let elo = score.pairs.stats().map(|s| s.elo());
        println!(
            "{}",
            json!({
                "match_id": report.match_id, "a": report.a, "b": report.b, "pairs": report.pairs,
                "sprt": report.sprt, "openings": report.openings, "seed": report.seed,
                "pairs_done": report.pairs_done, "wins": report.wins, "draws": report.draws,
                "losses": report.losses, "pentanomial": report.pentanomial, "state": report.state,
                "decided_after": report.decided_after, "elo": elo,
                "llr": sprt.map(|s| score.test(&s).0), "games": games,
            })
        );
        return Ok(());
    }
    println!(
        "match {}  ({}, seed {})",
        report.match_id, report.openings, report.seed
    );
    if !report.sprt.is_empty() {
        println!("sprt      {}", report.sprt);
    }
    println!(
        "state     {} ({} of {} pairs stored)",
        report.state, report.pairs_done, report.pairs
    );
    if report.decided_after > 0 {
        println!("decided   after {} pairs", report.decided_after);
    }
    println!("{}", progress(&score, sprt.as_ref(), false));
    summary(
        &report.a,
        &report.b,
        &score,
        report_decision(&report),
        sprt.is_some(),
    );
    for (index, game) in report.games.iter().enumerate() {
        println!(
            "pair {} game {}: black {} white {} from {}: {} -> {}",
            game.pair,
            index % 2 + 1,
            game.black,
            game.white,
            game.opening,
            game.moves.join(" "),
            game.result
        );
    }
    Ok(())
}
