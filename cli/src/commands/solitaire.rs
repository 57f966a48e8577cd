//! `pentagrid solitaire`: the card solitaire Calculation — bench a player on a range of deals,
//! show one deal move by move, or run a campaign of deals on the cluster. Parsing and printing
//! only: the game lives in the engine, campaigns in the client library.

use std::io::Write;
use std::ops::Range;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use pentagrid_calculation::{MAX_BENCH_DEALS, Player, Variant, bench, play_deal};
use pentagrid_client::solitaire::{SolitairePlan, SolitaireTotals, solitaire_campaign};
use serde_json::json;

use super::progress::Bars;
use super::target::Target;

/// Play the card solitaire Calculation (計算): benchmarks of players over seeded deals, one
/// deal move by move, or campaigns of deals on the cluster.
///
/// A table is written `f=A,2,3,4 w=5.9,-,K,- t=7 s=40`: the foundations' top cards (`-` not
/// started), the waste piles bottom to top (`-` empty), the turned-up card and the stock's size.
/// Moves: `s>f2` (turned card to foundation 2), `s>w3` (to waste pile 3), `w1>f4` (waste pile
/// 1's top to foundation 4). Players: `random`, `strategy`, `flat:playouts=N`,
/// `uct:playouts=N[,k=K]`, the searches with an optional `,value=win|cards`.
#[derive(Args)]
pub struct SolitaireArgs {
    #[command(subcommand)]
    command: SolitaireCommand,
}

#[derive(Subcommand)]
enum SolitaireCommand {
    /// Play a range of deals with a player: success rate and mean cards on the foundations,
    /// each with its 95% interval.
    Bench(BenchArgs),
    /// Play one deal and show every move with the table it was made on.
    Play(PlayArgs),
    /// Play a range of deals on the cluster (or --local), split into jobs; the coordinator
    /// stores each deal's result once per (variant, player) and keeps the totals that
    /// `pentagrid status` shows.
    Campaign(CampaignArgs),
}

#[derive(Args)]
struct CampaignArgs {
    /// The player: random, strategy, flat:playouts=N, uct:playouts=N[,k=K].
    #[arg(long)]
    player: String,
    /// standard, computer (A-4 shuffled in) or superman (three waste piles).
    #[arg(long, default_value = "standard")]
    variant: String,
    /// Deal numbers: `A..B` (A to B-1) or `A..=B` (A to B), at most 1,000,000 deals.
    #[arg(long)]
    deals: String,
    /// Seed of the players' own random choices (as for `bench`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: Target,
}

