//! The opening book from a client: a position's tables, and export and import in the stable
//! row formats (CSV with a header line, or JSON lines) that `pentagrid book export` writes.
//!
//! Row fields, stable: `position` (canonical), `move` (in that position's frame), `source`
//! (`playouts` or `games`), `games`, `wins`, `draws`, `proven` (`win`, `draw`, `loss`, or empty
//! in CSV and `null` in JSON), `proven_by` (where the exporting coordinator's exact value came
//! from: `table`, `solver`, `propagated`, `imported` or `unrecorded`; empty or `null` without
//! one). Files written before `proven_by` existed (seven CSV fields, no JSON key) still read.
//! An importing coordinator stores every imported value as `imported`, whatever the row says.

use std::io::{BufRead, Write};

use pentago::{Move, Position, Value};
use pentagrid_model::limits::MAX_IMPORT_ROWS;
use pentagrid_proto::{
    Client, ExactSource, export_row_to_wire, source_of_wire, table_source_of_wire, v2,
    value_of_wire,
};
use serde_json::json;

use crate::error::{ClientError, Result};

pub use crate::book_tables::tables;
pub use pentagrid_model::{BookRow, BookTables, ExportRow, TableSource};

/// The two row formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RowFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated with a header line.
    Csv,
}

impl RowFormat {
    /// The format a file name suggests: `.csv`, else JSON lines.
    #[must_use]
    pub fn of_file_name(name: &str) -> RowFormat {
        if name.ends_with(".csv") {
            RowFormat::Csv
        } else {
            RowFormat::Jsonl
        }
    }
}

/// The CSV header line.
pub const CSV_HEADER: &str = "position,move,source,games,wins,draws,proven,proven_by";
/// The CSV header line of files written before `proven_by`.
const OLD_CSV_HEADER: &str = "position,move,source,games,wins,draws,proven";

/// Rows per export page.
const PAGE_ROWS: u32 = 1000;

/// Win rate of a row for the player making the move (0 without games; see [`pentagrid_rating::win_rate`]).
#[must_use]
pub fn win_rate(row: &BookRow) -> f64 {
    pentagrid_rating::win_rate(row.games, row.wins, row.draws).map_or(0.0, |rate| rate.rate)
}

/// The 95% interval of a row's win rate (Wilson, see [`pentagrid_rating::win_rate`]); `None` without
/// games.
#[must_use]
pub fn win_rate_interval(row: &BookRow) -> Option<(f64, f64)> {
    pentagrid_rating::win_rate(row.games, row.wins, row.draws).map(|rate| (rate.low, rate.high))
}

