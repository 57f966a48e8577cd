//! Checks the games of a refereed pair that ended by a forfeit: the loser must be an external
//! engine, the moves legal up to a position that is still ongoing, and the result a win for the
//! other side.

use pentago::{Move, Player, Position, Status};
use pentagrid_model::GameForfeit;

use super::InvalidResult;

/// Checks a forfeited game from `start` whose players are `[black, white]`.
pub(super) fn check_forfeited(
    start: &Position,
    moves: &[Move],
    result: Status,
    forfeit: &GameForfeit,
    players: [&Player; 2],
) -> Result<(), InvalidResult> {
    let loser = forfeit.loser;
    if players[loser as usize].engine().is_none() {
        return Err(InvalidResult::ForfeitByBuiltIn(loser));
    }
    let position = super::replay_unfinished(start, moves, InvalidResult::ForfeitedGameOver)?;
    if position.is_over() {
        return Err(InvalidResult::ForfeitedGameOver(position));
    }
    if result != Status::Won(loser.opponent()) {
        return Err(InvalidResult::ForfeitResult {
            loser,
            reported: result,
        });
    }
    Ok(())
}

/// The colour each of A and B plays in game `index` of a pair (A black first).
pub(super) fn players_of<'a>(index: usize, a: &'a Player, b: &'a Player) -> [&'a Player; 2] {
    if index == 0 { [a, b] } else { [b, a] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Color;
    use pentagrid_model::LossReason;

    fn forfeit(loser: Color) -> GameForfeit {
        GameForfeit {
            loser,
            reason: LossReason::Illegal,
            detail: String::new(),
        }
    }

    #[test]
    fn forfeits_must_be_by_an_engine_in_an_ongoing_game() {
        let engine: Player = "engine:pg".parse().unwrap();
        let random = Player::Random;
        let moves: Vec<Move> = ["c4-1R".parse().unwrap()].to_vec();
        let white_lost = Status::Won(Color::Black);
        let ok = check_forfeited(
            &Position::START,
            &moves,
            white_lost,
            &forfeit(Color::White),
            [&random, &engine],
        );
        assert_eq!(ok, Ok(()));
        assert_eq!(
            check_forfeited(
                &Position::START,
                &[],
                white_lost,
                &forfeit(Color::White),
                [&engine, &random],
            ),
            Err(InvalidResult::ForfeitByBuiltIn(Color::White))
        );
        assert!(matches!(
            check_forfeited(
                &Position::START,
                &moves,
                Status::Draw,
                &forfeit(Color::White),
                [&random, &engine],
            ),
            Err(InvalidResult::ForfeitResult { .. })
        ));
        let won: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        assert!(matches!(
            check_forfeited(
                &won,
                &["e1-4R".parse().unwrap()],
                white_lost,
                &forfeit(Color::White),
                [&random, &engine],
            ),
            Err(InvalidResult::ForfeitedGameOver(_))
        ));
    }
}
