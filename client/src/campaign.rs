//! The default campaign of `pentagrid run`: self-play from the start position, analysis of the
//! positions the games reached, short studies of Monica's five and triple power, and a few
//! checkmate puzzles.

use std::cell::RefCell;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use pentago::{ExactOracle, MID_MIN_STONES, Opening, Player, Position, UctConfig};
use pentagrid_proto::{Client, Task};

use crate::book::tables;
use crate::error::{ClientError, Result};
use crate::jobs::{JobsOutcome, JobsProgress, run_jobs};
use crate::parameter::{Parameter, ParameterError, Problem, range};
use crate::puzzles::{Goal, PuzzleProgress, PuzzleRound, generate};
use crate::study::{StudyPlan, StudyProgress, StudyReport, study};

/// What a campaign does.
#[derive(Clone, Debug)]
pub struct CampaignPlan {
    /// Self-play games to play, 1 to 100000.
    pub games: u64,
    /// Player for self-play (both sides).
    pub selfplay: Player,
    /// Playouts per analysed position, 1 to 10^9.
    pub playouts: u64,
    /// Engine configuration for analyses.
    pub config: UctConfig,
    /// Analyse positions the games reach up to this many moves from the start (at most 8).
    pub depth: u32,
    /// Whether to run the short studies.
    pub studies: bool,
    /// Checkmate puzzles to generate (at most 10000; 0: none).
    pub puzzles: u64,
}

impl CampaignPlan {
    /// Checks the plan's numbers.
    pub fn validate(&self) -> Result<()> {
        let check = |ok: bool, parameter: Parameter, problem: Problem| {
            if ok {
                Ok(())
            } else {
                Err(ParameterError::new(parameter, problem).into())
            }
        };
        check(
            (1..=100_000).contains(&self.games),
            Parameter::Games,
            range(1, 100_000),
        )?;
        check(
            self.selfplay.engine().is_none(),
            Parameter::Selfplay,
            Problem::Rule("must be a built-in player: engines play only in matches".into()),
        )?;
        check(
            (1..=1_000_000_000).contains(&self.playouts),
            Parameter::Playouts,
            range(1, "10^9"),
        )?;
        check(
            self.depth <= 8,
            Parameter::Depth,
            Problem::AtMost("8".into()),
        )?;
        check(
            self.puzzles <= 10_000,
            Parameter::Puzzles,
            Problem::AtMost("10000".into()),
        )
    }
}

/// A campaign's step and how far it has come.
#[derive(Clone, Copy, Debug)]
pub enum CampaignProgress {
    /// Self-play games.
    Selfplay(JobsProgress),
    /// Analyses of the reached positions.
    Analysis(JobsProgress),
    /// A study.
    Study(Opening, StudyProgress),
    /// Puzzle generation, toward the wanted count.
    Puzzles(PuzzleProgress, u64),
}

/// What a campaign found.
#[derive(Clone, Debug, Default)]
pub struct CampaignReport {
    /// How the campaign's own self-play jobs ended.
    pub selfplay: JobsOutcome,
    /// How its own analysis jobs ended.
    pub analysis: JobsOutcome,
    /// The studies run.
    pub studies: Vec<StudyReport>,
    /// The puzzle round, if puzzles were asked for.
    pub puzzles: Option<PuzzleRound>,
    /// Wall-clock time of each step (`self-play`, `analysis`, each study by its opening's
    /// name, `puzzles`); the puzzles run beside the analysis and the studies, so their times
    /// overlap.
    pub phases: Vec<(String, Duration)>,
}

