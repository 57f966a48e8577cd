//! Cross-check records: exact claims waiting for (or settled by) a second and third party, and
//! the workers a cross-check caught with a wrong claim.
//!
//! Stable formats (protobuf records, fields only ever added). `claims`: key = claim id (8 bytes,
//! big-endian); value = [`StoredClaim`]. `flagged_workers`: key = the worker id's bytes; value
//! = [`StoredFlags`]. Both trees are written only inside [`Store::apply`]'s transaction, with
//! the result that made or settled the claim (or [`Store::release_abandoned`]'s, when a check
//! job ends without a result), and a flag record also by the purge of its worker (see
//! [`super::word`]); a database without them reads as having none.

use pentago::{Position, Puzzle};
use prost::Message;
use sled::Transactional;
use sled::transaction::ConflictableTransactionError;
use thiserror::Error;

use super::book::{decode_proven, encode_proven};
use super::puzzles::{forget_candidate, set_candidate};
use super::{CandidateState, Store, StoreError, corrupt, get_record, id_of};
use crate::claim::{Answer, Claim, ClaimKind, ClaimState, PuzzleAnswer};

/// Flags after which a worker is quarantined: its results are refused, it gets no jobs, and
/// every exact value it stored on its word alone is purged with its analyses. One: an honest
/// worker's exact claims are never wrong, so a single lie a cross-check caught is proof
/// enough. Kept beside the flag records, which [`Store::apply`] reads to refuse a quarantined
/// worker's result.
pub const QUARANTINE_FLAGS: u32 = 1;

/// An exact claim, stored under its id in the `claims` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredClaim {
    /// What is claimed: 1 a puzzle's uniqueness, 2 a solve's move values.
    #[prost(uint32, tag = "1")]
    pub kind: u32,
    /// Where it stands: 0 awaiting a second party, 1 disputed (awaiting a third), 2 confirmed,
    /// 3 refuted, 4 unresolved (the deciding party could not settle it).
    #[prost(uint32, tag = "2")]
    pub state: u32,
    /// The position (text form, the job's frame).
    #[prost(string, tag = "3")]
    pub position: String,
    /// The worker that made the claim.
    #[prost(string, tag = "4")]
    pub claimant: String,
    /// The job whose result made it.
    #[prost(uint64, tag = "5")]
    pub job_id: u64,
    /// For puzzles: the claimed puzzle's stable JSON form.
    #[prost(string, tag = "6")]
    pub puzzle_json: String,
    /// For solves: the claimed values (the `proven` encoding of [`super::book`]).
    #[prost(bytes = "vec", tag = "7")]
    pub proven: Vec<u8>,
    /// For puzzles: the longest mate looked for (the check job looks for the same).
    #[prost(uint32, tag = "8")]
    pub max_moves: u32,
    /// For puzzles: where the candidate came from.
    #[prost(string, tag = "9")]
    pub source: String,
    /// The second party's worker id, once a worker answered (empty: none; where the
    /// coordinator answered as second party it is the `judge`).
    #[prost(string, tag = "10")]
    pub checker: String,
    /// The second party's answer, once given.
    #[prost(message, optional, tag = "11")]
    pub second: Option<StoredAnswer>,
    /// The job now checking the claim (0: none).
    #[prost(uint64, tag = "12")]
    pub check_job: u64,
    /// The deciding (third) party of a disputed claim, or the second where the coordinator
    /// judged at once: a worker id, or empty for the coordinator.
    #[prost(string, tag = "13")]
    pub judge: String,
    /// The deciding party's answer, once given.
    #[prost(message, optional, tag = "14")]
    pub decision: Option<StoredAnswer>,
}

/// A party's answer to a claim.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredAnswer {
    /// 0 move values, 1 a unique winning first move, 2 another first move wins too, 3 no win
    /// within the limit, 4 could not settle it.
    #[prost(uint32, tag = "1")]
    pub kind: u32,
    /// For a unique winning first move: the move (text form).
    #[prost(string, tag = "2")]
    pub first_move: String,
    /// For move values: the `proven` encoding.
    #[prost(bytes = "vec", tag = "3")]
    pub proven: Vec<u8>,
}

