//! `pentagrid`: the one binary — Pentago tools and search, the cluster (coordinator, worker and
//! client commands), the web explorer and the GTP engine — parsing arguments and printing.

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

/// The longest command-line argument taken, in bytes. A path, a position or an engine's
/// command line fits many times over; anything longer is a mistake (or an attack on the error
/// message, which would otherwise echo it whole), refused before parsing.
const MAX_ARGUMENT_BYTES: usize = 4096;

fn main() -> std::process::ExitCode {
    if let Some((index, length)) = oversized_argument(std::env::args_os()) {
        output::errln!(
            "error: argument {index} is {length} bytes long; pentagrid takes at most \
             {MAX_ARGUMENT_BYTES} bytes per argument (give long input on standard input or in \
             a file)"
        );
        return std::process::ExitCode::from(2);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(answer) => return clap_answer(&answer),
    };
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
                    match commands::tried_coordinator() {
                        Some(url) => output::errln!(
                            "error: the coordinator at {} is unreachable: {error}",
                            output::peer(url)
                        ),
                        None => output::errln!("error: the coordinator is unreachable: {error}"),
                    }
                }
                Some(error @ pentagrid_client::ClientError::Rpc(_))
                    if error.reason() == pentagrid_client::RefusalReason::NotFound =>
                {
                    output::errln!("error: not found: {error}");
                }
                Some(error @ pentagrid_client::ClientError::Rpc(_)) => {
                    output::errln!("error: the coordinator refused: {error}");
                }
                _ => output::errln!("error: {}", output::in_flags(&error)),
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// Prints clap's answer (help, version, or a usage error) and picks the exit status: help or
/// a version that cannot be written is a failure, never a silent success (the reader of a
/// closed pipe, `pentagrid --help | head -1`, got what it wanted: a quiet success, as in `main`).
fn clap_answer(answer: &clap::Error) -> std::process::ExitCode {
    let printed = answer
        .print()
        .and_then(|()| std::io::Write::flush(&mut std::io::stdout()));
    let code = std::process::ExitCode::from(u8::try_from(answer.exit_code()).unwrap_or(2));
    match printed {
        // A usage error goes to standard error: if that failed there is nowhere to say so.
        _ if answer.use_stderr() => code,
        Ok(()) => code,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(error) => {
            output::errln!("error: cannot write to standard output: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The first argument (numbered from 1, the program name being 0) longer than
/// [`MAX_ARGUMENT_BYTES`], with its length.
fn oversized_argument(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Option<(usize, usize)> {
    args.into_iter()
        .enumerate()
        .skip(1)
        .map(|(index, arg)| (index, arg.len()))
        .find(|&(_, length)| length > MAX_ARGUMENT_BYTES)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[String]) -> Vec<std::ffi::OsString> {
        list.iter().map(Into::into).collect()
    }

    #[test]
    fn arguments_up_to_the_limit_pass() {
        let fits = "x".repeat(MAX_ARGUMENT_BYTES);
        assert_eq!(
            oversized_argument(args(&["pentagrid".into(), "show".into(), fits])),
            None
        );
    }

    #[test]
    fn the_first_oversized_argument_is_named() {
        let long = "x".repeat(MAX_ARGUMENT_BYTES + 1);
        let list = ["pentagrid".into(), "show".into(), long.clone(), long];
        assert_eq!(
            oversized_argument(args(&list)),
            Some((2, MAX_ARGUMENT_BYTES + 1))
        );
    }

    #[test]
    fn the_program_name_is_not_judged() {
        let list = ["p".repeat(MAX_ARGUMENT_BYTES * 2), "show".into()];
        assert_eq!(oversized_argument(args(&list)), None);
    }

    /// Every subcommand's arguments are consistent (unique names, valid groups): clap checks
    /// that only when a subcommand is parsed, so one flattened option set used twice would
    /// otherwise surface as a panic in a user's hands.
    #[test]
    fn every_subcommand_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// Commands without `--json`, each with why: they print no result a program would read.
    const WITHOUT_JSON: [(&str, &str); 7] = [
        ("coordinator", "a service: it runs until stopped and logs"),
        ("worker", "a service: it runs until stopped and logs"),
        ("serve", "a service: it runs until stopped and logs"),
        (
            "gtp",
            "speaks its text protocol on standard input and output",
        ),
        (
            "book export",
            "prints the rows themselves, in the --format chosen",
        ),
        (
            "puzzles export",
            "prints the collection itself, in the --format chosen",
        ),
        ("games export", "prints the game records themselves"),
    ];

    /// Every command that runs (a leaf of the command tree, or a node that runs without a
    /// subcommand) with its path (`book show`).
    fn leaves(command: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
        for sub in command.get_subcommands() {
            let name = if path.is_empty() {
                sub.get_name().to_owned()
            } else {
                format!("{path} {}", sub.get_name())
            };
            if sub.has_subcommands() {
                leaves(sub, &name, out);
            }
            // A command with subcommands may run on its own too (`match`, beside `match show`).
            if !sub.is_subcommand_required_set() {
                out.push((name, sub.clone()));
            }
        }
    }

    /// Every command that prints a result takes `--json`; the listed exceptions exist and
    /// lack it (a command that gains `--json` leaves the list).
    #[test]
    fn every_result_printing_command_takes_json() {
        use clap::CommandFactory;
        let mut all = Vec::new();
        leaves(&Cli::command(), "", &mut all);
        assert!(all.len() > 40, "{} commands", all.len());
        for (path, command) in &all {
            let has_json = command
                .get_arguments()
                .any(|a| a.get_long() == Some("json"));
            let exempt = WITHOUT_JSON.iter().any(|(p, _)| p == path);
            assert!(
                has_json != exempt,
                "`pentagrid {path}`: --json {}, listed as without it: {exempt}",
                if has_json { "taken" } else { "missing" }
            );
        }
        for (path, _) in WITHOUT_JSON {
            assert!(all.iter().any(|(p, _)| p == path), "no command {path}");
        }
    }
}
