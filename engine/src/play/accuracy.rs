//! Accuracy against perfect play: the share of a player's moves that drop the exact value
//! (a win thrown to a draw or loss, a draw thrown to a loss), over the positions of its games
//! whose exact values every pentagrid knows: those of [`TABLE_STONES`] stones (Irving's
//! slices shipped in the binary, read through an [`ExactOracle`]) and those the midsolver
//! decides (from [`MID_MIN_STONES`] stones on).

use std::ops::{AddAssign, RangeInclusive};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::play::matches::PairResult;
use crate::play::selfplay::GameRecord;
use crate::search::oracle::{ExactOracle, best_of};
use crate::search::solver::{MID_MIN_STONES, midsolve};
use crate::search::value::Value;

/// The stone count from which moves are judged by default.
pub const ACCURACY_MIN_STONES: u32 = 20;

/// The stone thresholds a match may ask for: from 0 (every move whose value is known) to 35
/// (a position with 36 stones has no move left to judge).
pub const ACCURACY_STONES: RangeInclusive<u32> = 0..=35;

/// The stone counts of the positions whose moves every pentagrid values from the tablebase
/// shipped inside it (Irving's slices 0–6: a move's value is its child's, one stone deeper,
/// so positions of up to 5 stones). Fixed, not whatever slices one machine has: the
/// coordinator checks a worker's count of judged moves against the same rule.
pub const TABLE_STONES: RangeInclusive<u32> = 0..=5;

/// Why a game could not be judged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AccuracyError {
    /// The tablebase gave no value for a position it must cover (or failed to read).
    #[error("no exact value from the tablebase for a position of {stones} stones: {why}")]
    Table {
        /// The position's stones.
        stones: u32,
        /// What the tablebase said.
        why: String,
    },
}

/// Moves judged and moves that dropped the exact value, for one player.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accuracy {
    /// Moves made from positions with enough stones.
    pub moves: u32,
    /// Of those, moves whose value is below the position's value.
    pub drops: u32,
}

impl Accuracy {
    /// The share of judged moves that kept the value; `None` when no move was judged (nothing
    /// was measured, so no share, not a perfect one).
    #[must_use]
    pub fn share(self) -> Option<f64> {
        (self.moves > 0).then(|| 1.0 - f64::from(self.drops) / f64::from(self.moves))
    }
}

impl AddAssign for Accuracy {
    fn add_assign(&mut self, other: Accuracy) {
        self.moves += other.moves;
        self.drops += other.drops;
    }
}

/// Players A's and B's accuracy (a pair's or a whole match's) over the moves made from
/// positions with at least `min_stones` stones.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchAccuracy {
    /// The stone threshold.
    pub min_stones: u32,
    /// A's, then B's.
    pub sides: [Accuracy; 2],
}

/// Whether a move from `position` is judged with threshold `min_stones`: the game goes on,
/// the position has enough stones, and its exact value is known to every pentagrid (the
/// shipped tablebase's [`TABLE_STONES`], or the midsolver's [`MID_MIN_STONES`] on).
fn judged(position: &Position, min_stones: u32) -> bool {
    let stones = position.stone_count();
    stones >= min_stones
        && !position.is_over()
        && (TABLE_STONES.contains(&stones) || stones >= MID_MIN_STONES)
}

/// A position's exact value and each move's.
type Values = (Value, Vec<(Move, Value)>);

/// The exact value of a judged, ongoing `position` and of each of its moves.
fn exact_moves<O: ExactOracle>(
    position: &Position,
    table: &O,
) -> Result<Option<Values>, AccuracyError> {
    let stones = position.stone_count();
    if stones >= MID_MIN_STONES {
        return Ok(midsolve(position).ok().map(|s| (s.value, s.moves)));
    }
    let unjudged = |why: String| AccuracyError::Table { stones, why };
    let moves = table
        .probe_moves(position)
        .map_err(|e| unjudged(e.to_string()))?
        .ok_or_else(|| unjudged("not covered".into()))?;
    let (_, value) = best_of(&moves).ok_or_else(|| unjudged("no moves".into()))?;
    Ok(Some((value, moves)))
}

/// How many of Black's and White's moves in the game from `start` a judge with threshold
/// `min_stones` counts: exactly the `moves` that [`game_accuracy`] reports for a legal game.
/// Cheap (no solving): the bound a report of someone else's judging is checked against.
#[must_use]
pub fn judged_moves(start: &Position, moves: &[Move], min_stones: u32) -> [u32; 2] {
    let mut out = [0; 2];
    let mut position = *start;
    for &mv in moves {
        if judged(&position, min_stones) {
            out[usize::from(position.side_to_move() == Color::White)] += 1;
        }
        position = position.play_unchecked(mv);
    }
    out
}

/// Black's and White's accuracy in one game, over the positions with at least `min_stones`
/// stones whose exact values are known (see [`judged_moves`]): `table` (the shipped
/// tablebase) values those of [`TABLE_STONES`] stones, the midsolver the rest. Errs when the
/// table does not answer for a position it must cover.
pub fn game_accuracy<O: ExactOracle>(
    game: &GameRecord,
    min_stones: u32,
    table: &O,
) -> Result<[Accuracy; 2], AccuracyError> {
    let mut out = [Accuracy::default(); 2];
    let mut position = game.start;
    for &mv in &game.moves {
        if judged(&position, min_stones)
            && let Some((value, moves)) = exact_moves(&position, table)?
        {
            let played = moves.iter().find(|m| m.0 == mv).map(|m| m.1);
            let side = &mut out[usize::from(position.side_to_move() == Color::White)];
            side.moves += 1;
            side.drops += u32::from(played.is_some_and(|v| v < value));
        }
        position = position.play_unchecked(mv);
    }
    Ok(out)
}

