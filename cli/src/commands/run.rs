//! `pentagrid run`: the whole cluster in one process — a coordinator on a loopback port with
//! its sled database, local workers, and a default campaign (self-play from the start position,
//! analysis of the positions the games reach, short studies of Monica's five and triple power,
//! a few checkmate puzzles), with progress and a summary.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use pentago::{Player, Position, UctConfig};
use pentagrid_client::book::BookTables;
use pentagrid_client::campaign::{CampaignPlan, CampaignProgress, CampaignReport, campaign};
use pentagrid_client::status::ClusterStatus;
use pentagrid_client::{book, jobs};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_embedded::EmbeddedCluster;
use pentagrid_web::{BookCacheSettings, ExactBoard};
use serde_json::json;

use super::book::print_book;
use super::cluster::{open_check, runtime, shutdown_signal};
use super::engines::EngineArgs;
use super::progress::Bars;
use super::puzzles::write_collection;
use super::serve::serve_explorer;
use super::tablebase::CoordinatorTable;
use crate::output::{errln, outln};

/// Run a campaign on this machine: coordinator, workers and jobs in one process.
#[derive(Args)]
pub struct RunArgs {
    /// Database directory (reused: tables accumulate over runs).
    #[arg(long, default_value = "pentagrid-data")]
    db: PathBuf,
    /// Open a database that lost data it had acknowledged (found by its integrity check): go on
    /// with what is left, log what was lost, and record the smaller state as the new normal.
    #[arg(long)]
    accept_data_loss: bool,
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
    /// Skip the short studies of Monica's five and triple power.
    #[arg(long)]
    no_studies: bool,
    /// Checkmate puzzles to generate (from the games, and random games if needed); the
    /// collection is written as puzzles.txt, .jsonl and .html in the database directory.
    #[arg(long, default_value_t = 3)]
    puzzles: u64,
    /// After the campaign, keep the cluster up and serve the web explorer on it (until Ctrl-C).
    #[arg(long)]
    serve: bool,
    /// Where the explorer listens with --serve (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080", requires = "serve")]
    serve_listen: String,
    /// Print the summary as one JSON object (the studies' pages are still written).
    #[arg(long, conflicts_with = "serve")]
    json: bool,
    // External engines the local workers run (for matches against the cluster while it
    // serves).
    #[command(flatten)]
    engines: EngineArgs,
    /// The coordinator's tablebase (its slices also give the studies' exact values, even
    /// with --no-tablebase).
    #[command(flatten)]
    table: CoordinatorTable,
}

impl RunArgs {
    fn plan(&self) -> CampaignPlan {
        CampaignPlan {
            games: self.games,
            selfplay: self.selfplay.clone(),
            playouts: self.playouts,
            config: self.config.clone(),
            depth: self.depth,
            studies: !self.no_studies,
            puzzles: self.puzzles,
        }
    }
}

/// Runs `pentagrid run`.
pub fn run(args: &RunArgs) -> Result<()> {
    let plan = args.plan();
    plan.validate()?;
    anyhow::ensure!(
        (1..=64).contains(&args.workers),
        "--workers must be from 1 to 64"
    );
    let engines = args.engines.settings()?;
    let tablebase = args.table.options.open()?;
    runtime()?.block_on(async {
        let settings = CoordinatorSettings {
            open_check: open_check(args.accept_data_loss),
            table: args.table.open()?,
            ..CoordinatorSettings::default()
        };
        let cluster =
            EmbeddedCluster::open_with_engines(&args.db, args.workers, settings, engines).await?;
        let client = cluster.client();
        errln!(
            "pentagrid run: coordinator on {}, {} worker(s) × {} threads, database {}",
            cluster.address,
            args.workers,
            cluster.threads,
            args.db.display()
        );
        let started = Instant::now();
        let before = jobs::status(&client).await?;
        let mut bars = Bars::default();
        let mut show = |update| match update {
            CampaignProgress::Selfplay(p) => bars.jobs("self-play", p),
            CampaignProgress::Analysis(p) => bars.jobs("analysis", p),
            CampaignProgress::Study(opening, p) => bars.study(opening.name(), 12, p),
            CampaignProgress::Puzzles(p, wanted) => bars.puzzles(wanted, p),
        };
        let outcome = tokio::select! {
            result = campaign(&client, &plan, &tablebase, &mut show) => result,
            _ = shutdown_signal() => {
                errln!("interrupted: stopping");
                Ok(CampaignReport::default())
            }
        };
        if let Ok(CampaignReport {
            puzzles: Some(round),
            ..
        }) = &outcome
        {
            bars.puzzles_done(round.ran_dry);
            errln!("{round}");
        }
        let after = jobs::status(&client).await?;
        let collection = write_collection(&client, &args.db).await?;
        let start_book = book::tables(&client, &Position::START).await?;
        let report = match outcome {
            Ok(report) => report,
            Err(error) => {
                cluster.stop().await?;
                return Err(error.into());
            }
        };
        let summary = Summary {
            before: &before,
            after: &after,
            seconds: started.elapsed().as_secs_f64(),
            report: &report,
        };
        let pages = write_studies(&report, &args.db)?;
        if args.json {
            outln!(
                "{}",
                summary.json(collection, &args.db, &start_book, &pages)
            );
        } else {
            summary.text()?;
            outln!(
                "  puzzles       {collection} in {}/puzzles.{{txt,jsonl,html}}",
                args.db.display()
            );
            print_book(&start_book)?;
            for (study, page) in report.studies.iter().zip(&pages) {
                outln!();
                super::study::print(study, 1)?;
                outln!("(the report with boards and charts: {})", page.display());
            }
        }
        let served = if args.serve {
            serve_explorer(
                client,
                &args.serve_listen,
                BookCacheSettings::default(),
                pentagrid_connections::ConnectionLimits::default(),
                ExactBoard::shipped().context("starting the analysis board")?,
            )
            .await
        } else {
            Ok(())
        };
        cluster.stop().await?;
        served
    })
}