/// Runs the campaign on `client`'s cluster. Puzzle generation mines the self-play games, so it
/// starts once they are stored and then runs beside the analyses and the studies: its mining
/// keeps the coordinator busy while the workers analyse, and its verify jobs fill the workers'
/// gaps. The studies' exact values come from `oracle` (the tablebase) first.
pub async fn campaign<O: ExactOracle>(
    client: &Client,
    plan: &CampaignPlan,
    oracle: &O,
    progress: &mut dyn FnMut(CampaignProgress),
) -> Result<CampaignReport> {
    plan.validate()?;
    let started = Instant::now();
    let selfplay: Vec<Task> = (0..plan.games)
        .map(|_| Task::Selfplay {
            start: Position::START,
            black: plan.selfplay.clone(),
            white: plan.selfplay.clone(),
        })
        .collect();
    let mut report = CampaignReport {
        selfplay: run_jobs(client, &selfplay, &mut |p| {
            progress(CampaignProgress::Selfplay(p))
        })
        .await?,
        ..CampaignReport::default()
    };
    report.phases.push(timed("self-play", started));
    // Both branches tell progress; they take turns on one task, never at once.
    let progress = RefCell::new(progress);
    let tell = |update| (progress.borrow_mut())(update);
    let (studied, puzzles) = tokio::join!(
        analyse_and_study(client, plan, oracle, &tell),
        puzzles(client, plan, &tell)
    );
    let (analysis, studies, phases) = studied?;
    report.analysis = analysis;
    report.studies = studies;
    report.phases.extend(phases);
    if let Some((round, took)) = puzzles? {
        report.puzzles = Some(round);
        report.phases.push(("puzzles".to_owned(), took));
    }
    Ok(report)
}

/// The analyses of the positions the games reached, then the studies; with each step's time.
async fn analyse_and_study<O: ExactOracle>(
    client: &Client,
    plan: &CampaignPlan,
    oracle: &O,
    tell: &dyn Fn(CampaignProgress),
) -> Result<(JobsOutcome, Vec<StudyReport>, Vec<(String, Duration)>)> {
    let mut phases = Vec::new();
    let started = Instant::now();
    let analyses: Vec<Task> = reached_positions(client, plan.depth)
        .await?
        .into_iter()
        .map(|position| Task::Analyse {
            position,
            config: plan.config.clone(),
            playouts: plan.playouts,
        })
        .collect();
    let analysis = run_jobs(client, &analyses, &mut |p| {
        tell(CampaignProgress::Analysis(p))
    })
    .await?;
    phases.push(timed("analysis", started));
    let mut studies = Vec::new();
    if plan.studies {
        let study_plan = StudyPlan {
            budget: 12 * 5_000,
            depth: 1,
            positions: 12,
            playouts: 5_000,
            solve_stones: 20,
            // A campaign's studies are short: no deep solves (at depth 1 they stay far below
            // 16 stones anyway).
            deep_from: 0,
            games: 2,
            player: plan.selfplay.clone(),
            config: plan.config.clone(),
        };
        for opening in [Opening::MonicasFive, Opening::TriplePower] {
            let started = Instant::now();
            let mut each = |p| tell(CampaignProgress::Study(opening, p));
            studies.push(study(client, opening, &study_plan, oracle, &mut each).await?);
            phases.push(timed(opening.name(), started));
        }
    }
    Ok((analysis, studies, phases))
}

/// The plan's puzzles, if it asks for any, with the time they took.
async fn puzzles(
    client: &Client,
    plan: &CampaignPlan,
    tell: &dyn Fn(CampaignProgress),
) -> Result<Option<(PuzzleRound, Duration)>> {
    if plan.puzzles == 0 {
        return Ok(None);
    }
    let goal = Goal {
        count: plan.puzzles,
        max_moves: 5,
        min_moves: 0,
        min_stones: MID_MIN_STONES,
        stored_only: false,
        seed: 1,
        rounds: 10,
    };
    let started = Instant::now();
    let mut each = |p| tell(CampaignProgress::Puzzles(p, goal.count));
    let round = generate(client, &goal, &mut each).await?;
    Ok(Some((round, timed("puzzles", started).1)))
}

/// The step `name` that began at `started` and has just ended, logged.
fn timed(name: &str, started: Instant) -> (String, Duration) {
    let took = started.elapsed();
    tracing::info!(
        phase = name,
        seconds = took.as_secs_f64(),
        "campaign step done"
    );
    (name.to_owned(), took)
}

/// Positions within `depth` moves of the start that stored games went through (by canonical
/// form, each once).
async fn reached_positions(client: &Client, depth: u32) -> Result<Vec<Position>> {
    let unreadable = |e: &dyn std::fmt::Display| ClientError::Unreadable(e.to_string());
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
            let book = tables(client, &position).await?;
            for row in book.games.iter().filter(|r| r.games > 0) {
                next.push(position.play(row.mv).map_err(|e| unreadable(&e))?);
            }
        }
        frontier = next;
    }
    Ok(out)
}
