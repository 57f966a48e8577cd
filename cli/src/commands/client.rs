//! Client commands: `submit`, `status`, `cancel`.

use anyhow::{Result, ensure};
use clap::{Args, Subcommand};
use pentago::{Player, UctConfig};
use pentagrid_client::deep::DeepStatus;
use pentagrid_client::jobs::{self, CancelOutcome};
use pentagrid_client::status::{ClusterStatus, FlaggedWorker, SolitaireTotals, WorkerInfo};
use pentagrid_proto::{MAX_JOB_PLAYOUTS, Task};
use serde_json::json;

use super::cluster::Connection;
use crate::input;
use crate::output::{self, out, outln};

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
        /// Print the queued job ids as JSON.
        #[arg(long)]
        json: bool,
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
        /// Print the queued job ids as JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn submit(args: &SubmitArgs) -> Result<()> {
    let (tasks, connection, as_json) = match &args.kind {
        SubmitKind::Analyse {
            position,
            playouts,
            config,
            connection,
            json,
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
            (tasks, connection, *json)
        }
        SubmitKind::Selfplay {
            games,
            from,
            config,
            connection,
            json,
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
            (tasks, connection, *json)
        }
    };
    let (rt, client) = connection.client()?;
    let job_ids = rt.block_on(jobs::submit(&client, &tasks))?;
    if as_json {
        outln!("{}", json!({ "queued": job_ids.len(), "job_ids": job_ids }));
        return Ok(());
    }
    let ids: Vec<String> = job_ids.iter().map(ToString::to_string).collect();
    outln!("queued {} jobs: {}", ids.len(), ids.join(" "));
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
    /// Print JSON: the count and each id with its outcome (`cancelled`, `not_found`,
    /// `already_done`, `already_failed`, `already_cancelled`, or `not_said` from a coordinator
    /// that gives no reasons).
    #[arg(long)]
    json: bool,
}

pub fn cancel(args: &CancelArgs) -> Result<()> {
    let (rt, client) = args.connection.client()?;
    let answer = rt.block_on(jobs::cancel(&client, &args.jobs))?;
    if args.json {
        let jobs: Vec<_> = answer
            .outcomes
            .iter()
            .map(|(id, outcome)| json!({"job_id": id, "outcome": outcome.name()}))
            .collect();
        outln!("{}", json!({"cancelled": answer.cancelled, "jobs": jobs}));
        return Ok(());
    }
    outln!("cancelled {} of {} jobs", answer.cancelled, args.jobs.len());
    for (id, outcome) in &answer.outcomes {
        let said = match outcome {
            CancelOutcome::Cancelled => "cancelled",
            CancelOutcome::NotFound => "not cancelled: no such job",
            CancelOutcome::AlreadyDone => "not cancelled: already done",
            CancelOutcome::AlreadyFailed => "not cancelled: already failed",
            CancelOutcome::AlreadyCancelled => "not cancelled: already cancelled",
            CancelOutcome::NotSaid => continue,
        };
        outln!("  job {id}: {said}");
    }
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
    let (rt, client) = args.connection.client()?;
    let s = rt.block_on(jobs::status(&client))?;
    let deep_solves = rt.block_on(pentagrid_client::deep::list(&client))?;
    if args.json {
        outln!("{}", status_json(&s, &deep_solves)?);
        return Ok(());
    }
    print_totals(&s)?;
    print_workers(&s.workers, s.worker_count)?;
    if !deep_solves.is_empty() {
        outln!("deep      {} solves", deep_solves.len());
        for d in &deep_solves {
            outln!("  {}", super::solve_cluster::deep_line(d));
        }
    }
    print_flagged(&s.flagged_workers)?;
    print_solitaire(&s.solitaire)
}

/// The status as one JSON object.
fn status_json(s: &ClusterStatus, deep_solves: &[DeepStatus]) -> Result<serde_json::Value> {
    let workers: Vec<_> = s
        .workers
        .iter()
        .map(|w| json!({"id": w.id, "name": w.name, "threads": w.threads, "leases": w.leases, "results": w.results, "seconds_since_seen": w.seconds_since_seen, "flags": w.flags, "quarantined": w.quarantined, "engines": w.engines}))
        .collect();
    let flagged: Vec<_> = s
        .flagged_workers
        .iter()
        .map(|w| json!({"id": w.id, "flags": w.flags, "quarantined": w.quarantined, "last_reason": w.last_reason, "purged_results": w.purged_results, "purged_values": w.purged_values, "purged_positions": w.purged_positions, "purged_playouts": w.purged_playouts, "purged_game_positions": w.purged_game_positions, "purged_games": w.purged_games, "purged_pairs": w.purged_pairs, "reopened_solves": w.reopened_solves, "demoted_values": w.demoted_values}))
        .collect();
    let (jobs, stored) = (&s.jobs, &s.stored);
    // The explorer's `/solitaire` rows: variant, player, deals, wins and both intervals.
    let solitaire = serde_json::to_value(&s.solitaire)?;
    Ok(json!({
        "queued": jobs.queued, "leased": jobs.leased, "done": jobs.done, "failed": jobs.failed,
        "cancelled": jobs.cancelled, "worker_count": s.worker_count, "workers": workers,
        "playout_positions": stored.playout_positions, "game_positions": stored.game_positions,
        "games": stored.games, "playouts": stored.playouts,
        "quarantined": s.quarantined, "flagged_workers": flagged, "solitaire": solitaire,
        "deep_solves": deep_solves.iter().map(super::solve_cluster::deep_json).collect::<Vec<_>>(),
    }))
}

