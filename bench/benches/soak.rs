//! The soak benchmark (see `pentagrid_bench::soak`): a real `pentagrid coordinator` process under
//! simulated workers, a book build through a pre-filled book, puzzle mining, a match and an
//! analysis campaign, all at once. Build the binary first, then run:
//!
//! ```text
//! cargo build --release
//! cargo bench -p pentagrid-bench --bench soak -- [--seconds 240] [--workers 1000]
//!     [--book 1000000] [--pairs 2000] [--coordinator PATH] [--svg PATH]
//! ```
//!
//! Prints a summary table (Markdown) and writes the plot to `bench/soak.svg` unless `--svg`
//! says otherwise. The coordinator binary is looked for beside this benchmark's executable
//! (`target/release/pentagrid`) unless `--coordinator` names it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use pentagrid_bench::soak::{SoakOptions, run};

/// The value after `--name`, if given.
fn arg(args: &[String], name: &str) -> Option<String> {
    let flag = format!("--{name}");
    let at = args.iter().position(|a| *a == flag)?;
    args.get(at + 1).cloned()
}

/// The `pentagrid` binary beside this executable (`target/release/deps/soak-…` or
/// `target/release/soak`).
fn default_coordinator() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join("pentagrid"))
        .find(|path| path.is_file())
}

fn number(args: &[String], name: &str, default: u64) -> Result<u64, String> {
    arg(args, name).map_or(Ok(default), |v| {
        v.parse()
            .map_err(|_| format!("--{name} takes a number, not {v:?}"))
    })
}

fn options(args: &[String]) -> Result<(SoakOptions, PathBuf), String> {
    let coordinator = arg(args, "coordinator")
        .map(PathBuf::from)
        .or_else(default_coordinator)
        .ok_or("no pentagrid binary beside this benchmark: run `cargo build --release` first or pass --coordinator PATH")?;
    let seconds = number(args, "seconds", 240)?;
    let mut options = SoakOptions::full(coordinator, Duration::from_secs(seconds));
    options.workers = number(args, "workers", options.workers as u64)? as usize;
    options.book = number(args, "book", options.book as u64)? as usize;
    options.match_pairs = number(args, "pairs", options.match_pairs)?;
    let svg = arg(args, "svg").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("soak.svg"),
        PathBuf::from,
    );
    Ok((options, svg))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (options, svg) = match options(&args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("soak: {message}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "soak: {} workers, book of {} positions, {} s, coordinator {}",
        options.workers,
        options.book,
        options.duration.as_secs(),
        options.coordinator_bin.display()
    );
    let report = match run(&options) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("soak: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("\n{}", report.table());
    for (target, met) in report.targets_met() {
        println!("{target}: {}", if met { "met" } else { "MISSED" });
    }
    for text in &report.error_texts {
        println!("failed call: {text}");
    }
    for line in &report.coordinator_warnings {
        println!("coordinator log: {line}");
    }
    match std::fs::write(&svg, report.svg()) {
        Ok(()) => println!("plot written to {}", svg.display()),
        Err(error) => {
            eprintln!("soak: writing {}: {error}", svg.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
