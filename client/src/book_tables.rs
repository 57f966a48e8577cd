//! A position's book tables in the client's own types: moves parsed and resolved in the
//! asker's frame, exact values read, from the coordinator's book answer.

use pentago::{Move, MoveNotation, Position, Value};
use pentagrid_proto::{Client, ExactSource, source_of_wire, v2, value_of_wire};

use crate::error::{ClientError, Result};

/// One move of a book table, in the asker's frame, counted for the player making it.
#[derive(Clone, Debug, PartialEq)]
pub struct BookRow {
    /// The move shown.
    pub mv: Move,
    /// Other moves merged into this row: they reach the same position, or a symmetric one.
    pub also: Vec<Move>,
    /// Games (playouts or self-play games) that made this move.
    pub games: u64,
    /// Of them won by the mover.
    pub wins: u64,
    /// Of them drawn.
    pub draws: u64,
    /// The exact value for the mover, where the solver settled it.
    pub proven: Option<Value>,
    /// Where that value came from (the tablebase, a solver, propagation, an import).
    pub proven_by: Option<ExactSource>,
}

/// A position's two tables.
#[derive(Clone, Debug, PartialEq)]
pub struct BookTables {
    /// The position asked about (the tables' moves are in its frame).
    pub position: Position,
    /// The canonical form the tables are stored under.
    pub canonical: Position,
    /// From UCT analyses (playout counts).
    pub playouts: Vec<BookRow>,
    /// From self-play games.
    pub games: Vec<BookRow>,
    /// The position's exact value for the side to move, where stored exact values prove one.
    pub proven: Option<Value>,
    /// The proven line from the position (each proven position's best move), in its frame.
    pub proven_line: Vec<Move>,
}

impl BookTables {
    /// Where the position's exact value came from: the source of the value of the move that
    /// proves it (the proven line's first move), as its row names it; `None` when it is not
    /// proven, or the rules decide that move.
    #[must_use]
    pub fn proven_by(&self) -> Option<ExactSource> {
        let first = *self.proven_line.first()?;
        self.playouts
            .iter()
            .chain(&self.games)
            .find(|row| row.mv == first || row.also.contains(&first))
            .and_then(|row| row.proven_by)
    }
}

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
    Ok(BookTables {
        position: *position,
        canonical,
        playouts: rows(position, &reply.playouts)?,
        games: rows(position, &reply.games)?,
        // An unreadable value is no proof.
        proven: value_of_wire(reply.proven).ok().flatten(),
        proven_line: line(position, &reply.proven_line)?,
    })
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
