//! `pentagrid book`: read the opening book (a position's tables, a line of play) and move it
//! between databases (export and import in a stable row format).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail, ensure};
use clap::{Args, Subcommand, ValueEnum};
use pentago::{MoveNotation, Position};
use pentagrid_coordinator::MAX_BOOK_ROWS;
use pentagrid_proto::{Client, v1};
use serde_json::json;

use super::embedded::Target;
use crate::input;

/// Read the opening book (the stored move tables), or export and import it.
#[derive(Args)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
enum RowFormat {
    Jsonl,
    Csv,
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
        format: RowFormat,
        /// Write here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        target: Target,
    },
    /// Add exported rows to the book (counts add up; proven values replace stored ones).
    Import {
        /// The file, or `-` for standard input.
        file: String,
        /// Row format (by default from the file name: .csv or JSON lines).
        #[arg(long, value_enum)]
        format: Option<RowFormat>,
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
                    let reply = show(client, &position).await?;
                    if *json {
                        println!("{}", book_json(&reply));
                    } else {
                        print_book(&reply);
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
        } => {
            let mut position = input::positions(from)?
                .pop()
                .context("--from needs a position")?;
            let mut line = vec![position];
            for text in moves {
                let notation: MoveNotation =
                    text.parse().with_context(|| format!("bad move {text:?}"))?;
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
                    let reply = show(client, position).await?;
                    if *json {
                        let mut value = book_json(&reply);
                        value["step"] = json!(step);
                        value["move"] = json!(step.checked_sub(1).map(|i| &moves[i]));
                        println!("{value}");
                    } else {
                        match step {
                            0 => println!("== start of the line"),
                            _ => println!("\n== after {}", moves[..step].join(" ")),
                        }
                        print_book(&reply);
                    }
                    if position.is_over() {
                        break;
                    }
                }
                Ok(())
            })
        }
        BookCommand::Export {
            min_games,
            format,
            out,
            target,
        } => {
            let mut sink: Box<dyn Write> = match out {
                Some(path) => Box::new(std::io::BufWriter::new(
                    std::fs::File::create(path)
                        .with_context(|| format!("creating {}", path.display()))?,
                )),
                None => Box::new(std::io::stdout().lock()),
            };
            let rows =
                target.read(async |client| export(client, *min_games, *format, &mut sink).await)?;
            sink.flush()?;
            eprintln!("exported {rows} rows");
            Ok(())
        }
        BookCommand::Import {
            file,
            format,
            target,
        } => {
            let format = format.unwrap_or(if file.ends_with(".csv") {
                RowFormat::Csv
            } else {
                RowFormat::Jsonl
            });
            let reader: Box<dyn BufRead> = if file == "-" {
                Box::new(std::io::stdin().lock())
            } else {
                Box::new(std::io::BufReader::new(
                    std::fs::File::open(file).with_context(|| format!("opening {file}"))?,
                ))
            };
            let rows = parse_rows(reader, format)?;
            let count = rows.len();
            target.read(async |client| {
                for chunk in rows.chunks(MAX_BOOK_ROWS) {
                    client
                        .clone()
                        .book_import(v1::BookImportRequest {
                            rows: chunk.to_vec(),
                        })
                        .await?;
                }
                Ok(())
            })?;
            println!("imported {count} rows");
            Ok(())
        }
    }
}

/// The stored tables of a position.
pub async fn show(client: &Client, position: &Position) -> Result<v1::BookShowResponse> {
    Ok(client
        .clone()
        .book_show(v1::BookShowRequest {
            position: position.to_string(),
        })
        .await?
        .into_inner())
}

const CSV_HEADER: &str = "position,move,source,games,wins,draws,proven";

async fn export(
    client: &Client,
    min_games: u64,
    format: RowFormat,
    sink: &mut dyn Write,
) -> Result<u64> {
    if format == RowFormat::Csv {
        writeln!(sink, "{CSV_HEADER}")?;
    }
    let mut after_key = 0;
    let mut count = 0;
    loop {
        let page = client
            .clone()
            .book_export(v1::BookExportRequest {
                after_key,
                limit: 1000,
                min_games,
            })
            .await?
            .into_inner();
        for row in &page.rows {
            match format {
                RowFormat::Csv => writeln!(
                    sink,
                    "{},{},{},{},{},{},{}",
                    row.position,
                    row.r#move,
                    row.source,
                    row.games,
                    row.wins,
                    row.draws,
                    row.proven
                )?,
                RowFormat::Jsonl => writeln!(
                    sink,
                    "{}",
                    json!({
                        "position": row.position, "move": row.r#move, "source": row.source,
                        "games": row.games, "wins": row.wins, "draws": row.draws,
                        "proven": (!row.proven.is_empty()).then_some(&row.proven),
                    })
                )?,
            }
            count += 1;
        }
        if page.next_key == 0 {
            return Ok(count);
        }
        after_key = page.next_key;
    }
}

