//! An exact claim as the cross-checks know it: what a worker claimed about a position, where
//! the claim stands ([`ClaimState`]) and what the other parties answered. The store keeps it in
//! a stable record of its own and converts at its edge (`store::claims`); how answers compare
//! is the cross-checks' business (`crosscheck::answer`).

use std::collections::BTreeMap;

use pentago::{Move, Position, Value};

/// What a claim is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// A puzzle: its first move is the only winning one.
    Puzzle,
    /// A solve: the exact values of a position's moves.
    Solve,
}

/// Where a claim stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimState {
    /// Waiting for a second party (nothing of it is published).
    Awaiting,
    /// The first two parties disagree: waiting for a third.
    Disputed,
    /// Confirmed and published.
    Confirmed,
    /// Shown wrong; the deciding party's answer was stored instead.
    Refuted,
    /// The deciding party could not settle it; nothing was published.
    Unresolved,
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
    Values(BTreeMap<Move, Value>),
}

/// An exact claim and its cross-check so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// Where it stands.
    pub state: ClaimState,
    /// The position (the claimant's job's frame).
    pub position: Position,
    /// The worker that made the claim.
    pub claimant: String,
    /// The job whose result made it.
    pub job_id: u64,
    /// What the claimant says: a unique first move (puzzles) or move values (solves).
    pub says: Answer,
    /// For puzzles: the claimed puzzle's stable JSON form, published as it is once confirmed
    /// (empty for solves).
    pub puzzle_json: String,
    /// For puzzles: the longest mate looked for (the check job looks for the same).
    pub max_moves: u32,
    /// For puzzles: where the candidate came from.
    pub source: String,
    /// The second party's worker id, once a worker answered (empty: none; where the
    /// coordinator answered as second party it is the `judge`).
    pub checker: String,
    /// The second party's answer, once given.
    pub second: Option<Answer>,
    /// The job now checking the claim, if one is.
    pub check_job: Option<u64>,
    /// The deciding (third) party of a disputed claim, or the second where the coordinator
    /// judged at once: a worker id, or empty for the coordinator.
    pub judge: String,
    /// The deciding party's answer, once given.
    pub decision: Option<Answer>,
}

impl Claim {
    /// A fresh claim of `claimant`, from the result of `job_id`, that `position` is as `says`
    /// has it: awaiting a second party, with no puzzle details.
    #[must_use]
    pub fn new(claimant: &str, job_id: u64, position: Position, says: Answer) -> Claim {
        Claim {
            state: ClaimState::Awaiting,
            position,
            claimant: claimant.to_owned(),
            job_id,
            says,
            puzzle_json: String::new(),
            max_moves: 0,
            source: String::new(),
            checker: String::new(),
            second: None,
            check_job: None,
            judge: String::new(),
            decision: None,
        }
    }

    /// What is claimed (what the claimant says is about).
    #[must_use]
    pub fn kind(&self) -> ClaimKind {
        match self.says {
            Answer::Puzzle(_) => ClaimKind::Puzzle,
            Answer::Values(_) => ClaimKind::Solve,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_claim_awaits_a_second_party_and_takes_its_kind_from_what_it_says() {
        let values = Answer::Values(BTreeMap::new());
        let claim = Claim::new("w", 3, Position::START, values);
        assert_eq!(
            (claim.kind(), claim.state, claim.check_job),
            (ClaimKind::Solve, ClaimState::Awaiting, None)
        );
        let unique = Answer::Puzzle(PuzzleAnswer::NoWin);
        assert_eq!(
            Claim::new("w", 3, Position::START, unique).kind(),
            ClaimKind::Puzzle
        );
    }
}
