//! `pentagrid study`: an opening study — grow the book from the opening's start positions,
//! play self-play games from them, and report the key tables, black's plan, white's best
//! defences and how often the aimed five is completed. The workflow is
//! [`pentagrid_client::study`]; this module parses and prints.

use anyhow::{Context, Result};
use clap::Args;
use pentago::{Opening, Player, UctConfig};
use pentagrid_client::study::{self, StudyReport};
use pentagrid_client::{Client, study_html};
use serde_json::json;

use super::book::print_book;
use super::progress::Bars;
use super::target::Target;
use crate::output::outln;

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
    /// Also write the report as an HTML page with boards and win-rate charts to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<std::path::PathBuf>,
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
    #[arg(long, default_value_t = 20)]
    pub solve_stones: u32,
    /// Book positions with at least this many stones (and fewer than 18) get an exact value
    /// from a cluster deep solve (`off` or 0: never).
    #[arg(long, default_value = "16", value_parser = parse_deep_from)]
    pub deep_from: u32,
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
            deep_from: self.deep_from,
            games: self.games,
            player: self.player.clone(),
            config: self.config.clone(),
        }
    }
}

/// `--deep-from`: a stone count, or `off` (0).
fn parse_deep_from(text: &str) -> Result<u32, String> {
    if text.eq_ignore_ascii_case("off") {
        return Ok(0);
    }
    text.parse()
        .map_err(|_| format!("{text:?} is neither a stone count nor `off`"))
}

pub fn run(args: &StudyArgs) -> Result<()> {
    let plan = args.plan.plan();
    plan.validate()?;
    let report = args
        .target
        .run(async |client| with_bars(client, args.name, &plan).await)?;
    if let Some(path) = &args.html {
        std::fs::write(path, study_html(&report))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.json {
        outln!("{}", json(&report));
    } else {
        print(&report, usize::MAX)?;
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
pub fn print(report: &StudyReport, key_positions: usize) -> Result<()> {
    let b = &report.build;
    outln!("== {} study", report.opening.title());
    outln!(
        "book      {} start positions, {} positions analysed ({} solved exactly), {} playouts, depth {}",
        b.roots.len(),
        b.positions,
        b.solved,
        b.playouts,
        b.depth
    );
    if b.deep_started > 0 {
        outln!(
            "deep      {} deep solves started, {} finished",
            b.deep_started,
            b.deep_finished
        );
    }
    for (index, table) in report.key_positions.iter().take(key_positions).enumerate() {
        outln!(
            "\nkey position {} (white to move after black's second stone)",
            index + 1
        );
        print_book(table)?;
        if let Some(value) = report.key_values.get(index) {
            outln!("exact     {value}");
        }
    }
    if !report.defences.is_empty() {
        outln!(
            "\nwhite's strongest defences at key position 1, with black's best plan after each\n\
             (white's win rate over the playouts through the move, with its 95% interval;\n\
             ~ marks a defence the samples cannot tell apart from the best):"
        );
        for defence in &report.defences {
            let close = if defence.separable { ' ' } else { '~' };
            let exact = defence
                .exact
                .map(|v| format!(", exactly a {v} for white"))
                .unwrap_or_default();
            outln!(
                "  {close}{:<8} white scores {:>5.1}% [{:.1}, {:.1}] over {} playouts{exact}; then {}",
                defence.mv,
                100.0 * defence.win_rate,
                100.0 * defence.interval.0,
                100.0 * defence.interval.1,
                defence.playouts,
                if defence.line.is_empty() {
                    "the game is over".to_owned()
                } else {
                    defence.line.join(" ")
                }
            );
        }
    }
    outln!(
        "\nself-play {} games from the start positions: black won {}, white {}, drawn {};\n\
         {} of black's wins ended with five on the line the opening aims at",
        report.games,
        report.black_wins,
        report.white_wins,
        report.draws,
        report.aim_completed
    );
    Ok(())
}

/// The report as JSON.
#[must_use]
pub fn json(report: &StudyReport) -> serde_json::Value {
    let b = &report.build;
    json!({
        "opening": report.opening.name(),
        "start_positions": b.roots.len(), "positions": b.positions, "solved": b.solved,
        "playouts": b.playouts, "depth": b.depth,
        "deep_started": b.deep_started, "deep_finished": b.deep_finished,
        "key_positions": report.key_positions.iter().map(super::book::book_json).collect::<Vec<_>>(),
        "key_values": report.key_values.iter().map(|v| match v {
            study::KeyValue::Proven(value) => json!({"value": value.to_string(), "source": "book"}),
            study::KeyValue::Solved(value) => json!({"value": value.to_string(), "source": "search"}),
            study::KeyValue::Unknown => json!({"value": "unknown"}),
        }).collect::<Vec<_>>(),
        "defences": report.defences.iter().map(|d| json!({
            "move": d.mv, "white_win_rate": d.win_rate,
            "interval": [d.interval.0, d.interval.1], "playouts": d.playouts,
            "separable": d.separable, "exact": d.exact.map(|v| v.to_string()),
            "black_plan": d.line,
        })).collect::<Vec<_>>(),
        "games": report.games, "black_wins": report.black_wins, "aim_completed": report.aim_completed,
        "white_wins": report.white_wins, "draws": report.draws,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_from_takes_a_stone_count_or_off() {
        assert_eq!(parse_deep_from("16"), Ok(16));
        assert_eq!(parse_deep_from("off"), Ok(0));
        assert_eq!(parse_deep_from("OFF"), Ok(0));
        assert_eq!(parse_deep_from("0"), Ok(0));
        assert!(parse_deep_from("sixteen").is_err());
        assert!(parse_deep_from("-1").is_err());
    }
}
