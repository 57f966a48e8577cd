//! An opening study: grow the book from the opening's start positions, play self-play games
//! from them, and gather the key tables with their exact values, the mover's strongest moves
//! at the main key position (those that hold the exact value first) with the best plan after
//! each, and how often the aimed five is completed.

use pentago::{Color, ExactOracle, Move, Opening, Player, Position, Status, UctConfig, Value};
use pentagrid_model::limits::MAX_BOOK_ROWS;
use pentagrid_proto::{Client, Task, v2};

use crate::book::{BookRow, BookTables, tables, win_rate, win_rate_interval};
use crate::error::{ClientError, Result};
use crate::jobs::{JobsProgress, poll, run_jobs};
use crate::judge::exact;
use crate::parameter::{Parameter, ParameterError, Problem, range};
pub use crate::study_exact::KeyTruth;
use crate::study_exact::{key_values, ranked_moves};

pub use crate::study_exact::{KEY_POSITION_BUDGET, KeyValue, MIN_EXACT_STONES, exact_value};

/// A stored self-play game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfplayGame {
    /// The job that played it.
    pub job_id: u64,
    /// Where it started.
    pub start: Position,
    /// Its moves, in order.
    pub moves: Vec<Move>,
    /// How it ended.
    pub result: Status,
    /// Black's player (its text form).
    pub black: String,
    /// White's player.
    pub white: String,
}

impl SelfplayGame {
    fn of_wire(game: &v2::GameRecord) -> Result<SelfplayGame> {
        Ok(SelfplayGame {
            job_id: game.job_id,
            start: game.start.parse().map_err(unreadable)?,
            moves: game
                .moves
                .iter()
                .map(|text| text.parse().map_err(unreadable))
                .collect::<Result<_>>()?,
            result: game.result.parse().map_err(unreadable)?,
            black: game.black.clone(),
            white: game.white.clone(),
        })
    }

    /// The position the game ended in; [`ClientError::Unreadable`] when its moves do not
    /// replay from its start.
    pub fn end(&self) -> Result<Position> {
        let mut position = self.start;
        for &mv in &self.moves {
            position = position.play(mv).map_err(unreadable)?;
        }
        Ok(position)
    }
}

/// The stored self-play games of `job_ids` (ids without a game skipped), read page by page:
/// at most [`MAX_BOOK_ROWS`] ids per call, each answered in pages the coordinator sizes.
pub async fn games(client: &Client, job_ids: &[u64]) -> Result<Vec<SelfplayGame>> {
    games_in_pages(client, job_ids, 0).await
}

/// [`games`] with pages of at most `page_size` ids (0: the coordinator's default).
pub async fn games_in_pages(
    client: &Client,
    job_ids: &[u64],
    page_size: u32,
) -> Result<Vec<SelfplayGame>> {
    let mut games = Vec::with_capacity(job_ids.len());
    for chunk in job_ids.chunks(MAX_BOOK_ROWS) {
        let mut offset = 0;
        loop {
            let request = v2::GetGamesRequest {
                job_ids: chunk.to_vec(),
                offset,
                page_size,
            };
            let page = client.clone().get_games(request).await?.into_inner();
            for game in &page.games {
                games.push(SelfplayGame::of_wire(game)?);
            }
            if page.next_offset == 0 {
                break;
            }
            offset = page.next_offset;
        }
    }
    Ok(games)
}

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
    /// Book positions from this many stones up to 17 get a cluster deep solve (0: never).
    pub deep_from: u32,
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
        let check = |ok: bool, parameter: Parameter, problem: Problem| {
            if ok {
                Ok(())
            } else {
                Err(ParameterError::new(parameter, problem).into())
            }
        };
        let at_least = |low: &str| Problem::AtLeast(low.into());
        let at_most = |high: &str| Problem::AtMost(high.into());
        check(self.budget >= 1, Parameter::Budget, at_least("1"))?;
        check(self.depth <= 30, Parameter::Depth, at_most("30"))?;
        check(self.positions >= 1, Parameter::Positions, at_least("1"))?;
        check(
            (1..=1_000_000_000).contains(&self.playouts),
            Parameter::Playouts,
            range(1, "10^9"),
        )?;
        check(
            self.solve_stones <= 36,
            Parameter::SolveStones,
            at_most("36"),
        )?;
        check(
            self.deep_from == 0 || (10..=17).contains(&self.deep_from),
            Parameter::DeepFrom,
            Problem::Rule("must be off or from 10 to 17".into()),
        )?;
        check(self.games <= 100_000, Parameter::Games, at_most("100000"))
    }
}

