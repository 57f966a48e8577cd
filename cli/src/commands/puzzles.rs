//! `pentagrid puzzles`: generate checkmate puzzles on the cluster and publish the collection.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use pentago::{MAX_PUZZLE_MOVES, Puzzle};
use pentagrid_proto::{Client, v1};

use super::embedded::Target;
use super::publish;

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
pub struct Goal {
    /// New puzzles wanted.
    #[arg(long)]
    pub count: u64,
    /// Longest mate (1 to 7).
    #[arg(long, default_value_t = 5)]
    pub max_moves: u32,
    /// Candidates need at least this many stones.
    #[arg(long, default_value_t = 20)]
    pub min_stones: u32,
    /// Also mine games of random play when stored games run out.
    #[arg(long)]
    pub random: bool,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Give up after this many rounds of candidates.
    #[arg(long, default_value_t = 20)]
    pub rounds: u32,
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
            let goal = &generate.goal;
            ensure!(
                (1..=MAX_PUZZLE_MOVES).contains(&goal.max_moves),
                "--max-moves must be from 1 to {MAX_PUZZLE_MOVES}"
            );
            ensure!(
                (1..=10_000).contains(&goal.count),
                "--count must be from 1 to 10000"
            );
            ensure!(goal.min_stones <= 35, "--min-stones must be at most 35");
            let report = generate
                .target
                .run(async |client| generate_puzzles(goal, client).await)?;
            println!("{report}");
            Ok(())
        }
        PuzzlesCommand::Export(export) => {
            let request = v1::ListPuzzlesRequest {
                min_moves: export.min_moves,
                max_moves: export.max_moves,
                min_difficulty: export.min_difficulty,
                max_difficulty: export.max_difficulty,
                limit: export.limit,
            };
            let reply = export.target.read(async |client| {
                Ok(client.clone().list_puzzles(request).await?.into_inner())
            })?;
            let puzzles = parse_puzzles(&reply)?;
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

/// Writes the whole stored collection as `puzzles.txt`, `puzzles.jsonl` and `puzzles.html`
/// in `dir`; returns how many puzzles it holds.
pub async fn write_collection(client: &Client, dir: &std::path::Path) -> Result<usize> {
    let reply = client
        .clone()
        .list_puzzles(v1::ListPuzzlesRequest::default())
        .await?
        .into_inner();
    let puzzles = parse_puzzles(&reply)?;
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

/// The puzzles of a listing.
pub fn parse_puzzles(reply: &v1::ListPuzzlesResponse) -> Result<Vec<Puzzle>> {
    reply
        .puzzles_json
        .iter()
        .map(|json| serde_json::from_str(json).context("the coordinator sent an unreadable puzzle"))
        .collect()
}

async fn listing(client: &Client) -> Result<v1::ListPuzzlesResponse> {
    Ok(client
        .clone()
        .list_puzzles(v1::ListPuzzlesRequest {
            limit: 1,
            ..v1::ListPuzzlesRequest::default()
        })
        .await?
        .into_inner())
}

/// Rounds of candidates until `count` new puzzles are stored; returns a summary line.
pub async fn generate_puzzles(args: &Goal, client: &Client) -> Result<String> {
    let before = listing(client).await?;
    let bar = ProgressBar::new(args.count).with_style(
        ProgressStyle::with_template("   puzzles [{bar:40}] {pos}/{len} {elapsed} {msg}")
            .expect("valid template"),
    );
    let mut now = before.clone();
    for round in 0..args.rounds {
        let found = now.found - before.found;
        if found >= args.count {
            break;
        }
        // About one candidate in twenty becomes a puzzle; ask for plenty.
        let wanted = ((args.count - found) * 20).clamp(64, 20_000);
        let reply = client
            .clone()
            .generate_puzzles(v1::GeneratePuzzlesRequest {
                candidates: wanted,
                max_moves: args.max_moves,
                min_stones: args.min_stones,
                random_games: args.random,
                seed: args.seed.wrapping_add(u64::from(round)),
            })
            .await?
            .into_inner();
        if reply.queued == 0 {
            bar.abandon_with_message(
                "no fresh candidates left (play more games, or pass --random)",
            );
            break;
        }
        loop {
            now = listing(client).await?;
            bar.set_position((now.found - before.found).min(args.count));
            bar.set_message(format!(
                "{} candidates checked, {} pending",
                now.candidates - before.candidates,
                now.pending
            ));
            if now.pending == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    bar.finish();
    let checked = now.candidates - before.candidates;
    let found = now.found - before.found;
    Ok(format!(
        "{found} new puzzles ({} stored) from {checked} candidates ({:.1}%): {} without a mate, {} with another winning move, {} undecided",
        now.found,
        if checked == 0 {
            0.0
        } else {
            100.0 * found as f64 / checked as f64
        },
        now.no_mate - before.no_mate,
        now.not_unique - before.not_unique,
        now.undecided - before.undecided
    ))
}
