//! `pentagrid games`: game record files (docs/game-records.md) — listed, replayed under the
//! rules, imported into one checked file, rated, and exported from a cluster's stored matches — and
//! the `--games-out FILE` writer that matches, tournaments and self-play append to.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use pentago::{Record, parse_records_at};
use pentagrid_client::game_records::export_match;
use pentagrid_client::tournaments;
use serde_json::json;

use super::target::Target;
use crate::output::{self, outln};

/// Game records: list, replay, import and export games in pentagrid's record format.
#[derive(Args)]
pub struct GamesArgs {
    #[command(subcommand)]
    command: GamesCommand,
}

#[derive(Subcommand)]
enum GamesCommand {
    /// List the games of a record file: players, result, moves, how each ended.
    Show {
        /// The record file (`-`: standard input).
        file: PathBuf,
        /// Also print each player's full specification and every tag.
        #[arg(long)]
        long: bool,
        /// Print one JSON object per game (tags, moves and comments).
        #[arg(long)]
        json: bool,
    },
    /// Play every game of a record file under the rules and print each final position;
    /// refuses an illegal move or a result the moves do not give (and prints nothing then).
    Replay {
        /// The record file (`-`: standard input).
        file: PathBuf,
        /// Print one JSON object per game.
        #[arg(long)]
        json: bool,
    },
    /// Read record files (pentagrid's or another tool's in this format), check and replay
    /// every game, and append them in pentagrid's own layout to --out (or print them); all
    /// or nothing.
    Import {
        /// The record files (`-`: standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The file to append to (created when missing); standard output without it.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print a JSON summary.
        #[arg(long)]
        json: bool,
    },
    /// Rate the players of record files (maximum-likelihood Elo with 95% intervals), as
    /// `ratings` rates stored matches.
    Ratings(super::record_ratings::RecordRatingsArgs),
    /// Write a stored match's games (or every match of a tournament with --tournament) as
    /// records.
    Export {
        /// The match id (or the tournament id with --tournament).
        id: u64,
        /// ID is a tournament: export all its matches.
        #[arg(long)]
        tournament: bool,
        /// The file to append to (created when missing); standard output without it.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        target: Target,
    },
}

pub fn run(args: &GamesArgs) -> Result<()> {
    match &args.command {
        GamesCommand::Show { file, long, json } => show(&read(file)?, *long, *json),
        GamesCommand::Replay { file, json } => replay(&read(file)?, *json),
        GamesCommand::Import { files, out, json } => import(files, out.as_deref(), *json),
        GamesCommand::Ratings(ratings) => super::record_ratings::run(ratings),
        GamesCommand::Export {
            id,
            tournament,
            out,
            target,
        } => export(*id, *tournament, out.as_deref(), target),
    }
}

/// Most bytes of one record file read (a few hundred thousand games).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// The records of `path` (`-`: standard input) with the line each starts on; a file that does
/// not read is an error naming the file, the line and the reason.
pub(super) fn read(path: &Path) -> Result<Vec<(usize, Record)>> {
    let mut text = String::new();
    let name = path.display();
    let read = if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
    } else {
        File::open(path)
            .with_context(|| format!("cannot open {name}"))?
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
    };
    read.with_context(|| format!("cannot read {name} as UTF-8 text"))?;
    anyhow::ensure!(
        text.len() as u64 <= MAX_FILE_BYTES,
        "{name} is larger than {MAX_FILE_BYTES} bytes"
    );
    parse_records_at(&text).with_context(|| format!("{name} is not a valid game record file"))
}

/// Replays every record, or fails on the first that does not replay (naming its game number
/// and line).
pub(super) fn replayed(records: &[(usize, Record)]) -> Result<Vec<pentago::Position>> {
    records
        .iter()
        .enumerate()
        .map(|(index, (line, record))| {
            record
                .replay()
                .with_context(|| format!("game {} (line {line}) does not replay", index + 1))
        })
        .collect()
}

/// Columns of a player in the `show` table; longer names are listed under the table.
const NAME_COLUMNS: usize = 15;

fn show(records: &[(usize, Record)], long: bool, as_json: bool) -> Result<()> {
    if as_json {
        for (index, (line, record)) in records.iter().enumerate() {
            outln!("{}", record_json(index + 1, *line, record));
        }
        return Ok(());
    }
    let mut legend = output::Legend::new(NAME_COLUMNS);
    outln!(
        "{:>4}  {:<NAME_COLUMNS$}  {:<NAME_COLUMNS$}  {:<7}  {:>5}  termination",
        "game",
        "black",
        "white",
        "result",
        "moves"
    );
    for (index, (_, record)) in records.iter().enumerate() {
        let black = legend.label(&record.black.name);
        let white = legend.label(&record.white.name);
        outln!(
            "{:>4}  {black:<NAME_COLUMNS$}  {white:<NAME_COLUMNS$}  {:<7}  {:>5}  {}",
            index + 1,
            record.result,
            record.moves.len(),
            output::peer(&record.termination.to_string())
        );
        if long {
            print_long(record)?;
        }
    }
    legend.print()?;
    if records.is_empty() {
        outln!("no games");
    }
    Ok(())
}

