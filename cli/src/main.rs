//! `pentagrid`: the one binary — Pentago tools, search, and (later) the cluster.

mod commands;
mod input;

use clap::Parser;

/// pentagrid: a self-play and benchmarking system for the board game Pentago.
///
/// Positions are written rank 6 down to rank 1, `x` black, `o` white, `.` empty, ranks
/// separated by `/` (or the word `start`); moves as `c4-1R` (place on c4, turn quadrant 1
/// clockwise). Wherever a position is taken, `-` reads positions from standard input, one a line.
#[derive(Parser)]
#[command(name = "pentagrid", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let default_level = if cli.command.is_service() {
        "info"
    } else {
        "warn"
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level)),
        )
        .init();
    match cli.command.run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            match error.downcast_ref::<pentagrid_client::ClientError>() {
                Some(error @ pentagrid_client::ClientError::Rpc(_)) if error.is_unreachable() => {
                    eprintln!("error: the coordinator is unreachable: {error}");
                }
                Some(error @ pentagrid_client::ClientError::Rpc(_)) => {
                    eprintln!("error: the coordinator refused: {error}");
                }
                _ => eprintln!("error: {error:#}"),
            }
            std::process::ExitCode::FAILURE
        }
    }
}
