//! `pentagrid match`: engine A against engine B in game pairs, with Elo and an SPRT that stops
//! the match as soon as it decides — farmed out to a cluster, or played in this process. The
//! workflows are [`pentagrid_client::matches`]; this module parses and prints.

use anyhow::Result;
use clap::{Args, Subcommand};
use pentago::{
    ACCURACY_STONES, Accuracy, Adjudication, MatchAccuracy, MatchScore, NamedPlayer, OpeningSource,
    Record, SolveMethod, TimeLimit,
};
use pentagrid_client::game_records::{follow_match, played_game_record};
use pentagrid_client::matches::{
    self, GameForfeit, MatchGame, MatchOutcome, MatchPlan, MatchRecord, MatchState,
};
use pentagrid_rating::{Sprt, SprtDecision};
use serde_json::json;

use std::path::PathBuf;

use super::games::{GamesOut, today};
use super::match_control::{self, StateFilter};
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
    /// the cluster's workers run: see `pentagrid worker --engine`), optionally named:
    /// `NAME=SPEC` (e.g. `p300=uct:playouts=300`); output shows the name.
    #[arg(long, required = true)]
    a: Option<NamedPlayer>,
    /// Player B, as --a.
    #[arg(long, required = true)]
    b: Option<NamedPlayer>,
    /// Most game pairs to play.
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// Sequential test, e.g. `elo0=0,elo1=20,alpha=0.05,beta=0.05`.
    #[arg(long)]
    sprt: Option<Sprt>,
    /// Openings: `random:plies=N` (N random moves), `book:plies=N` (a walk through the
    /// coordinator's stored tables), `file:PATH` (a suite: one position or move sequence a
    /// line, played in an order shuffled by --seed, each as a pair) or
    /// `exact:stones=N,value=win|draw|loss` (positions of N stones with that exact value for
    /// the side to move, from the coordinator's tablebase). Book and exact: not with
    /// --in-process.
    #[arg(long, default_value = "random:plies=2")]
    openings: OpeningSource,
    /// End each game as soon as its position's exact value is known and score it so:
    /// `exact` (from 20 stones on, budget 0.1) or `exact:stones=N,budget=SECONDS` (either
    /// option may be left out). At each position from N stones on, on the cluster's workers:
    /// the tablebase where it covers the position, else a 500-node alpha-beta search (from
    /// 12 stones), else the midsolver where its expected time fits the budget (0.1 s: from 22
    /// stones; 1 s: from 20). The costs are computed from the stone count, never timed, so the
    /// same game is adjudicated the same way on any machine.
    #[arg(long, value_name = "exact[:stones=N,budget=SECONDS]")]
    adjudicate: Option<Adjudication>,
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
    /// Judge every move against perfect play wherever its exact value is known (the shipped
    /// tablebase for 0-5 stones, the midsolver from 18 on), from positions with at least N
    /// stones (0 to 35; `--accuracy` alone: 0, every such move), and report each engine's
    /// accuracy, `n/a` when none of its moves was judged (on a cluster the workers judge each
    /// pair, and the match keeps the totals).
    #[arg(long, value_name = "N", value_parser = accuracy_stones, num_args = 0..=1,
          default_missing_value = "0")]
    accuracy: Option<u32>,
    /// Every game's wall-clock time limit, refereed by the cluster's workers: `move:SECONDS`
    /// or `game:BASE+INCREMENT` (built-in UCT players then search for the time their clock
    /// gives them); needed with `engine:NAME` players.
    #[arg(long, value_name = "LIMIT")]
    time: Option<TimeLimit>,
    /// The match's share of the cluster's workers among running matches, 1 to 1000: each
    /// running match holds leases in proportion to its weight.
    #[arg(long, default_value_t = 1, conflicts_with = "in_process")]
    weight: u32,
    /// Queue the match and return at once with its id, without following it (`match show ID`
    /// and `match list` follow it later).
    #[arg(long, conflicts_with_all = ["in_process", "local", "games_out"])]
    detach: bool,
    /// Append every game to this file as a game record (docs/game-records.md) as soon as
    /// its pair is played.
    #[arg(long, value_name = "FILE")]
    games_out: Option<PathBuf>,
    /// Print each player's full specification too, not only its name.
    #[arg(long)]
    long: bool,
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
        /// Print each player's full specification too, not only its name.
        #[arg(long)]
        long: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// List the stored matches, newest first: state, pairs done of total, pairs leased now,
    /// weight and players.
    List {
        /// Only matches in this state.
        #[arg(long, value_enum)]
        state: Option<StateFilter>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// Stop a running match: its unplayed pairs are cancelled (leased ones taken back from
    /// their workers), its played pairs kept; its state becomes stopped.
    Stop {
        /// The match id.
        id: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
}

pub fn run(args: &MatchArgs) -> Result<()> {
    match &args.command {
        Some(MatchCommand::Show {
            id,
            games,
            long,
            json,
            target,
        }) => return show(*id, *games, *long, *json, target),
        Some(MatchCommand::List {
            state,
            json,
            target,
        }) => return match_control::list(*state, *json, target),
        Some(MatchCommand::Stop { id, json, target }) => {
            return match_control::stop(*id, *json, target);
        }
        None => {}
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        anyhow::bail!("--a and --b are required");
    };
    let plan = MatchPlan {
        a: a.clone(),
        b: b.clone(),
        pairs: args.pairs,
        sprt: args.sprt,
        openings: args.openings.clone(),
        seed: args.seed,
        accuracy: args.accuracy,
        time: args.time,
        weight: args.weight,
        adjudicate: args.adjudicate,
    };
    plan.validate()?;
    if args.detach {
        return detach(args, &plan);
    }
    let mut games_out = args.games_out.as_deref().map(GamesOut::open).transpose()?;
    let outcome = if args.in_process {
        play_in_process(args, &plan, games_out.as_mut())?
    } else {
        play_on_cluster(args, &plan, games_out.as_mut())?
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

/// Each engine's moves judged, drops and share of moves that kept the exact value (null when
/// no move was judged).
fn accuracy_json(accuracy: &MatchAccuracy) -> serde_json::Value {
    let side = |a: &Accuracy| json!({"moves": a.moves, "drops": a.drops, "accuracy": a.share()});
    json!({
        "min_stones": accuracy.min_stones,
        "a": side(&accuracy.sides[0]),
        "b": side(&accuracy.sides[1]),
    })
}

/// Each engine's share of moves that kept the exact value (positions with enough stones);
/// `n/a` for an engine none of whose moves was judged.
fn print_accuracy(accuracy: &MatchAccuracy) -> Result<()> {
    for (name, side) in ["A", "B"].iter().zip(accuracy.sides) {
        let stones = accuracy.min_stones;
        match side.share() {
            Some(share) => outln!(
                "accuracy  {name} {:.1}% of {} moves from {stones}+ stones kept the exact value \
                 ({} drops)",
                100.0 * share,
                side.moves,
                side.drops
            ),
            None => outln!("accuracy  {name} n/a (no move from {stones}+ stones judged)"),
        }
    }
    Ok(())
}

/// The live line (or JSON object) for a score so far.
pub(super) fn progress(score: &MatchScore, sprt: Option<&Sprt>, json: bool) -> String {
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
            " ({:.1}%) elo {} [{}, {}]",
            100.0 * stats.mean,
            output::signed(elo.elo, 0),
            output::signed(elo.low, 0),
            output::signed(elo.high, 0)
        );
    }
    if let Some((llr, (low, high))) = llr {
        line += &format!(" llr {llr:.2} [{low:.2}, {high:.2}]");
    }
    line
}

/// The SPRT's verdict (or `done` without a test) in words.
pub(super) fn verdict(decision: SprtDecision, tested: bool) -> &'static str {
    match decision {
        SprtDecision::AcceptH1 => "SPRT accepts H1: A is stronger by at least elo1",
        SprtDecision::AcceptH0 => "SPRT accepts H0: A is not stronger by more than elo0",
        SprtDecision::Continue if tested => "SPRT undecided after all pairs",
        SprtDecision::Continue => "done",
    }
}

