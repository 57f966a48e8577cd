//! `/matches/{id}/games` (a stored match's games, a page of pairs at a time) and
//! `/matches/{id}/games/{pair}/{game}` (one game move by move, for the game viewer: every
//! position from the opening to the end with each move's time and the clocks where known, and
//! the game's record).

use axum::Json;
use axum::extract::{Path, State};
use pentago::{Position, UNKNOWN_DATE};
use pentagrid_client::game_records::{match_game_record, record_player};
use pentagrid_client::match_games::PairGame;
use pentagrid_client::matches::GameClocks;
use serde::Serialize;

use super::matches::match_id;
use super::{ApiError, Params};
use crate::AppState;
use crate::source::{MatchGame, MatchRecord, SourceError};

/// Pairs (two games each) in one page of a match's games.
pub const PAGE_PAIRS: u32 = 50;

/// A player as a game shows it: the name, and the full specification for a hover.
#[derive(Serialize)]
struct Player {
    name: String,
    spec: String,
}

impl Player {
    fn of(text: &str) -> Player {
        let player = record_player(text);
        Player {
            name: player.name,
            spec: player.spec,
        }
    }
}

/// How a game ended.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum TerminationKind {
    /// Played until the rules ended it.
    Normal,
    /// An external engine forfeited (its moves stop there).
    Forfeit,
    /// Ended as soon as the exact value of its position was known.
    Adjudicated,
}

#[derive(Serialize)]
struct Termination {
    kind: TerminationKind,
    /// Forfeit: the side that lost.
    loser: Option<&'static str>,
    /// Forfeit: the reason's stable name (`time`, `illegal`, …).
    reason: Option<&'static str>,
    /// Forfeit: what happened, in words.
    detail: Option<String>,
    /// Adjudicated: where the exact value came from (`table`, `alpha-beta`, `midsolver`).
    source: Option<&'static str>,
}

impl Termination {
    fn of(game: &MatchGame) -> Termination {
        let mut out = Termination {
            kind: TerminationKind::Normal,
            loser: None,
            reason: None,
            detail: None,
            source: None,
        };
        if let Some(forfeit) = &game.forfeit {
            out.kind = TerminationKind::Forfeit;
            out.loser = Some(forfeit.loser.name());
            out.reason = Some(forfeit.reason.name());
            out.detail = Some(forfeit.detail.clone()).filter(|d| !d.is_empty());
        } else if let Some(source) = game.adjudicated {
            out.kind = TerminationKind::Adjudicated;
            out.source = Some(source.name());
        }
        out
    }
}

/// A game in a match's listing.
#[derive(Serialize)]
struct GameSummary {
    pair: u64,
    /// 1 (A black) or 2 (B black).
    game: u64,
    black: Player,
    white: Player,
    opening: String,
    result: &'static str,
    /// Moves played from the opening.
    moves: usize,
    termination: Termination,
}

/// A page of a match's games.
#[derive(Serialize)]
pub struct GameList {
    match_id: u64,
    a: Player,
    b: Player,
    /// Pairs the match asked for (pairs are counted from 0).
    pairs: u64,
    /// The first pair asked for.
    from_pair: u64,
    /// The `from_pair` of the next page (null: this page is the last).
    next_from_pair: Option<u64>,
    games: Vec<GameSummary>,
}

/// Seconds for each side: clocks, or time used.
#[derive(Serialize)]
struct BySide {
    black: f64,
    white: f64,
}

impl BySide {
    fn of([black, white]: [f64; 2]) -> BySide {
        BySide { black, white }
    }
}

/// One move of a game and the position it led to.
#[derive(Serialize)]
struct Ply {
    /// 1 for the first move from the opening.
    ply: usize,
    #[serde(rename = "move")]
    mv: String,
    /// `black` or `white`.
    mover: &'static str,
    /// The position after the move.
    position: String,
    /// Seconds the move took on its worker's wall clock (null: the stored game has no times).
    seconds: Option<f64>,
    /// Both clocks after the move, under a whole-game time control (null: another control,
    /// or no times).
    clocks: Option<BySide>,
}

/// One game, move by move.
#[derive(Serialize)]
pub struct GameDetail {
    match_id: u64,
    pair: u64,
    game: u64,
    black: Player,
    white: Player,
    /// The position the game was played from.
    opening: String,
    result: &'static str,
    termination: Termination,
    /// The match's wall-clock time limit (null: the players' own budgets).
    time_limit: Option<String>,
    /// The factor the worker that played the game multiplied the time limit by (1: none).
    time_scale: f64,
    /// Both clocks at the opening, under a whole-game time control with the move times known
    /// (null otherwise).
    start_clocks: Option<BySide>,
    /// Seconds each side spent on its moves (null: the stored game has no times).
    time_used: Option<BySide>,
    plies: Vec<Ply>,
    /// The position after the last move (the opening when no move was played).
    final_position: String,
    /// The game in pentagrid's record format (docs/game-records.md).
    record: String,
}

