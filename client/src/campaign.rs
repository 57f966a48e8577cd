//! The default campaign of `pentagrid run`: self-play from the start position, analysis of the
//! positions the games reached, short studies of Monica's five and triple power, and a few
//! checkmate puzzles.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use pentago::{MID_MIN_STONES, MoveNotation, Opening, Player, Position, UctConfig};
use pentagrid_proto::{Client, Task};

use crate::book::show;
use crate::error::{ClientError, Result};
use crate::jobs::{JobsOutcome, JobsProgress, run_jobs};
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
        let check = |ok: bool, why: &str| {
            if ok {
                Ok(())
            } else {
                Err(ClientError::Invalid(why.into()))
            }
        };
        check(
            (1..=100_000).contains(&self.games),
            "--games must be from 1 to 100000",
        )?;
        check(
            (1..=1_000_000_000).contains(&self.playouts),
            "--playouts must be from 1 to 10^9",
        )?;
        check(self.depth <= 8, "--depth must be at most 8")?;
        check(self.puzzles <= 10_000, "--puzzles must be at most 10000")
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
    /// Wall-clock time of each step, in order (`self-play`, `analysis`, each study by its
    /// opening's name, `puzzles`).
    pub phases: Vec<(String, Duration)>,
}

impl CampaignReport {
    /// Records that the step `name` began at `started` and has just ended.
    fn timed(&mut self, name: &str, started: Instant) {
        let took = started.elapsed();
        tracing::info!(
            phase = name,
            seconds = took.as_secs_f64(),
            "campaign step done"
        );
        self.phases.push((name.to_owned(), took));
    }
}

/// Runs the campaign on `client`'s cluster.
pub async fn campaign(
    client: &Client,
    plan: &CampaignPlan,
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
    report.timed("self-play", started);
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
    report.analysis = run_jobs(client, &analyses, &mut |p| {
        progress(CampaignProgress::Analysis(p))
    })
    .await?;
    report.timed("analysis", started);
    if plan.studies {
        let study_plan = StudyPlan {
            budget: 12 * 5_000,
            depth: 1,
            positions: 12,
            playouts: 5_000,
            solve_stones: 20,
            games: 2,
            player: plan.selfplay.clone(),
            config: plan.config.clone(),
        };
        for opening in [Opening::MonicasFive, Opening::TriplePower] {
            let started = Instant::now();
            let mut tell = |p| progress(CampaignProgress::Study(opening, p));
            report
                .studies
                .push(study(client, opening, &study_plan, &mut tell).await?);
            report.timed(opening.name(), started);
        }
    }
    if plan.puzzles > 0 {
        let goal = Goal {
            count: plan.puzzles,
            max_moves: 5,
            min_moves: 0,
            min_stones: MID_MIN_STONES,
            stored_only: false,
            seed: 1,
            rounds: 10,
        };
        let mut tell = |p| progress(CampaignProgress::Puzzles(p, goal.count));
        let started = Instant::now();
        report.puzzles = Some(generate(client, &goal, &mut tell).await?);
        report.timed("puzzles", started);
    }
    Ok(report)
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
            let book = show(client, &position).await?;
            for row in book.games.iter().filter(|r| r.games > 0) {
                let notation: MoveNotation = row.r#move.parse().map_err(|e| unreadable(&e))?;
                let mv = position.resolve(notation).map_err(|e| unreadable(&e))?;
                next.push(position.play(mv).map_err(|e| unreadable(&e))?);
            }
        }
        frontier = next;
    }
    Ok(out)
}
