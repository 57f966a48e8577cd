//! `pentagrid judge`: a player's chosen moves judged against perfect play on a file of
//! positions (or a sample of positions from play, printed as such a file); and the printing
//! of judged books for `pentagrid book judge`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use pentago::{Player, SharedOracle};
use pentagrid_client::judge::{
    Kept, PlayerJudgement, judge_player, parse_positions, sample_positions,
};
use pentagrid_client::judge_book::{BookJudgement, Pairs, TopMoves};
use serde_json::json;

use super::tablebase::TablebaseOptions;
use crate::output::{errln, outln};

/// Judge a player's moves against perfect play: the share of its chosen moves that keep the
/// exact value (from the tablebase, or the midsolver from 18 stones on; at 17 stones the deep
/// solver values the position and the midsolver the chosen move), per stone count, split by
/// won and drawn positions.
#[derive(Args)]
pub struct JudgeArgs {
    /// The player: `uct:seconds=1`, `uct:playouts=N`, `flat:playouts=N`, `random`, `perfect`.
    #[arg(long)]
    player: Player,
    /// The positions file: one position a line in pentagrid's notation, `#` comments.
    #[arg(long, required_unless_present = "sample", conflicts_with = "sample")]
    positions: Option<PathBuf>,
    /// Instead of judging, play this many games of the player against itself (one thread,
    /// seeded) and print, as a positions file, their won or drawn positions of --stones
    /// stones (each symmetry class once).
    #[arg(long, value_name = "GAMES", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    sample: Option<u64>,
    /// The stone counts --sample keeps, `MIN-MAX` (1 to 35).
    #[arg(long, default_value = "3-5", value_parser = stone_range)]
    stones: (u32, u32),
    /// The seed of the player's moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (UCT trees) per search (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tablebase: TablebaseOptions,
}

/// Parses `MIN-MAX` (or a single count).
fn stone_range(text: &str) -> Result<(u32, u32), String> {
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    match (low.trim().parse::<u32>(), high.trim().parse::<u32>()) {
        (Ok(low), Ok(high)) if (1..=high).contains(&low) && high <= 35 => Ok((low, high)),
        _ => Err("expected MIN-MAX, stone counts from 1 to 35, MIN at most MAX".into()),
    }
}

pub fn run(args: &JudgeArgs) -> Result<()> {
    if let Some(name) = args.player.engine() {
        bail!("engine:{name} plays only under a worker's referee; judge a built-in player");
    }
    let tablebase = args.tablebase.open()?;
    if let Some(games) = args.sample {
        let (low, high) = args.stones;
        let positions = sample_positions(&tablebase, &args.player, games, args.seed, low..=high)?;
        outln!(
            "# {} won or drawn positions of {low}-{high} stones from {games} games of {} \
             against itself",
            positions.len(),
            args.player
        );
        outln!(
            "# pentagrid judge --sample {games} --player {} --stones {low}-{high} --seed {}",
            args.player,
            args.seed
        );
        for position in positions {
            outln!("{position}");
        }
        return Ok(());
    }
    let path = args
        .positions
        .as_ref()
        .context("--positions FILE is needed")?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let positions = parse_positions(&text).with_context(|| format!("in {}", path.display()))?;
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let quiet = args.json;
    // The player has the tablebase too, as in a refereed game or `pentagrid gtp`
    // (`uct:...,exact=off` judges the search alone).
    let player_table = SharedOracle::new(args.tablebase.open()?);
    let judged = judge_player(
        &tablebase,
        &args.player,
        Some(&player_table),
        &positions,
        args.seed,
        threads,
        &mut |p| {
            if !quiet && p.done < p.total {
                errln!("judging position {} of {}", p.done + 1, p.total);
            }
        },
    )?;
    if args.json {
        outln!("{}", player_json(&args.player, &judged));
    } else {
        print_player(&args.player, &judged)?;
    }
    Ok(())
}

fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        "n/a".into()
    } else {
        format!("{part}/{whole} {:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn kept_text(kept: Kept) -> String {
    share(kept.kept, kept.positions)
}

fn print_player(player: &Player, judged: &PlayerJudgement) -> Result<()> {
    outln!("{player} judged against perfect play (moves that keep the exact value)");
    outln!(
        "{:>6}  {:>18}  {:>18}  {:>5}",
        "stones",
        "won",
        "drawn",
        "lost"
    );
    for s in &judged.stones {
        outln!(
            "{:>6}  {:>18}  {:>18}  {:>5}",
            s.stones,
            kept_text(s.won),
            kept_text(s.drawn),
            s.lost
        );
    }
    let (won, drawn) = judged.total();
    outln!(
        "{:>6}  {:>18}  {:>18}",
        "all",
        kept_text(won),
        kept_text(drawn)
    );
    let all = Kept {
        positions: won.positions + drawn.positions,
        kept: won.kept + drawn.kept,
    };
    outln!(
        "kept the value in {} of won or drawn positions",
        kept_text(all)
    );
    if judged.unknown > 0 {
        outln!(
            "{} positions without a known exact value were not judged",
            judged.unknown
        );
    }
    Ok(())
}

fn kept_json(kept: Kept) -> serde_json::Value {
    json!({"positions": kept.positions, "kept": kept.kept, "share": kept.share()})
}

fn player_json(player: &Player, judged: &PlayerJudgement) -> serde_json::Value {
    let stones: Vec<_> = judged
        .stones
        .iter()
        .map(|s| {
            json!({"stones": s.stones, "won": kept_json(s.won), "drawn": kept_json(s.drawn),
                   "lost": s.lost})
        })
        .collect();
    let (won, drawn) = judged.total();
    json!({
        "player": player.to_string(),
        "stones": stones,
        "won": kept_json(won),
        "drawn": kept_json(drawn),
        "unknown": judged.unknown,
    })
}

fn pairs_text(pairs: Pairs) -> String {
    match pairs.share() {
        Some(share) => format!("{:.1}% of {}", 100.0 * share, pairs.total),
        None => "n/a".into(),
    }
}

/// A judged book as a table: per table and stone count, the top moves that keep the value
/// (won / drawn positions) and the keeping/losing pairs the win rates order right.
pub fn print_book(judged: &BookJudgement) -> Result<()> {
    outln!(
        "book judged against perfect play (rows with at least {} games, positions of at most \
         {} stones)",
        judged.min_games.max(1),
        judged.max_stones
    );
    outln!(
        "{:<9} {:>6} {:>5} {:>5} {:>4}  {:>13} {:>13}  {:>13} {:>13}  {:>16}",
        "table",
        "stones",
        "won",
        "drawn",
        "lost",
        "top games/won",
        "top games/drw",
        "top rate/won",
        "top rate/drw",
        "pairs right"
    );
    for s in &judged.stones {
        outln!(
            "{:<9} {:>6} {:>5} {:>5} {:>4}  {:>13} {:>13}  {:>13} {:>13}  {:>16}",
            s.source.name(),
            s.stones,
            s.won.positions,
            s.drawn.positions,
            s.lost,
            share(s.won.by_games, s.won.positions),
            share(s.drawn.by_games, s.drawn.positions),
            share(s.won.by_rate, s.won.positions),
            share(s.drawn.by_rate, s.drawn.positions),
            pairs_text(s.pairs)
        );
    }
    if judged.stones.is_empty() {
        outln!("no position of the book has a known exact value");
    }
    if judged.unknown > 0 {
        outln!(
            "{} positions without known exact values for their moves were not judged (a \
             position's moves need the tablebase's slice of one stone more: the shipped 0-6 \
             judge positions of up to 5 stones; the midsolver from 18 stones on, the deep \
             solver at 17 within its time)",
            judged.unknown
        );
    }
    Ok(())
}

fn top_json(top: TopMoves) -> serde_json::Value {
    json!({"positions": top.positions, "top_by_games_keeps": top.by_games,
           "top_by_rate_keeps": top.by_rate})
}

/// A judged book as JSON.
pub fn book_json(judged: &BookJudgement) -> serde_json::Value {
    let stones: Vec<_> = judged
        .stones
        .iter()
        .map(|s| {
            json!({
                "source": s.source.name(), "stones": s.stones,
                "won": top_json(s.won), "drawn": top_json(s.drawn), "lost": s.lost,
                "pairs": {"total": s.pairs.total, "right": s.pairs.right, "ties": s.pairs.ties,
                          "share": s.pairs.share()},
            })
        })
        .collect();
    json!({"min_games": judged.min_games.max(1), "max_stones": judged.max_stones,
           "stones": stones, "unknown": judged.unknown})
}