/// Jobs by state, what the database holds, and the job records set aside.
fn print_totals(s: &ClusterStatus) -> Result<()> {
    outln!(
        "jobs      {} queued, {} leased, {} done, {} failed, {} cancelled",
        s.jobs.queued,
        s.jobs.leased,
        s.jobs.done,
        s.jobs.failed,
        s.jobs.cancelled
    );
    outln!(
        "stored    {} positions with playout tables, {} with game tables, {} games, {} playouts",
        s.stored.playout_positions,
        s.stored.game_positions,
        s.stored.games,
        s.stored.playouts
    );
    if s.quarantined > 0 {
        outln!(
            "damaged   {} unreadable job records set aside at start-up (see the coordinator log)",
            s.quarantined
        );
    }
    Ok(())
}

/// How many workers the coordinator knows, then one line per listed worker (the first page:
/// a coordinator with many lists only the first, and the count says so), with their engines.
fn print_workers(workers: &[WorkerInfo], count: u64) -> Result<()> {
    if count > workers.len() as u64 {
        outln!("workers   {count} (the first {} listed)", workers.len());
    } else {
        outln!("workers   {count}");
    }
    for w in workers {
        let state = match (w.quarantined, w.flags) {
            (true, _) => "  QUARANTINED".to_owned(),
            (false, 0) => String::new(),
            (false, flags) => format!("  flagged {flags}x"),
        };
        outln!(
            "  {:<24} {:>3} threads {:>3} leases {:>8} results  seen {:.1}s ago{state}",
            output::peer(&w.name),
            w.threads,
            w.leases,
            w.results,
            w.seconds_since_seen
        );
        for (name, version) in &w.engines {
            outln!(
                "    engine:{} ({})",
                output::peer(name),
                output::peer(version)
            );
        }
    }
    Ok(())
}

/// The workers cross-checks caught (nothing when none).
fn print_flagged(flagged: &[FlaggedWorker]) -> Result<()> {
    if flagged.is_empty() {
        return Ok(());
    }
    outln!("flagged   {} (caught by cross-checks)", flagged.len());
    for w in flagged {
        let state = if w.quarantined {
            "quarantined"
        } else {
            "flagged"
        };
        outln!(
            "  {:<24} {state} {}x, last: {}",
            output::peer(&w.id),
            w.flags,
            output::peer(&w.last_reason)
        );
        if w.purged_results > 0 {
            outln!(
                "  {:<24} purged {} values of {} results (solved again by others)",
                "",
                w.purged_values,
                w.purged_results
            );
        }
        if w.reopened_solves > 0 || w.demoted_values > 0 {
            outln!(
                "  {:<24} reopened {} finished deep solves; demoted {} values carried up the book from what was purged",
                "",
                w.reopened_solves,
                w.demoted_values
            );
        }
        if w.purged_positions > 0 {
            outln!(
                "  {:<24} purged {} playouts of its analyses from {} positions",
                "",
                w.purged_playouts,
                w.purged_positions
            );
        }
        if w.purged_game_positions > 0 {
            outln!(
                "  {:<24} purged {} games from {} positions",
                "",
                w.purged_games,
                w.purged_game_positions
            );
        }
        if w.purged_pairs > 0 {
            outln!(
                "  {:<24} purged {} match pairs (played again by others)",
                "",
                w.purged_pairs
            );
        }
    }
    Ok(())
}

/// The solitaire totals per (variant, player) (nothing when none).
fn print_solitaire(all: &[SolitaireTotals]) -> Result<()> {
    if all.is_empty() {
        return Ok(());
    }
    outln!("solitaire {} (variant, player) pairs", all.len());
    for totals in all {
        let mut line = Vec::new();
        let label = format!(
            "  {:<8} {:<28}",
            totals.variant.to_string(),
            output::peer(&totals.player)
        );
        super::solitaire::write_totals(&mut line, &label, totals)?;
        out!("{}", String::from_utf8_lossy(&line));
    }
    Ok(())
}