/// Rows of an export, checked for shape here and for meaning by the coordinator.
fn parse_rows(reader: Box<dyn BufRead>, format: RowFormat) -> Result<Vec<v1::BookExportRow>> {
    let mut rows = Vec::new();
    for (number, line) in reader.lines().enumerate() {
        let line = line.context("reading the rows")?;
        let where_ = || format!("line {}", number + 1);
        if line.trim().is_empty() || (format == RowFormat::Csv && number == 0 && line == CSV_HEADER)
        {
            continue;
        }
        let row = match format {
            RowFormat::Csv => {
                let fields: Vec<&str> = line.split(',').collect();
                ensure!(
                    fields.len() == 7,
                    "{}: expected 7 fields ({CSV_HEADER})",
                    where_()
                );
                let number = |i: usize| -> Result<u64> {
                    fields[i]
                        .parse()
                        .with_context(|| format!("{}: bad count {:?}", where_(), fields[i]))
                };
                v1::BookExportRow {
                    position: fields[0].into(),
                    r#move: fields[1].into(),
                    source: fields[2].into(),
                    games: number(3)?,
                    wins: number(4)?,
                    draws: number(5)?,
                    proven: fields[6].into(),
                }
            }
            RowFormat::Jsonl => {
                let value: serde_json::Value = serde_json::from_str(&line)
                    .with_context(|| format!("{}: not JSON", where_()))?;
                let text = |key: &str| -> Result<String> {
                    match &value[key] {
                        serde_json::Value::String(s) => Ok(s.clone()),
                        serde_json::Value::Null if key == "proven" => Ok(String::new()),
                        other => bail!("{}: {key} is {other}, not text", where_()),
                    }
                };
                let number = |key: &str| -> Result<u64> {
                    value[key]
                        .as_u64()
                        .with_context(|| format!("{}: {key} is not a count", where_()))
                };
                v1::BookExportRow {
                    position: text("position")?,
                    r#move: text("move")?,
                    source: text("source")?,
                    games: number("games")?,
                    wins: number("wins")?,
                    draws: number("draws")?,
                    proven: text("proven")?,
                }
            }
        };
        rows.push(row);
    }
    Ok(rows)
}

fn rows_json(rows: &[v1::BookRow]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|r| {
            json!({"move": r.r#move, "also": r.also, "games": r.games, "wins": r.wins,
                   "draws": r.draws, "proven": (!r.proven.is_empty()).then_some(&r.proven)})
        })
        .collect()
}

/// A book reply as JSON.
pub fn book_json(reply: &v1::BookShowResponse) -> serde_json::Value {
    json!({
        "position": reply.position,
        "canonical": reply.canonical,
        "playouts": rows_json(&reply.playouts),
        "games": rows_json(&reply.games),
    })
}

/// Win rate of a row for the player making the move.
pub fn win_rate(row: &v1::BookRow) -> f64 {
    if row.games == 0 {
        0.0
    } else {
        (row.wins as f64 + 0.5 * row.draws as f64) / row.games as f64
    }
}

/// A book reply as two tables.
pub fn print_book(reply: &v1::BookShowResponse) {
    println!("position  {}", reply.position);
    for (title, rows) in [
        ("playouts (UCT analyses)", &reply.playouts),
        ("games (self-play)", &reply.games),
    ] {
        println!("{title}:");
        if rows.is_empty() {
            println!("  none stored");
            continue;
        }
        println!(
            "  {:<8} {:>12} {:>8} {:>10} {:>7}  also",
            "move", "games", "win%", "draws", "proven"
        );
        for r in rows.iter().take(20) {
            let also = if r.also.is_empty() {
                String::new()
            } else {
                format!("+{} merged", r.also.len())
            };
            println!(
                "  {:<8} {:>12} {:>7.2}% {:>10} {:>7}  {also}",
                r.r#move,
                r.games,
                100.0 * win_rate(r),
                r.draws,
                r.proven
            );
        }
        if rows.len() > 20 {
            println!("  ... {} more", rows.len() - 20);
        }
    }
}
