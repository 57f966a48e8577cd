//! An opening study: grow the book from the opening's start positions, play self-play games
//! from them, and gather the key tables, white's strongest defences with black's plan after
//! each, and how often the aimed five is completed.

use pentago::{Color, MoveNotation, Opening, Player, Position, Status, UctConfig, Value};
use pentagrid_proto::{Client, Task, v2};

use crate::book::{proven, show, win_rate};
use crate::error::{ClientError, Result};
use crate::jobs::{JobsProgress, poll, run_jobs};

/// How much work a study does.
#[derive(Clone, Debug)]
pub struct StudyPlan {
    /// Playouts the book build may spend.
    pub budget: u64,
    /// Plies below the start positions that get analysed.
    pub depth: u32,
    /// Most positions to analyse.
    pub positions: u64,
    /// Playouts per analysed position.
    pub playouts: u64,
    /// Positions with at least this many stones are solved exactly (0: never).
    pub solve_stones: u32,
    /// Self-play games from the start positions.
    pub games: u64,
    /// Player of the self-play games (both sides).
    pub player: Player,
    /// Engine configuration of the analyses.
    pub config: UctConfig,
}

impl StudyPlan {
    /// Checks the plan's numbers.
    pub fn validate(&self) -> Result<()> {
        let check = |ok: bool, why: &str| {
            if ok {
                Ok(())
            } else {
                Err(ClientError::Invalid(why.into()))
            }
        };
        check(self.budget >= 1, "--budget must be at least 1")?;
        check(self.depth <= 30, "--depth must be at most 30")?;
        check(self.positions >= 1, "--positions must be at least 1")?;
        check(
            (1..=1_000_000_000).contains(&self.playouts),
            "--playouts must be from 1 to 10^9",
        )?;
        check(self.solve_stones <= 36, "--solve-stones must be at most 36")?;
        check(self.games <= 100_000, "--games must be at most 100000")
    }
}

/// White's reply at the main start position with black's best line after it.
#[derive(Clone, Debug)]
pub struct Defence {
    /// White's move.
    pub mv: String,
    /// White's win rate with it.
    pub win_rate: f64,
    /// Playouts through it.
    pub playouts: u64,
    /// The book's best line after it.
    pub line: Vec<String>,
}

/// What a study found.
#[derive(Clone, Debug)]
pub struct StudyReport {
    /// The opening.
    pub opening: Opening,
    /// The finished book build.
    pub build: v2::BuildStatusResponse,
    /// The most explored start positions' tables (up to three).
    pub key_positions: Vec<v2::BookShowResponse>,
    /// White's three strongest defences at the first key position.
    pub defences: Vec<Defence>,
    /// Self-play games played.
    pub games: u64,
    /// Of those, won by black.
    pub black_wins: u64,
    /// Of black's wins, those completing the aimed five.
    pub aim_completed: u64,
    /// Won by white.
    pub white_wins: u64,
    /// Drawn.
    pub draws: u64,
}

/// How far a study has come.
#[derive(Clone, Copy, Debug)]
pub enum StudyProgress {
    /// The book build: positions queued (of the plan's most), playouts, solves.
    Build {
        /// Positions queued.
        positions: u64,
        /// Playouts queued.
        playouts: u64,
        /// Positions solved exactly.
        solved: u64,
    },
    /// The self-play games.
    Games(JobsProgress),
}

/// Runs a study on `client`'s cluster, telling `progress` how far it has come.
pub async fn study(
    client: &Client,
    opening: Opening,
    plan: &StudyPlan,
    progress: &mut dyn FnMut(StudyProgress),
) -> Result<StudyReport> {
    plan.validate()?;
    let roots = opening.start_positions();
    let build_id = client
        .clone()
        .start_build(v2::StartBuildRequest {
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
    let build = poll(async || {
        let status = client
            .clone()
            .build_status(v2::BuildStatusRequest { build_id })
            .await?
            .into_inner();
        progress(StudyProgress::Build {
            positions: status.positions,
            playouts: status.playouts,
            solved: status.solved,
        });
        Ok((status.state() == v2::BuildState::Done).then_some(status))
    })
    .await?;

    // Self-play from the start positions, round robin.
    let tasks: Vec<Task> = (0..plan.games as usize)
        .map(|i| Task::Selfplay {
            start: roots[i % roots.len()],
            black: plan.player.clone(),
            white: plan.player.clone(),
        })
        .collect();
    let job_ids = run_jobs(client, &tasks, &mut |p| progress(StudyProgress::Games(p))).await?;
    let games = client
        .clone()
        .get_games(v2::GetGamesRequest { job_ids })
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
            Status::Won(Color::Black) => report.black_wins += 1,
            Status::Won(Color::White) => report.white_wins += 1,
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

fn unreadable(what: impl std::fmt::Display) -> ClientError {
    ClientError::Unreadable(what.to_string())
}

fn replay(game: &v2::GameRecord) -> Result<Position> {
    let mut position: Position = game.start.parse().map_err(unreadable)?;
    for text in &game.moves {
        let mv = text.parse().map_err(unreadable)?;
        position = position.play(mv).map_err(unreadable)?;
    }
    Ok(position)
}

/// The best row of a table for its mover: a proven win first, then the most played move (UCT
/// spends its playouts on the moves it rates best).
fn best_row(rows: &[v2::BookRow]) -> Option<&v2::BookRow> {
    rows.iter()
        .find(|r| proven(r.proven) == Some(Value::Win))
        .or_else(|| rows.iter().filter(|r| r.games > 0).max_by_key(|r| r.games))
}

fn play_text(position: &Position, text: &str) -> Result<Position> {
    let notation: MoveNotation = text.parse().map_err(unreadable)?;
    let mv = position.resolve(notation).map_err(unreadable)?;
    position.play(mv).map_err(unreadable)
}

/// White's three strongest replies at the main start position, each followed by the book's
/// best line (black's plan) down to `depth` plies.
async fn defences(
    client: &Client,
    main: &v2::BookShowResponse,
    depth: u32,
) -> Result<Vec<Defence>> {
    let start: Position = main.position.parse().map_err(unreadable)?;
    // Rows come most played first: UCT's strongest replies.
    let candidates = main.playouts.iter().filter(|r| r.games > 0);
    let mut out = Vec::new();
    for row in candidates.take(3) {
        let mut position = play_text(&start, &row.r#move)?;
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
            position = play_text(&position, &best.r#move)?;
        }
        out.push(Defence {
            mv: row.r#move.clone(),
            win_rate: win_rate(row),
            playouts: row.games,
            line,
        });
    }
    Ok(out)
}