/// `A = name` and `B = name` lines (with `--long`, each player's full specification on the
/// next line), from the players' stored text.
fn print_players(a: &str, b: &str, long: bool) -> Result<()> {
    for (side, text) in [("A", a), ("B", b)] {
        outln!("{side} = {}", output::player(text));
        if long {
            outln!("    {}", output::peer_full(&output::player_spec(text)));
        }
    }
    Ok(())
}

fn summary(
    (a, b): (&str, &str),
    long: bool,
    score: &MatchScore,
    decision: SprtDecision,
    tested: bool,
) -> Result<()> {
    let t = score.games;
    print_players(a, b, long)?;
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

fn play_in_process(
    args: &MatchArgs,
    plan: &MatchPlan,
    mut games_out: Option<&mut GamesOut>,
) -> Result<MatchOutcome> {
    let pool = super::thread_pool(args.threads)?;
    let date = today();
    let outcome = matches::play_in_process(plan, &pool, &mut |result, score| {
        if let Some(out) = games_out.as_deref_mut() {
            let pair = score.pairs.pairs() - 1;
            let records: Vec<_> = result
                .games
                .iter()
                .enumerate()
                .map(|(i, game)| {
                    let (black, white) = if i == 0 {
                        (&plan.a, &plan.b)
                    } else {
                        (&plan.b, &plan.a)
                    };
                    let round = format!("pair {pair} game {}", i + 1);
                    played_game_record(game, black, white, "match", &round, &date)
                })
                .collect();
            out.append_io(&records)?;
        }
        if args.json {
            let line = json!({
                "pair": score.pairs.pairs() - 1, "opening": result.opening.to_string(),
                "a_points": result.a_points, "games": result.games,
            });
            output::progress_line(format_args!("{line}"))?;
        }
        output::progress_line(format_args!(
            "{}",
            progress(score, args.sprt.as_ref(), args.json)
        ))
    })?;
    Ok(outcome)
}

fn finish(
    args: &MatchArgs,
    a: &NamedPlayer,
    b: &NamedPlayer,
    score: &MatchScore,
    decision: SprtDecision,
) -> Result<()> {
    let t = score.games;
    if args.json {
        outln!(
            "{}",
            json!({"a": a.spec(), "a_name": a.label(), "b": b.spec(), "b_name": b.label(), "wins": t.wins, "draws": t.draws, "losses": t.losses, "pentanomial": score.pairs.counts, "decision": decision})
        );
    } else {
        summary(
            (&a.to_string(), &b.to_string()),
            args.long,
            score,
            decision,
            args.sprt.is_some(),
        )?;
    }
    Ok(())
}

/// Queues the match and prints its id without following it.
fn detach(args: &MatchArgs, plan: &MatchPlan) -> Result<()> {
    let match_id = args
        .target
        .read(async |client| Ok(matches::create(client, plan).await?))?;
    if args.json {
        outln!("{}", json!({ "match_id": match_id }));
    } else {
        outln!(
            "match {match_id}: {} pairs queued, weight {} (`pentagrid match show {match_id}` \
             follows it, `pentagrid match stop {match_id}` stops it)",
            plan.pairs,
            plan.weight
        );
    }
    Ok(())
}

fn play_on_cluster(
    args: &MatchArgs,
    plan: &MatchPlan,
    games_out: Option<&mut GamesOut>,
) -> Result<MatchOutcome> {
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
            output::progress_line(format_args!(
                "{}",
                progress(score, args.sprt.as_ref(), args.json)
            ))
        };
        let Some(out) = games_out else {
            return Ok(matches::follow(client, match_id, &mut tell).await?);
        };
        let mut write = |records: &[Record]| out.append_io(records);
        let date = today();
        Ok(follow_match(client, match_id, &mut tell, &date, &mut write).await?)
    })
}

