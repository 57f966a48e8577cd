//! The coordinator as a party of its own cross-checks, where that is cheap. A solve's claim
//! gets the engine's retrograde midsolver, which values every move of a position with enough
//! stones exactly. A puzzle's claim needs less: its first move's proof tree was checked when
//! the claim arrived, so what is left to judge is that no other first move wins. From 21 stones
//! one midsolve answers that in a fraction of a second; below, short alpha-beta attempts settle
//! most other moves in milliseconds, and only the moves they leave open go to the midsolver
//! (each such move's own position when there are few, else one walk from the claim's
//! position). It runs on the blocking pool, one judgment at a time (the midsolver's tables take
//! hundreds of MB at 18 stones).

use std::collections::BTreeMap;

use pentago::{
    MID_MIN_STONES, MidSolveError, Move, Position, SolveLimits, Solver, Value, distinct_moves,
    midsolve,
};

use crate::validate::canonical_values;
use pentagrid_store::claim::{Answer, ClaimKind, PuzzleAnswer};

/// Alpha-beta node budgets tried in turn on each other first move of a puzzle claim: a few
/// thousand nodes settle most moves of a late position, a few need more; a midsolve of an
/// 18-stone position costs seconds (BENCHMARKS.md, issue 15).
const ATTEMPT_NODES: [u64; 2] = [2_000, 40_000];

/// At most this many first moves left open by the attempts are midsolved one by one (each
/// position after such a move has one more stone, about a third of the claim position's
/// midsolve); with more open, one midsolve of the claim's position values them all.
const CHILD_MIDSOLVES: usize = 2;

/// From this many stones on a midsolve of the claim's position takes at most a few hundred
/// milliseconds (BENCHMARKS.md, issue 15), less than the alpha-beta attempts on a hundred
/// first moves; below it the attempts come first.
const MIDSOLVE_FROM_STONES: u32 = 21;

/// The judge's alpha-beta table: 2^20 entries, shared by the attempts of one judgment.
const TABLE_BITS: u32 = 20;

/// Whether the coordinator answers claims about `position` itself, given the fewest stones it
/// was told to judge from (`judge_stones`, 0: never).
#[must_use]
pub fn judges(judge_stones: u32, position: &Position) -> bool {
    judge_stones > 0
        && position.stone_count() >= judge_stones.max(MID_MIN_STONES)
        && !position.is_over()
}

