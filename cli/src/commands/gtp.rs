//! `pentagrid gtp`: pentagrid as an engine program, speaking GTP on standard input and output.
//! The protocol and the game are [`pentago::gtp::GtpEngine`]; this module reads lines, writes
//! answers and logs each search to standard error.

use std::io::{BufRead, Read};

use anyhow::{Context, Result, ensure};
use clap::Args;
use pentago::gtp::{GtpEngine, GtpOptions, MAX_LINE_BYTES, format_response};
use pentago::{SafetyMargin, SharedOracle, UctConfig};

use super::tablebase::TablebaseOptions;
use super::thread_pool;
use crate::output::{self, errln, out};

/// Play as an engine program over GTP (version 2 conventions) on standard input and output,
/// for controllers, referees and GUIs. Moves in pentagrid's notation (c4-1R), colours black
/// and white. The search keeps its tree between moves and manages its time from
/// time_settings/time_left; without a time control it uses the budget of --config. Each
/// search is logged to standard error (reused visits, simulations, seconds, best line).
/// `list_commands` lists the commands, extensions (pentagrid-…) included.
#[derive(Args)]
pub struct GtpArgs {
    /// Search configuration; its budget (playouts or seconds) applies when the controller
    /// sets no time control.
    #[arg(long, default_value = "uct:seconds=1")]
    config: UctConfig,
    /// Search threads (trees); all cores by default.
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the first search (later ones derive theirs from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds kept back from every move's time limit, on top of 5% of it, for what the
    /// search does not count (its start, the answer's trip to the controller).
    #[arg(long, default_value_t = 0.05)]
    margin: f64,
    /// Start every search from a fresh tree instead of keeping the tree between moves.
    #[arg(long)]
    no_reuse: bool,
    /// Do not log searches to standard error.
    #[arg(long)]
    quiet: bool,
    /// Search even where the tablebase knows every move's value (by default such positions
    /// are played perfectly, without a search).
    #[arg(long)]
    no_tablebase: bool,
    #[command(flatten)]
    tablebase: TablebaseOptions,
}

pub fn run(args: &GtpArgs) -> Result<()> {
    ensure!(
        args.margin.is_finite() && (0.0..=60.0).contains(&args.margin),
        "--margin must be from 0 to 60 seconds, not {}",
        args.margin
    );
    let pool = thread_pool(args.threads)?;
    let mut engine = GtpEngine::new(GtpOptions {
        config: args.config.clone(),
        threads: pool.current_num_threads(),
        seed: args.seed,
        margin: SafetyMargin {
            seconds: args.margin,
            ..SafetyMargin::default()
        },
        reuse: !args.no_reuse,
    });
    if !args.no_tablebase {
        // A damaged block is no reason to stop playing: the search takes that move.
        engine = engine.with_oracle(SharedOracle::new(args.tablebase.open()?));
    }
    pool.install(|| serve(&mut engine, args.quiet))
}

/// Answers every line of standard input until `quit` or its end.
fn serve(engine: &mut GtpEngine, quiet: bool) -> Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        let Some(line) = read_line(&mut input)? else {
            return Ok(());
        };
        let exchange = match line {
            Line::Text(text) => match engine.handle_line(&text) {
                Some(exchange) => exchange,
                None => continue,
            },
            Line::TooLong => {
                let reason = format!("line longer than {MAX_LINE_BYTES} bytes");
                out!("{}", format_response(None, Err(&reason)));
                output::flush()?;
                continue;
            }
        };
        if let Some(info) = &exchange.info
            && !quiet
        {
            errln!("{info}");
        }
        out!("{}", exchange.response);
        output::flush()?;
        if exchange.quit {
            return Ok(());
        }
    }
}

enum Line {
    Text(String),
    TooLong,
}

/// The next line (without its end), `None` at the end of input. A line past the limit is
/// skipped to its end without being kept.
fn read_line(input: &mut impl BufRead) -> Result<Option<Line>> {
    let mut bytes = Vec::new();
    let limit = (MAX_LINE_BYTES + 1) as u64;
    let read = input
        .by_ref()
        .take(limit)
        .read_until(b'\n', &mut bytes)
        .context("reading standard input")?;
    if read == 0 {
        return Ok(None);
    }
    if bytes.len() > MAX_LINE_BYTES && !bytes.ends_with(b"\n") {
        loop {
            let mut rest = Vec::new();
            let read = input
                .by_ref()
                .take(limit)
                .read_until(b'\n', &mut rest)
                .context("reading standard input")?;
            if read == 0 || rest.ends_with(b"\n") {
                return Ok(Some(Line::TooLong));
            }
        }
    }
    Ok(Some(Line::Text(
        String::from_utf8_lossy(&bytes).into_owned(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_skipped_whole() {
        let long = "x".repeat(MAX_LINE_BYTES * 2 + 5);
        let text = format!("name\n{long}\nversion\n");
        let mut input = text.as_bytes();
        let mut seen = Vec::new();
        while let Some(line) = read_line(&mut input).unwrap() {
            seen.push(match line {
                Line::Text(t) => t,
                Line::TooLong => "<too long>".to_owned(),
            });
        }
        assert_eq!(seen, ["name\n", "<too long>", "version\n"]);
    }
}