/// A record's tags, one a line under its row of the table.
fn print_long(record: &Record) -> Result<()> {
    let text = record.to_string();
    for line in text.lines().take_while(|l| l.starts_with('[')) {
        outln!("      {}", output::peer_full(line));
    }
    Ok(())
}

/// One game as JSON: its number, first line, tags, moves with their comments.
fn record_json(number: usize, line: usize, record: &Record) -> serde_json::Value {
    let moves: Vec<_> = record
        .moves
        .iter()
        .map(|m| {
            let n = &m.note;
            json!({
                "move": m.mv.to_string(), "time": n.time, "clock": n.clock, "score": n.score,
                "exact": n.exact.map(|v| v.to_string()),
                "note": (!n.text.is_empty()).then_some(&n.text),
            })
        })
        .collect();
    let others: serde_json::Map<String, serde_json::Value> = record
        .other_tags
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    json!({
        "game": number, "line": line, "event": record.event, "round": record.round,
        "date": record.date, "black": record.black.name, "black_spec": record.black.spec,
        "white": record.white.name, "white_spec": record.white.spec,
        "opening": record.opening.to_string(), "time_control": record.time_control,
        "result": record.result.to_string(), "termination": record.termination.to_string(),
        "tags": others, "moves": moves,
    })
}

fn replay(records: &[(usize, Record)], as_json: bool) -> Result<()> {
    let finals = replayed(records)?;
    for (index, ((_, record), position)) in records.iter().zip(&finals).enumerate() {
        if as_json {
            outln!(
                "{}",
                json!({
                    "game": index + 1, "moves": record.moves.len(),
                    "result": record.result.to_string(), "status": position.status().to_string(),
                    "termination": record.termination.to_string(), "final": position.to_string(),
                })
            );
        } else {
            outln!(
                "game {}: {} moves, {} ({}): {position}",
                index + 1,
                record.moves.len(),
                record.result,
                output::peer(&record.termination.to_string())
            );
        }
    }
    if records.is_empty() && !as_json {
        outln!("no games");
    }
    Ok(())
}

fn import(files: &[PathBuf], out: Option<&Path>, as_json: bool) -> Result<()> {
    let mut all = Vec::new();
    for file in files {
        let records = read(file)?;
        replayed(&records).with_context(|| format!("in {}", file.display()))?;
        all.extend(records.into_iter().map(|(_, r)| r));
    }
    match out {
        Some(path) => {
            GamesOut::open(path)?.append(&all)?;
            if as_json {
                outln!(
                    "{}",
                    json!({"games": all.len(), "files": files.len(), "out": path})
                );
            } else {
                outln!(
                    "imported {} games from {} files into {}",
                    all.len(),
                    files.len(),
                    path.display()
                );
            }
        }
        None => print_records(&all)?,
    }
    Ok(())
}

/// Records on standard output, a blank line after each.
fn print_records(records: &[Record]) -> Result<()> {
    for record in records {
        outln!("{record}");
    }
    Ok(())
}

fn export(id: u64, tournament: bool, out: Option<&Path>, target: &Target) -> Result<()> {
    let records = target.read(async |client| {
        let ids = if tournament {
            let t = tournaments::status(client, id).await?;
            t.matches.iter().map(|m| m.id).collect()
        } else {
            vec![id]
        };
        let mut records = Vec::new();
        for match_id in ids {
            records.extend(export_match(client, match_id).await?);
        }
        Ok(records)
    })?;
    match out {
        Some(path) => {
            GamesOut::open(path)?.append(&records)?;
            outln!("exported {} games into {}", records.len(), path.display());
            Ok(())
        }
        None => print_records(&records),
    }
}

/// Today's date as records write it (`YYYY.MM.DD`, UTC).
pub(super) fn today() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    super::backup::utc(ms)[..10].replace('-', ".")
}

/// A record file that games are appended to as they finish (`--games-out`): each batch is
/// written and flushed at once, so that a reader (or a crash) sees whole games.
pub(super) struct GamesOut {
    path: PathBuf,
    file: BufWriter<File>,
}

impl GamesOut {
    /// Opens `path` for appending, creating it when missing.
    pub(super) fn open(path: &Path) -> Result<GamesOut> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {} to append games", path.display()))?;
        Ok(GamesOut {
            path: path.to_owned(),
            file: BufWriter::new(file),
        })
    }

    /// Appends `records` (a blank line after each) and flushes.
    pub(super) fn append(&mut self, records: &[Record]) -> Result<()> {
        self.write(records)
            .with_context(|| format!("cannot write games to {}", self.path.display()))
    }

    /// [`GamesOut::append`] for a workflow's callback: a failure stops the workflow, with an
    /// [`std::io::Error`] that names the file as its reason.
    pub(super) fn append_io(&mut self, records: &[Record]) -> pentagrid_client::ProgressResult {
        self.write(records).map_err(|e| {
            let named = std::io::Error::new(
                e.kind(),
                format!("cannot write games to {}: {e}", self.path.display()),
            );
            named.into()
        })
    }

    fn write(&mut self, records: &[Record]) -> std::io::Result<()> {
        for record in records {
            writeln!(self.file, "{record}")?;
        }
        self.file.flush()
    }
}
