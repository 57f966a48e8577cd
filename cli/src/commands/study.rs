//! `pentagrid study`: an opening study — grow the book from the opening's start positions,
//! play self-play games from them, and report the key tables, black's plan, white's best
//! defences and how often the aimed five is completed.

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pentago::{MoveNotation, Opening, Player, Position, Status, UctConfig};
use pentagrid_proto::{Client, Task, v1};
use serde_json::json;

use super::book::{print_book, show, win_rate};
use super::client::run_jobs;
use super::embedded::Target;

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
    #[arg(long, default_value_t = 26)]
    pub solve_stones: u32,
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

pub fn run(args: &StudyArgs) -> Result<()> {
    validate(&args.plan)?;
    let report = args
        .target
        .run(async |client| study(client, args.name, &args.plan, true).await)?;
    if args.json {
        println!("{}", report.json());
    } else {
        report.print();
    }
    Ok(())
}

/// Checks a plan's numbers.
pub fn validate(plan: &StudyPlan) -> Result<()> {
    ensure!(plan.budget >= 1, "--budget must be at least 1");
    ensure!(plan.depth <= 30, "--depth must be at most 30");
    ensure!(plan.positions >= 1, "--positions must be at least 1");
    ensure!(
        (1..=1_000_000_000).contains(&plan.playouts),
        "--playouts must be from 1 to 10^9"
    );
    ensure!(plan.solve_stones <= 36, "--solve-stones must be at most 36");
    ensure!(plan.games <= 100_000, "--games must be at most 100000");
    Ok(())
}

/// What a study found.
pub struct StudyReport {
    opening: Opening,
    build: v1::BuildStatusResponse,
    key_positions: Vec<v1::BookShowResponse>,
    defences: Vec<(String, f64, u64, Vec<String>)>,
    games: u64,
    black_wins: u64,
    aim_completed: u64,
    white_wins: u64,
    draws: u64,
}