/// What the campaign did: the status before and after it, its time and its report.
struct Summary<'a> {
    before: &'a ClusterStatus,
    after: &'a ClusterStatus,
    seconds: f64,
    report: &'a CampaignReport,
}

impl Summary<'_> {
    /// Playouts the run stored. Counts only grow; saturating keeps a restarted
    /// coordinator's smaller count usable.
    fn playouts(&self) -> u64 {
        self.after
            .stored
            .playouts
            .saturating_sub(self.before.stored.playouts)
    }

    /// The summary as one JSON object (stable field names): the counts of the text summary,
    /// each step's seconds, the puzzle round, the start position's tables and the studies.
    fn json(
        &self,
        puzzles: usize,
        db: &Path,
        start_book: &BookTables,
        pages: &[PathBuf],
    ) -> serde_json::Value {
        let (before, after) = (self.before, self.after);
        let steps: Vec<_> = self
            .report
            .phases
            .iter()
            .map(|(name, took)| json!({"step": name, "seconds": took.as_secs_f64()}))
            .collect();
        let studies: Vec<_> = self
            .report
            .studies
            .iter()
            .zip(pages)
            .map(|(study, page)| {
                let mut value = super::study::json(study);
                value["page"] = json!(page.display().to_string());
                value
            })
            .collect();
        let files = ["txt", "jsonl", "html"]
            .map(|ext| db.join(format!("puzzles.{ext}")).display().to_string());
        json!({
            "jobs_done": after.jobs.done.saturating_sub(before.jobs.done),
            "jobs_failed": after.jobs.failed.saturating_sub(before.jobs.failed),
            "games_stored": after.stored.games.saturating_sub(before.stored.games),
            "games_total": after.stored.games,
            "playouts": self.playouts(),
            "seconds": self.seconds,
            "playout_positions": after.stored.playout_positions,
            "game_positions": after.stored.game_positions,
            "steps": steps,
            "puzzle_round": self.report.puzzles.as_ref().map(super::puzzles::round_json),
            "puzzles": puzzles,
            "puzzle_files": files,
            "start": super::book::book_json(start_book),
            "studies": studies,
        })
    }

    /// The summary as text: jobs, games, playouts and the time each step took.
    fn text(&self) -> Result<()> {
        let (before, after, seconds) = (self.before, self.after, self.seconds);
        let playouts = self.playouts();
        outln!("summary");
        outln!(
            "  jobs done     {} ({} failed)",
            after.jobs.done.saturating_sub(before.jobs.done),
            after.jobs.failed.saturating_sub(before.jobs.failed)
        );
        outln!(
            "  games stored  {} (total {})",
            after.stored.games.saturating_sub(before.stored.games),
            after.stored.games
        );
        outln!(
            "  playouts      {playouts} analysed in {seconds:.1} s ({:.0}/s over the whole run, self-play included)",
            playouts as f64 / seconds
        );
        outln!(
            "  database      {} positions with playout tables, {} with game tables",
            after.stored.playout_positions,
            after.stored.game_positions
        );
        let phases: Vec<String> = self
            .report
            .phases
            .iter()
            .map(|(name, took)| format!("{name} {:.1} s", took.as_secs_f64()))
            .collect();
        outln!("  steps         {}", phases.join(", "));
        Ok(())
    }
}

/// Writes each opening study's HTML report beside the database; returns their paths, in the
/// studies' order.
fn write_studies(report: &CampaignReport, db: &Path) -> Result<Vec<PathBuf>> {
    report
        .studies
        .iter()
        .map(|study| {
            let page = db.join(format!("study-{}.html", study.opening.name()));
            std::fs::write(&page, pentagrid_render::study_html(study))
                .with_context(|| format!("writing {}", page.display()))?;
            Ok(page)
        })
        .collect()
}
