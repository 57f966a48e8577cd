//! `/exact` (every move's exact value for the mover and the position's, each with its source,
//! for the analysis board) and `/exact/solver` (the solver pool's counters).

use axum::Json;
use axum::extract::State;
use pentago::{Color, Position, Value};
use serde::Serialize;

use super::{ApiError, Params};
use crate::AppState;
use crate::exact::{ExactBoard, Known, SolverStats, ValueSource, known};

/// A position's exact values.
#[derive(Serialize)]
pub struct ExactResponse {
    position: String,
    side_to_move: Color,
    /// `ongoing`, `black`, `white` or `draw`.
    status: &'static str,
    stones: u32,
    /// `win`, `draw` or `loss` for the side to move, or null when unknown.
    value: Option<&'static str>,
    /// Where the value came from (null when unknown).
    source: Option<ValueSource>,
    /// Every legal move in the asker's frame (none when the game is over).
    moves: Vec<MoveEntry>,
    /// Moves whose value is unknown.
    unknown_moves: usize,
    /// Why some values are unknown (null when all are known).
    unknown: Option<Unknown>,
    /// Whether the book's proofs were read: `read`, `not_needed` (the other sources knew
    /// everything) or `unavailable` (the coordinator did not answer).
    book: BookState,
    /// The solver's run, when it ran for this position.
    solver: Option<SolverReport>,
}

#[derive(Serialize)]
struct MoveEntry {
    #[serde(rename = "move")]
    mv: String,
    value: Option<&'static str>,
    source: Option<ValueSource>,
}

#[derive(Copy, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
enum BookState {
    Read,
    NotNeeded,
    Unavailable,
}

/// Why values are missing, with a stable code.
#[derive(Serialize)]
struct Unknown {
    /// `not_covered` (no source holds positions like this) or `budget` (the solver's budget ran
    /// out first).
    code: &'static str,
    message: String,
}

#[derive(Serialize)]
struct SolverReport {
    /// `alpha-beta` or `midsolver`.
    method: &'static str,
    seconds: f64,
    /// The budget of an alpha-beta solve.
    max_nodes: u64,
    max_seconds: Option<f64>,
}

fn name(value: Option<Value>) -> Option<&'static str> {
    value.map(Value::name)
}

/// `GET /api/v1/exact?position=P`.
pub async fn values(
    State(state): State<AppState>,
    params: Params,
) -> Result<Json<ExactResponse>, ApiError> {
    let position = params.position("position")?;
    let exact = &state.exact;
    let mut response = ExactResponse {
        position: position.to_string(),
        side_to_move: position.side_to_move(),
        status: position.status().name(),
        stones: position.stone_count(),
        value: None,
        source: None,
        moves: Vec::new(),
        unknown_moves: 0,
        unknown: None,
        book: BookState::NotNeeded,
        solver: None,
    };
    if let Some(value) = Value::of_status(position.status(), position.side_to_move()) {
        response.value = Some(value.name());
        response.source = Some(ValueSource::Rules);
        return Ok(Json(response));
    }
    let table = exact.table(&position).await?;
    let mut found = known(&position, table.as_deref(), None, None);
    let mut solver = None;
    if found.unknown_moves() > 0 {
        let proofs = exact
            .book_proofs(&position, state.source.book(&position))
            .await;
        let book = match &proofs {
            Ok(_) => BookState::Read,
            Err(error) => {
                tracing::debug!(%error, "the analysis board goes on without the book");
                BookState::Unavailable
            }
        };
        response.book = book;
        let proofs = proofs.ok();
        found = known(&position, table.as_deref(), proofs.as_deref(), None);
        let settings = exact.settings();
        if found.unknown_moves() > 0
            && position.stone_count() >= settings.solver_min_stones
            && !exact.table_covers_moves(position.stone_count())
        {
            let run = exact.solve(&position).await?;
            found = known(&position, table.as_deref(), proofs.as_deref(), Some(&run));
            let limits = settings.solver.limits;
            solver = Some(SolverReport {
                method: run.method.name(),
                seconds: run.seconds,
                max_nodes: limits.max_nodes,
                max_seconds: limits.max_time.map(|t| t.as_secs_f64()),
            });
        }
    }
    response.unknown = unknown(exact, &position, &found, solver.is_some());
    response.solver = solver;
    fill(&mut response, &found);
    Ok(Json(response))
}

fn fill(response: &mut ExactResponse, found: &Known) {
    response.value = name(found.value);
    response.source = found.source;
    response.unknown_moves = found.unknown_moves();
    response.moves = found
        .moves
        .iter()
        .map(|m| MoveEntry {
            mv: m.mv.to_string(),
            value: name(m.value),
            source: m.source,
        })
        .collect();
}

/// Why some of `found` is unknown, if anything is.
fn unknown(
    exact: &ExactBoard,
    position: &Position,
    found: &Known,
    solved: bool,
) -> Option<Unknown> {
    if found.unknown_moves() == 0 && found.value.is_some() {
        return None;
    }
    if solved {
        let limits = exact.settings().solver.limits;
        let time = limits
            .max_time
            .map(|t| format!(" or {} s", t.as_secs_f64()))
            .unwrap_or_default();
        return Some(Unknown {
            code: "budget",
            message: format!(
                "the solver's budget ({} nodes{time}) ran out before every move was settled",
                limits.max_nodes
            ),
        });
    }
    let slices: Vec<String> = exact
        .table_slices()
        .iter()
        .map(ToString::to_string)
        .collect();
    Some(Unknown {
        code: "not_covered",
        message: format!(
            "no source knows every move: the tablebase holds positions of {} stones, the \
             solver takes positions of {} stones and more (this one has {}), and the book has \
             not proven every move",
            slices.join(", "),
            exact.settings().solver_min_stones,
            position.stone_count(),
        ),
    })
}

/// `GET /api/v1/exact/solver`: the solver pool's settings and counters.
pub async fn solver(State(state): State<AppState>) -> Json<SolverStats> {
    Json(state.exact.solver_stats())
}
