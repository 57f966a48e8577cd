//! `pentagrid study`: an opening study — grow the book from the opening's start positions,
//! play self-play games from them, and report the key tables with their exact values, the
//! strongest moves at the main key position (those that hold first) with the plan after each,
//! and how often the aimed five is completed. The workflow is
//! [`pentagrid_client::study`]; this module parses and prints.

use anyhow::{Context, Result};
use clap::Args;
use pentago::{Opening, Player, UctConfig};
use pentagrid_client::Client;
use pentagrid_client::study::{self, StudyReport};
use pentagrid_render::study_html;
use pentagrid_tablebase::Tablebase;
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
    // The key positions' exact values come from the same slices as the coordinator's.
    let tablebase = args.target.table.options.open()?;
    let report = args
        .target
        .run(async |client| with_bars(client, args.name, &plan, &tablebase).await)?;
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
    tablebase: &Tablebase,
) -> Result<StudyReport> {
    let mut bars = Bars::default();
    let mut tell = |p| bars.study(opening.name(), plan.positions, p);
    Ok(study::study(client, opening, plan, tablebase, &mut tell).await?)
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
        let mover = table.position.side_to_move();
        outln!(
            "\nkey position {} ({mover} to move after black's second stone and white's first)",
            index + 1
        );
        print_book(table)?;
        if let Some(value) = report.key_values.get(index) {
            outln!("exact     {value}");
        }
        if index == 0
            && let Some(truth) = &report.truth
        {
            outln!("truth     {}", truth.note());
        }
    }
    if let Some(main) = report.key_positions.first()
        && !report.defences.is_empty()
    {
        let mover = main.position.side_to_move();
        outln!(
            "\n{mover}'s strongest moves at key position 1, the moves that hold the exact value \
             first, then by playouts,\nwith the best plan after each ({mover}'s win rate over \
             the playouts through the move, with its 95% interval;\n~ marks a move the samples \
             cannot tell apart from the best):"
        );
        for defence in &report.defences {
            let close = if defence.separable { ' ' } else { '~' };
            let exact = defence
                .exact
                .map(|v| format!("exactly a {v} for {mover}"))
                .unwrap_or_else(|| "exact value unknown".to_owned());
            let scores = if defence.playouts == 0 {
                "no playouts".to_owned()
            } else {
                format!(
                    "{mover} scores {:>5.1}% [{:.1}, {:.1}] over {} playouts",
                    100.0 * defence.win_rate,
                    100.0 * defence.interval.0,
                    100.0 * defence.interval.1,
                    defence.playouts
                )
            };
            outln!(
                "  {close}{:<8} {exact}; {scores}; then {}",
                defence.mv,
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
        "key_values": report.key_values.iter().map(|v| match v.value() {
            Some(value) => json!({"value": value.to_string(), "source": v.source()}),
            None => json!({"value": "unknown"}),
        }).collect::<Vec<_>>(),
        "truth": report.truth.as_ref().map(|t| json!({
            "side_to_move": t.mover.to_string(), "value": t.value.to_string(),
            "moves": t.moves, "holding": t.holding.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "top_move": t.top.map(|(mv, _)| mv.to_string()), "top_win_rate": t.top.map(|(_, r)| r),
            "disagrees": t.disagrees(), "note": t.note(),
        })),
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
