//! `pentagrid playouts`: random games from a position, with their statistics.

use std::time::Instant;

use anyhow::{Result, ensure};
use clap::Args;
use pentago::{Policy, Position, run_playouts};
use serde_json::json;

use crate::input;
use crate::output::outln;

/// Play N random games and print their statistics (results, mean length, how games end, speed).
#[derive(Args)]
pub struct PlayoutsArgs {
    /// Number of games.
    #[arg(long)]
    games: u64,
    /// Random seed; the totals depend only on it, not on the thread count.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Move choice: `uniform` (any square, any twist) or `safe` (take wins, avoid losses).
    #[arg(long, default_value = "uniform")]
    policy: Policy,
    /// Threads (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Play from this position instead of the empty board (`-`: positions from standard input).
    #[arg(long, default_value = "start")]
    from: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &PlayoutsArgs) -> Result<()> {
    ensure!(args.games > 0, "--games must be at least 1");
    let positions = input::positions(&args.from)?;
    for position in &positions {
        ensure!(
            !position.is_over(),
            "the game is already over in {position}"
        );
    }
    let pool = super::thread_pool(args.threads)?;
    for position in &positions {
        run_one(args, &pool, position)?;
    }
    Ok(())
}

fn run_one(args: &PlayoutsArgs, pool: &rayon::ThreadPool, position: &Position) -> Result<()> {
    let started = Instant::now();
    let stats = pool.install(|| run_playouts(position, args.policy, args.games, args.seed));
    let seconds = started.elapsed().as_secs_f64();
    let rate = stats.games as f64 / seconds;
    let percent = |n: u64| 100.0 * n as f64 / stats.games as f64;
    if args.json {
        let line = json!({
            "position": position.to_string(),
            "policy": args.policy,
            "seed": args.seed,
            "threads": pool.current_num_threads(),
            "games": stats.games,
            "black_wins": stats.black_wins,
            "white_wins": stats.white_wins,
            "draws": stats.draws,
            "mean_length": stats.mean_length(),
            "placement_wins": stats.placement_wins,
            "both_five_draws": stats.both_five_draws,
            "full_board_games": stats.full_board_games,
            "seconds": seconds,
            "games_per_second": rate,
        });
        outln!("{line}");
    } else {
        outln!("games            {}", stats.games);
        outln!(
            "black wins       {} ({:.2}%)",
            stats.black_wins,
            percent(stats.black_wins)
        );
        outln!(
            "white wins       {} ({:.2}%)",
            stats.white_wins,
            percent(stats.white_wins)
        );
        outln!(
            "draws            {} ({:.2}%)",
            stats.draws,
            percent(stats.draws)
        );
        outln!("mean length      {:.2} stones", stats.mean_length());
        outln!(
            "placement wins   {} ({:.2}%)",
            stats.placement_wins,
            percent(stats.placement_wins)
        );
        outln!(
            "both-five draws  {} ({:.2}%)",
            stats.both_five_draws,
            percent(stats.both_five_draws)
        );
        outln!(
            "full-board games {} ({:.2}%)",
            stats.full_board_games,
            percent(stats.full_board_games)
        );
        outln!(
            "speed            {rate:.0} games/s ({} threads, {seconds:.2} s)",
            pool.current_num_threads()
        );
    }
    Ok(())
}
