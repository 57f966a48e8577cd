//! Shared by the integration tests: a naive rules implementation, the reference data, and an
//! independent checker of checkmate proof trees. Each test crate uses part of it.
#![allow(dead_code)]

mod naive;

pub use naive::NaiveBoard;

use pentago::{Color, Move, Position, Status, splitmix64};
use serde_json::Value as Json;

/// A position reached by `length` uniformly random moves from the start with `seed` (fewer if
/// the game ends first, so finished positions occur too).
/// (Drawn with `splitmix64`, so that every test crate including this module can use it.)
pub fn random_position(seed: u64, length: u32) -> Position {
    let mut state = seed;
    let mut position = Position::START;
    for _ in 0..length {
        let legal = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        state = splitmix64(state);
        position = position.play_unchecked(legal[(state % legal.len() as u64) as usize]);
    }
    position
}

/// `(position, value)` pairs from `../shared/data/solved-positions.txt` (1 win, 0 draw, -1 loss
/// for the side to move).
pub fn solved_positions() -> Vec<(Position, i8)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    let text = std::fs::read_to_string(path).expect("shared/data beside the repository");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (position, value) = line.split_once(' ').expect("position and value");
            (position.parse().unwrap(), value.trim().parse().unwrap())
        })
        .collect()
}

/// Checks a checkmate proof tree in its JSON form with nothing but the rules (the naive board):
/// attacker moves are checks or wins, every defender move is covered exactly once, every leaf
/// is an attacker win, and no line is longer than `mate_in`.
pub fn check_proof(proof: &Json) -> Result<(), String> {
    let position: Position = text(&proof["position"])?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let mate_in = proof["mate_in"].as_u64().ok_or("mate_in is not a number")? as u32;
    let attacker = NaiveBoard::from_position(&position).to_move();
    check_attacker(
        &NaiveBoard::from_position(&position),
        attacker,
        &proof["tree"],
        mate_in,
    )
}

fn text(value: &Json) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("{value} is not a string"))
}

fn parse_move(value: &Json) -> Result<Move, String> {
    text(value)?.parse().map_err(|e| format!("{e}"))
}

fn check_attacker(
    board: &NaiveBoard,
    attacker: Color,
    node: &Json,
    budget: u32,
) -> Result<(), String> {
    if budget == 0 {
        return Err("the mate is longer than mate_in".into());
    }
    let mv = parse_move(&node["move"])?;
    if !board.moves().contains(&mv) {
        return Err(format!("{mv} is not legal in {}", board.text()));
    }
    let (after, status) = board.play_move(mv);
    let replies = node["replies"].as_array().ok_or("replies is not a list")?;
    if replies.is_empty() {
        return match status {
            Status::Won(color) if color == attacker => Ok(()),
            _ => Err(format!(
                "{mv} in {} is given no replies but does not win",
                board.text()
            )),
        };
    }
    if status.is_over() {
        return Err(format!("{mv} ends the game without winning"));
    }
    if !threatens(&after, attacker) {
        return Err(format!("{mv} in {} is not a check", board.text()));
    }
    let mut covered: Vec<Move> = Vec::new();
    for reply in replies {
        let moves: Vec<Move> = reply["moves"]
            .as_array()
            .ok_or("moves is not a list")?
            .iter()
            .map(parse_move)
            .collect::<Result<_, _>>()?;
        let first = moves.first().ok_or("an empty moves list")?;
        let (next, next_status) = after.play_move(*first);
        for &m in &moves {
            if after.play_move(m).0 != next {
                return Err(format!("{m} and {first} reach different positions"));
            }
            covered.push(m);
        }
        match (&reply["then"], next_status) {
            (Json::Null, Status::Won(color)) if color == attacker => {}
            (Json::Null, _) => return Err(format!("reply {first} is left unanswered")),
            (then, Status::Ongoing) => check_attacker(&next, attacker, then, budget - 1)?,
            (_, status) => return Err(format!("reply {first} ends the game ({status})")),
        }
    }
    let mut legal = after.moves();
    legal.sort();
    covered.sort();
    if covered != legal {
        return Err(format!(
            "defender moves covered {} times for {} legal moves",
            covered.len(),
            legal.len()
        ));
    }
    Ok(())
}

/// Whether `attacker`, if it were to move again on `board`, would win at once.
fn threatens(board: &NaiveBoard, attacker: Color) -> bool {
    board
        .moves()
        .into_iter()
        .any(|mv| board.play_as(mv, attacker).1 == Status::Won(attacker))
}
