//! Client commands (`submit`, `status`, `cancel`) and the job helpers other commands share.

use std::time::Duration;

use anyhow::{Result, ensure};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use pentago::{Player, UctConfig};
use pentagrid_proto::{Client, MAX_JOB_PLAYOUTS, Task, v1};
use serde_json::json;

use super::cluster::Connection;
use crate::input;

/// Queue jobs on the coordinator.
#[derive(Args)]
pub struct SubmitArgs {
    #[command(subcommand)]
    kind: SubmitKind,
}

#[derive(Subcommand)]
enum SubmitKind {
    /// Analyse positions with UCT (one job per position).
    Analyse {
        /// The position, `start`, or `-` for positions from standard input.
        position: String,
        /// Playouts per position.
        #[arg(long)]
        playouts: u64,
        /// Engine configuration (its budget is replaced by --playouts).
        #[arg(long, default_value = "uct")]
        config: UctConfig,
        #[command(flatten)]
        connection: Connection,
    },
    /// Self-play games (one job per game).
    Selfplay {
        /// Number of games.
        #[arg(long)]
        games: u64,
        /// Start position.
        #[arg(long, default_value = "start")]
        from: String,
        /// Player for both sides (`uct:...`, `flat:playouts=N`, `random`).
        #[arg(long, default_value = "uct:playouts=20000")]
        config: Player,
        #[command(flatten)]
        connection: Connection,
    },
}

pub fn submit(args: &SubmitArgs) -> Result<()> {
    let (tasks, connection) = match &args.kind {
        SubmitKind::Analyse {
            position,
            playouts,
            config,
            connection,
        } => {
            ensure!(
                (1..=MAX_JOB_PLAYOUTS).contains(playouts),
                "--playouts must be from 1 to {MAX_JOB_PLAYOUTS}"
            );
            let positions = input::positions(position)?;
            for p in &positions {
                ensure!(!p.is_over(), "the game is already over in {p}");
            }
            let tasks: Vec<Task> = positions
                .into_iter()
                .map(|position| Task::Analyse {
                    position,
                    config: config.clone(),
                    playouts: *playouts,
                })
                .collect();
            (tasks, connection)
        }
        SubmitKind::Selfplay {
            games,
            from,
            config,
            connection,
        } => {
            ensure!(
                (1..=100_000).contains(games),
                "--games must be from 1 to 100000"
            );
            let start = input::parse_position(from)?;
            ensure!(!start.is_over(), "the game is already over in {start}");
            let tasks: Vec<Task> = (0..*games)
                .map(|_| Task::Selfplay {
                    start,
                    black: config.clone(),
                    white: config.clone(),
                })
                .collect();
            (tasks, connection)
        }
    };
    let (rt, mut client) = connection.client()?;
    let request = v1::SubmitJobsRequest {
        jobs: tasks.iter().map(v1::JobSpec::from).collect(),
    };
    let reply = rt.block_on(client.submit_jobs(request))?.into_inner();
    let ids: Vec<String> = reply.job_ids.iter().map(ToString::to_string).collect();
    println!("queued {} jobs: {}", ids.len(), ids.join(" "));
    Ok(())
}

/// Cancel queued or running jobs (finished ones are kept).
#[derive(Args)]
pub struct CancelArgs {
    /// Job ids, as `submit` printed them.
    #[arg(required = true)]
    jobs: Vec<u64>,
    #[command(flatten)]
    connection: Connection,
}

pub fn cancel(args: &CancelArgs) -> Result<()> {
    let (rt, mut client) = args.connection.client()?;
    let request = v1::CancelJobsRequest {
        job_ids: args.jobs.clone(),
    };
    let reply = rt.block_on(client.cancel_jobs(request))?.into_inner();
    println!("cancelled {} of {} jobs", reply.cancelled, args.jobs.len());
    Ok(())
}

/// Show the coordinator's job counts, workers and totals.
#[derive(Args)]
pub struct StatusArgs {
    #[command(flatten)]
    connection: Connection,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn status(args: &StatusArgs) -> Result<()> {
    let (rt, mut client) = args.connection.client()?;
    let s = rt
        .block_on(client.status(v1::StatusRequest {}))?
        .into_inner();
    if args.json {
        let workers: Vec<_> = s
            .workers
            .iter()
            .map(|w| json!({"id": w.worker_id, "name": w.name, "threads": w.threads, "leases": w.leases, "results": w.results, "seconds_since_seen": w.seconds_since_seen}))
            .collect();
        let line = json!({
            "queued": s.queued, "leased": s.leased, "done": s.done, "failed": s.failed,
            "cancelled": s.cancelled, "workers": workers, "playout_positions": s.playout_positions,
            "game_positions": s.game_positions, "games": s.games, "playouts": s.playouts,
        });
        println!("{line}");
        return Ok(());
    }
    println!(
        "jobs      {} queued, {} leased, {} done, {} failed, {} cancelled",
        s.queued, s.leased, s.done, s.failed, s.cancelled
    );
    println!(
        "stored    {} positions with playout tables, {} with game tables, {} games, {} playouts",
        s.playout_positions, s.game_positions, s.games, s.playouts
    );
    println!("workers   {}", s.workers.len());
    for w in &s.workers {
        println!(
            "  {:<24} {:>3} threads {:>3} leases {:>8} results  seen {:.1}s ago",
            w.name, w.threads, w.leases, w.results, w.seconds_since_seen
        );
    }
    Ok(())
}

/// The coordinator's status.
pub async fn coordinator_status(client: &Client) -> Result<v1::StatusResponse> {
    Ok(client
        .clone()
        .status(v1::StatusRequest {})
        .await?
        .into_inner())
}

/// Queues `tasks` and waits until they are all finished (with a progress bar if `progress`);
/// returns their job ids.
pub async fn run_jobs(
    client: &Client,
    label: &str,
    tasks: &[Task],
    progress: bool,
) -> Result<Vec<u64>> {
    let before = coordinator_status(client).await?;
    let finished = |s: &v1::StatusResponse| s.done + s.failed + s.cancelled;
    let request = v1::SubmitJobsRequest {
        jobs: tasks.iter().map(v1::JobSpec::from).collect(),
    };
    let job_ids = client
        .clone()
        .submit_jobs(request)
        .await?
        .into_inner()
        .job_ids;
    let bar = if progress {
        ProgressBar::new(tasks.len() as u64).with_style(
            ProgressStyle::with_template(&format!(
                "{label:>10} [{{bar:40}}] {{pos}}/{{len}} jobs {{elapsed}} {{msg}}"
            ))
            .expect("valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    loop {
        let now = coordinator_status(client).await?;
        let done = finished(&now) - finished(&before);
        bar.set_position(done);
        bar.set_message(format!("{} playouts", now.playouts - before.playouts));
        if done >= tasks.len() as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    bar.finish();
    Ok(job_ids)
}
