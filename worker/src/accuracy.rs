//! Judging a played pair against perfect play for a match that measures accuracy: the
//! shipped tablebase (slices 0–6, see [`crate::shipped`]) for the first moves, the midsolver
//! from 18 stones on; and adjudicating a game's position for a match that ends games at their
//! exact value, from the same table and the midsolver.

use pentago::{
    AccuracyError, Adjudicated, Adjudication, MatchAccuracy, NoOracle, PairResult, Position,
    pair_accuracy,
};

use crate::shipped::shipped;

/// A's and B's accuracy in `pair` from `min_stones` stones on.
pub(crate) fn judge(pair: &PairResult, min_stones: u32) -> Result<MatchAccuracy, AccuracyError> {
    Ok(MatchAccuracy {
        min_stones,
        sides: pair_accuracy(pair, min_stones, shipped()?)?,
    })
}

/// The exact value that ends a game at `position` under `adjudication`, if any: from the
/// shipped tablebase where it covers the position, else the midsolver.
pub(crate) fn adjudicate(adjudication: &Adjudication, position: &Position) -> Option<Adjudicated> {
    match shipped() {
        Ok(table) => adjudication.judge(position, table),
        Err(_) => adjudication.judge(position, &NoOracle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Player, Position, play_pair};

    #[test]
    fn a_pair_from_the_start_is_judged_from_its_first_move() {
        let pair = play_pair(&Position::START, &Player::Random, &Player::Random, 5, 1);
        let judged = judge(&pair, 0).unwrap();
        // Each player makes three of the first six moves of each game.
        for side in judged.sides {
            assert!(side.moves >= 6, "{judged:?}");
            assert!(side.drops <= side.moves);
        }
        let later = judge(&pair, 6).unwrap();
        let early: u32 = judged.sides.iter().map(|s| s.moves).sum();
        let late: u32 = later.sides.iter().map(|s| s.moves).sum();
        assert_eq!(early - late, 12, "six table-judged moves in each game");
    }
}