/// Player A's and player B's accuracy in one game pair (A is black in the first game and
/// white in the second), over positions with at least `min_stones` stones (see
/// [`game_accuracy`]).
pub fn pair_accuracy<O: ExactOracle>(
    pair: &PairResult,
    min_stones: u32,
    table: &O,
) -> Result<[Accuracy; 2], AccuracyError> {
    let mut out = [Accuracy::default(); 2];
    for (game, a_side) in pair.games.iter().zip([0, 1]) {
        let sides = game_accuracy(game, min_stones, table)?;
        out[0] += sides[a_side];
        out[1] += sides[1 - a_side];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoOracle;
    use crate::board::position::Position;
    use crate::play::player::{Player, perfect_move};
    use crate::play::selfplay::play_game;

    /// A reference position (white to move, 27 stones) that white wins.
    const WON: &str = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";

    fn record(start: Position, moves: Vec<crate::Move>) -> GameRecord {
        let mut end = start;
        for &mv in &moves {
            end = end.play_unchecked(mv);
        }
        GameRecord {
            start,
            moves,
            result: end.status(),
        }
    }

    #[test]
    fn a_thrown_win_is_one_drop_for_the_thrower_only() {
        let start: Position = WON.parse().unwrap();
        let solved = midsolve(&start).unwrap();
        assert_eq!(solved.value, Value::Win);
        // The winner throws the win with a losing-or-drawing move, then both play perfectly.
        let thrown = solved.moves.iter().find(|m| m.1 < Value::Win).unwrap().0;
        let mut moves = vec![thrown];
        let mut position = start.play_unchecked(thrown);
        while !position.is_over() {
            let mv = perfect_move(&position).unwrap();
            moves.push(mv);
            position = position.play_unchecked(mv);
        }
        let game = record(start, moves.clone());
        let mover = usize::from(start.side_to_move() == Color::White);
        let [black, white] = game_accuracy(&game, 0, &NoOracle).unwrap();
        let (thrower, other) = if mover == 0 {
            (black, white)
        } else {
            (white, black)
        };
        assert_eq!(thrower.drops, 1);
        assert_eq!(thrower.moves, moves.len().div_ceil(2) as u32);
        assert_eq!(other.drops, 0);
        assert_eq!(other.moves, (moves.len() / 2) as u32);
        let share = thrower.share().expect("moves judged");
        assert!((share - (1.0 - 1.0 / f64::from(thrower.moves))).abs() < 1e-12);
        // Positions below the threshold are not judged, and no share is claimed for them.
        assert_eq!(
            game_accuracy(&game, 36, &NoOracle).unwrap(),
            [Accuracy::default(); 2]
        );
        assert_eq!(Accuracy::default().share(), None);
        // The cheap count of judged moves agrees with the judge.
        assert_eq!(judged_moves(&start, &moves, 0), [black.moves, white.moves]);
        assert_eq!(judged_moves(&start, &moves, 36), [0, 0]);
    }

    #[test]
    fn perfect_play_keeps_a_won_position_won() {
        let start: Position = WON.parse().unwrap();
        let perfect: Player = "perfect:uct:playouts=100".parse().unwrap();
        let random = Player::Random;
        let winner = start.side_to_move();
        for seed in 0..4 {
            let (black, white) = match winner {
                Color::Black => (&perfect, &random),
                Color::White => (&random, &perfect),
            };
            let game = play_game(&start, black, white, seed, 1);
            assert_eq!(game.result, crate::Status::Won(winner), "seed {seed}");
            let accuracy =
                game_accuracy(&game, 0, &NoOracle).unwrap()[usize::from(winner == Color::White)];
            assert_eq!(accuracy.drops, 0);
        }
    }

    #[test]
    fn moves_in_the_shipped_tables_reach_are_judged_and_need_the_table() {
        let game = play_game(&Position::START, &Player::Random, &Player::Random, 3, 1);
        let [black, white] = judged_moves(&game.start, &game.moves, 0);
        // The move from a position of i stones is the (i+1)-th: 0-5 stones by the table,
        // 18 on by the midsolver.
        let early = game.moves.len().min(6) as u32;
        let late = (game.moves.len() as u32).saturating_sub(MID_MIN_STONES);
        assert_eq!(black + white, early + late);
        // From 6 stones on, only the midsolver's reach is judged.
        let [b7, w7] = judged_moves(&game.start, &game.moves, 6);
        assert_eq!(b7 + w7, black + white - early);
        // A table that does not answer for 0-5 stones is an error, never a silent pass.
        assert_eq!(
            game_accuracy(&game, 0, &NoOracle),
            Err(AccuracyError::Table {
                stones: 0,
                why: "not covered".into()
            })
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 24,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// The cheap count of judged moves (what a coordinator checks reports against) is
        /// exactly what the judge counts, whatever the game and the threshold.
        #[test]
        fn judged_moves_are_the_moves_the_judge_counts(seed in 0u64..1_000_000, min_stones in 24u32..=35) {
            let start = crate::random_opening(seed, 20);
            let game = play_game(&start, &Player::Random, &Player::Random, seed, 1);
            let [black, white] = game_accuracy(&game, min_stones, &NoOracle).unwrap();
            proptest::prop_assert_eq!(
                judged_moves(&game.start, &game.moves, min_stones),
                [black.moves, white.moves]
            );
            proptest::prop_assert!(black.drops <= black.moves && white.drops <= white.moves);
        }
    }
}
