//! `pentagrid tablebase`: Irving's strong solution of Pentago — which slices are loaded, their
//! verification, and the exact value of positions and of every move.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use pentago::{ExactOracle, Move, Position, Value};
use pentagrid_coordinator::TableValues;
use pentagrid_tablebase::{SliceCheck, Tablebase, Verdict};
use serde_json::json;

use super::solve::{grouped_values, print_groups};
use crate::input;
use crate::output::{errln, outln};

/// Where exact values come from: the slices shipped inside pentagrid (positions of 0–6
/// stones) plus, optionally, a folder of Irving's slice files.
#[derive(Args, Clone)]
pub struct TablebaseOptions {
    /// A folder of Irving's slice files (`slice-N.pentago`, N up to 18; `counts-N.npy` and
    /// `sha1s` beside them are used by `tablebase verify`), adding to the shipped slices 0–6
    /// (a slice in the folder replaces the shipped one of the same N).
    #[arg(
        long = "tablebase",
        value_name = "DIR",
        env = "PENTAGRID_TABLEBASE",
        global = true
    )]
    pub folder: Option<PathBuf>,
    /// Memory for decompressed blocks of the tablebase, in MiB (least recently used blocks
    /// are dropped beyond it).
    #[arg(long = "tablebase-cache-mb", value_name = "MIB", default_value_t = 64, global = true,
          value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub cache_mb: u64,
}

impl TablebaseOptions {
    /// The shipped slices plus the folder's, with the cache budget.
    pub fn open(&self) -> Result<Tablebase> {
        let mut tablebase = Tablebase::shipped()
            .context("reading the shipped tablebase")?
            .with_cache_budget(self.cache_mb << 20);
        if let Some(folder) = &self.folder {
            tablebase
                .add_folder(folder)
                .with_context(|| format!("opening the tablebase folder {}", folder.display()))?;
        }
        Ok(tablebase)
    }
}

/// The tablebase of a coordinator this command starts (`coordinator`, `run`, `--local`): by
/// default the shipped slices plus --tablebase DIR, whose values the coordinator writes into
/// the book's positions (and its builder spends no playouts there).
#[derive(Args, Clone)]
pub struct CoordinatorTable {
    /// The coordinator gets no tablebase: no table values in the book, and book builds
    /// analyse its top positions with playouts like any other.
    #[arg(long)]
    pub no_tablebase: bool,
    #[command(flatten)]
    pub options: TablebaseOptions,
}

impl CoordinatorTable {
    /// The coordinator's table values, as asked.
    pub fn open(&self) -> Result<TableValues> {
        if self.no_tablebase {
            return Ok(TableValues::none());
        }
        Ok(TableValues::new(Arc::new(self.options.open()?)))
    }
}

/// Irving's strong solution of Pentago (public domain): slices 0–6 ship with pentagrid; add
/// larger ones with --tablebase DIR or PENTAGRID_TABLEBASE.
#[derive(Args)]
pub struct TablebaseArgs {
    #[command(subcommand)]
    command: TablebaseCommand,
    #[command(flatten)]
    options: TablebaseOptions,
}