/// The number in path segment `name`, or a bad parameter naming it.
fn path_number(name: &'static str, text: &str, what: &str) -> Result<u64, ApiError> {
    text.parse().map_err(|_| {
        ApiError::bad(
            name,
            format!("bad {what} {text:?}: expected a whole number"),
        )
    })
}

/// A pair of match `record`, or a bad parameter `name` when the match has no such pair.
fn check_pair(record: &MatchRecord, name: &'static str, pair: u64) -> Result<(), ApiError> {
    if pair < record.pairs {
        return Ok(());
    }
    Err(ApiError::bad(
        name,
        format!(
            "match {} has {} pairs, counted from 0: there is no pair {pair}",
            record.id, record.pairs
        ),
    ))
}

/// `GET /api/v1/matches/{id}/games?from_pair=N`.
pub async fn list(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Params,
) -> Result<Json<GameList>, ApiError> {
    let id = match_id(&id)?;
    let from_pair = params
        .number("from_pair", 0..=u64::MAX, Some(0))?
        .unwrap_or_default();
    let header = state.source.match_header(id).await?;
    check_pair(&header, "from_pair", from_pair)?;
    let page = state.source.match_games(id, from_pair, PAGE_PAIRS).await?;
    let games = page
        .record
        .games
        .iter()
        .enumerate()
        .map(|(index, game)| GameSummary {
            pair: game.pair,
            game: index as u64 % 2 + 1,
            black: Player::of(&game.black),
            white: Player::of(&game.white),
            opening: game.opening.to_string(),
            result: game.result.name(),
            moves: game.moves.len(),
            termination: Termination::of(game),
        })
        .collect();
    Ok(Json(GameList {
        match_id: id,
        a: Player::of(&page.record.a),
        b: Player::of(&page.record.b),
        pairs: page.record.pairs,
        from_pair,
        next_from_pair: page.next_from_pair,
        games,
    }))
}

/// Every move of `game` with the position after it, its time and the clocks after it where
/// known (`clocks`: the game's under its match's time limit). A stored move that does not play
/// is the coordinator's fault: its games are checked when stored.
fn plies(
    game: &MatchGame,
    clocks: Option<&GameClocks>,
    pair: u64,
    which: PairGame,
) -> Result<(Vec<Ply>, Position), ApiError> {
    let mut position = game.opening;
    let mut plies = Vec::with_capacity(game.moves.len());
    for (index, mv) in game.moves.iter().enumerate() {
        let mover = position.side_to_move().name();
        position = position.play(*mv).map_err(|e| {
            SourceError::Malformed(format!(
                "pair {pair} game {}: move {} ({mv}) does not play: {e}",
                which.number(),
                index + 1
            ))
        })?;
        plies.push(Ply {
            ply: index + 1,
            mv: mv.to_string(),
            mover,
            position: position.to_string(),
            seconds: game.move_times.seconds(index),
            clocks: clocks
                .and_then(|c| c.after.get(index))
                .map(|&both| BySide::of(both)),
        });
    }
    Ok((plies, position))
}

