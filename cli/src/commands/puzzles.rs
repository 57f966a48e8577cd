//! `pentagrid puzzles`: generate checkmate puzzles on the cluster and publish the collection.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use pentago::Theme;
use pentagrid_client::Client;
use pentagrid_client::collection::{self, Collection, Selection};
use pentagrid_client::puzzles::{self, PuzzleRound};
use pentagrid_render::collection_html;

use super::progress::Bars;
use super::target::Target;
use crate::output::{errln, out, outln};

/// Checkmate puzzles: positions where the side to move forces a win by continuous checks and
/// only one first move wins (checked by the exact solver).
#[derive(Args)]
pub struct PuzzlesArgs {
    #[command(subcommand)]
    command: PuzzlesCommand,
}

#[derive(Subcommand)]
enum PuzzlesCommand {
    /// Mine candidates from stored self-play games, then from games of random play, and
    /// verify them on the workers until COUNT new puzzles are stored; fails, saying why, when
    /// fewer are found.
    Generate(GenerateArgs),
    /// Publish the stored puzzles as a collection — chapters by mate length, easiest first,
    /// with a summary and the solutions at the back — as a text problem book, JSON lines or a
    /// printable HTML page.
    Export(ExportArgs),
}

#[derive(Args)]
struct GenerateArgs {
    #[command(flatten)]
    goal: Goal,
    /// Print the round as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: Target,
}

/// What a round of puzzle generation aims for.
#[derive(Args)]
struct Goal {
    /// New puzzles wanted.
    #[arg(long)]
    count: u64,
    /// Longest mate (1 to 7).
    #[arg(long, default_value_t = 5)]
    max_moves: u32,
    /// Shortest mate (0: any; mates in 1 are then only the instructive ones, and few).
    #[arg(long, default_value_t = 0)]
    min_moves: u32,
    /// Candidates need at least this many stones (from 18 on, the midsolver settles the
    /// uniqueness of the first move in seconds, whatever the position).
    #[arg(long, default_value_t = 18)]
    min_stones: u32,
    /// Mine stored games only (by default games of random play are mined when they run out).
    #[arg(long)]
    stored_only: bool,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give up after this many rounds of candidates.
    #[arg(long, default_value_t = 20)]
    rounds: u32,
}

#[derive(Copy, Clone, ValueEnum)]
enum Format {
    Text,
    Jsonl,
    Html,
}

#[derive(Args)]
struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write here instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only mates at least this long.
    #[arg(long, default_value_t = 0)]
    min_moves: u32,
    /// Only mates at most this long.
    #[arg(long, default_value_t = 0)]
    max_moves: u32,
    /// Only puzzles at least this difficult.
    #[arg(long, default_value_t = 0.0)]
    min_difficulty: f64,
    /// Only puzzles at most this difficult.
    #[arg(long, default_value_t = 0.0)]
    max_difficulty: f64,
    /// Only puzzles of this difficulty (easy, medium, hard, expert; repeat for several).
    #[arg(long = "difficulty")]
    labels: Vec<String>,
    /// Only puzzles with this theme (repeat: all of them), e.g. quiet-first-move.
    #[arg(long = "theme")]
    themes: Vec<Theme>,
    /// At most this many puzzles, spread evenly over the selection's difficulties (0: all).
    #[arg(long, visible_alias = "limit", default_value_t = 0)]
    count: usize,
    #[command(flatten)]
    target: Target,
}

pub fn run(args: &PuzzlesArgs) -> Result<()> {
    match &args.command {
        PuzzlesCommand::Generate(generate) => {
            let g = &generate.goal;
            let goal = puzzles::Goal {
                count: g.count,
                max_moves: g.max_moves,
                min_moves: g.min_moves,
                min_stones: g.min_stones,
                stored_only: g.stored_only,
                seed: g.seed,
                rounds: g.rounds,
            };
            goal.validate()?;
            let report = generate
                .target
                .run(async |client| generate_with_bar(client, &goal).await)?;
            if generate.json {
                outln!("{}", round_json(&report));
            } else {
                outln!("{report}");
            }
            report.delivered(&goal)?;
            Ok(())
        }
        PuzzlesCommand::Export(export) => {
            let selection = Selection {
                min_moves: export.min_moves,
                max_moves: export.max_moves,
                min_difficulty: export.min_difficulty,
                max_difficulty: export.max_difficulty,
                labels: export.labels.clone(),
                themes: export.themes.clone(),
                count: export.count,
            };
            selection.validate()?;
            let puzzles = export
                .target
                .read(async |client| Ok(puzzles::list(client, &selection.filter()).await?))?;
            let collection = Collection::new(puzzles, &selection);
            let document = render(&collection, export.format);
            match &export.out {
                Some(path) => {
                    std::fs::write(path, document)
                        .with_context(|| format!("writing {}", path.display()))?;
                    errln!(
                        "wrote {} puzzles to {}",
                        collection.summary.total,
                        path.display()
                    );
                }
                None => out!("{document}"),
            }
            Ok(())
        }
    }
}

/// A puzzle round as JSON (stable field names: those of [`PuzzleRound`]).
pub fn round_json(round: &PuzzleRound) -> serde_json::Value {
    serde_json::json!({
        "found": round.found, "stored": round.stored, "checked": round.checked,
        "no_mate": round.no_mate, "not_unique": round.not_unique,
        "undecided": round.undecided, "ran_dry": round.ran_dry,
    })
}

fn render(collection: &Collection, format: Format) -> String {
    match format {
        Format::Text => collection::text(collection),
        Format::Jsonl => collection::jsonl(collection),
        Format::Html => collection_html(collection),
    }
}

/// Runs puzzle rounds with a progress bar; says so when the candidates ran out.
pub async fn generate_with_bar(client: &Client, goal: &puzzles::Goal) -> Result<PuzzleRound> {
    let mut bars = Bars::default();
    let round = puzzles::generate(client, goal, &mut |p| bars.puzzles(goal.count, p)).await?;
    bars.puzzles_done(round.ran_dry);
    Ok(round)
}

/// Writes the whole stored collection as `puzzles.txt`, `puzzles.jsonl` and `puzzles.html`
/// in `dir`; returns how many puzzles it holds.
pub async fn write_collection(client: &Client, dir: &std::path::Path) -> Result<usize> {
    let selection = Selection::default();
    let puzzles = puzzles::list(client, &selection.filter()).await?;
    let collection = Collection::new(puzzles, &selection);
    for (name, format) in [
        ("puzzles.txt", Format::Text),
        ("puzzles.jsonl", Format::Jsonl),
        ("puzzles.html", Format::Html),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, render(&collection, format))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(collection.summary.total)
}
