//! `pentagrid study`: an opening study — grow the book from the opening's start positions,
//! play self-play games from them, and report the key tables, black's plan, white's best
//! defences and how often the aimed five is completed. The workflow is
//! [`pentagrid_client::study`]; this module parses and prints.

use anyhow::Result;
use clap::Args;
use pentago::{Opening, Player, UctConfig};
use pentagrid_client::Client;
use pentagrid_client::study::{self, StudyReport};
use serde_json::json;

use super::book::print_book;
use super::progress::Bars;
use super::target::Target;

/// Study an opening (monicas-five, middle-five, straight-five, triple-power): grow the opening
/// book from its start positions on the cluster, play self-play games from them, and report.
#[derive(Args)]
pub struct StudyArgs {
    /// The opening.
    name: Opening,
    #[command(flatten)]
    plan: StudyPlan,
    #[command(flatten)]
    target: Target,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// How much work a study does.
#[derive(Args, Clone)]
pub struct StudyPlan {
    /// Playouts the book build may spend.
    #[arg(long, default_value_t = 2_000_000)]
    pub budget: u64,
    /// Plies below the start positions that get analysed.
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// Most positions to analyse.
    #[arg(long, default_value_t = 200)]
    pub positions: u64,
    /// Playouts per analysed position.
    #[arg(long, default_value_t = 20_000)]
    pub playouts: u64,
    /// Positions with at least this many stones are solved exactly (0: never).
    #[arg(long, default_value_t = 26)]
    pub solve_stones: u32,
    /// Self-play games from the start positions.
    #[arg(long, default_value_t = 16)]
    pub games: u64,
    /// Player of the self-play games (both sides).
    #[arg(long, default_value = "uct:playouts=5000,policy=safe")]
    pub player: Player,
    /// Engine configuration of the analyses.
    #[arg(long, default_value = "uct")]
    pub config: UctConfig,
}

impl StudyPlan {
    /// The library's plan.
    pub fn plan(&self) -> study::StudyPlan {
        study::StudyPlan {
            budget: self.budget,
            depth: self.depth,
            positions: self.positions,
            playouts: self.playouts,
            solve_stones: self.solve_stones,
            games: self.games,
            player: self.player.clone(),
            config: self.config.clone(),
        }
    }
}

pub fn run(args: &StudyArgs) -> Result<()> {
    let plan = args.plan.plan();
    plan.validate()?;
    let report = args
        .target
        .run(async |client| with_bars(client, args.name, &plan).await)?;
    if args.json {
        println!("{}", json(&report));
    } else {
        print(&report, usize::MAX);
    }
    Ok(())
}

/// Runs a study with progress bars.
async fn with_bars(
    client: &Client,
    opening: Opening,
    plan: &study::StudyPlan,
) -> Result<StudyReport> {
    let mut bars = Bars::default();
    let mut tell = |p| bars.study(opening.name(), plan.positions, p);
    Ok(study::study(client, opening, plan, &mut tell).await?)
}

/// The report for people, with at most `key_positions` tables.
pub fn print(report: &StudyReport, key_positions: usize) {
    let b = &report.build;
    println!("== {} study", report.opening.title());
    println!(
        "book      {} start positions, {} positions analysed ({} solved exactly), {} playouts, depth {}",
        b.roots.len(),
        b.positions,
        b.solved,
        b.playouts,
        b.depth
    );
    for (index, table) in report.key_positions.iter().take(key_positions).enumerate() {
        println!(
            "\nkey position {} (white to move after black's second stone)",
            index + 1
        );
        print_book(table);
    }
    if !report.defences.is_empty() {
        println!(
            "\nwhite's strongest defences at key position 1, with black's best plan after each:"
        );
        for defence in &report.defences {
            let (mv, rate, games, line) = (
                &defence.mv,
                defence.win_rate,
                defence.playouts,
                &defence.line,
            );
            println!(
                "  {mv:<8} white scores {:>5.1}% over {games} playouts; then {}",
                100.0 * rate,
                if line.is_empty() {
                    "(no book line)".to_owned()
                } else {
                    line.join(" ")
                }
            );
        }
    }
    println!(
        "\nself-play {} games from the start positions: black won {} (completing the aimed five in {}), white {}, drawn {}",
        report.games, report.black_wins, report.aim_completed, report.white_wins, report.draws
    );
}

/// The report as JSON.
#[must_use]
pub fn json(report: &StudyReport) -> serde_json::Value {
    let b = &report.build;
    json!({
        "opening": report.opening.name(),
        "start_positions": b.roots.len(), "positions": b.positions, "solved": b.solved,
        "playouts": b.playouts, "depth": b.depth,
        "key_positions": report.key_positions.iter().map(super::book::book_json).collect::<Vec<_>>(),
        "defences": report.defences.iter().map(|d| json!({
            "move": d.mv, "white_win_rate": d.win_rate, "playouts": d.playouts,
            "black_plan": d.line,
        })).collect::<Vec<_>>(),
        "games": report.games, "black_wins": report.black_wins, "aim_completed": report.aim_completed,
        "white_wins": report.white_wins, "draws": report.draws,
    })
}
