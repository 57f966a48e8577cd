//! `pentagrid`: the one binary — Pentago tools, search, and (later) the cluster.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod commands;
mod input;
mod logging;
mod metrics_http;
mod output;

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
    /// Log format on standard error: `text` (coloured only on a terminal) or `json` (one object
    /// a line).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t,
        env = "PENTAGRID_LOG_FORMAT"
    )]
    log_format: logging::LogFormat,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let default_level = if cli.command.is_service() {
        "info"
    } else {
        "warn"
    };
    logging::init(cli.log_format, default_level);
    match cli.command.run().and_then(|()| output::flush()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The reader went away (`| head`): what it wanted it has, so end quietly, with
        // success, as `cat` and `grep` do when the shell ignores SIGPIPE.
        Err(error) if output::is_closed_pipe(&error) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            match client_error(&error) {
                Some(error @ pentagrid_client::ClientError::Rpc(_)) if error.is_unreachable() => {
                    output::errln!("error: the coordinator is unreachable: {error}");
                }
                Some(error @ pentagrid_client::ClientError::Rpc(_)) => {
                    output::errln!("error: the coordinator refused: {error}");
                }
                _ => output::errln!("error: {error:#}"),
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// The client library's error behind `error`, directly or inside an embedded cluster's.
fn client_error(error: &anyhow::Error) -> Option<&pentagrid_client::ClientError> {
    error
        .downcast_ref::<pentagrid_client::ClientError>()
        .or_else(|| {
            error
                .downcast_ref::<pentagrid_embedded::EmbeddedError>()
                .and_then(pentagrid_embedded::EmbeddedError::client_error)
        })
}
