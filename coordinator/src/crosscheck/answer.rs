//! What the parties of a cross-check say, and how their answers compare: a puzzle's claim is
//! about which first moves win, a solve's claim about the values of moves (canonical frame).

use pentago::{Move, Position, Puzzle};

use crate::store::book::{decode_proven, encode_proven};
use crate::store::{CandidateState, ProvenTable, ResultEffect, StoredAnswer, StoredClaim};

/// What a claim is about. Stable numbers (stored).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// A puzzle: its first move is the only winning one.
    Puzzle = 1,
    /// A solve: the exact values of a position's moves.
    Solve = 2,
}

impl ClaimKind {
    /// The kind of a stored number, if it is one.
    #[must_use]
    pub fn from_stored(n: u32) -> Option<ClaimKind> {
        match n {
            1 => Some(ClaimKind::Puzzle),
            2 => Some(ClaimKind::Solve),
            _ => None,
        }
    }
}

/// Where a claim stands. Stable numbers (stored).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimState {
    /// Waiting for a second party (nothing of it is published).
    Awaiting = 0,
    /// The first two parties disagree: waiting for a third.
    Disputed = 1,
    /// Confirmed and published.
    Confirmed = 2,
    /// Shown wrong; the deciding party's answer was stored instead.
    Refuted = 3,
    /// The deciding party could not settle it; nothing was published.
    Unresolved = 4,
}

impl ClaimState {
    /// The state of a stored number (unknown numbers read as unresolved: never acted on).
    #[must_use]
    pub fn from_stored(n: u32) -> ClaimState {
        match n {
            0 => ClaimState::Awaiting,
            1 => ClaimState::Disputed,
            2 => ClaimState::Confirmed,
            3 => ClaimState::Refuted,
            _ => ClaimState::Unresolved,
        }
    }
}

/// A party's answer about which first moves of a puzzle candidate win.
#[derive(Clone, Debug, PartialEq)]
pub enum PuzzleAnswer {
    /// This first move (and those reaching the same position, or a symmetric one) alone wins.
    Unique(Move),
    /// More than one first move wins.
    NotUnique,
    /// No first move wins (within the mate limit, for workers).
    NoWin,
    /// The party could not settle it.
    Undecided,
}

/// A party's answer to a claim.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// About a puzzle.
    Puzzle(PuzzleAnswer),
    /// Exact values of moves (canonical frame); moves a party could not settle are absent.
    Values(ProvenTable),
}

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

    /// What the claimant of `claim` says; `None` when the record does not read back.
    #[must_use]
    pub fn of_claim(kind: ClaimKind, claim: &StoredClaim) -> Option<Answer> {
        Some(match kind {
            ClaimKind::Puzzle => {
                let puzzle: Puzzle = serde_json::from_str(&claim.puzzle_json).ok()?;
                Answer::Puzzle(PuzzleAnswer::Unique(puzzle.first_move))
            }
            ClaimKind::Solve => Answer::Values(decode_proven(&claim.proven)?),
        })
    }

    /// The stored form.
    #[must_use]
    pub fn to_stored(&self) -> StoredAnswer {
        let kind = |kind: u32| StoredAnswer {
            kind,
            ..StoredAnswer::default()
        };
        match self {
            Answer::Values(table) => StoredAnswer {
                proven: encode_proven(table),
                ..kind(0)
            },
            Answer::Puzzle(PuzzleAnswer::Unique(mv)) => StoredAnswer {
                first_move: mv.to_string(),
                ..kind(1)
            },
            Answer::Puzzle(PuzzleAnswer::NotUnique) => kind(2),
            Answer::Puzzle(PuzzleAnswer::NoWin) => kind(3),
            Answer::Puzzle(PuzzleAnswer::Undecided) => kind(4),
        }
    }

    /// An answer from its stored form; `None` when it does not read back.
    #[must_use]
    pub fn from_stored(stored: &StoredAnswer) -> Option<Answer> {
        Some(match stored.kind {
            0 => Answer::Values(decode_proven(&stored.proven)?),
            1 => Answer::Puzzle(PuzzleAnswer::Unique(stored.first_move.parse().ok()?)),
            2 => Answer::Puzzle(PuzzleAnswer::NotUnique),
            3 => Answer::Puzzle(PuzzleAnswer::NoWin),
            4 => Answer::Puzzle(PuzzleAnswer::Undecided),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Value;

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

    #[test]
    fn answers_round_trip_through_their_stored_form() {
        let answers = [
            Answer::Values(ProvenTable::from([(mv("a1-1R"), Value::Draw)])),
            Answer::Puzzle(PuzzleAnswer::Unique(mv("c4-2L"))),
            Answer::Puzzle(PuzzleAnswer::NotUnique),
            Answer::Puzzle(PuzzleAnswer::NoWin),
            Answer::Puzzle(PuzzleAnswer::Undecided),
        ];
        for answer in answers {
            assert_eq!(Answer::from_stored(&answer.to_stored()), Some(answer));
        }
        let unknown = StoredAnswer {
            kind: 9,
            ..StoredAnswer::default()
        };
        assert_eq!(Answer::from_stored(&unknown), None);
        assert_eq!(ClaimState::from_stored(77), ClaimState::Unresolved);
        assert_eq!(ClaimKind::from_stored(0), None);
    }
}