/// What cross-checks found against a worker, stored under its id in `flagged_workers`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredFlags {
    /// Times a cross-check showed one of its claims wrong.
    #[prost(uint32, tag = "1")]
    pub flags: u32,
    /// What it got wrong last, for people.
    #[prost(string, tag = "2")]
    pub last_reason: String,
    /// Results whose exact values, stored on its word alone, were purged once it was caught.
    #[prost(uint64, tag = "3")]
    pub purged_results: u64,
    /// Values those results had stored (`proven` tables and deep leaves) that were removed.
    #[prost(uint64, tag = "4")]
    pub purged_values: u64,
    /// Positions whose playout tables lost its analyses' rows once it was caught (see
    /// [`super::contributions`]).
    #[prost(uint64, tag = "5")]
    pub purged_positions: u64,
    /// Playouts those rows held, removed.
    #[prost(uint64, tag = "6")]
    pub purged_playouts: u64,
    /// Positions whose game tables lost its self-play games' rows once it was caught.
    #[prost(uint64, tag = "7")]
    pub purged_game_positions: u64,
    /// Games through moves those rows held, removed.
    #[prost(uint64, tag = "8")]
    pub purged_games: u64,
    /// Match pairs it played, taken out of their matches once it was caught.
    #[prost(uint64, tag = "9")]
    pub purged_pairs: u64,
    /// Finished deep solves reopened because they took in one of its leaves.
    #[prost(uint64, tag = "10")]
    pub reopened_solves: u64,
    /// Propagated move values taken back because the values below them went with its purge
    /// (see `store::demote`).
    #[prost(uint64, tag = "11")]
    pub demoted_values: u64,
}

/// Why a stored claim does not read back.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum UnreadableClaim {
    /// Its kind is not one this version knows.
    #[error("unknown claim kind {0}")]
    Kind(u32),
    /// Its position is not one.
    #[error("its position {0:?} is not a position")]
    Position(String),
    /// What the claimant says (the puzzle's JSON, or the move values) does not read back.
    #[error("what the claimant says does not read back")]
    Says,
}

