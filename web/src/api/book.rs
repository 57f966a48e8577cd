//! `/book` (a position's two move tables in the asker's frame) and `/book/line` (the positions
//! along a line of moves, each move checked against the rules).

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use pentago::{Color, MoveNotation, Position};
use pentagrid_rating::{WinRate, win_rate};
use serde::Serialize;

use super::{ApiError, Params};
use crate::AppState;
use crate::source::{BookRow, Source};

/// Most moves one line may have (a game has at most 36).
const MAX_LINE_MOVES: usize = 36;

/// A position with both of its tables.
#[derive(Serialize)]
pub struct BookResponse {
    #[serde(flatten)]
    position: PositionInfo,
    /// The canonical form the tables are stored under.
    canonical: String,
    /// UCT analyses (playout counts) and self-play games, kept apart.
    sources: Sources,
    /// `win`, `draw`, `loss` for the side to move where stored exact values prove it, or null.
    proven: Option<&'static str>,
    /// Where the value of the move that proves it came from (`table`, `solver`, ...), or null.
    proven_by: Option<&'static str>,
    /// The proven line from the position (empty when not proven).
    proven_line: Vec<String>,
}

/// A position and where the game stands in it.
#[derive(Serialize)]
pub struct PositionInfo {
    position: String,
    side_to_move: Color,
    /// `ongoing`, `black`, `white` or `draw`.
    status: &'static str,
    stones: u32,
}

impl PositionInfo {
    fn of(position: &Position) -> PositionInfo {
        PositionInfo {
            position: position.to_string(),
            side_to_move: position.side_to_move(),
            status: position.status().name(),
            stones: position.stone_count(),
        }
    }
}

#[derive(Serialize)]
struct Sources {
    playouts: Table,
    games: Table,
}

#[derive(Serialize)]
struct Table {
    /// Sum of the rows' games.
    total: u64,
    moves: Vec<MoveEntry>,
}

/// One row of a table, for the player making the move.
#[derive(Serialize)]
struct MoveEntry {
    #[serde(rename = "move")]
    mv: String,
    /// Moves merged into this row (same or symmetric position reached).
    also: Vec<String>,
    /// The position after the move.
    after: String,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    /// Null without games.
    win_rate: Option<WinRate>,
    /// `win`, `draw`, `loss`, or null when not settled.
    proven: Option<&'static str>,
    /// Where that value came from: `table`, `solver`, `propagated`, `imported`, `unrecorded`.
    proven_by: Option<&'static str>,
}

fn table(position: &Position, rows: &[BookRow]) -> Table {
    let mut moves: Vec<MoveEntry> = rows
        .iter()
        .map(|row| MoveEntry {
            mv: row.mv.to_string(),
            also: row.also.iter().map(ToString::to_string).collect(),
            after: position.play_unchecked(row.mv).to_string(),
            games: row.games,
            wins: row.wins,
            draws: row.draws,
            losses: row.games.saturating_sub(row.wins + row.draws),
            win_rate: win_rate(row.games, row.wins, row.draws),
            proven: row.proven.map(|value| value.name()),
            proven_by: row.proven_by.map(|source| source.name()),
        })
        .collect();
    moves.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.mv.cmp(&b.mv)));
    Table {
        total: rows.iter().map(|row| row.games).sum(),
        moves,
    }
}

/// `GET /api/v1/book?position=P`, from the explorer's cache when it holds a young enough
/// answer (the `Cache-Control` header says how young).
pub async fn position(State(state): State<AppState>, params: Params) -> Result<Response, ApiError> {
    let position = params.position("position")?;
    let cache = &state.book_cache;
    let body = cache
        .get_or_fetch(position.key(), answer(&state.source, position))
        .await?;
    let headers = [
        (
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        ),
        (header::CACHE_CONTROL, cache.cache_control()),
    ];
    Ok((headers, body).into_response())
}

/// The JSON body of `/book` for `position`, read from the coordinator.
async fn answer(source: &Source, position: Position) -> Result<Bytes, ApiError> {
    let tables = source.book(&position).await?;
    let response = BookResponse {
        position: PositionInfo::of(&position),
        canonical: tables.canonical.to_string(),
        sources: Sources {
            playouts: table(&position, &tables.playouts),
            games: table(&position, &tables.games),
        },
        proven: tables.proven.map(|value| value.name()),
        proven_by: tables.proven_by.map(|source| source.name()),
        proven_line: tables.proven_line.iter().map(ToString::to_string).collect(),
    };
    let body = serde_json::to_vec(&response).map_err(|e| ApiError::Encode(e.to_string()))?;
    Ok(Bytes::from(body))
}

/// The positions along a line.
#[derive(Serialize)]
pub struct LineResponse {
    steps: Vec<LineStep>,
}

#[derive(Serialize)]
struct LineStep {
    /// The move that led here, in full form (null for the first step).
    #[serde(rename = "move")]
    mv: Option<String>,
    #[serde(flatten)]
    position: PositionInfo,
}

/// `GET /api/v1/book/line?position=P&moves=M1,M2,...`: checks each move and lists the
/// positions the line goes through.
pub async fn line(params: Params) -> Result<Json<LineResponse>, ApiError> {
    let mut position = params.position("position")?;
    let texts: Vec<&str> = params
        .text("moves")
        .unwrap_or("")
        .split([',', ' '])
        .filter(|text| !text.is_empty())
        .collect();
    if texts.len() > MAX_LINE_MOVES {
        return Err(ApiError::bad(
            "moves",
            format!("at most {MAX_LINE_MOVES} moves, not {}", texts.len()),
        ));
    }
    let mut steps = vec![LineStep {
        mv: None,
        position: PositionInfo::of(&position),
    }];
    for (index, text) in texts.iter().enumerate() {
        let bad = |e: &dyn std::fmt::Display| {
            ApiError::bad(
                "moves",
                format!("move {} {text:?} in {position}: {e}", index + 1),
            )
        };
        let notation: MoveNotation = text.parse().map_err(|e| bad(&e))?;
        let mv = position.resolve(notation).map_err(|e| bad(&e))?;
        position = position.play(mv).map_err(|e| bad(&e))?;
        steps.push(LineStep {
            mv: Some(mv.to_string()),
            position: PositionInfo::of(&position),
        });
    }
    Ok(Json(LineResponse { steps }))
}