/// A match state's short name in the CLI's output (`running`, `h0`, `h1`, `complete`,
/// `stopped`).
pub(super) fn state_name(state: MatchState) -> &'static str {
    match state {
        MatchState::Running => "running",
        MatchState::AcceptedH0 => "h0",
        MatchState::AcceptedH1 => "h1",
        MatchState::Complete => "complete",
        MatchState::Stopped => "stopped",
    }
}

/// Reprints stored match `id` (with its games if asked), as text or JSON.
fn show(id: u64, games: bool, long: bool, as_json: bool, target: &Target) -> Result<()> {
    let record = target.read(async |client| Ok(matches::status(client, id, games).await?))?;
    if as_json {
        outln!("{}", record_json(&record));
        return Ok(());
    }
    print_settings(&record)?;
    outln!("{}", progress(&record.score, record.sprt.as_ref(), false));
    summary(
        (&record.a, &record.b),
        long,
        &record.score,
        record.decision,
        record.sprt.is_some(),
    )?;
    if let Some(accuracy) = &record.accuracy {
        print_accuracy(accuracy)?;
    }
    print_games(&record)
}

/// The text form of an SPRT as a match stores it (empty: none).
fn sprt_text(record: &MatchRecord) -> String {
    record.sprt.map(|s| s.to_string()).unwrap_or_default()
}

