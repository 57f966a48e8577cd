//! `/puzzles` (the collection, filtered and paged) and `/puzzles/{id}` (one puzzle with its
//! proof, laid out for playing through it).

use axum::Json;
use axum::extract::{Path, State};
use pentago::{
    AttackNode, Color, DIFFICULTY_LABELS, Move, Position, Puzzle, Theme, difficulty_label,
};
use pentagrid_client::puzzles::PuzzleFilter;
use serde::Serialize;

use super::{ApiError, Params};
use crate::AppState;
use crate::source::SourceError;

/// Puzzles per page unless asked otherwise, and at most.
const PER_PAGE: u64 = 20;
const MAX_PER_PAGE: u64 = 100;

/// A puzzle without its solution.
#[derive(Serialize)]
struct Summary {
    /// Stable id: the puzzle position's key, in hex.
    id: String,
    position: String,
    side_to_move: Color,
    mate_in: u32,
    difficulty: f64,
    /// `easy`, `medium`, `hard` or `expert`.
    level: &'static str,
    themes: Vec<Theme>,
    source: String,
}

fn id_of(puzzle: &Puzzle) -> String {
    format!("{:016x}", puzzle.position.key().bits())
}

impl Summary {
    fn of(puzzle: &Puzzle) -> Summary {
        Summary {
            id: id_of(puzzle),
            position: puzzle.position.to_string(),
            side_to_move: puzzle.side_to_move,
            mate_in: puzzle.mate_in,
            difficulty: puzzle.difficulty,
            level: difficulty_label(puzzle.difficulty),
            // Worked out again rather than read, so puzzles stored before themes have them too.
            themes: Theme::of(&puzzle.proof),
            source: puzzle.source.clone(),
        }
    }
}

/// One page of the collection.
#[derive(Serialize)]
pub struct PuzzlePage {
    page: u64,
    per_page: u64,
    /// Puzzles matching the filters, on all pages.
    total: u64,
    pages: u64,
    puzzles: Vec<Summary>,
}

/// `GET /api/v1/puzzles?length=N&theme=T&difficulty=L&page=P&per_page=K`.
pub async fn list(
    State(state): State<AppState>,
    params: Params,
) -> Result<Json<PuzzlePage>, ApiError> {
    let length = params.number("length", 1..=u64::from(pentago::MAX_PUZZLE_MOVES), None)?;
    let theme = match params.text("theme") {
        None | Some("") => None,
        Some(name) => Some(
            name.parse::<Theme>()
                .map_err(|e| ApiError::bad("theme", e.to_string()))?,
        ),
    };
    let level = match params.text("difficulty") {
        None | Some("") => None,
        Some(name) => Some(
            DIFFICULTY_LABELS
                .into_iter()
                .find(|l| *l == name)
                .ok_or_else(|| {
                    ApiError::bad(
                        "difficulty",
                        format!(
                            "unknown difficulty {name:?}: expected easy, medium, hard or expert"
                        ),
                    )
                })?,
        ),
    };
    let page = params.number("page", 1..=1_000_000, Some(1))?.unwrap_or(1);
    let per_page = params
        .number("per_page", 1..=MAX_PER_PAGE, Some(PER_PAGE))?
        .unwrap_or(PER_PAGE);
    let bound = length.map_or(0, |n| n as u32);
    let filter = PuzzleFilter {
        min_moves: bound,
        max_moves: bound,
        theme,
        level,
        ..PuzzleFilter::default()
    };
    // The coordinator filters and pages; every other parameter was checked above, so a
    // refusal can only be about the page (past the last one).
    let found = match state
        .source
        .puzzles(&filter, page as u32, per_page as u32)
        .await
    {
        Err(SourceError::Rejected(why)) => return Err(ApiError::bad("page", why)),
        other => other?,
    };
    Ok(Json(PuzzlePage {
        page,
        per_page,
        total: found.total,
        pages: found.total.div_ceil(per_page),
        puzzles: found.puzzles.iter().map(Summary::of).collect(),
    }))
}

/// One puzzle with its solution.
#[derive(Serialize)]
pub struct PuzzleDetail {
    #[serde(flatten)]
    summary: Summary,
    first_move: String,
    /// The main line: the solution against the longest defence.
    main_line: Vec<String>,
    /// The proof tree, with the position after every move.
    solution: SolveNode,
}

/// An attacker move of the proof, the moves that count as it, and every defence.
#[derive(Serialize)]
struct SolveNode {
    #[serde(rename = "move")]
    mv: String,
    /// Moves reaching the same position as `move` (they count as it).
    same: Vec<String>,
    /// Moves reaching a symmetric image of that position (the same move on a turned board).
    symmetric: Vec<String>,
    after: String,
    /// Moves left to mate from here, this one included.
    depth: u32,
    replies: Vec<SolveReply>,
}

/// Defender moves that reach one position, and the attacker's answer (null: the defence ends
/// the game in the attacker's favour).
#[derive(Serialize)]
struct SolveReply {
    moves: Vec<String>,
    after: String,
    then: Option<SolveNode>,
}

fn solve_node(position: &Position, node: &AttackNode) -> SolveNode {
    let after = position.play_unchecked(node.mv);
    let canonical = after.canonical_key();
    let (mut same, mut symmetric) = (Vec::new(), Vec::new());
    for &mv in position.legal_moves().iter().filter(|&&mv| mv != node.mv) {
        let child = position.play_unchecked(mv);
        if child == after {
            same.push(mv.to_string());
        } else if child.canonical_key() == canonical {
            symmetric.push(mv.to_string());
        }
    }
    let replies: Vec<SolveReply> = node
        .replies
        .iter()
        .map(|reply| {
            let first: Move = reply.moves[0];
            let reached = after.play_unchecked(first);
            SolveReply {
                moves: reply.moves.iter().map(ToString::to_string).collect(),
                after: reached.to_string(),
                then: reply.then.as_ref().map(|then| solve_node(&reached, then)),
            }
        })
        .collect();
    let depth = 1 + replies
        .iter()
        .filter_map(|r| r.then.as_ref().map(|t| t.depth))
        .max()
        .unwrap_or(0);
    SolveNode {
        mv: node.mv.to_string(),
        same,
        symmetric,
        after: after.to_string(),
        depth,
        replies,
    }
}

/// `GET /api/v1/puzzles/{id}`.
pub async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PuzzleDetail>, ApiError> {
    let key = Some(&id)
        .filter(|id| id.len() == 16)
        .and_then(|id| u64::from_str_radix(id, 16).ok())
        .ok_or_else(|| {
            ApiError::bad(
                "id",
                format!("bad puzzle id {id:?}: expected 16 hex digits"),
            )
        })?;
    // An id that is no position key at all is as absent as one without a puzzle.
    let puzzle = match state.source.puzzle(key).await {
        Err(SourceError::NotFound(_) | SourceError::Rejected(_)) => {
            return Err(ApiError::NotFound(format!("no puzzle {id}")));
        }
        other => other?,
    };
    Ok(Json(PuzzleDetail {
        summary: Summary::of(&puzzle),
        first_move: puzzle.first_move.to_string(),
        main_line: puzzle
            .proof
            .main_line()
            .iter()
            .map(ToString::to_string)
            .collect(),
        solution: solve_node(&puzzle.position, &puzzle.proof.tree),
    }))
}
