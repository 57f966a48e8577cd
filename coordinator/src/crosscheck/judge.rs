//! The coordinator as a party of its own cross-checks, where that is cheap: the engine's
//! retrograde midsolver values every move of a position with enough stones exactly. It runs on
//! the blocking pool, one solve at a time (its tables take hundreds of MB at 18 stones).

use std::collections::BTreeMap;

use pentago::{MID_MIN_STONES, Move, Position, Value, midsolve};

use super::answer::{Answer, ClaimKind, PuzzleAnswer};
use crate::validate::canonical_values;

/// Whether the coordinator answers claims about `position` itself, given the fewest stones it
/// was told to judge from (`judge_stones`, 0: never).
#[must_use]
pub fn judges(judge_stones: u32, position: &Position) -> bool {
    judge_stones > 0
        && position.stone_count() >= judge_stones.max(MID_MIN_STONES)
        && !position.is_over()
}

/// The coordinator's answer about `position` for a claim of `kind` (blocking: seconds at 18
/// stones, milliseconds from 22). Call only where [`judges`] says so.
#[must_use]
pub fn answer(kind: ClaimKind, position: &Position) -> Answer {
    let Ok(solution) = midsolve(position) else {
        return match kind {
            ClaimKind::Puzzle => Answer::Puzzle(PuzzleAnswer::Undecided),
            ClaimKind::Solve => Answer::Values(Default::default()),
        };
    };
    match kind {
        ClaimKind::Solve => Answer::Values(canonical_values(position, &solution.moves)),
        ClaimKind::Puzzle => Answer::Puzzle(winning_first_move(position, &solution.moves)),
    }
}

/// Which first moves win, as a puzzle answer: moves reaching the same position, or a
/// symmetric one, count once.
fn winning_first_move(position: &Position, moves: &[(Move, Value)]) -> PuzzleAnswer {
    let winning: BTreeMap<_, Move> = moves
        .iter()
        .filter(|(_, value)| *value == Value::Win)
        .map(|&(mv, _)| (position.play_unchecked(mv).canonical_key().bits(), mv))
        .collect();
    let mut firsts = winning.into_values();
    match (firsts.next(), firsts.next()) {
        (None, _) => PuzzleAnswer::NoWin,
        (Some(mv), None) => PuzzleAnswer::Unique(mv),
        (Some(_), Some(_)) => PuzzleAnswer::NotUnique,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Player, play_game};

    /// The position with `stones` stones of a seeded random game, if it gets that far.
    fn late_position(seed: u64, stones: u32) -> Option<Position> {
        let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
        let mut position = game.start;
        for mv in game.moves {
            if position.stone_count() == stones {
                return Some(position);
            }
            position = position.play(mv).ok()?;
        }
        None
    }

    #[test]
    fn the_coordinator_judges_only_late_positions() {
        let early: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        assert!(!judges(20, &early));
        let late = (0..).find_map(|seed| late_position(seed, 24)).unwrap();
        assert!(judges(20, &late));
        assert!(!judges(0, &late), "0 turns the coordinator's judging off");
        assert!(!judges(25, &late));
    }

    #[test]
    fn puzzle_answers_name_the_winning_first_move_groups() {
        let mut checked = 0;
        for seed in 0..40 {
            let Some(position) = late_position(seed, 24) else {
                continue;
            };
            let solved = midsolve(&position).unwrap();
            let groups: std::collections::HashSet<_> = solved
                .moves
                .iter()
                .filter(|(_, v)| *v == Value::Win)
                .map(|(mv, _)| position.play_unchecked(*mv).canonical_key())
                .collect();
            let Answer::Puzzle(puzzle) = answer(ClaimKind::Puzzle, &position) else {
                panic!("a puzzle answer");
            };
            match puzzle {
                PuzzleAnswer::Unique(mv) => {
                    assert_eq!(groups.len(), 1);
                    assert!(groups.contains(&position.play_unchecked(mv).canonical_key()));
                }
                PuzzleAnswer::NotUnique => assert!(groups.len() >= 2),
                PuzzleAnswer::NoWin => assert!(groups.is_empty()),
                PuzzleAnswer::Undecided => panic!("the midsolver settles what it takes"),
            }
            let Answer::Values(values) = answer(ClaimKind::Solve, &position) else {
                panic!("values");
            };
            assert_eq!(
                values.values().any(|v| *v == Value::Win),
                !groups.is_empty()
            );
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} games reached 24 stones");
    }
}