/// The coordinator's answer about `position` for a claim of `kind` whose claimant `says` so
/// (blocking: milliseconds for most puzzle claims, seconds at worst at 18 stones). Call only
/// where [`judges`] says so.
///
/// A puzzle claim is always a unique first move with a proof tree the coordinator checked on
/// arrival (see `validate`), so that move wins; the answer is then that move, or
/// [`PuzzleAnswer::NotUnique`] when another first move wins too.
#[must_use]
pub fn answer(kind: ClaimKind, position: &Position, says: &Answer) -> Answer {
    if let (ClaimKind::Puzzle, Answer::Puzzle(PuzzleAnswer::Unique(claimed))) = (kind, says) {
        let attempts: &[u64] = if position.stone_count() < MIDSOLVE_FROM_STONES {
            &ATTEMPT_NODES
        } else {
            &[]
        };
        return Answer::Puzzle(uniqueness(position, *claimed, attempts, CHILD_MIDSOLVES));
    }
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

/// Whether `claimed` (a winning first move) is the only winning first move of `position`:
/// every other first move, once per position it reaches up to symmetry, gets the alpha-beta
/// `attempts` in turn; the moves still open go to the midsolver, one by one when at most
/// `child_midsolves` are open, else all at once from `position`.
fn uniqueness(
    position: &Position,
    claimed: Move,
    attempts: &[u64],
    child_midsolves: usize,
) -> PuzzleAnswer {
    let mut open = distinct_moves(
        position,
        &[position.play_unchecked(claimed).canonical_key()],
    );
    let mut solver = Solver::new(TABLE_BITS);
    for &max_nodes in attempts {
        let limits = SolveLimits {
            max_nodes,
            max_time: None,
        };
        let mut still = Vec::new();
        for mv in open {
            match solver.move_wins(position, mv, limits) {
                Some(true) => return PuzzleAnswer::NotUnique,
                Some(false) => {}
                None => still.push(mv),
            }
        }
        open = still;
    }
    match midsolve_open(position, &open, child_midsolves) {
        Ok(false) => PuzzleAnswer::Unique(claimed),
        Ok(true) => PuzzleAnswer::NotUnique,
        Err(_) => PuzzleAnswer::Undecided,
    }
}

/// Whether one of the `open` first moves of `position` wins, by the midsolver: each move's
/// position on its own when there are at most `child_midsolves`, else one walk from
/// `position`.
fn midsolve_open(
    position: &Position,
    open: &[Move],
    child_midsolves: usize,
) -> Result<bool, MidSolveError> {
    if open.is_empty() {
        return Ok(false);
    }
    if open.len() > child_midsolves {
        let solved = midsolve(position)?;
        return Ok(solved
            .moves
            .iter()
            .any(|(mv, value)| *value == Value::Win && open.contains(mv)));
    }
    for &mv in open {
        let after = position.play_unchecked(mv);
        let wins = match Value::of_status(after.status(), position.side_to_move()) {
            Some(value) => value == Value::Win,
            // The opponent moves next: the move wins when the opponent's position is lost.
            None => midsolve(&after)?.value == Value::Loss,
        };
        if wins {
            return Ok(true);
        }
    }
    Ok(false)
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
            let Answer::Puzzle(puzzle) = answer(
                ClaimKind::Puzzle,
                &position,
                &Answer::Puzzle(PuzzleAnswer::Undecided),
            ) else {
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
            let Answer::Values(values) = answer(
                ClaimKind::Solve,
                &position,
                &Answer::Values(Default::default()),
            ) else {
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

    #[test]
    fn a_claims_uniqueness_is_judged_as_the_midsolver_sees_it_by_every_route() {
        let (mut unique, mut not_unique) = (0, 0);
        for seed in 0..200 {
            if unique >= 3 && not_unique >= 3 {
                break;
            }
            let Some(position) = late_position(seed, 24) else {
                continue;
            };
            let solved = midsolve(&position).unwrap();
            let winning: Vec<Move> = solved
                .moves
                .iter()
                .filter(|(_, v)| *v == Value::Win)
                .map(|(mv, _)| *mv)
                .collect();
            let Some(&claimed) = winning.first() else {
                continue;
            };
            let groups: std::collections::HashSet<_> = winning
                .iter()
                .map(|mv| position.play_unchecked(*mv).canonical_key())
                .collect();
            let expected = if groups.len() == 1 {
                unique += 1;
                PuzzleAnswer::Unique(claimed)
            } else {
                not_unique += 1;
                PuzzleAnswer::NotUnique
            };
            // Alpha-beta first (the default), the claim's position midsolved at once, and each
            // other first move's position midsolved on its own.
            for (attempts, children) in [
                (&ATTEMPT_NODES[..], CHILD_MIDSOLVES),
                (&[][..], 0),
                (&[][..], usize::MAX),
            ] {
                assert_eq!(
                    uniqueness(&position, claimed, attempts, children),
                    expected,
                    "{position} claimed {claimed}, attempts {attempts:?}, children {children}"
                );
            }
            let says = Answer::Puzzle(PuzzleAnswer::Unique(claimed));
            assert_eq!(
                answer(ClaimKind::Puzzle, &position, &says),
                Answer::Puzzle(expected)
            );
        }
        assert!(
            unique >= 2 && not_unique >= 2,
            "{unique} unique, {not_unique} not"
        );
    }
}