/// A move of the side to move at the main key position, with the best line after it.
#[derive(Clone, Debug)]
pub struct Defence {
    /// The move.
    pub mv: String,
    /// The mover's win rate with it (0 without playouts).
    pub win_rate: f64,
    /// The 95% interval of that win rate.
    pub interval: (f64, f64),
    /// Playouts through it (the win rate's sample size; 0 for a move that holds the exact
    /// value but that the book never tried).
    pub playouts: u64,
    /// Whether its interval lies wholly below the best defence's: `false` for the best one and
    /// for every defence the samples cannot tell apart from it.
    pub separable: bool,
    /// The exact value for the mover (from the tablebase, else the book's proof), when known.
    pub exact: Option<Value>,
    /// The book's best line after it.
    pub line: Vec<String>,
}

/// A finished book build, as a study reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildSummary {
    /// The build's id.
    pub id: u64,
    /// The positions it grew the book from.
    pub roots: Vec<Position>,
    /// Plies below the roots it analysed.
    pub depth: u32,
    /// Positions analysed.
    pub positions: u64,
    /// Of them solved exactly.
    pub solved: u64,
    /// Playouts spent.
    pub playouts: u64,
    /// Deep solves it started (or joined).
    pub deep_started: u64,
    /// Of those, the ones that finished.
    pub deep_finished: u64,
}

impl BuildSummary {
    fn of_wire(status: &v2::BuildStatusResponse) -> Result<BuildSummary> {
        Ok(BuildSummary {
            id: status.build_id,
            roots: status
                .roots
                .iter()
                .map(|text| text.parse().map_err(unreadable))
                .collect::<Result<_>>()?,
            depth: status.depth,
            positions: status.positions,
            solved: status.solved,
            playouts: status.playouts,
            deep_started: status.deep_started,
            deep_finished: status.deep_finished,
        })
    }
}

/// What a study found.
#[derive(Clone, Debug)]
pub struct StudyReport {
    /// The opening.
    pub opening: Opening,
    /// The finished book build.
    pub build: BuildSummary,
    /// The most explored start positions' tables (up to three).
    pub key_positions: Vec<BookTables>,
    /// The key positions' exact values, in their order.
    pub key_values: Vec<KeyValue>,
    /// The truth at the first key position beside its statistics, where exact values are
    /// known.
    pub truth: Option<KeyTruth>,
    /// The mover's three strongest moves at the first key position: by exact value first
    /// (the moves that hold), then by playouts.
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
        /// Deep solves started and finished.
        deep: (u64, u64),
    },
    /// The self-play games.
    Games(JobsProgress),
    /// Analyses of positions on the defences' lines that the book build did not reach.
    Lines(JobsProgress),
}

/// Runs a study on `client`'s cluster, telling `progress` how far it has come; exact values
/// come from `oracle` (the tablebase) first.
pub async fn study<O: ExactOracle>(
    client: &Client,
    opening: Opening,
    plan: &StudyPlan,
    oracle: &O,
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
            deep_from: plan.deep_from,
            deep_window: 0,
            deep_leaf_stones: 0,
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
            deep: (status.deep_started, status.deep_finished),
        });
        Ok((status.state() == v2::BuildState::Done).then_some(status))
    })
    .await?;
    let build = BuildSummary::of_wire(&build)?;

    // Self-play from the start positions, round robin.
    let tasks: Vec<Task> = (0..plan.games as usize)
        .map(|i| Task::Selfplay {
            start: roots[i % roots.len()],
            black: plan.player.clone(),
            white: plan.player.clone(),
        })
        .collect();
    let job_ids = run_jobs(client, &tasks, &mut |p| progress(StudyProgress::Games(p)))
        .await?
        .job_ids;
    let games = games(client, &job_ids).await?;

    let mut report = StudyReport {
        opening,
        build,
        key_positions: Vec::new(),
        key_values: Vec::new(),
        truth: None,
        defences: Vec::new(),
        games: games.len() as u64,
        black_wins: 0,
        aim_completed: 0,
        white_wins: 0,
        draws: 0,
    };
    for game in &games {
        let end = game.end()?;
        match end.status() {
            Status::Won(Color::Black) => report.black_wins += 1,
            Status::Won(Color::White) => report.white_wins += 1,
            _ => report.draws += 1,
        }
        report.aim_completed += u64::from(opening.aim_completed(&end));
    }

    // Key positions: the start positions the book explored most.
    let mut explored = Vec::new();
    for root in &roots {
        let reply = tables(client, root).await?;
        let games: u64 = reply.playouts.iter().map(|r| r.games).sum();
        explored.push((games, reply));
    }
    explored.sort_by_key(|t| std::cmp::Reverse(t.0));
    report.key_positions = explored.into_iter().take(3).map(|(_, t)| t).collect();
    report.key_values = key_values(oracle, &report.key_positions, KEY_POSITION_BUDGET).await?;
    if let Some(main) = report.key_positions.first() {
        let main = main.clone();
        report.truth = KeyTruth::of(oracle, &main)?;
        report.defences = defences(client, &main, plan, oracle, progress).await?;
    }
    Ok(report)
}

