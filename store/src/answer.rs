//! What the parties of a cross-check say, and how their answers compare: a puzzle's claim is
//! about which first moves win, a solve's claim about the values of moves (canonical frame).

use pentago::{Position, Puzzle};

use crate::claim::{Answer, ClaimKind, PuzzleAnswer};
use crate::{CandidateState, ProvenTable, ResultEffect};

impl Answer {
    /// Whether the two answers say the same (`position` is the claim's, which tells moves
    /// reaching the same position apart from others). An answer that settles nothing agrees
    /// with no puzzle answer; move values agree where no move has two values.
    #[must_use]
    pub fn agrees(&self, other: &Answer, position: &Position) -> bool {
        match (self, other) {
            (Answer::Puzzle(PuzzleAnswer::Unique(a)), Answer::Puzzle(PuzzleAnswer::Unique(b))) => {
                position.play_unchecked(*a).canonical_key()
                    == position.play_unchecked(*b).canonical_key()
            }
            (Answer::Puzzle(PuzzleAnswer::Undecided), _)
            | (_, Answer::Puzzle(PuzzleAnswer::Undecided)) => false,
            (Answer::Puzzle(a), Answer::Puzzle(b)) => a == b,
            (Answer::Values(a), Answer::Values(b)) => a
                .iter()
                .all(|(mv, value)| b.get(mv).is_none_or(|v| v == value)),
            _ => false,
        }
    }

    /// Whether the two answers contradict each other: both settle the question and disagree.
    #[must_use]
    pub fn contradicts(&self, other: &Answer, position: &Position) -> bool {
        let undecided = |a: &Answer| matches!(a, Answer::Puzzle(PuzzleAnswer::Undecided));
        !undecided(self) && !undecided(other) && !self.agrees(other, position)
    }

    /// Whether the answer settles nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        match self {
            Answer::Puzzle(answer) => *answer == PuzzleAnswer::Undecided,
            Answer::Values(table) => table.is_empty(),
        }
    }

    /// The moves both answers give the same value (move values only).
    #[must_use]
    pub fn common_values(&self, other: &Answer) -> ProvenTable {
        match (self, other) {
            (Answer::Values(a), Answer::Values(b)) => a
                .iter()
                .filter(|(mv, value)| b.get(mv) == Some(value))
                .map(|(mv, value)| (*mv, *value))
                .collect(),
            _ => ProvenTable::new(),
        }
    }

    /// What a puzzle candidate's state becomes when this deciding answer refutes its claim
    /// (or leaves it unsettled). Another unique winner than the claimed one means two winning
    /// first moves: the claimed one holds a checked proof tree.
    #[must_use]
    pub fn refuted_candidate_state(&self) -> CandidateState {
        match self {
            Answer::Puzzle(PuzzleAnswer::Unique(_)) => CandidateState::NotUnique,
            Answer::Puzzle(PuzzleAnswer::NoWin) => CandidateState::NoMate,
            Answer::Puzzle(PuzzleAnswer::NotUnique) => CandidateState::NotUnique,
            Answer::Puzzle(PuzzleAnswer::Undecided) | Answer::Values(_) => {
                CandidateState::Undecided
            }
        }
    }

    /// The answer a checked result gives about a claim of `kind` (its one verdict, or its
    /// values); a result without either settles nothing.
    #[must_use]
    pub fn of_result(kind: ClaimKind, effect: &ResultEffect) -> Answer {
        match kind {
            ClaimKind::Solve => Answer::Values(
                effect
                    .proven
                    .as_ref()
                    .map(|(_, table)| table.clone())
                    .unwrap_or_default(),
            ),
            ClaimKind::Puzzle => Answer::Puzzle(match effect.verdicts.first() {
                Some((_, CandidateState::Puzzle, Some(json))) => {
                    match serde_json::from_str::<Puzzle>(json) {
                        Ok(puzzle) => PuzzleAnswer::Unique(puzzle.first_move),
                        Err(_) => PuzzleAnswer::Undecided,
                    }
                }
                Some((_, CandidateState::NotUnique, _)) => PuzzleAnswer::NotUnique,
                Some((_, CandidateState::NoMate, _)) => PuzzleAnswer::NoWin,
                _ => PuzzleAnswer::Undecided,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Move, Value};

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn unique_moves_agree_when_they_reach_the_same_position() {
        let position = Position::START.play(mv("b5-1R")).unwrap();
        let unique = |m: &str| Answer::Puzzle(PuzzleAnswer::Unique(mv(m)));
        // Twisting the empty quadrant 4 either way leaves the same board.
        assert!(unique("e2-4R").agrees(&unique("e2-4L"), &position));
        assert!(!unique("e2-4R").agrees(&unique("e3-4R"), &position));
        let not_unique = Answer::Puzzle(PuzzleAnswer::NotUnique);
        let undecided = Answer::Puzzle(PuzzleAnswer::Undecided);
        assert!(unique("e2-4R").contradicts(&not_unique, &position));
        assert!(!unique("e2-4R").contradicts(&undecided, &position));
        assert!(!undecided.agrees(&undecided, &position));
        assert_eq!(
            unique("e3-4R").refuted_candidate_state(),
            CandidateState::NotUnique
        );
    }

    #[test]
    fn values_agree_where_no_move_has_two_values() {
        let (a, b, c) = (mv("a1-1R"), mv("b1-1R"), mv("c1-1R"));
        let claimed = Answer::Values(ProvenTable::from([(a, Value::Win), (b, Value::Loss)]));
        let partial = Answer::Values(ProvenTable::from([(a, Value::Win), (c, Value::Draw)]));
        let wrong = Answer::Values(ProvenTable::from([(b, Value::Win)]));
        let position = Position::START;
        assert!(claimed.agrees(&partial, &position));
        assert!(claimed.contradicts(&wrong, &position));
        assert_eq!(
            claimed.common_values(&partial),
            ProvenTable::from([(a, Value::Win)])
        );
    }
}
