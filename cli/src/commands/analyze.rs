//! `pentagrid analyze`: a UCT search of positions, with the move table, best move and PV.

use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pentago::{
    Budget, Position, SearchControl, SearchOptions, SearchResult, SharedOracle, UctConfig, search,
};

use super::tablebase::TablebaseOptions;
use crate::input;
use crate::output::outln;

/// Search positions with UCT and print each move table (sorted by visits), the best move, the
/// principal variation and the speed.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// The position, `start`, or `-` to read positions from standard input.
    position: String,
    /// Playout budget (overrides the config's budget).
    #[arg(long, conflicts_with = "seconds")]
    playouts: Option<u64>,
    /// Time budget in seconds (overrides the config's budget).
    #[arg(long)]
    seconds: Option<f64>,
    /// Threads, each growing its own tree (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Engine configuration, e.g. `uct:k=0.45,expand=8,policy=safe,playouts=100000`.
    #[arg(long, default_value = "uct")]
    config: UctConfig,
    /// Show only the K most simulated moves.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print JSON (one object per position, with the whole table).
    #[arg(long)]
    json: bool,
    /// Search without exact values: by default the tablebase's positions are proven nodes of
    /// the tree (simulations stop there), so a position whose every move it values is decided
    /// without playouts.
    #[arg(long)]
    no_tablebase: bool,
    #[command(flatten)]
    tablebase: TablebaseOptions,
}

pub fn run(args: &AnalyzeArgs) -> Result<()> {
    let mut config = args.config.clone();
    if let Some(playouts) = args.playouts {
        if playouts == 0 {
            bail!("--playouts must be at least 1");
        }
        config.budget = Budget::Playouts(playouts);
    }
    if let Some(seconds) = args.seconds {
        if !(seconds > 0.0 && seconds <= 86_400.0) {
            bail!("--seconds must be more than 0 and at most 86400");
        }
        config.budget = Budget::Seconds(seconds);
    }
    let positions = input::positions(&args.position)?;
    for position in &positions {
        if position.is_over() {
            bail!(
                "the game is already over in {position} ({})",
                position.status()
            );
        }
    }
    let pool = super::thread_pool(args.threads)?;
    let options = SearchOptions {
        seed: args.seed,
        threads: pool.current_num_threads(),
        tables_min_visits: None,
        oracle: match args.no_tablebase {
            true => None,
            false => Some(SharedOracle::new(args.tablebase.open()?)),
        },
    };
    for position in &positions {
        let result = pool.install(|| search_with_progress(position, &config, &options))?;
        if args.json {
            outln!("{}", serde_json::to_string(&result)?);
        } else {
            print_report(&result, &config, args.top)?;
        }
    }
    Ok(())
}

/// Runs the search, drawing a progress bar on a terminal while it takes more than a second.
pub fn search_with_progress(
    position: &Position,
    config: &UctConfig,
    options: &SearchOptions,
) -> Result<SearchResult> {
    let control = SearchControl::new();
    let (total, unit) = match config.budget {
        Budget::Playouts(n) => (n, "playouts"),
        Budget::Seconds(s) => ((s * 1000.0) as u64, "ms"),
    };
    std::thread::scope(|scope| {
        let searching = scope.spawn(|| search(position, config, options, &control));
        let started = std::time::Instant::now();
        let mut bar: Option<ProgressBar> = None;
        while !searching.is_finished() {
            std::thread::sleep(Duration::from_millis(50));
            if started.elapsed() < Duration::from_secs(1) {
                continue;
            }
            let bar = bar.get_or_insert_with(|| {
                let bar = ProgressBar::new(total);
                bar.set_style(
                    ProgressStyle::with_template(&format!(
                        "{{spinner}} [{{bar:40}}] {{pos}}/{{len}} {unit} {{msg}}"
                    ))
                    .expect("valid template"),
                );
                bar
            });
            let done = match config.budget {
                Budget::Playouts(_) => control.simulations(),
                Budget::Seconds(_) => started.elapsed().as_millis() as u64,
            };
            bar.set_position(done.min(total));
            let rate = control.simulations() as f64 / started.elapsed().as_secs_f64();
            bar.set_message(format!("{rate:.0} sims/s"));
        }
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        Ok(searching.join().expect("search thread")?)
    })
}

fn print_report(result: &SearchResult, config: &UctConfig, top: usize) -> Result<()> {
    outln!("position  {}", result.position);
    outln!("config    {config}");
    outln!(
        "{:<8} {:>10} {:>8} {:>9} {:>7}  also",
        "move",
        "games",
        "win%",
        "draws",
        "proven"
    );
    for stats in result.moves.iter().take(top) {
        let also = if stats.also.is_empty() {
            String::new()
        } else {
            format!("+{} merged", stats.also.len())
        };
        outln!(
            "{:<8} {:>10} {:>7.2}% {:>9} {:>7}  {also}",
            stats.mv.to_string(),
            stats.games,
            100.0 * stats.win_rate(),
            stats.draws,
            stats.proven.map_or("", |v| v.name()),
        );
    }
    if result.moves.len() > top {
        outln!("... {} more moves (--top)", result.moves.len() - top);
    }
    if let Some(best) = result.best {
        outln!("best      {best}");
    }
    let pv: Vec<String> = result.pv.iter().map(ToString::to_string).collect();
    outln!("pv        {}", pv.join(" "));
    if let Some(value) = result.value {
        outln!("proven    {value} for {}", result.position.side_to_move());
    }
    if result.simulations == 0 {
        outln!(
            "speed     decided by exact values alone, without simulations (--no-tablebase searches)"
        );
        return Ok(());
    }
    outln!(
        "speed     {} simulations in {:.2} s: {:.0} sims/s ({} threads, {} tree nodes)",
        result.simulations,
        result.seconds,
        result.simulations_per_second(),
        result.threads,
        result.tree_nodes
    );
    Ok(())
}