fn unreadable(what: impl std::fmt::Display) -> ClientError {
    ClientError::Unreadable(what.to_string())
}

/// The best row of a table for its mover: a proven win first, then the most played move (UCT
/// spends its playouts on the moves it rates best).
fn best_row(rows: &[BookRow]) -> Option<&BookRow> {
    rows.iter()
        .find(|r| r.proven == Some(Value::Win))
        .or_else(|| rows.iter().filter(|r| r.games > 0).max_by_key(|r| r.games))
}

/// The mover's three strongest moves at the main key position (those that hold the exact
/// value first, then the most played), each followed by the book's best line down to `depth`
/// plies. A position on such a line that the book build did not reach is analysed now, so
/// that every listed move has its line.
async fn defences<O: ExactOracle>(
    client: &Client,
    main: &BookTables,
    plan: &StudyPlan,
    oracle: &O,
    progress: &mut dyn FnMut(StudyProgress),
) -> Result<Vec<Defence>> {
    let start = main.position;
    let exact = exact(oracle, &start)?;
    let candidates: Vec<(Move, Option<BookRow>, Option<Value>)> =
        ranked_moves(main, exact.as_ref())
            .into_iter()
            .take(3)
            .map(|(mv, row, value)| (mv, row.cloned(), value))
            .collect();
    let mut out = Vec::new();
    for (mv, row, value) in &candidates {
        let mut position = start.play(*mv).map_err(unreadable)?;
        let mut line = Vec::new();
        for _ in 1..plan.depth.max(2) {
            if position.is_over() {
                break;
            }
            let Some(best) = best_move(client, &position, plan, progress).await? else {
                break;
            };
            position = position.play(best).map_err(unreadable)?;
            line.push(best.to_string());
        }
        out.push(Defence {
            mv: mv.to_string(),
            win_rate: row.as_ref().map_or(0.0, win_rate),
            interval: row
                .as_ref()
                .and_then(win_rate_interval)
                .unwrap_or((0.0, 1.0)),
            playouts: row.as_ref().map_or(0, |r| r.games),
            separable: false,
            exact: *value,
            line,
        });
    }
    mark_separable(&mut out);
    Ok(out)
}

/// The book's best move at `position`, analysing the position first when the book has no
/// playout table for it.
async fn best_move(
    client: &Client,
    position: &Position,
    plan: &StudyPlan,
    progress: &mut dyn FnMut(StudyProgress),
) -> Result<Option<Move>> {
    let mut reply = tables(client, position).await?;
    // Table values list proven moves without playouts: only played rows count as analysed.
    if reply.playouts.iter().all(|row| row.games == 0) {
        let task = Task::Analyse {
            position: *position,
            config: plan.config.clone(),
            playouts: plan.playouts,
        };
        run_jobs(client, &[task], &mut |p| progress(StudyProgress::Lines(p))).await?;
        reply = tables(client, position).await?;
    }
    Ok(best_row(&reply.playouts).map(|row| row.mv))
}

/// Marks the defences whose interval lies wholly below the best one's.
fn mark_separable(defences: &mut [Defence]) {
    let rates: Vec<_> = defences.iter().map(|d| (d.win_rate, d.interval)).collect();
    for (defence, separable) in defences.iter_mut().zip(separable_from_best(&rates)) {
        defence.separable = separable;
    }
}

/// For each `(win rate, 95% interval)`, whether its interval lies wholly below the lower end of
/// the best rate's interval: `false` for the best and for every rate the samples cannot tell
/// apart from it. The one rule of study reports, text and HTML alike.
pub fn separable_from_best(rates: &[(f64, (f64, f64))]) -> Vec<bool> {
    let best_low = rates
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(0.0, |(_, (low, _))| *low);
    rates
        .iter()
        .map(|(_, (_, high))| *high < best_low)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defence(win_rate: f64, interval: (f64, f64)) -> Defence {
        Defence {
            mv: String::new(),
            win_rate,
            interval,
            playouts: 100,
            separable: true,
            exact: None,
            line: Vec::new(),
        }
    }

    #[test]
    fn only_defences_clearly_below_the_best_are_separable() {
        let mut defences = vec![
            defence(0.50, (0.45, 0.55)),
            defence(0.47, (0.42, 0.52)),
            defence(0.30, (0.25, 0.35)),
        ];
        mark_separable(&mut defences);
        let marks: Vec<bool> = defences.iter().map(|d| d.separable).collect();
        assert_eq!(marks, vec![false, false, true]);
    }
}
