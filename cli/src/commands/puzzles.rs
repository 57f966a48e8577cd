//! `pentagrid puzzles`: generate checkmate puzzles on the cluster and publish the collection.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use pentagrid_client::Client;
use pentagrid_client::puzzles::{self, PuzzleRound};
use pentagrid_proto::v2;

use super::progress::Bars;
use super::publish;
use super::target::Target;

/// Checkmate puzzles: positions where the side to move forces a win by continuous checks and
/// only one first move wins (checked by the exact solver).
#[derive(Args)]
pub struct PuzzlesArgs {
    #[command(subcommand)]
    command: PuzzlesCommand,
}

#[derive(Subcommand)]
enum PuzzlesCommand {
    /// Mine candidates from stored self-play games (and random games with --random) and
    /// verify them on the workers until COUNT new puzzles are stored.
    Generate(GenerateArgs),
    /// Publish the stored puzzles as a text problem book, JSON lines or a printable HTML page.
    Export(ExportArgs),
}

#[derive(Args)]
struct GenerateArgs {
    #[command(flatten)]
    goal: Goal,
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
    /// Candidates need at least this many stones.
    #[arg(long, default_value_t = 20)]
    min_stones: u32,
    /// Also mine games of random play when stored games run out.
    #[arg(long)]
    random: bool,
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
    /// At most this many puzzles (0: all).
    #[arg(long, default_value_t = 0)]
    limit: u32,
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
                min_stones: g.min_stones,
                random: g.random,
                seed: g.seed,
                rounds: g.rounds,
            };
            goal.validate()?;
            let report = generate
                .target
                .run(async |client| generate_with_bar(client, &goal).await)?;
            println!("{report}");
            Ok(())
        }
        PuzzlesCommand::Export(export) => {
            let request = v2::ListPuzzlesRequest {
                min_moves: export.min_moves,
                max_moves: export.max_moves,
                min_difficulty: export.min_difficulty,
                max_difficulty: export.max_difficulty,
                limit: export.limit,
                ..v2::ListPuzzlesRequest::default()
            };
            let puzzles = export
                .target
                .read(async |client| Ok(puzzles::list(client, request).await?))?;
            let document = match export.format {
                Format::Text => publish::text(&puzzles),
                Format::Jsonl => publish::jsonl(&puzzles),
                Format::Html => publish::html(&puzzles),
            };
            match &export.out {
                Some(path) => {
                    std::fs::write(path, document)
                        .with_context(|| format!("writing {}", path.display()))?;
                    eprintln!("wrote {} puzzles to {}", puzzles.len(), path.display());
                }
                None => print!("{document}"),
            }
            Ok(())
        }
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
    let puzzles = puzzles::list(client, v2::ListPuzzlesRequest::default()).await?;
    for (name, document) in [
        ("puzzles.txt", publish::text(&puzzles)),
        ("puzzles.jsonl", publish::jsonl(&puzzles)),
        ("puzzles.html", publish::html(&puzzles)),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, document).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(puzzles.len())
}
