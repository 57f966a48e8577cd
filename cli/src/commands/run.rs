//! `pentagrid run`: the whole cluster in one process — a coordinator on a loopback port with
//! its sled database, local workers, and a default campaign (self-play from the start position,
//! analysis of the positions the games reach, short studies of Monica's five and triple power,
//! a few checkmate puzzles), with progress and a summary.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, ensure};
use clap::Args;
use pentago::{MoveNotation, Opening, Player, Position, UctConfig};
use pentagrid_proto::{Client, Task, v1};

use super::book::print_book;
use super::client::{coordinator_status, run_jobs};
use super::cluster::{runtime, shutdown_signal};
use super::embedded::Embedded;
use super::puzzles::{Goal, generate_puzzles, write_collection};
use super::serve::serve_explorer;
use super::study::{StudyPlan, StudyReport, study};

/// Run a campaign on this machine: coordinator, workers and jobs in one process.
#[derive(Args)]
pub struct RunArgs {
    /// Database directory (reused: tables accumulate over runs).
    #[arg(long, default_value = "pentagrid-data")]
    db: PathBuf,
    /// Self-play games to play.
    #[arg(long, default_value_t = 8)]
    games: u64,
    /// Player for self-play (both sides).
    #[arg(long, default_value = "uct:playouts=5000,policy=safe")]
    selfplay: Player,
    /// Playouts per analysed position.
    #[arg(long, default_value_t = 100_000)]
    playouts: u64,
    /// Engine configuration for analyses.
    #[arg(long, default_value = "uct")]
    config: UctConfig,
    /// Analyse positions the games reach up to this many moves from the start.
    #[arg(long, default_value_t = 2)]
    depth: u32,
    /// Local workers (the cores are shared among them).
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// Skip the short studies of Monica's five and triple power.
    #[arg(long)]
    no_studies: bool,
    /// Checkmate puzzles to generate (from the games, and random games if needed); the
    /// collection is written as puzzles.txt, .jsonl and .html in the database directory.
    #[arg(long, default_value_t = 3)]
    puzzles: u64,
    /// After the campaign, keep the cluster up and serve the web explorer on it (until Ctrl-C).
    #[arg(long)]
    serve: bool,
    /// Where the explorer listens with --serve (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080", requires = "serve")]
    serve_listen: String,
}

pub fn run(args: &RunArgs) -> Result<()> {
    ensure!(
        (1..=100_000).contains(&args.games),
        "--games must be from 1 to 100000"
    );
    ensure!(
        (1..=1_000_000_000).contains(&args.playouts),
        "--playouts must be from 1 to 10^9"
    );
    ensure!(args.depth <= 8, "--depth must be at most 8");
    ensure!(args.puzzles <= 10_000, "--puzzles must be at most 10000");
    ensure!(
        (1..=64).contains(&args.workers),
        "--workers must be from 1 to 64"
    );
    runtime()?.block_on(async {
        let cluster = Embedded::start(&args.db, args.workers).await?;
        let client = cluster.client.clone();
        eprintln!(
            "pentagrid run: coordinator on {}, {} worker(s) × {} threads, database {}",
            cluster.address,
            args.workers,
            cluster.threads,
            args.db.display()
        );
        let started = Instant::now();
        let before = coordinator_status(&client).await?;
        let outcome = tokio::select! {
            result = campaign(args, &client) => result,
            _ = shutdown_signal() => {
                eprintln!("interrupted: stopping");
                Ok(Vec::new())
            }
        };
        let after = coordinator_status(&client).await?;
        let collection = write_collection(&client, &args.db).await?;
        let start_book = client
            .clone()
            .book_show(v1::BookShowRequest { position: Position::START.to_string() })
            .await?
            .into_inner();
        let studies = match outcome {
            Ok(studies) => studies,
            Err(error) => {
                cluster.stop().await?;
                return Err(error);
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        let playouts = after.playouts - before.playouts;
        println!("summary");
        println!("  jobs done     {} ({} failed)", after.done - before.done, after.failed - before.failed);
        println!("  games stored  {} (total {})", after.games - before.games, after.games);
        println!(
            "  playouts      {playouts} analysed in {seconds:.1} s ({:.0}/s over the whole run, self-play included)",
            playouts as f64 / seconds
        );
        println!("  database      {} positions with playout tables, {} with game tables", after.playout_positions, after.game_positions);
        println!(
            "  puzzles       {collection} in {}/puzzles.{{txt,jsonl,html}}",
            args.db.display()
        );
        print_book(&start_book);
        for report in &studies {
            println!();
            report.print_with(1);
        }
        let served = if args.serve {
            serve_explorer(client, &args.serve_listen).await
        } else {
            Ok(())
        };
        cluster.stop().await?;
        served
    })
}

/// Self-play first; then analysis of the start and of the positions the games reached.
async fn campaign(args: &RunArgs, client: &Client) -> Result<Vec<StudyReport>> {
    let selfplay: Vec<Task> = (0..args.games)
        .map(|_| Task::Selfplay {
            start: Position::START,
            black: args.selfplay.clone(),
            white: args.selfplay.clone(),
        })
        .collect();
    run_jobs(client, "self-play", &selfplay, true).await?;
    let positions = reached_positions(client, args.depth).await?;
    let analyses: Vec<Task> = positions
        .into_iter()
        .map(|position| Task::Analyse {
            position,
            config: args.config.clone(),
            playouts: args.playouts,
        })
        .collect();
    run_jobs(client, "analysis", &analyses, true).await?;
    let mut studies = Vec::new();
    if !args.no_studies {
        let plan = StudyPlan {
            budget: 12 * 5_000,
            depth: 1,
            positions: 12,
            playouts: 5_000,
            solve_stones: 26,
            games: 2,
            player: args.selfplay.clone(),
            config: args.config.clone(),
        };
        for opening in [Opening::MonicasFive, Opening::TriplePower] {
            studies.push(study(client, opening, &plan, true).await?);
        }
    }
    if args.puzzles > 0 {
        let goal = Goal {
            count: args.puzzles,
            max_moves: 5,
            min_stones: 20,
            random: true,
            seed: 1,
            rounds: 10,
        };
        let report = generate_puzzles(&goal, client).await?;
        eprintln!("{report}");
    }
    Ok(studies)
}

/// Positions within `depth` moves of the start that stored games went through (by canonical
/// form, each once).
async fn reached_positions(client: &Client, depth: u32) -> Result<Vec<Position>> {
    let mut seen = HashSet::new();
    let mut frontier = vec![Position::START];
    let mut out = Vec::new();
    for level in 0..=depth {
        let mut next = Vec::new();
        for position in frontier {
            if !seen.insert(position.canonical_key()) || position.is_over() {
                continue;
            }
            out.push(position);
            if level == depth {
                continue;
            }
            let book = client
                .clone()
                .book_show(v1::BookShowRequest {
                    position: position.to_string(),
                })
                .await?
                .into_inner();
            for row in book.games.iter().filter(|r| r.games > 0) {
                let notation: MoveNotation = row.r#move.parse()?;
                next.push(position.play(position.resolve(notation)?)?);
            }
        }
        frontier = next;
    }
    Ok(out)
}
