//! Cross-check records: exact claims waiting for (or settled by) a second and third party, and
//! the workers a cross-check caught with a wrong claim.
//!
//! Stable formats (protobuf records, fields only ever added). `claims`: key = claim id (8 bytes,
//! big-endian); value = [`StoredClaim`]. `flagged_workers`: key = the worker id's bytes; value
//! = [`StoredFlags`]. Both trees are written only inside [`Store::apply`]'s transaction, with
//! the result that made or settled the claim (or [`Store::release_abandoned`]'s, when a check
//! job ends without a result); a database without them reads as having none.

use prost::Message;
use sled::Transactional;
use sled::transaction::ConflictableTransactionError;

use super::puzzles::{forget_candidate, set_candidate};
use super::{CandidateState, Store, StoreError, all_records, corrupt, get_record};

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
}

impl Store {
    /// A stored claim.
    pub fn claim(&self, id: u64) -> Result<Option<StoredClaim>, StoreError> {
        get_record(&self.claims, id, "claim")
    }

    /// Every stored claim, by id (for tests and operators; the tree grows with the claims).
    pub fn claims(&self) -> Result<Vec<(u64, StoredClaim)>, StoreError> {
        all_records(&self.claims, "claim").collect()
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
    use crate::store::{Applied, JobState, ResultEffect, StoredJob};

    #[test]
    fn claims_and_flags_are_written_with_their_result_and_read_back_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let claim = StoredClaim {
            kind: 1,
            position: "start".into(),
            claimant: "liar".into(),
            check_job: 9,
            ..StoredClaim::default()
        };
        let check = StoredJob {
            claim_id: 5,
            excluded_workers: vec!["liar".into()],
            ..StoredJob::default()
        };
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.flagged_workers().unwrap().is_empty());
            let effect = ResultEffect {
                claims: vec![(5, claim.clone())],
                new_jobs: vec![(9, check.clone())],
                flags: ["first", "second"]
                    .map(|reason| crate::store::Flag {
                        worker: "liar".into(),
                        reason: reason.into(),
                    })
                    .to_vec(),
                ..ResultEffect::default()
            };
            let done = StoredJob {
                state: JobState::Done as u32,
                ..StoredJob::default()
            };
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
    /// Its record, settled.
    pub record: StoredClaim,
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
                claims.insert(&released.id.to_be_bytes(), released.record.encode_to_vec())?;
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
