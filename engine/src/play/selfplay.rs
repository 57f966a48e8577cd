//! Games between two players, recorded move by move.
//!
//! Players have a stable text form (`random`, `flat:playouts=N`, `uct:…`, `perfect`); a game is
//! reproducible from its seed:
//!
//! ```
//! use pentago::{Player, Position, play_game};
//!
//! let black: Player = "uct:playouts=200".parse()?;
//! let white: Player = "random".parse()?;
//! let game = play_game(&Position::START, &black, &white, 7, 1);
//! assert!(game.result.is_over());
//!
//! // Replaying the recorded moves by the rules reaches the same end.
//! let end = game.moves.iter().try_fold(game.start, |position, &mv| position.play(mv))?;
//! assert_eq!(end.status(), game.result);
//! assert_eq!(play_game(&Position::START, &black, &white, 7, 1).moves, game.moves);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use pentagrid_gamekit::splitmix64;
use serde::{Deserialize, Serialize};

use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::play::adjudication::Adjudicated;
use crate::play::player::Player;

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
    play_game_judged(start, black, white, seed, threads, &mut Unwatched).0
}

/// What the caller of [`play_game_judged`] sees of a game as it is played: each position
/// before its move, where it may end the game with the position's exact value, and each move
/// as soon as it is chosen. The engine keeps no clock: a caller that times the moves does it
/// here (a move's time runs from its `judge` to its `chosen`).
pub trait GameWatch {
    /// Asked before each move (the start position too): `Some` ends the game with that value.
    fn judge(&mut self, position: &Position) -> Option<Adjudicated>;
    /// Told of each move once its player has chosen it, before it is played, with the mover's
    /// score for it where the player keeps one ([`crate::Choice::score`]).
    fn chosen(&mut self, mv: Move, score: Option<f64>);
}

/// A watch that ends no game early and keeps nothing.
pub(crate) struct Unwatched;

impl GameWatch for Unwatched {
    fn judge(&mut self, _: &Position) -> Option<Adjudicated> {
        None
    }

    fn chosen(&mut self, _: Move, _: Option<f64>) {}
}

/// [`play_game`], stopped as soon as `watch` gives a position's exact value (each position is
/// asked before its move, the start too): the result is then that value's, and the verdict
/// comes back with the game. `watch` is told each move as it is chosen.
#[must_use]
pub fn play_game_judged(
    start: &Position,
    black: &Player,
    white: &Player,
    seed: u64,
    threads: usize,
    watch: &mut dyn GameWatch,
) -> (GameRecord, Option<Adjudicated>) {
    let mut position = *start;
    let mut moves = Vec::new();
    while !position.is_over() {
        if let Some(verdict) = watch.judge(&position) {
            let result = verdict.status(position.side_to_move());
            let record = GameRecord {
                start: *start,
                moves,
                result,
            };
            return (record, Some(verdict));
        }
        let player = match position.side_to_move() {
            Color::Black => black,
            Color::White => white,
        };
        let choice = player.choose_scored(
            &position,
            splitmix64(seed.wrapping_add(moves.len() as u64)),
            threads,
            None,
        );
        let mv = choice.mv;
        watch.chosen(mv, choice.score);
        position = position.play_unchecked(mv);
        moves.push(mv);
    }
    let record = GameRecord {
        start: *start,
        moves,
        result: position.status(),
    };
    (record, None)
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

    /// Keeps the moves it is told and the positions it is asked about.
    #[derive(Default)]
    struct Keeper {
        asked: Vec<Position>,
        chosen: Vec<Move>,
        scores: Vec<Option<f64>>,
    }

    impl GameWatch for Keeper {
        fn judge(&mut self, position: &Position) -> Option<Adjudicated> {
            self.asked.push(*position);
            None
        }

        fn chosen(&mut self, mv: Move, score: Option<f64>) {
            self.chosen.push(mv);
            self.scores.push(score);
        }
    }

    #[test]
    fn a_watch_is_asked_before_each_move_and_told_each_move_chosen() {
        let mut keeper = Keeper::default();
        let random = Player::Random;
        let (game, verdict) =
            play_game_judged(&Position::START, &random, &random, 4, 1, &mut keeper);
        assert_eq!(verdict, None);
        assert_eq!(keeper.chosen, game.moves);
        assert_eq!(keeper.asked.len(), game.moves.len());
        assert_eq!(keeper.asked[0], Position::START);
        assert!(keeper.scores.iter().all(Option::is_none));
        assert_eq!(play_game(&Position::START, &random, &random, 4, 1), game);
    }
}
