//! `pentagrid book`: read the opening book (a position's tables, a line of play) and move it
//! between databases (export and import in a stable row format).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use pentago::{Move, MoveNotation};
use pentagrid_client::book::{
    self, BookRow, BookTables, RowFormat, tables, win_rate, win_rate_interval,
};
use pentagrid_proto::ExactSource;
use serde_json::json;

use pentagrid_client::judge_book::judge_book;

use super::tablebase::TablebaseOptions;
use super::target::Target;
use crate::input;
use crate::output::{errln, outln};

/// Read the opening book (the stored move tables), or export and import it.
#[derive(Args)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

/// The row formats of export and import.
#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
enum Format {
    Jsonl,
    Csv,
}

impl From<Format> for RowFormat {
    fn from(format: Format) -> RowFormat {
        match format {
            Format::Jsonl => RowFormat::Jsonl,
            Format::Csv => RowFormat::Csv,
        }
    }
}

#[derive(Subcommand)]
enum BookCommand {
    /// The stored tables of a position, in its own frame.
    Show {
        /// The position, `start`, or `-` for positions from standard input.
        position: String,
        #[command(flatten)]
        target: Target,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Walk a line from a position and print the table at each step.
    Line {
        /// The moves (`c4-1R`, ...).
        moves: Vec<String>,
        /// Where the line starts.
        #[arg(long, default_value = "start")]
        from: String,
        #[command(flatten)]
        target: Target,
        /// Print JSON (one object per step).
        #[arg(long)]
        json: bool,
    },
    /// Write every book row: canonical position, move (in that position's frame), source
    /// (playouts or games), games, wins, draws, proven value.
    Export {
        /// Leave out rows with fewer games (proven rows without games need 0).
        #[arg(long, default_value_t = 0)]
        min_games: u64,
        /// Row format.
        #[arg(long, value_enum, default_value = "jsonl")]
        format: Format,
        /// Write here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        target: Target,
    },
    /// Judge the book against perfect play: per table and stone count, how often the top
    /// move (by games, by win rate) keeps the exact value (from the tablebase, or the
    /// midsolver from 18 stones on), and the share of (keeping, losing) move pairs whose win
    /// rates are ordered right.
    Judge {
        /// Judge this export file (JSON lines or CSV, as `book export` writes) instead of the
        /// stored book.
        #[arg(long)]
        file: Option<String>,
        /// Row format of --file (by default from the file name: .csv or JSON lines).
        #[arg(long, value_enum, requires = "file")]
        format: Option<Format>,
        /// Leave out rows with fewer games (at least 1: a row without games has no win rate).
        #[arg(long, default_value_t = 1)]
        min_games: u64,
        /// Leave out positions with more stones (the tablebase answers at once; the
        /// midsolver, from 18 stones on, takes seconds a position).
        #[arg(long, default_value_t = 35, value_parser = clap::value_parser!(u32).range(0..=35))]
        max_stones: u32,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
    /// Add exported rows to the book (counts add up; proven values replace stored ones).
    Import {
        /// The file, or `-` for standard input.
        file: String,
        /// Row format (by default from the file name: .csv or JSON lines).
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// Import it even if the same book (the same rows) was imported before: its counts
        /// are then added a second time. Without it a second import is refused.
        #[arg(long)]
        again: bool,
        /// Print the count as JSON (`{"imported": ROWS}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
    },
}

pub fn run(args: &BookArgs) -> Result<()> {
    match &args.command {
        BookCommand::Show {
            position,
            target,
            json,
        } => {
            let positions = input::positions(position)?;
            target.read(async |client| {
                for position in positions {
                    let reply = tables(client, &position).await?;
                    if *json {
                        outln!("{}", book_json(&reply));
                    } else {
                        print_book(&reply)?;
                    }
                }
                Ok(())
            })
        }
        BookCommand::Line {
            moves,
            from,
            target,
            json,
        } => show_line(moves, from, target, *json),
        BookCommand::Export {
            min_games,
            format,
            out,
            target,
        } => export(*min_games, *format, out.as_deref(), target),
        BookCommand::Import {
            file,
            format,
            again,
            json,
            target,
        } => import(file, (*format, *again, *json), target),
        BookCommand::Judge {
            file,
            format,
            min_games,
            max_stones,
            json,
            target,
        } => judge(
            file.as_deref(),
            *format,
            (*min_games, *max_stones),
            *json,
            target,
            &target.table.options,
        ),
    }
}

/// Prints the book at each step of a line of moves from `from`.
fn show_line(moves: &[String], from: &str, target: &Target, json: bool) -> Result<()> {
    let mut position = input::positions(from)?
        .pop()
        .context("--from needs a position")?;
    let mut line = vec![position];
    for text in moves {
        let notation: MoveNotation = text.parse().with_context(|| format!("bad move {text:?}"))?;
        let mv = position
            .resolve(notation)
            .with_context(|| format!("{text} in {position}"))?;
        position = position
            .play(mv)
            .with_context(|| format!("{text} in {position}"))?;
        line.push(position);
    }
    target.read(async |client| {
        for (step, position) in line.iter().enumerate() {
            let reply = tables(client, position).await?;
            if json {
                let mut value = book_json(&reply);
                value["step"] = json!(step);
                value["move"] = json!(step.checked_sub(1).map(|i| &moves[i]));
                outln!("{value}");
            } else {
                match step {
                    0 => outln!("== start of the line"),
                    _ => outln!("\n== after {}", moves[..step].join(" ")),
                }
                print_book(&reply)?;
            }
            if position.is_over() {
                break;
            }
        }
        Ok(())
    })
}

/// Writes every book row with at least `min_games` games to `out` (standard output if none).
fn export(min_games: u64, format: Format, out: Option<&Path>, target: &Target) -> Result<()> {
    let mut sink: Box<dyn Write> = match out {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        None => Box::new(crate::output::stdout()),
    };
    let format = RowFormat::from(format);
    let rows = target
        .read(async |client| Ok(book::export(client, min_games, format, &mut sink).await?))?;
    sink.flush()?;
    errln!("exported {rows} rows");
    Ok(())
}

/// Judges the stored book (or the export `file`) against perfect play and prints it.
fn judge(
    file: Option<&str>,
    format: Option<Format>,
    (min_games, max_stones): (u64, u32),
    json: bool,
    target: &Target,
    tablebase: &TablebaseOptions,
) -> Result<()> {
    let tablebase = tablebase.open()?;
    let rows = match file {
        Some(file) => read_rows(file, format)?,
        None => target.read(async |client| Ok(book::rows(client, min_games).await?))?,
    };
    let judged = judge_book(&tablebase, rows, min_games, max_stones)?;
    if json {
        outln!("{}", super::judge::book_json(&judged));
    } else {
        super::judge::print_book(&judged)?;
    }
    Ok(())
}

/// The rows of the export `file` (`-`: standard input).
fn read_rows(file: &str, format: Option<Format>) -> Result<Vec<book::ExportRow>> {
    let format = format.map_or_else(|| RowFormat::of_file_name(file), RowFormat::from);
    let reader: Box<dyn BufRead> = if file == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(file).with_context(|| format!("opening {file}"))?,
        ))
    };
    book::parse_rows(reader, format).with_context(|| format!("reading {file}"))
}