/// A stored match as one JSON object.
pub(super) fn record_json(record: &MatchRecord) -> serde_json::Value {
    let score = &record.score;
    let games: Vec<_> = record
        .games
        .iter()
        .map(|g| {
            let moves: Vec<String> = g.moves.iter().map(ToString::to_string).collect();
            let mut game = json!({
                "pair": g.pair, "opening": g.opening.to_string(), "black": g.black,
                "white": g.white, "moves": moves, "result": g.result.to_string(),
                "forfeit": g.forfeit.as_ref().map(forfeit_json),
                "adjudicated": g.adjudicated.map(|source| source.name()),
                "stderr_black": g.stderr_black, "stderr_white": g.stderr_white,
                "time_scale": g.time_scale.get(),
            });
            // Only where known: games stored before times were kept read as they always did.
            if g.move_times.is_known() {
                game["move_millis"] = json!(g.move_times.millis());
            }
            // Each move's score in points, null for moves whose player gave none.
            if g.move_scores.is_known() {
                game["move_scores"] = json!(g.move_scores.all_points());
            }
            game
        })
        .collect();
    let elo = score.pairs.stats().map(|s| s.elo());
    let value = json!({
        "match_id": record.id, "a": output::player_spec(&record.a),
        "b": output::player_spec(&record.b), "a_name": pentago::player_label(&record.a),
        "b_name": pentago::player_label(&record.b),
        "pairs": record.pairs,
        "sprt": sprt_text(record), "openings": record.openings, "seed": record.seed,
        "pairs_done": record.pairs_done, "wins": score.games.wins, "draws": score.games.draws,
        "losses": score.games.losses,
        "pentanomial": score.pairs.counts, "state": state_name(record.state),
        "decided_after": record.decided_after, "elo": elo,
        "llr": record.sprt.map(|s| score.test(&s).0), "games": games,
        "accuracy": record.accuracy.as_ref().map(accuracy_json),
        "time_limit": record.time_limit, "waiting": record.waiting,
        "weight": record.weight, "pairs_leased": record.pairs_leased,
        "adjudicate": record.adjudicate, "suite_openings": record.suite_openings,
    });
    match_control::with_owner(value, &record.owner)
}

/// A stored match's settings and where it stands.
fn print_settings(record: &MatchRecord) -> Result<()> {
    outln!(
        "match {}  ({}, seed {})",
        record.id,
        record.openings,
        record.seed
    );
    if record.sprt.is_some() {
        outln!("sprt      {}", sprt_text(record));
    }
    if !record.time_limit.is_empty() {
        outln!("time      {} per game side, refereed", record.time_limit);
    }
    if record.suite_openings > 0 {
        outln!("suite     {} openings", record.suite_openings);
    }
    if !record.adjudicate.is_empty() {
        outln!("adjudicate {}", record.adjudicate);
    }
    outln!(
        "state     {} ({} of {} pairs stored, {} leased now; weight {})",
        state_name(record.state),
        record.pairs_done,
        record.pairs,
        record.pairs_leased,
        record.weight
    );
    if !record.owner.is_empty() {
        outln!("owner     {}", record.owner);
    }
    if let Some(wait) = &record.waiting {
        outln!("          {wait}");
    }
    if record.decided_after > 0 {
        outln!("decided   after {} pairs", record.decided_after);
    }
    Ok(())
}

/// Every game of a match, each with its notes.
fn print_games(record: &MatchRecord) -> Result<()> {
    for (index, game) in record.games.iter().enumerate() {
        // Two games per pair, A black first: the names are the match's.
        let (black, white) = if index % 2 == 0 {
            (&record.a, &record.b)
        } else {
            (&record.b, &record.a)
        };
        let moves: Vec<String> = game.moves.iter().map(ToString::to_string).collect();
        outln!(
            "pair {} game {}: black {} white {} from {}: {} -> {}",
            game.pair,
            index % 2 + 1,
            output::player(black),
            output::player(white),
            game.opening,
            moves.join(" "),
            game.result
        );
        print_notes(game)?;
    }
    Ok(())
}

/// Where an adjudicating value came from, in words.
fn source_words(source: SolveMethod) -> &'static str {
    match source {
        SolveMethod::Table => "the tablebase",
        SolveMethod::AlphaBeta => "an alpha-beta search",
        SolveMethod::Midsolver => "the midsolver",
        other => other.name(),
    }
}

/// A game's time used by each side (where known), time scale (when not 1), forfeit (its loser
/// and typed reason) or adjudication, and the engines' standard error.
fn print_notes(game: &MatchGame) -> Result<()> {
    if let Some([black, white]) = game.side_seconds() {
        outln!("  time used: black {black} s, white {white} s");
    }
    if !game.time_scale.is_one() {
        outln!(
            "  time scale {}: its worker played under the match's time limit times {}",
            game.time_scale,
            game.time_scale
        );
    }
    if let Some(source) = game.adjudicated {
        outln!(
            "  adjudicated by {}: the exact value of its last position is {}",
            source_words(source),
            game.result
        );
    }
    if let Some(forfeit) = &game.forfeit {
        outln!(
            "  forfeit: {} lost ({}): {}",
            forfeit.loser.name(),
            forfeit.reason.name(),
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
fn forfeit_json(forfeit: &GameForfeit) -> serde_json::Value {
    json!({"loser": forfeit.loser.name(), "reason": forfeit.reason.name(), "detail": forfeit.detail})
}
