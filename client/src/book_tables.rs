//! Reading a position's book tables ([`pentagrid_model::BookTables`]) from the coordinator's
//! book answer: moves parsed and resolved in the asker's frame, exact values read.

use pentago::{Move, MoveNotation, Position};
use pentagrid_model::{BookRow, BookTables};
use pentagrid_proto::{Client, source_of_wire, v2, value_of_wire};

use crate::error::{ClientError, Result};

/// The stored tables of `position`, in its frame.
pub async fn tables(client: &Client, position: &Position) -> Result<BookTables> {
    let request = v2::BookShowRequest {
        position: position.to_string(),
    };
    let reply = client.clone().book_show(request).await?.into_inner();
    let canonical = reply
        .canonical
        .parse()
        .map_err(|e| unreadable("position", &reply.canonical, e))?;
    let mut tables = BookTables {
        position: *position,
        canonical,
        playouts: rows(position, &reply.playouts)?,
        games: rows(position, &reply.games)?,
        // An unreadable value is no proof.
        proven: value_of_wire(reply.proven).ok().flatten(),
        proven_by: None,
        proven_line: line(position, &reply.proven_line)?,
    };
    // Read from the rows the client has resolved, as it always has been.
    tables.proven_by = tables.source_of_first_move();
    Ok(tables)
}

/// A line of moves from `position`, each resolved where the one before leads.
fn line(position: &Position, moves: &[String]) -> Result<Vec<Move>> {
    let mut at = *position;
    moves
        .iter()
        .map(|text| {
            let mv = parse_move(&at, text)?;
            at = at.play(mv).map_err(|e| unreadable("move", text, e))?;
            Ok(mv)
        })
        .collect()
}

fn unreadable(what: &str, text: &str, error: impl std::fmt::Display) -> ClientError {
    ClientError::Unreadable(format!("{what} {text:?}: {error}"))
}

fn parse_move(position: &Position, text: &str) -> Result<Move> {
    let notation: MoveNotation = text.parse().map_err(|e| unreadable("move", text, e))?;
    position
        .resolve(notation)
        .map_err(|e| unreadable("move", text, e))
}

fn rows(position: &Position, rows: &[v2::BookRow]) -> Result<Vec<BookRow>> {
    rows.iter()
        .map(|row| {
            Ok(BookRow {
                mv: parse_move(position, &row.r#move)?,
                also: row
                    .also
                    .iter()
                    .map(|text| parse_move(position, text))
                    .collect::<Result<_>>()?,
                games: row.games,
                wins: row.wins,
                draws: row.draws,
                // An unreadable value is no proof.
                proven: value_of_wire(row.proven).ok().flatten(),
                proven_by: source_of_wire(row.proven_by),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_resolve_their_moves_and_refuse_what_does_not_read() {
        let start = Position::START;
        let mv = *start.legal_moves().first().expect("a legal move");
        let row = v2::BookRow {
            r#move: mv.to_string(),
            also: vec![mv.to_string()],
            games: 10,
            wins: 4,
            draws: 2,
            proven: 0,
            proven_by: 0,
        };
        let read = rows(&start, std::slice::from_ref(&row)).unwrap();
        assert_eq!(
            read,
            [BookRow {
                mv,
                also: vec![mv],
                games: 10,
                wins: 4,
                draws: 2,
                proven: None,
                proven_by: None,
            }]
        );
        for bad in ["", "z9", "a1-9X"] {
            let broken = v2::BookRow {
                r#move: bad.into(),
                ..row.clone()
            };
            assert!(
                matches!(rows(&start, &[broken]), Err(ClientError::Unreadable(_))),
                "{bad:?}"
            );
        }
    }
}