#[derive(Args)]
struct BenchArgs {
    /// The player: random, strategy, flat:playouts=N, uct:playouts=N[,k=K].
    #[arg(long)]
    player: String,
    /// standard, computer (A-4 shuffled in) or superman (three waste piles).
    #[arg(long, default_value = "standard")]
    variant: String,
    /// Deal numbers: `A..B` (A to B-1) or `A..=B` (A to B).
    #[arg(long)]
    deals: String,
    /// Seed of the players' own random choices; the results depend only on it and the deals.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads playing deals side by side (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct PlayArgs {
    /// The deal number, 0 to 2^64-1.
    #[arg(long)]
    deal: String,
    /// The player: random, strategy, flat:playouts=N, uct:playouts=N[,k=K].
    #[arg(long)]
    player: String,
    /// standard, computer (A-4 shuffled in) or superman (three waste piles).
    #[arg(long, default_value = "standard")]
    variant: String,
    /// Seed of the player's own random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// UCT trees searched in parallel (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// The arguments clap leaves as text, read here so that an error echoes at most a bounded
/// part of what was given (clap would repeat a value whole).
struct Game {
    player: Player,
    variant: Variant,
}

fn game(player: &str, variant: &str) -> Result<Game> {
    Ok(Game {
        player: player.parse().context("bad --player")?,
        variant: variant.parse().context("bad --variant")?,
    })
}

/// Reads `A..B` or `A..=B` into a half-open range of at least one and at most
/// [`MAX_BENCH_DEALS`] deals.
fn deal_range(text: &str) -> Result<Range<u64>> {
    parse_range(text).map_err(|why| anyhow::anyhow!("bad --deals: {why}"))
}

fn parse_range(text: &str) -> Result<Range<u64>, String> {
    let bad = || "expected A..B or A..=B, deal numbers from 0 to 2^64-1".to_owned();
    let (start, end, inclusive) = match text.split_once("..") {
        Some((a, b)) => match b.strip_prefix('=') {
            Some(b) => (a, b, true),
            None => (a, b, false),
        },
        None => return Err(bad()),
    };
    let start: u64 = start.parse().map_err(|_| bad())?;
    let end: u64 = end.parse().map_err(|_| bad())?;
    let end = if inclusive {
        end.checked_add(1).ok_or_else(|| {
            format!(
                "a range ends at deal {} at most (write {start}..{end})",
                end - 1
            )
        })?
    } else {
        end
    };
    match end.checked_sub(start) {
        Some(0) | None => Err(format!("the range {start}..{end} holds no deal")),
        Some(n) if n > MAX_BENCH_DEALS => Err(format!(
            "{n} deals is more than the {MAX_BENCH_DEALS} one bench may play"
        )),
        Some(_) => Ok(start..end),
    }
}

/// At most the first 40 characters of `text`.
fn bounded(text: &str) -> String {
    let mut cut: String = text.chars().take(40).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

/// Runs `pentagrid solitaire`, printing to standard output.
pub fn run(args: &SolitaireArgs) -> Result<()> {
    let mut out = crate::output::stdout();
    match &args.command {
        SolitaireCommand::Bench(args) => run_bench(args, &mut out),
        SolitaireCommand::Play(args) => run_play(args, &mut out),
        SolitaireCommand::Campaign(args) => run_campaign(args, &mut out),
    }
    .and_then(|()| Ok(out.flush()?))
    .map_err(crate::output::writing)
}

fn run_bench(args: &BenchArgs, out: &mut dyn Write) -> Result<()> {
    let Game { player, variant } = game(&args.player, &args.variant)?;
    let deals = deal_range(&args.deals)?;
    let pool = super::thread_pool(args.threads)?;
    let started = Instant::now();
    let summary = pool
        .install(|| bench(variant, &player, deals.clone(), args.seed))
        .context("no deal to play")?;
    let seconds = started.elapsed().as_secs_f64();
    let rate = summary.playouts as f64 / seconds;
    let (s, c) = (summary.success, summary.foundation_cards);
    if args.json {
        let line = json!({
            "variant": variant,
            "player": player,
            "deals": {"start": deals.start, "end": deals.end, "count": summary.deals},
            "seed": args.seed,
            "wins": summary.wins,
            "success": s,
            "foundation_cards": c,
            "playouts": summary.playouts,
            "seconds": seconds,
            "playouts_per_second": rate,
            "threads": pool.current_num_threads(),
        });
        writeln!(out, "{line}")?;
        return Ok(());
    }
    let pct = |x: f64| 100.0 * x;
    writeln!(out, "variant           {}", variant)?;
    writeln!(out, "player            {}", player)?;
    writeln!(
        out,
        "deals             {}..{} ({} deals, seed {})",
        deals.start, deals.end, summary.deals, args.seed
    )?;
    writeln!(
        out,
        "success rate      {:.2}% ({} won; 95% interval {:.2}% to {:.2}%)",
        pct(s.rate),
        summary.wins,
        pct(s.low),
        pct(s.high)
    )?;
    writeln!(
        out,
        "foundation cards  {:.2} of 52 (95% interval {:.2} to {:.2})",
        c.mean, c.low, c.high
    )?;
    writeln!(
        out,
        "playouts          {} ({rate:.0}/s; {seconds:.2} s on {} threads)",
        summary.playouts,
        pool.current_num_threads()
    )?;
    Ok(())
}

fn run_campaign(args: &CampaignArgs, out: &mut dyn Write) -> Result<()> {
    let Game { player, variant } = game(&args.player, &args.variant)?;
    let plan = SolitairePlan {
        variant,
        player,
        deals: deal_range(&args.deals)?,
        seed: args.seed,
    };
    // Refused here, before a cluster is opened or connected to.
    plan.tasks().context("bad --deals")?;
    let report = args.target.run(async |client| {
        let mut bars = Bars::default();
        let mut tell = |p| bars.jobs("solitaire", p);
        Ok(solitaire_campaign(client, &plan, &mut tell).await?)
    })?;
    let jobs = &report.jobs;
    if args.json {
        let failed: Vec<_> = jobs
            .failed
            .iter()
            .map(|(id, why)| json!({"job_id": id, "error": why}))
            .collect();
        let line = json!({
            "variant": variant,
            "player": player,
            "deals": {"start": plan.deals.start, "end": plan.deals.end},
            "seed": args.seed,
            "jobs": {"done": jobs.done, "failed": failed, "cancelled": jobs.cancelled},
            "totals": report.totals,
        });
        writeln!(out, "{line}")?;
        return Ok(());
    }
    writeln!(
        out,
        "campaign  {variant} · {player} · deals {}..{} · {} jobs done, {} failed, {} cancelled",
        plan.deals.start,
        plan.deals.end,
        jobs.done,
        jobs.failed.len(),
        jobs.cancelled
    )?;
    for (id, why) in &jobs.failed {
        writeln!(out, "  job {id} failed: {}", bounded(why))?;
    }
    match &report.totals {
        Some(totals) => write_totals(out, "totals   ", totals)?,
        None => writeln!(out, "totals    none stored for this variant and player")?,
    }
    Ok(())
}

/// One line of a (variant, player)'s totals: deals, success rate and mean cards with their 95%
/// intervals.
pub fn write_totals(out: &mut dyn Write, label: &str, s: &SolitaireTotals) -> std::io::Result<()> {
    let pct = |x: f64| 100.0 * x;
    writeln!(
        out,
        "{label} {} deals, {} won: success {:.2}% ({:.2}% to {:.2}%), foundation cards {:.2} \
         ({:.2} to {:.2})",
        s.deals,
        s.wins,
        pct(s.success.rate),
        pct(s.success.low),
        pct(s.success.high),
        s.foundation_cards.mean,
        s.foundation_cards.low,
        s.foundation_cards.high
    )
}

fn run_play(args: &PlayArgs, out: &mut dyn Write) -> Result<()> {
    let Game { player, variant } = game(&args.player, &args.variant)?;
    let deal: u64 = args.deal.parse().map_err(|_| {
        anyhow::anyhow!(
            "bad --deal {:?}: expected a deal number from 0 to 2^64-1",
            bounded(&args.deal)
        )
    })?;
    let pool = super::thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let record = pool.install(|| play_deal(variant, deal, &player, args.seed, threads));
    let result = if record.outcome.won { "won" } else { "lost" };
    if args.json {
        let moves: Vec<_> = record
            .steps
            .iter()
            .map(|step| json!({"table": step.seen.to_string(), "move": step.mv.to_string()}))
            .collect();
        let line = json!({
            "deal": deal,
            "variant": variant,
            "player": player,
            "seed": args.seed,
            "moves": moves,
            "end": record.end.to_string(),
            "won": record.outcome.won,
            "foundation_cards": record.outcome.foundation_cards,
            "playouts": record.playouts,
        });
        writeln!(out, "{line}")?;
        return Ok(());
    }
    writeln!(out, "deal {} · {} · {}", deal, variant, player)?;
    for (i, step) in record.steps.iter().enumerate() {
        writeln!(
            out,
            "{:>4}. {:<6} {}",
            i + 1,
            step.mv.to_string(),
            step.seen
        )?;
    }
    writeln!(out, "end   {}", record.end)?;
    writeln!(
        out,
        "{result} · {} of 52 cards on the foundations · {} moves",
        record.outcome.foundation_cards,
        record.steps.len()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deal_ranges_read_both_forms() {
        assert_eq!(parse_range("1..101"), Ok(1..101));
        assert_eq!(parse_range("1..=100"), Ok(1..101));
        assert_eq!(parse_range("0..=0"), Ok(0..1));
        for bad in [
            "",
            "5",
            "5..5",
            "6..5",
            "a..b",
            "1..2..3",
            "-1..5",
            "0..=18446744073709551615",
            "0..2000000000",
            " 1..2",
        ] {
            assert!(parse_range(bad).is_err(), "{bad:?}");
        }
    }
}