impl From<&Answer> for StoredAnswer {
    fn from(answer: &Answer) -> StoredAnswer {
        let kind = |kind: u32| StoredAnswer {
            kind,
            ..StoredAnswer::default()
        };
        match answer {
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
}

/// An answer from its stored form; `None` when it does not read back.
fn answer_of(stored: &StoredAnswer) -> Option<Answer> {
    Some(match stored.kind {
        0 => Answer::Values(decode_proven(&stored.proven)?),
        1 => Answer::Puzzle(PuzzleAnswer::Unique(stored.first_move.parse().ok()?)),
        2 => Answer::Puzzle(PuzzleAnswer::NotUnique),
        3 => Answer::Puzzle(PuzzleAnswer::NoWin),
        4 => Answer::Puzzle(PuzzleAnswer::Undecided),
        _ => return None,
    })
}

/// The stored number of a claim's state (stable).
fn state_number(state: ClaimState) -> u32 {
    match state {
        ClaimState::Awaiting => 0,
        ClaimState::Disputed => 1,
        ClaimState::Confirmed => 2,
        ClaimState::Refuted => 3,
        ClaimState::Unresolved => 4,
    }
}

/// The state of a stored number (unknown numbers read as unresolved: never acted on).
fn claim_state(n: u32) -> ClaimState {
    match n {
        0 => ClaimState::Awaiting,
        1 => ClaimState::Disputed,
        2 => ClaimState::Confirmed,
        3 => ClaimState::Refuted,
        _ => ClaimState::Unresolved,
    }
}

impl From<&Claim> for StoredClaim {
    fn from(claim: &Claim) -> StoredClaim {
        StoredClaim {
            kind: match claim.kind() {
                ClaimKind::Puzzle => 1,
                ClaimKind::Solve => 2,
            },
            state: state_number(claim.state),
            position: claim.position.to_string(),
            claimant: claim.claimant.clone(),
            job_id: claim.job_id,
            puzzle_json: claim.puzzle_json.clone(),
            proven: match &claim.says {
                Answer::Values(table) => encode_proven(table),
                Answer::Puzzle(_) => Vec::new(),
            },
            max_moves: claim.max_moves,
            source: claim.source.clone(),
            checker: claim.checker.clone(),
            second: claim.second.as_ref().map(StoredAnswer::from),
            check_job: claim.check_job.unwrap_or(0),
            judge: claim.judge.clone(),
            decision: claim.decision.as_ref().map(StoredAnswer::from),
        }
    }
}

/// Reads a stored claim back: its kind, position and what the claimant says must read; a
/// later party's answer that does not is taken as not given.
impl TryFrom<StoredClaim> for Claim {
    type Error = UnreadableClaim;

    fn try_from(stored: StoredClaim) -> Result<Claim, UnreadableClaim> {
        let says = match stored.kind {
            1 => serde_json::from_str::<Puzzle>(&stored.puzzle_json)
                .ok()
                .map(|puzzle| Answer::Puzzle(PuzzleAnswer::Unique(puzzle.first_move))),
            2 => decode_proven(&stored.proven).map(Answer::Values),
            n => return Err(UnreadableClaim::Kind(n)),
        }
        .ok_or(UnreadableClaim::Says)?;
        let position = stored
            .position
            .parse::<Position>()
            .map_err(|_| UnreadableClaim::Position(stored.position.clone()))?;
        Ok(Claim {
            state: claim_state(stored.state),
            position,
            claimant: stored.claimant,
            job_id: stored.job_id,
            says,
            puzzle_json: stored.puzzle_json,
            max_moves: stored.max_moves,
            source: stored.source,
            checker: stored.checker,
            second: stored.second.as_ref().and_then(answer_of),
            check_job: (stored.check_job != 0).then_some(stored.check_job),
            judge: stored.judge,
            decision: stored.decision.as_ref().and_then(answer_of),
        })
    }
}

impl Store {
    /// A claim. One whose record does not read back is logged and reads as none: nothing
    /// acts on it.
    pub fn claim(&self, id: u64) -> Result<Option<Claim>, StoreError> {
        let Some(stored) = get_record::<StoredClaim>(&self.claims, id, "claim")? else {
            return Ok(None);
        };
        match Claim::try_from(stored) {
            Ok(claim) => Ok(Some(claim)),
            Err(why) => {
                tracing::error!(claim = id, %why, "unreadable claim record");
                Ok(None)
            }
        }
    }

    /// Every stored claim, by id (for tests and operators; the tree grows with the claims).
    pub fn claims(&self) -> Result<Vec<(u64, Claim)>, StoreError> {
        self.claims
            .iter()
            .map(|entry| {
                let (key, value) = entry?;
                let stored =
                    StoredClaim::decode(value.as_ref()).map_err(|e| corrupt("claim", e))?;
                let claim = Claim::try_from(stored).map_err(|e| corrupt("claim", e))?;
                Ok((id_of(&key, "claim")?, claim))
            })
            .collect()
    }

    /// Every flagged worker with its record, by id.
    pub fn flagged_workers(&self) -> Result<Vec<(String, StoredFlags)>, StoreError> {
        self.flagged_workers
            .iter()
            .map(|entry| {
                let (key, value) = entry?;
                let id = String::from_utf8(key.to_vec()).map_err(|e| corrupt("worker flags", e))?;
                let flags =
                    StoredFlags::decode(value.as_ref()).map_err(|e| corrupt("worker flags", e))?;
                Ok((id, flags))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Job, JobState};
    use crate::{Applied, ResultEffect};
    use pentago::{Move, Value};
    use pentagrid_model::Task;
    use std::collections::BTreeMap;

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    /// A solve claim of "liar" that job 9 checks.
    fn solve_claim() -> Claim {
        let says = Answer::Values(BTreeMap::from([(mv("a1-1R"), Value::Draw)]));
        Claim {
            check_job: Some(9),
            ..Claim::new("liar", 4, Position::START, says)
        }
    }

    #[test]
    fn answers_round_trip_through_their_stored_form() {
        let answers = [
            Answer::Values(BTreeMap::from([(mv("a1-1R"), Value::Draw)])),
            Answer::Puzzle(PuzzleAnswer::Unique(mv("c4-2L"))),
            Answer::Puzzle(PuzzleAnswer::NotUnique),
            Answer::Puzzle(PuzzleAnswer::NoWin),
            Answer::Puzzle(PuzzleAnswer::Undecided),
        ];
        for answer in answers {
            assert_eq!(answer_of(&StoredAnswer::from(&answer)), Some(answer));
        }
        let unknown = StoredAnswer {
            kind: 9,
            ..StoredAnswer::default()
        };
        assert_eq!(answer_of(&unknown), None);
    }

    #[test]
    fn claim_records_in_the_stored_format_read_back_and_write_back_unchanged() {
        let position: Position = "oooo../....../....../....../.....x/xxx...".parse().unwrap();
        let proof = pentago::MateSearch::new().find(&position, 1).unwrap();
        let puzzle = Puzzle::from_proof(proof);
        let json = serde_json::to_string(&puzzle).unwrap();
        // Every field set, as today's code writes a disputed puzzle claim.
        let stored = StoredClaim {
            kind: 1,
            state: 1,
            position: position.to_string(),
            claimant: "a".into(),
            job_id: 4,
            puzzle_json: json.clone(),
            proven: Vec::new(),
            max_moves: 3,
            source: "game 1 ply 2".into(),
            checker: "b".into(),
            second: Some(StoredAnswer {
                kind: 2,
                ..StoredAnswer::default()
            }),
            check_job: 9,
            judge: String::new(),
            decision: None,
        };
        let claim = Claim::try_from(stored.clone()).unwrap();
        let says = Answer::Puzzle(PuzzleAnswer::Unique(puzzle.first_move));
        let expected = Claim {
            state: ClaimState::Disputed,
            puzzle_json: json,
            max_moves: 3,
            source: "game 1 ply 2".into(),
            checker: "b".into(),
            second: Some(Answer::Puzzle(PuzzleAnswer::NotUnique)),
            check_job: Some(9),
            ..Claim::new("a", 4, position, says)
        };
        assert_eq!(claim, expected);
        assert_eq!(StoredClaim::from(&claim), stored);
        let solve = StoredClaim::from(&solve_claim());
        assert_eq!((solve.kind, solve.state, solve.check_job), (2, 0, 9));
        assert_eq!(Claim::try_from(solve).unwrap(), solve_claim());
        // An unknown state reads as unresolved (never acted on); an unknown kind, a bad
        // position or a claimant's answer that does not read do not read back.
        let with = |change: fn(&mut StoredClaim)| {
            let mut record = stored.clone();
            change(&mut record);
            Claim::try_from(record)
        };
        assert_eq!(
            with(|r| r.state = 77).unwrap().state,
            ClaimState::Unresolved
        );
        assert_eq!(with(|r| r.kind = 0), Err(UnreadableClaim::Kind(0)));
        assert_eq!(
            with(|r| r.puzzle_json = "{}".into()),
            Err(UnreadableClaim::Says)
        );
        assert!(matches!(
            with(|r| r.position = "x".into()),
            Err(UnreadableClaim::Position(_))
        ));
    }

    #[test]
    fn claims_and_flags_are_written_with_their_result_and_read_back_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let claim = solve_claim();
        let check = Job {
            claim_id: Some(5),
            excluded_workers: vec!["liar".into()],
            ..Job::queued(
                Task::Solve {
                    position: Position::START,
                },
                0,
            )
        };
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.flagged_workers().unwrap().is_empty());
            let effect = ResultEffect {
                claims: vec![(5, claim.clone())],
                new_jobs: vec![(9, check.clone())],
                flags: ["first", "second"]
                    .map(|reason| crate::Flag {
                        worker: "liar".into(),
                        reason: reason.into(),
                    })
                    .to_vec(),
                ..ResultEffect::default()
            };
            let done = Job::in_state(JobState::Done);
            assert_eq!(
                store.apply(1, &done, "r", &effect).unwrap(),
                Applied::Applied
            );
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.claim(5).unwrap(), Some(claim));
        assert_eq!(store.job(9).unwrap(), Some(check));
        let flagged = store.flagged_workers().unwrap();
        assert_eq!(flagged.len(), 1);
        assert_eq!(flagged[0].0, "liar");
        assert_eq!(
            (flagged[0].1.flags, flagged[0].1.last_reason.as_str()),
            (2, "second")
        );
    }
}

/// A claim whose check job ended without a result, as it is to be stored from now on, with
/// the new state of its puzzle candidate (canonical key), if it is a puzzle's.
#[derive(Clone, Debug)]
pub struct ReleasedClaim {
    /// The claim's id.
    pub id: u64,
    /// The claim, settled.
    pub record: Claim,
    /// Its candidate and that candidate's new state.
    pub candidate: Option<(u64, CandidateState)>,
}

impl Store {
    /// Gives back, in one transaction, what a job that ended without a result held: the
    /// candidates among `forget` that are still pending are forgotten (mining may offer them
    /// again), and `claim` is written as settled. Not yet durable.
    pub fn release_abandoned(
        &self,
        forget: &[u64],
        claim: Option<&ReleasedClaim>,
    ) -> Result<(), StoreError> {
        let _writing = self.writing();
        let changes = (&self.candidates, &self.claims).transaction(|(candidates, claims)| {
            let mut changes = Vec::new();
            for key in forget {
                let pending = candidates.get(key.to_be_bytes())?.as_deref()
                    == Some(&[CandidateState::Pending as u8]);
                if pending {
                    changes.push(forget_candidate(candidates, *key)?);
                }
            }
            if let Some(released) = claim {
                let record = StoredClaim::from(&released.record);
                claims.insert(&released.id.to_be_bytes(), record.encode_to_vec())?;
                if let Some((key, state)) = released.candidate {
                    changes.push(set_candidate(candidates, key, state)?);
                }
            }
            Ok::<_, ConflictableTransactionError<StoreError>>(changes)
        })?;
        self.candidate_tally.record(&changes);
        Ok(())
    }
}
