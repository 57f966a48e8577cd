//! `pentagrid match`: engine A against engine B in game pairs, with Elo and an SPRT that stops
//! the match as soon as it decides.

use anyhow::{Result, bail, ensure};
use clap::Args;
use pentago::{MatchScore, Player, Sprt, SprtDecision, play_pair, random_opening, splitmix64};
use serde_json::json;

/// Play engine A against engine B in game pairs (one random opening, colours swapped) and
/// report Elo with a 95% interval (from pair scores); with --sprt, stop as soon as the test
/// decides (on the pair counts plus one lost and one won pair as a weak prior).
#[derive(Args)]
pub struct MatchArgs {
    /// Player A (`uct:...`, `flat:playouts=N`, `random`).
    #[arg(long)]
    a: Player,
    /// Player B.
    #[arg(long)]
    b: Player,
    /// Most game pairs to play.
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// Sequential test, e.g. `elo0=0,elo1=20,alpha=0.05,beta=0.05`.
    #[arg(long)]
    sprt: Option<Sprt>,
    /// Random moves in each opening.
    #[arg(long, default_value_t = 2)]
    plies: u32,
    /// Seed of the openings and the engines.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads per search (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Run on this machine (matches on the cluster are not available yet).
    #[arg(long)]
    local: bool,
    /// Print one JSON object per pair, then the final result.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &MatchArgs) -> Result<()> {
    if !args.local {
        bail!("matches on the cluster are not available yet: pass --local to play on this machine");
    }
    ensure!(
        (1..=1_000_000).contains(&args.pairs),
        "--pairs must be from 1 to 1000000"
    );
    ensure!(args.plies <= 20, "--plies must be at most 20");
    let pool = super::thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let mut score = MatchScore::default();
    let mut decision = SprtDecision::Continue;
    for pair_number in 1..=args.pairs {
        let seed = splitmix64(args.seed ^ pair_number.wrapping_mul(0x9E37));
        let opening = random_opening(seed, args.plies);
        let pair = pool.install(|| play_pair(&opening, &args.a, &args.b, seed, threads));
        score.record(&pair);
        let stats = score.pairs.stats().expect("a pair was played");
        let elo = stats.elo();
        // The test runs on regularized counts, so that a perfect score can decide it too.
        let tested = score.pairs.regularized().stats().expect("pairs were added");
        let llr = args
            .sprt
            .map(|s| (s.llr(&tested), s.bounds(), s.decide(&tested)));
        if let Some((_, _, d)) = llr {
            decision = d;
        }
        if args.json {
            let line = json!({
                "pair": pair_number, "opening": pair.opening.to_string(), "a_points": pair.a_points,
                "games": pair.games, "elo": elo, "llr": llr.map(|l| l.0),
            });
            println!("{line}");
        } else {
            let sprt = llr.map_or(String::new(), |(l, (lo, hi), _)| {
                format!(" llr {l:.2} [{lo:.2}, {hi:.2}]")
            });
            println!(
                "pairs {pair_number} games {} score {}/{} ({:.1}%) elo {:+.0} [{:+.0}, {:+.0}]{sprt}",
                score.games.games(),
                score.games.points(),
                score.games.games(),
                100.0 * stats.mean,
                elo.elo,
                elo.low,
                elo.high
            );
        }
        if decision != SprtDecision::Continue {
            break;
        }
    }
    let verdict = match decision {
        SprtDecision::AcceptH1 => "SPRT accepts H1: A is stronger by at least elo1",
        SprtDecision::AcceptH0 => "SPRT accepts H0: A is not stronger by more than elo0",
        SprtDecision::Continue if args.sprt.is_some() => "SPRT undecided after all pairs",
        SprtDecision::Continue => "done",
    };
    let t = score.games;
    if args.json {
        println!(
            "{}",
            json!({"a": args.a.to_string(), "b": args.b.to_string(), "wins": t.wins, "draws": t.draws, "losses": t.losses, "pentanomial": score.pairs.counts, "decision": decision})
        );
    } else {
        println!("A = {}\nB = {}", args.a, args.b);
        println!(
            "A: {} wins, {} draws, {} losses; pairs (0..2 points) {:?}",
            t.wins, t.draws, t.losses, score.pairs.counts
        );
        println!("{verdict}");
    }
    Ok(())
}
