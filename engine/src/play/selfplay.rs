//! Games between two players, recorded move by move.

use serde::{Deserialize, Serialize};

use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::play::player::Player;
use crate::search::playout::splitmix64;

/// A finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Where the game started.
    #[serde(with = "crate::serde_text")]
    pub start: Position,
    /// The moves in order.
    #[serde(with = "crate::serde_text::list")]
    pub moves: Vec<Move>,
    /// The final status.
    pub result: Status,
}

/// Plays one game from `start` (which must be ongoing): `black` and `white` choose the moves.
/// Move `i` is chosen with seed `splitmix64(seed + i)`, so a game is reproducible.
#[must_use]
pub fn play_game(
    start: &Position,
    black: &Player,
    white: &Player,
    seed: u64,
    threads: usize,
) -> GameRecord {
    let mut position = *start;
    let mut moves = Vec::new();
    while !position.is_over() {
        let player = match position.side_to_move() {
            Color::Black => black,
            Color::White => white,
        };
        let mv = player.choose(
            &position,
            splitmix64(seed.wrapping_add(moves.len() as u64)),
            threads,
        );
        position = position.play_unchecked(mv);
        moves.push(mv);
    }
    GameRecord {
        start: *start,
        moves,
        result: position.status(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_legal_and_reproducible() {
        let player: Player = "uct:playouts=300".parse().unwrap();
        let random = Player::Random;
        let game = play_game(&Position::START, &player, &random, 9, 1);
        let mut position = Position::START;
        for &mv in &game.moves {
            position = position.play(mv).unwrap();
        }
        assert_eq!(position.status(), game.result);
        assert!(game.result.is_over());
        assert_eq!(play_game(&Position::START, &player, &random, 9, 1), game);
    }
}
