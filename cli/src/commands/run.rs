//! `pentagrid run`: the whole cluster in one process — a coordinator on a loopback port with
//! its sled database, local workers, and a default campaign (self-play from the start position,
//! then analysis of the positions the games reach), with progress and a summary.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pentago::{MoveNotation, Player, Position, UctConfig, splitmix64};
use pentagrid_coordinator::{Coordinator, Settings, serve};
use pentagrid_proto::{Client, Task, v1};
use pentagrid_worker::WorkerOptions;
use tokio::sync::watch;

use super::client::print_book;
use super::cluster::{runtime, shutdown_signal};

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
    ensure!(
        (1..=64).contains(&args.workers),
        "--workers must be from 1 to 64"
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = (cores / args.workers).max(1);
    let token = format!(
        "{:016x}",
        splitmix64(
            std::process::id() as u64 ^ Instant::now().elapsed().as_nanos() as u64 ^ 0xC0FFEE
        )
    );
    runtime()?.block_on(async {
        let coordinator = Coordinator::open(&args.db, Settings::default())
            .with_context(|| format!("opening the database in {}", args.db.display()))?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (stop, stopped) = watch::channel(false);
        let server = {
            let mut stopped = stopped.clone();
            let token = token.clone();
            tokio::spawn(async move {
                serve(listener, coordinator, &token, None, async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })
                .await
            })
        };
        let url = format!("http://{address}");
        let mut workers = Vec::new();
        for i in 0..args.workers {
            let options = WorkerOptions {
                coordinator: url.clone(),
                token: token.clone(),
                tls_ca: None,
                name: format!("local-{}", i + 1),
                threads,
                ack_log: None,
                max_results: None,
            };
            workers.push(tokio::spawn(pentagrid_worker::run(options, stopped.clone())));
        }
        let client = pentagrid_proto::connect(&url, &token, None)?;
        eprintln!(
            "pentagrid run: coordinator on {address}, {} worker(s) × {threads} threads, database {}",
            args.workers,
            args.db.display()
        );
        let started = Instant::now();
        let before = status(&client).await?;
        let outcome = tokio::select! {
            result = campaign(args, &client) => result,
            _ = shutdown_signal() => {
                eprintln!("interrupted: stopping");
                Ok(())
            }
        };
        let after = status(&client).await?;
        let start_book = client
            .clone()
            .book_show(v1::BookShowRequest { position: Position::START.to_string() })
            .await?
            .into_inner();
        let _ = stop.send(true);
        for worker in workers {
            let _ = worker.await;
        }
        server.await.context("coordinator task")??;
        outcome?;
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
        print_book(&start_book);
        Ok(())
    })
}

async fn status(client: &Client) -> Result<v1::StatusResponse> {
    Ok(client
        .clone()
        .status(v1::StatusRequest {})
        .await?
        .into_inner())
}

/// Self-play first; then analysis of the start and of the positions the games reached.
async fn campaign(args: &RunArgs, client: &Client) -> Result<()> {
    let selfplay: Vec<Task> = (0..args.games)
        .map(|_| Task::Selfplay {
            start: Position::START,
            black: args.selfplay.clone(),
            white: args.selfplay.clone(),
        })
        .collect();
    run_jobs(client, "self-play", &selfplay).await?;
    let positions = reached_positions(client, args.depth).await?;
    let analyses: Vec<Task> = positions
        .into_iter()
        .map(|position| Task::Analyse {
            position,
            config: args.config.clone(),
            playouts: args.playouts,
        })
        .collect();
    run_jobs(client, "analysis", &analyses).await
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

/// Queues `tasks` and shows a progress bar until they are all finished.
async fn run_jobs(client: &Client, label: &str, tasks: &[Task]) -> Result<()> {
    let before = status(client).await?;
    let finished = |s: &v1::StatusResponse| s.done + s.failed + s.cancelled;
    let request = v1::SubmitJobsRequest {
        jobs: tasks.iter().map(v1::JobSpec::from).collect(),
    };
    client.clone().submit_jobs(request).await?;
    let bar = ProgressBar::new(tasks.len() as u64).with_style(
        ProgressStyle::with_template(&format!(
            "{label:>10} [{{bar:40}}] {{pos}}/{{len}} jobs {{elapsed}} {{msg}}"
        ))
        .expect("valid template"),
    );
    loop {
        let now = status(client).await?;
        let done = finished(&now) - finished(&before);
        bar.set_position(done);
        bar.set_message(format!("{} playouts", now.playouts - before.playouts));
        if done >= tasks.len() as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    bar.finish();
    Ok(())
}