/// Adds the rows of `file` (`-`: standard input) to the book.
/// A book imported before (the same rows) is refused unless `again`.
fn import(
    file: &str,
    (format, again, as_json): (Option<Format>, bool, bool),
    target: &Target,
) -> Result<()> {
    let rows = read_rows(file, format)?;
    let count = target.read(async |client| {
        Ok(if again {
            book::import_again(client, &rows).await?
        } else {
            book::import(client, &rows).await?
        })
    })?;
    if as_json {
        outln!("{}", json!({ "imported": count }));
    } else {
        outln!("imported {count} rows");
    }
    Ok(())
}

fn rows_json(rows: &[BookRow]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|r| {
            let also: Vec<String> = r.also.iter().map(ToString::to_string).collect();
            json!({"move": r.mv.to_string(), "also": also, "games": r.games, "wins": r.wins,
                   "draws": r.draws, "proven": r.proven.map(|v| v.to_string()),
                   "proven_by": r.proven_by.map(|s| s.name())})
        })
        .collect()
}

/// A line of moves in the full notation.
fn line_text(line: &[Move]) -> Vec<String> {
    line.iter().map(ToString::to_string).collect()
}

/// A position's book tables as JSON.
pub fn book_json(reply: &BookTables) -> serde_json::Value {
    json!({
        "position": reply.position.to_string(),
        "canonical": reply.canonical.to_string(),
        "playouts": rows_json(&reply.playouts),
        "games": rows_json(&reply.games),
        "proven": reply.proven.map(|v| v.to_string()),
        "proven_by": reply.proven_by.map(|s| s.name()),
        "proven_line": line_text(&reply.proven_line),
    })
}

/// How a source of exact values reads in a sentence.
fn source_words(source: ExactSource) -> &'static str {
    match source {
        ExactSource::Table => "tablebase",
        ExactSource::Solver => "solver",
        ExactSource::Propagated => "values propagated up the book",
        ExactSource::Imported => "imported book",
        ExactSource::Unrecorded => "store, source unrecorded",
    }
}

/// A position's book tables, printed as two tables.
pub fn print_book(reply: &BookTables) -> Result<()> {
    outln!("position  {}", reply.position);
    if let Some(value) = reply.proven {
        let by = reply
            .proven_by
            .map(|source| format!(" (from the {source})", source = source_words(source)))
            .unwrap_or_default();
        outln!(
            "proven    {value} for the side to move{by}, line {}",
            line_text(&reply.proven_line).join(" ")
        );
    }
    for (title, rows) in [
        ("playouts (UCT analyses)", &reply.playouts),
        ("games (self-play)", &reply.games),
    ] {
        outln!("{title}:");
        if rows.is_empty() {
            outln!("  none stored");
            continue;
        }
        outln!(
            "  {:<8} {:>12} {:>8} {:>15} {:>10} {:>18}  also",
            "move",
            "games",
            "win%",
            "95% interval",
            "draws",
            "exact (source)"
        );
        for r in rows.iter().take(20) {
            let also = if r.also.is_empty() {
                String::new()
            } else {
                format!("+{} merged", r.also.len())
            };
            let interval = win_rate_interval(r)
                .map(|(low, high)| format!("[{:.1}, {:.1}]", 100.0 * low, 100.0 * high))
                .unwrap_or_default();
            let exact = match (r.proven, r.proven_by) {
                (Some(value), Some(source)) => format!("{value} ({source})"),
                (Some(value), None) => value.to_string(),
                (None, _) => String::new(),
            };
            outln!(
                "  {:<8} {:>12} {:>7.2}% {interval:>15} {:>10} {exact:>18}  {also}",
                r.mv.to_string(),
                r.games,
                100.0 * win_rate(r),
                r.draws,
            );
        }
        if rows.len() > 20 {
            outln!("  ... {} more", rows.len() - 20);
        }
    }
    Ok(())
}
