//! The subcommands, one file each.

mod analyze;
mod backup;
mod book;
mod canonical;
mod check_proof;
mod client;
mod cluster;
mod engines;
mod games;
mod gtp;
mod health;
mod judge;
mod match_control;
mod matchplay;
mod mate;
mod perft;
mod play;
mod playouts;
mod progress;
mod puzzles;
mod ratings;
mod record_ratings;
mod run;
mod selfplay;
mod serve;
mod show;
mod solitaire;
mod solve;
mod solve_cluster;
mod study;
mod tablebase;
mod target;
mod tournament;
mod tune;

use anyhow::Result;
use clap::Subcommand;

pub use cluster::tried_coordinator;

/// Every subcommand of `pentagrid`.
#[derive(Subcommand)]
pub enum Command {
    Show(show::ShowArgs),
    Play(play::PlayArgs),
    Canonical(canonical::CanonicalArgs),
    Perft(perft::PerftArgs),
    Playouts(playouts::PlayoutsArgs),
    Analyze(analyze::AnalyzeArgs),
    Selfplay(selfplay::SelfplayArgs),
    Match(Box<matchplay::MatchArgs>),
    Tournament(tournament::TournamentArgs),
    Tune(Box<tune::TuneArgs>),
    Ratings(ratings::RatingsArgs),
    Solve(solve::SolveArgs),
    Tablebase(tablebase::TablebaseArgs),
    Judge(judge::JudgeArgs),
    Mate(mate::MateArgs),
    CheckProof(check_proof::CheckProofArgs),
    Coordinator(cluster::CoordinatorArgs),
    Health(health::HealthArgs),
    Worker(cluster::WorkerArgs),
    Submit(client::SubmitArgs),
    Status(client::StatusArgs),
    Cancel(client::CancelArgs),
    Book(book::BookArgs),
    Puzzles(puzzles::PuzzlesArgs),
    Study(study::StudyArgs),
    Run(run::RunArgs),
    Serve(serve::ServeArgs),
    Solitaire(solitaire::SolitaireArgs),
    Gtp(gtp::GtpArgs),
    Games(games::GamesArgs),
    Backup(backup::BackupArgs),
    VerifyBackup(backup::VerifyBackupArgs),
    Restore(backup::RestoreArgs),
}

impl Command {
    /// Whether the command is a long-running cluster part that logs at info level by default.
    pub fn is_service(&self) -> bool {
        matches!(
            self,
            Command::Coordinator(_) | Command::Worker(_) | Command::Serve(_)
        )
    }

    /// Runs the subcommand.
    pub fn run(self) -> Result<()> {
        match self {
            Command::Show(args) => show::run(&args),
            Command::Play(args) => play::run(&args),
            Command::Canonical(args) => canonical::run(&args),
            Command::Perft(args) => perft::run(&args),
            Command::Playouts(args) => playouts::run(&args),
            Command::Analyze(args) => analyze::run(&args),
            Command::Selfplay(args) => selfplay::run(&args),
            Command::Match(args) => matchplay::run(&args),
            Command::Tournament(args) => tournament::run(&args),
            Command::Tune(args) => tune::run(&args),
            Command::Ratings(args) => ratings::run(&args),
            Command::Solve(args) => solve::run(&args),
            Command::Tablebase(args) => tablebase::run(&args),
            Command::Judge(args) => judge::run(&args),
            Command::Mate(args) => mate::run(&args),
            Command::CheckProof(args) => check_proof::run(&args),
            Command::Coordinator(args) => cluster::run_coordinator(&args),
            Command::Health(args) => health::run(&args),
            Command::Worker(args) => cluster::run_worker(&args),
            Command::Submit(args) => client::submit(&args),
            Command::Status(args) => client::status(&args),
            Command::Cancel(args) => client::cancel(&args),
            Command::Book(args) => book::run(&args),
            Command::Puzzles(args) => puzzles::run(&args),
            Command::Study(args) => study::run(&args),
            Command::Run(args) => run::run(&args),
            Command::Serve(args) => serve::run(&args),
            Command::Solitaire(args) => solitaire::run(&args),
            Command::Gtp(args) => gtp::run(&args),
            Command::Games(args) => games::run(&args),
            Command::Backup(args) => backup::backup(&args),
            Command::VerifyBackup(args) => backup::verify_backup(&args),
            Command::Restore(args) => backup::restore_backup(&args),
        }
    }
}

/// Most threads any `--threads` may ask for: far above any machine this runs on, far below what
/// makes the system refuse to start threads.
pub const MAX_THREADS: usize = 1024;

/// A rayon pool of `threads` threads (all cores when `None`).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        anyhow::ensure!(
            (1..=MAX_THREADS).contains(&threads),
            "--threads must be from 1 to {MAX_THREADS}, not {threads}"
        );
        builder = builder.num_threads(threads);
    }
    Ok(builder.build()?)
}