#[derive(Subcommand)]
enum TablebaseCommand {
    /// Which slices are loaded, from where, their sections, blocks and sizes, and the cache
    /// budget.
    Info {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Recount every section of every loaded slice and compare with its counts file, and check
    /// each file's SHA-1 where the published sum is known; fails on any mismatch.
    Verify {
        /// Print JSON (one object per slice).
        #[arg(long)]
        json: bool,
    },
    /// The exact value of positions (for the side to move) and of each of their moves.
    Probe {
        /// The position, `start`, or `-` to read positions from standard input.
        position: String,
        /// Print JSON (one object per position).
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: &TablebaseArgs) -> Result<()> {
    let tablebase = args.options.open()?;
    match &args.command {
        TablebaseCommand::Info { json } => info(&tablebase, *json),
        TablebaseCommand::Verify { json } => verify(&tablebase, *json),
        TablebaseCommand::Probe { position, json } => {
            for position in input::positions(position)? {
                probe(&tablebase, &position, *json)?;
            }
            Ok(())
        }
    }
}

fn info(tablebase: &Tablebase, json: bool) -> Result<()> {
    let slices = tablebase.slices();
    if json {
        let list: Vec<_> = slices
            .iter()
            .map(|s| {
                json!({
                    "stones": s.stones,
                    "path": s.path,
                    "shipped": s.shipped,
                    "sections": s.sections,
                    "blocks": s.blocks,
                    "bytes": s.bytes,
                    "counts": s.counts,
                })
            })
            .collect();
        let line = json!({"slices": list, "cache_budget_bytes": tablebase.cache_budget()});
        outln!("{line}");
        return Ok(());
    }
    outln!("slice  sections  blocks       bytes  file");
    for s in &slices {
        outln!(
            "{:>5}  {:>8}  {:>6}  {:>10}  {}",
            s.stones,
            s.sections,
            s.blocks,
            s.bytes,
            s.path
        );
    }
    let total: u64 = slices.iter().map(|s| s.bytes).sum();
    outln!(
        "{} slices, {total} bytes; block cache budget {} MiB",
        slices.len(),
        tablebase.cache_budget() >> 20
    );
    Ok(())
}

fn verify(tablebase: &Tablebase, json: bool) -> Result<()> {
    let mut failed = 0;
    for info in tablebase.slices() {
        let Some(result) = tablebase.verify_slice(info.stones) else {
            continue;
        };
        let check = match result {
            Ok(check) => check,
            Err(error) => {
                failed += 1;
                if json {
                    let line = json!({"stones": info.stones, "path": info.path, "ok": false, "error": error.to_string()});
                    outln!("{line}");
                } else {
                    outln!("slice {}: FAILED: {error}", info.stones);
                }
                continue;
            }
        };
        failed += usize::from(check.failed());
        if json {
            outln!("{}", check_json(&check, info.counts.as_deref()));
        } else {
            outln!(
                "slice {}: {} sections, {} positions ({} black wins, {} white wins): counts {}, sha1 {}",
                check.stones,
                check.sections,
                check.totals.positions,
                check.totals.black_wins,
                check.totals.white_wins,
                verdict_text(&check.counts),
                verdict_text(&check.sha1)
            );
        }
    }
    if failed > 0 {
        bail!("{failed} slice(s) failed verification");
    }
    if !json {
        errln!("every loaded slice verified");
    }
    Ok(())
}

fn verdict_text(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Match => "match".to_owned(),
        Verdict::Mismatch(how) => format!("MISMATCH ({how})"),
        Verdict::Unchecked => "unchecked (nothing to compare with)".to_owned(),
    }
}

fn verdict_json(verdict: &Verdict) -> serde_json::Value {
    match verdict {
        Verdict::Match => json!("match"),
        Verdict::Mismatch(how) => json!({"mismatch": how}),
        Verdict::Unchecked => json!("unchecked"),
    }
}

fn check_json(check: &SliceCheck, counts_file: Option<&str>) -> serde_json::Value {
    json!({
        "stones": check.stones,
        "path": check.path,
        "ok": !check.failed(),
        "sections": check.sections,
        "positions": check.totals.positions,
        "black_wins": check.totals.black_wins,
        "white_wins": check.totals.white_wins,
        "counts_file": counts_file,
        "counts": verdict_json(&check.counts),
        "sha1": verdict_json(&check.sha1),
    })
}

fn probe(tablebase: &Tablebase, position: &Position, json: bool) -> Result<()> {
    let value = tablebase
        .probe(position)
        .with_context(|| format!("probing {position}"))?;
    let moves = if value.is_some() {
        tablebase
            .probe_moves(position)
            .with_context(|| format!("probing the moves of {position}"))?
    } else {
        None
    };
    let stones = position.stone_count();
    if json {
        let mut line = json!({
            "position": position.to_string(),
            "to_move": position.side_to_move(),
            "stones": stones,
            "value": value,
        });
        if let Some(moves) = &moves {
            line["moves"] = moves
                .iter()
                .map(|(mv, v)| json!({"move": mv.to_string(), "value": v}))
                .collect();
        }
        outln!("{line}");
        return Ok(());
    }
    let Some(value) = value else {
        outln!("{position} not covered (no slice of {stones} stones loaded)");
        return Ok(());
    };
    outln!("{position} {value}");
    match moves {
        Some(moves) => {
            let values: Vec<(Move, Option<Value>)> =
                moves.into_iter().map(|(m, v)| (m, Some(v))).collect();
            print_groups(&grouped_values(position, &values))?;
        }
        None if !position.is_over() => {
            outln!(
                "  moves not covered (no slice of {} stones loaded)",
                stones + 1
            );
        }
        None => {}
    }
    Ok(())
}
