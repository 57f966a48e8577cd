//! The opening book's tables and rows ([`BookTables`], [`BookRow`], [`ExportRow`],
//! [`TableSource`]) on the wire. Reading rows back is left to each side: a client resolves
//! moves in the asker's frame and reads a bad value as no proof, a coordinator refuses an
//! imported row that does not read and names it.

use pentagrid_model::{BookRow, BookTables, ExportRow, TableSource};

use crate::states::{source_to_wire, value_to_wire};
use crate::v2;

/// A table's wire form.
#[must_use]
pub fn table_source_to_wire(source: TableSource) -> v2::TableSource {
    match source {
        TableSource::Playouts => v2::TableSource::Playouts,
        TableSource::Games => v2::TableSource::Games,
    }
}

/// A table from its wire number; `None` for UNSPECIFIED or a number this version does not know.
#[must_use]
pub fn table_source_of_wire(number: i32) -> Option<TableSource> {
    match v2::TableSource::try_from(number) {
        Ok(v2::TableSource::Playouts) => Some(TableSource::Playouts),
        Ok(v2::TableSource::Games) => Some(TableSource::Games),
        _ => None,
    }
}

/// A book row's wire form.
#[must_use]
pub fn book_row_to_wire(row: BookRow) -> v2::BookRow {
    v2::BookRow {
        r#move: row.mv.to_string(),
        also: row.also.iter().map(ToString::to_string).collect(),
        games: row.games,
        wins: row.wins,
        draws: row.draws,
        proven: value_to_wire(row.proven) as i32,
        proven_by: source_to_wire(row.proven_by) as i32,
    }
}

/// A position's tables on the wire, as a show call answers them.
#[must_use]
pub fn book_tables_to_wire(tables: BookTables) -> v2::BookShowResponse {
    v2::BookShowResponse {
        position: tables.position.to_string(),
        canonical: tables.canonical.to_string(),
        playouts: tables.playouts.into_iter().map(book_row_to_wire).collect(),
        games: tables.games.into_iter().map(book_row_to_wire).collect(),
        proven: value_to_wire(tables.proven) as i32,
        proven_line: tables.proven_line.iter().map(ToString::to_string).collect(),
        proven_by: source_to_wire(tables.proven_by) as i32,
    }
}

/// An export row's wire form, its source of the exact value included.
#[must_use]
pub fn export_row_to_wire(row: &ExportRow) -> v2::BookExportRow {
    v2::BookExportRow {
        position: row.position.to_string(),
        r#move: row.mv.to_string(),
        source: table_source_to_wire(row.source) as i32,
        games: row.games,
        wins: row.wins,
        draws: row.draws,
        proven: value_to_wire(row.proven) as i32,
        proven_by: source_to_wire(row.proven_by) as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sources_go_and_come_back() {
        for source in [TableSource::Playouts, TableSource::Games] {
            assert_eq!(
                table_source_of_wire(table_source_to_wire(source) as i32),
                Some(source)
            );
        }
        assert_eq!(
            table_source_of_wire(v2::TableSource::Unspecified as i32),
            None
        );
    }
}