/// Runs a study on `client`'s cluster.
pub async fn study(
    client: &Client,
    opening: Opening,
    plan: &StudyPlan,
    progress: bool,
) -> Result<StudyReport> {
    let roots = opening.start_positions();
    let build_id = client
        .clone()
        .start_build(v1::StartBuildRequest {
            roots: roots.iter().map(ToString::to_string).collect(),
            depth: plan.depth,
            max_positions: plan.positions,
            budget: plan.budget,
            playouts_per_position: plan.playouts,
            config: plan.config.to_string(),
            solve_stones: plan.solve_stones,
        })
        .await?
        .into_inner()
        .build_id;
    let bar = if progress {
        ProgressBar::new(plan.positions).with_style(
            ProgressStyle::with_template(&format!(
                "{:>14} [{{bar:40}}] {{pos}}/{{len}} positions {{elapsed}} {{msg}}",
                opening.name()
            ))
            .expect("valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    let build = loop {
        let status = client
            .clone()
            .build_status(v1::BuildStatusRequest { build_id })
            .await?
            .into_inner();
        bar.set_position(status.positions.min(plan.positions));
        bar.set_message(format!(
            "{} playouts, {} solved",
            status.playouts, status.solved
        ));
        if status.state == "done" {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    bar.finish();

    // Self-play from the start positions, round robin.
    let tasks: Vec<Task> = (0..plan.games as usize)
        .map(|i| Task::Selfplay {
            start: roots[i % roots.len()],
            black: plan.player.clone(),
            white: plan.player.clone(),
        })
        .collect();
    let job_ids = run_jobs(client, "self-play", &tasks, progress).await?;
    let games = client
        .clone()
        .get_games(v1::GetGamesRequest { job_ids })
        .await?
        .into_inner()
        .games;

    let mut report = StudyReport {
        opening,
        build,
        key_positions: Vec::new(),
        defences: Vec::new(),
        games: games.len() as u64,
        black_wins: 0,
        aim_completed: 0,
        white_wins: 0,
        draws: 0,
    };
    for game in &games {
        let end = replay(game)?;
        match end.status() {
            Status::Won(pentago::Color::Black) => report.black_wins += 1,
            Status::Won(pentago::Color::White) => report.white_wins += 1,
            _ => report.draws += 1,
        }
        report.aim_completed += u64::from(opening.aim_completed(&end));
    }

    // Key positions: the start positions the book explored most.
    let mut tables = Vec::new();
    for root in &roots {
        let reply = show(client, root).await?;
        let games: u64 = reply.playouts.iter().map(|r| r.games).sum();
        tables.push((games, reply));
    }
    tables.sort_by_key(|t| std::cmp::Reverse(t.0));
    report.key_positions = tables.into_iter().take(3).map(|(_, t)| t).collect();
    if let Some(main) = report.key_positions.first() {
        report.defences = defences(client, main, plan.depth).await?;
    }
    Ok(report)
}

fn replay(game: &v1::GameRecord) -> Result<Position> {
    let mut position: Position = game.start.parse()?;
    for text in &game.moves {
        position = position.play(text.parse()?)?;
    }
    Ok(position)
}

/// The best row of a table for its mover: a proven win first, then the most played move (UCT
/// spends its playouts on the moves it rates best).
fn best_row(rows: &[v1::BookRow]) -> Option<&v1::BookRow> {
    rows.iter()
        .find(|r| r.proven == "win")
        .or_else(|| rows.iter().filter(|r| r.games > 0).max_by_key(|r| r.games))
}

/// White's three strongest replies at the main start position, each followed by the book's
/// best line (black's plan) down to `depth` plies.
async fn defences(
    client: &Client,
    main: &v1::BookShowResponse,
    depth: u32,
) -> Result<Vec<(String, f64, u64, Vec<String>)>> {
    let start: Position = main.position.parse()?;
    // Rows come most played first: UCT's strongest replies.
    let candidates = main.playouts.iter().filter(|r| r.games > 0);
    let mut out = Vec::new();
    for row in candidates.take(3) {
        let mut position = start.play(start.resolve(row.r#move.parse::<MoveNotation>()?)?)?;
        let mut line = Vec::new();
        for _ in 1..depth.max(2) {
            if position.is_over() {
                break;
            }
            let reply = show(client, &position).await?;
            let Some(best) = best_row(&reply.playouts) else {
                break;
            };
            line.push(best.r#move.clone());
            let mv = position
                .resolve(best.r#move.parse::<MoveNotation>()?)
                .context("a book move")?;
            position = position.play(mv)?;
        }
        out.push((row.r#move.clone(), win_rate(row), row.games, line));
    }
    Ok(out)
}

impl StudyReport {
    /// The report for people; `key_positions` limits the tables shown.
    pub fn print(&self) {
        self.print_with(usize::MAX);
    }

    /// The report with at most `key_positions` tables.
    pub fn print_with(&self, key_positions: usize) {
        let b = &self.build;
        println!("== {} study", self.opening.title());
        println!(
            "book      {} start positions, {} positions analysed ({} solved exactly), {} playouts, depth {}",
            b.roots.len(),
            b.positions,
            b.solved,
            b.playouts,
            b.depth
        );
        for (index, table) in self.key_positions.iter().take(key_positions).enumerate() {
            println!(
                "\nkey position {} (white to move after black's second stone)",
                index + 1
            );
            print_book(table);
        }
        if !self.defences.is_empty() {
            println!(
                "\nwhite's strongest defences at key position 1, with black's best plan after each:"
            );
            for (mv, rate, games, line) in &self.defences {
                println!(
                    "  {mv:<8} white scores {:>5.1}% over {games} playouts; then {}",
                    100.0 * rate,
                    if line.is_empty() {
                        "(no book line)".to_owned()
                    } else {
                        line.join(" ")
                    }
                );
            }
        }
        println!(
            "\nself-play {} games from the start positions: black won {} (completing the aimed five in {}), white {}, drawn {}",
            self.games, self.black_wins, self.aim_completed, self.white_wins, self.draws
        );
    }

    /// The report as JSON.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        let b = &self.build;
        json!({
            "opening": self.opening.name(),
            "start_positions": b.roots.len(), "positions": b.positions, "solved": b.solved,
            "playouts": b.playouts, "depth": b.depth,
            "key_positions": self.key_positions.iter().map(super::book::book_json).collect::<Vec<_>>(),
            "defences": self.defences.iter().map(|(mv, rate, games, line)| json!({
                "move": mv, "white_win_rate": rate, "playouts": games, "black_plan": line,
            })).collect::<Vec<_>>(),
            "games": self.games, "black_wins": self.black_wins, "aim_completed": self.aim_completed,
            "white_wins": self.white_wins, "draws": self.draws,
        })
    }
}