/// `GET /api/v1/matches/{id}/games/{pair}/{game}`.
pub async fn one(
    State(state): State<AppState>,
    Path((id, pair, game)): Path<(String, String, String)>,
) -> Result<Json<GameDetail>, ApiError> {
    let id = match_id(&id)?;
    let pair = path_number("pair", &pair, "pair")?;
    let number = path_number("game", &game, "game")?;
    let which = PairGame::from_number(number).ok_or_else(|| {
        ApiError::bad(
            "game",
            format!("bad game {number}: a pair has game 1 (A black) and game 2 (B black)"),
        )
    })?;
    let header = state.source.match_header(id).await?;
    check_pair(&header, "pair", pair)?;
    let (record, game) = state
        .source
        .match_game(id, pair, which)
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "pair {pair} of match {id} is not stored: not played yet, or cancelled"
            ))
        })?;
    let clocks = game.clocks(&record.time_limit);
    let (plies, last) = plies(&game, clocks.as_ref(), pair, which)?;
    let text = match_game_record(&record, &game, which == PairGame::First, UNKNOWN_DATE);
    Ok(Json(GameDetail {
        match_id: id,
        pair,
        game: which.number(),
        black: Player::of(&game.black),
        white: Player::of(&game.white),
        opening: game.opening.to_string(),
        result: game.result.name(),
        termination: Termination::of(&game),
        time_limit: Some(record.time_limit.clone()).filter(|t| !t.is_empty()),
        time_scale: game.time_scale.get(),
        start_clocks: clocks.as_ref().map(|c| BySide::of([c.start; 2])),
        time_used: game.side_seconds().map(BySide::of),
        plies,
        final_position: last.to_string(),
        record: text.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use pentago::{Color, SolveMethod, Status};
    use pentagrid_client::matches::{GameForfeit, LossReason, MoveTimes};
    use pentagrid_proto::TimeScale;

    use super::*;

    fn game(moves: &[&str]) -> MatchGame {
        MatchGame {
            pair: 3,
            opening: Position::START,
            black: "fast=uct:playouts=300".into(),
            white: "random".into(),
            moves: moves.iter().map(|m| m.parse().unwrap()).collect(),
            result: Status::Ongoing,
            forfeit: None,
            adjudicated: None,
            stderr_black: String::new(),
            stderr_white: String::new(),
            time_scale: TimeScale::ONE,
            move_times: MoveTimes::default(),
            move_scores: pentagrid_client::matches::MoveScores::default(),
        }
    }

    #[test]
    fn plies_replay_the_moves_from_the_opening() {
        let game = game(&["c4-1R", "d3-4L"]);
        let (plies, last) = plies(&game, None, 3, PairGame::First).unwrap();
        let mut position = Position::START;
        for (ply, mv) in plies.iter().zip(&game.moves) {
            position = position.play(*mv).unwrap();
            assert_eq!(ply.position, position.to_string());
        }
        assert_eq!(last, position);
        assert_eq!((plies[0].ply, plies[0].mover), (1, "black"));
        assert_eq!((plies[1].mv.as_str(), plies[1].mover), ("d3-4L", "white"));
        assert!(
            plies
                .iter()
                .all(|p| p.seconds.is_none() && p.clocks.is_none())
        );
        let (none, opening) = super::plies(&self::game(&[]), None, 3, PairGame::Second).unwrap();
        assert!(none.is_empty());
        assert_eq!(opening, Position::START);
    }

    #[test]
    fn plies_carry_each_moves_time_and_both_clocks_under_a_game_control() {
        let game = MatchGame {
            move_times: MoveTimes::from_millis(vec![250, 1_500]),
            ..game(&["c4-1R", "d3-4L"])
        };
        let clocks = game.clocks("game:1+0.5").unwrap();
        assert_eq!(clocks.start, 1.0);
        let (plies, _) = plies(&game, Some(&clocks), 3, PairGame::First).unwrap();
        assert_eq!(plies[0].seconds, Some(0.25));
        let after = |p: &Ply| p.clocks.as_ref().map(|c| (c.black, c.white));
        assert_eq!(after(&plies[0]), Some((1.25, 1.0)));
        assert_eq!(after(&plies[1]), Some((1.25, 0.5)));
        // A per-move limit has times but no clocks.
        assert!(game.clocks("move:1").is_none());
        let (plies, _) = super::plies(&game, None, 3, PairGame::First).unwrap();
        assert_eq!(plies[1].seconds, Some(1.5));
        assert!(plies[1].clocks.is_none());
    }

    #[test]
    fn a_stored_move_that_does_not_play_is_the_coordinators_fault() {
        // a1 (quadrant 3) twice with quadrant 1 turned: the second finds a1 taken.
        let game = game(&["a1-1R", "a1-1R"]);
        let Err(ApiError::Source(SourceError::Malformed(message))) =
            plies(&game, None, 3, PairGame::Second)
        else {
            panic!("an illegal stored move is refused");
        };
        assert!(
            message.contains("pair 3 game 2: move 2 (a1-1R)"),
            "{message}"
        );
    }

    #[test]
    fn terminations_say_how_a_game_ended() {
        let mut played = game(&["c4-1R"]);
        assert!(matches!(
            Termination::of(&played).kind,
            TerminationKind::Normal
        ));
        played.adjudicated = Some(SolveMethod::Table);
        let adjudicated = Termination::of(&played);
        assert!(matches!(adjudicated.kind, TerminationKind::Adjudicated));
        assert_eq!(adjudicated.source, Some("table"));
        played.forfeit = Some(GameForfeit {
            loser: Color::White,
            reason: LossReason::Time,
            detail: String::new(),
        });
        let forfeit = Termination::of(&played);
        assert!(matches!(forfeit.kind, TerminationKind::Forfeit));
        assert_eq!(
            (forfeit.loser, forfeit.reason),
            (Some("white"), Some("time"))
        );
        assert_eq!(forfeit.detail, None, "an empty detail is null");
    }

    #[test]
    fn players_show_their_name_and_keep_the_spec() {
        let named = Player::of("fast=uct:playouts=300");
        assert_eq!(named.name, "fast");
        assert!(named.spec.starts_with("uct:"), "{}", named.spec);
        assert_eq!(Player::of("random").name, "random");
    }

    #[test]
    fn bad_path_numbers_name_their_parameter() {
        for text in ["x", "-1", "1.5", ""] {
            let Err(ApiError::BadParameter { name, message }) = path_number("pair", text, "pair")
            else {
                panic!("{text:?} is refused");
            };
            assert_eq!(name, "pair");
            assert!(message.contains(&format!("{text:?}")), "{message}");
        }
        assert_eq!(path_number("pair", "7", "pair").unwrap(), 7);
    }
}