/// An exported row the coordinator sent, read; [`ClientError::Unreadable`] for one that does
/// not read (an unknown table reads as the playout table, an unreadable value as no proof).
fn export_row_of_wire(row: &v2::BookExportRow) -> Result<ExportRow> {
    let unreadable = |what: &str, text: &str, e: &dyn std::fmt::Display| {
        ClientError::Unreadable(format!("{what} {text:?}: {e}"))
    };
    Ok(ExportRow {
        position: row
            .position
            .parse()
            .map_err(|e| unreadable("position", &row.position, &e))?,
        mv: row
            .r#move
            .parse()
            .map_err(|e| unreadable("move", &row.r#move, &e))?,
        source: table_source_of_wire(row.source).unwrap_or(TableSource::Playouts),
        games: row.games,
        wins: row.wins,
        draws: row.draws,
        proven: value_of_wire(row.proven).ok().flatten(),
        proven_by: source_of_wire(row.proven_by),
    })
}

/// A row as an import call carries it (and as [`book_digest`] reads it).
#[must_use]
pub fn import_row_to_wire(row: &ExportRow) -> v2::BookExportRow {
    v2::BookExportRow {
        // The importer stores imported values as such: the source is not sent (and a book's
        // digest stays what it was before sources were exported).
        proven_by: 0,
        ..export_row_to_wire(row)
    }
}

/// Writes one row in `format`.
fn write_row(sink: &mut dyn Write, format: RowFormat, row: &ExportRow) -> std::io::Result<()> {
    let value = row.proven.map(|v| v.to_string());
    let by = row.proven_by.map(ExactSource::name);
    match format {
        RowFormat::Csv => writeln!(
            sink,
            "{},{},{},{},{},{},{},{}",
            row.position,
            row.mv,
            row.source.name(),
            row.games,
            row.wins,
            row.draws,
            value.unwrap_or_default(),
            by.unwrap_or_default()
        ),
        RowFormat::Jsonl => writeln!(
            sink,
            "{}",
            json!({
                "position": row.position.to_string(), "move": row.mv.to_string(),
                "source": row.source.name(),
                "games": row.games, "wins": row.wins, "draws": row.draws, "proven": value,
                "proven_by": by,
            })
        ),
    }
}

/// Writes every book row with at least `min_games` games to `sink`; returns how many.
pub async fn export(
    client: &Client,
    min_games: u64,
    format: RowFormat,
    sink: &mut dyn Write,
) -> Result<u64> {
    if format == RowFormat::Csv {
        writeln!(sink, "{CSV_HEADER}").map_err(ClientError::io("writing the rows"))?;
    }
    let mut count = 0;
    for_each_row(client, min_games, &mut |row| {
        write_row(sink, format, &row).map_err(ClientError::io("writing the rows"))?;
        count += 1;
        Ok(())
    })
    .await?;
    Ok(count)
}

/// Every book row with at least `min_games` games, read page by page (for judging the book:
/// see [`crate::judge_book`]).
pub async fn rows(client: &Client, min_games: u64) -> Result<Vec<ExportRow>> {
    let mut rows = Vec::new();
    for_each_row(client, min_games, &mut |row| {
        rows.push(row);
        Ok(())
    })
    .await?;
    Ok(rows)
}

/// Hands every book row with at least `min_games` games to `each`, page by page.
async fn for_each_row(
    client: &Client,
    min_games: u64,
    each: &mut dyn FnMut(ExportRow) -> Result<()>,
) -> Result<()> {
    let mut from_key = 0;
    loop {
        let request = v2::BookExportRequest {
            from_key,
            limit: PAGE_ROWS,
            min_games,
        };
        let page = client.clone().book_export(request).await?.into_inner();
        for row in &page.rows {
            each(export_row_of_wire(row)?)?;
        }
        if page.next_key == 0 {
            return Ok(());
        }
        from_key = page.next_key;
    }
}

fn parse_csv(line: &str, number: usize) -> Result<ExportRow> {
    let bad = |why: String| ClientError::Format { line: number, why };
    let fields: Vec<&str> = line.split(',').collect();
    if !(7..=8).contains(&fields.len()) {
        return Err(bad(format!(
            "expected 8 fields ({CSV_HEADER}), or 7 without proven_by"
        )));
    }
    let count = |i: usize| -> Result<u64> {
        fields[i]
            .parse()
            .map_err(|_| bad(format!("bad count {:?}", fields[i])))
    };
    row(
        fields[0],
        fields[1],
        fields[2],
        [count(3)?, count(4)?, count(5)?],
        [fields[6], fields.get(7).copied().unwrap_or_default()],
        number,
    )
}

fn parse_jsonl(line: &str, number: usize) -> Result<ExportRow> {
    let bad = |why: String| ClientError::Format { line: number, why };
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| bad(format!("not JSON: {e}")))?;
    let text = |key: &str| -> Result<String> {
        match &value[key] {
            serde_json::Value::String(s) => Ok(s.clone()),
            serde_json::Value::Null if key == "proven" || key == "proven_by" => Ok(String::new()),
            other => Err(bad(format!("{key} is {other}, not text"))),
        }
    };
    let count = |key: &str| -> Result<u64> {
        value[key]
            .as_u64()
            .ok_or_else(|| bad(format!("{key} is not a count")))
    };
    row(
        &text("position")?,
        &text("move")?,
        &text("source")?,
        [count("games")?, count("wins")?, count("draws")?],
        [&text("proven")?, &text("proven_by")?],
        number,
    )
}

/// A row from its fields, checked for shape here (a position, a move, a source, counts, a
/// value) and for meaning by the coordinator (a legal move, counts that add up).
fn row(
    position: &str,
    mv: &str,
    source: &str,
    [games, wins, draws]: [u64; 3],
    [proven, proven_by]: [&str; 2],
    number: usize,
) -> Result<ExportRow> {
    let bad = |why: String| ClientError::Format { line: number, why };
    let position: Position = position
        .parse()
        .map_err(|e| bad(format!("bad position {position:?}: {e}")))?;
    let mv: Move = mv
        .parse()
        .map_err(|e| bad(format!("bad move {mv:?}: {e}")))?;
    let source =
        TableSource::of_name(source).ok_or_else(|| bad(format!("unknown source {source:?}")))?;
    let value = match proven {
        "" => None,
        text => Some(
            text.parse::<Value>()
                .map_err(|e| bad(format!("bad proven value {text:?}: {e}")))?,
        ),
    };
    let by = match proven_by {
        "" => None,
        text => Some(
            text.parse::<ExactSource>()
                .map_err(|e| bad(e.to_string()))?,
        ),
    };
    Ok(ExportRow {
        position,
        mv,
        source,
        games,
        wins,
        draws,
        proven: value,
        proven_by: by,
    })
}

/// The rows of an export in `format`.
pub fn parse_rows(reader: impl BufRead, format: RowFormat) -> Result<Vec<ExportRow>> {
    let mut rows = Vec::new();
    for (index, line) in reader.lines().enumerate() {
        let line = line.map_err(ClientError::io("reading the rows"))?;
        let header = format == RowFormat::Csv
            && index == 0
            && (line == CSV_HEADER || line == OLD_CSV_HEADER);
        if line.trim().is_empty() || header {
            continue;
        }
        rows.push(match format {
            RowFormat::Csv => parse_csv(&line, index + 1)?,
            RowFormat::Jsonl => parse_jsonl(&line, index + 1)?,
        });
    }
    Ok(rows)
}

/// Adds rows to the book, in calls of at most [`MAX_IMPORT_ROWS`]; returns how many. The
/// coordinator records the rows' digest (see [`book_digest`]) and refuses the same book a
/// second time (`ALREADY_EXISTS`, nothing imported); see [`import_again`].
pub async fn import(client: &Client, rows: &[ExportRow]) -> Result<usize> {
    import_with(client, rows, false).await
}

/// [`import`], even if the same book was imported before: its counts are added again.
pub async fn import_again(client: &Client, rows: &[ExportRow]) -> Result<usize> {
    import_with(client, rows, true).await
}

async fn import_with(client: &Client, rows: &[ExportRow], again: bool) -> Result<usize> {
    let wire: Vec<v2::BookExportRow> = rows.iter().map(import_row_to_wire).collect();
    let digest = book_digest(&wire);
    let parts = wire.chunks(MAX_IMPORT_ROWS).len().max(1);
    let parts = u32::try_from(parts).map_err(|_| ClientError::Invalid("too many rows".into()))?;
    let mut chunks: Vec<&[v2::BookExportRow]> = wire.chunks(MAX_IMPORT_ROWS).collect();
    if chunks.is_empty() {
        // An empty book is still one call, so that importing it is recorded like any other.
        chunks.push(&[]);
    }
    for (part, chunk) in (0..parts).zip(chunks) {
        let request = v2::BookImportRequest {
            rows: chunk.to_vec(),
            book_digest: digest.to_vec(),
            part,
            parts,
            again,
        };
        client.clone().book_import(request).await?;
    }
    Ok(rows.len())
}

/// The SHA-256 digest of a book's rows: of each row's wire encoding after its length (4
/// bytes, big-endian), in order. The same rows give the same digest, whichever file format
/// (CSV or JSON lines) carried them.
#[must_use]
pub fn book_digest(rows: &[v2::BookExportRow]) -> [u8; 32] {
    use prost::Message;
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for row in rows {
        let bytes = row.encode_to_vec();
        // A row is far below 4 GiB: the cast cannot truncate.
        hasher.update((bytes.len() as u32).to_be_bytes());
        hasher.update(&bytes);
    }
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_in_both_formats_and_bad_lines_are_named() {
        let row = ExportRow {
            position: Position::START,
            mv: "a1-1R".parse().unwrap(),
            source: TableSource::Games,
            games: 5,
            wins: 2,
            draws: 1,
            proven: Some(Value::Win),
            proven_by: Some(ExactSource::Table),
        };
        for format in [RowFormat::Csv, RowFormat::Jsonl] {
            let mut bytes = Vec::new();
            if format == RowFormat::Csv {
                writeln!(bytes, "{CSV_HEADER}").unwrap();
            }
            write_row(&mut bytes, format, &row).unwrap();
            assert_eq!(
                parse_rows(bytes.as_slice(), format).unwrap(),
                vec![row.clone()]
            );
        }
        // Files from before `proven_by` read, without a source.
        let old = ExportRow {
            proven_by: None,
            ..row.clone()
        };
        let csv = format!(
            "{OLD_CSV_HEADER}\n{},a1-1R,games,5,2,1,win\n",
            Position::START
        );
        assert_eq!(
            parse_rows(csv.as_bytes(), RowFormat::Csv).unwrap(),
            std::slice::from_ref(&old)
        );
        let jsonl = format!(
            "{{\"position\":\"{}\",\"move\":\"a1-1R\",\"source\":\"games\",\"games\":5,\
             \"wins\":2,\"draws\":1,\"proven\":\"win\"}}\n",
            Position::START
        );
        assert_eq!(
            parse_rows(jsonl.as_bytes(), RowFormat::Jsonl).unwrap(),
            [old]
        );
        let csv = format!("{},a1-1R,games,5,2,1,win,oracle\n", Position::START);
        let error = parse_rows(csv.as_bytes(), RowFormat::Csv).unwrap_err();
        assert!(error.to_string().contains("oracle"), "{error}");
        let error = parse_rows("a,b\n".as_bytes(), RowFormat::Csv).unwrap_err();
        assert!(error.to_string().starts_with("line 1:"), "{error}");
        let error = parse_rows("\n{\"x\":1}\n".as_bytes(), RowFormat::Jsonl).unwrap_err();
        assert!(error.to_string().starts_with("line 2:"), "{error}");
    }
}
