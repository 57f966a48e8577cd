//! What a job that ends without a result (failed for good, or cancelled) gives back, so that
//! nothing it held stays pending forever: a verify job's candidates are forgotten (mining may
//! offer them again), and the claim a check job was checking ends unresolved, its puzzle never
//! published.

use pentago::Position;
use pentagrid_proto::Task;

use crate::crosscheck::answer::{ClaimKind, ClaimState};
use crate::store::{CandidateState, JobState, ReleasedClaim, Store, StoreError, StoredJob};

/// Gives back what job `job_id`, now stored as `record`, held if it ended without a result.
pub(crate) fn release(store: &Store, job_id: u64, record: &StoredJob) -> Result<(), StoreError> {
    if !matches!(
        JobState::from_stored(record.state),
        JobState::Failed | JobState::Cancelled
    ) {
        return Ok(());
    }
    if record.claim_id != 0 {
        let claim = unresolved_claim(store, job_id, record.claim_id)?;
        return store.release_abandoned(&[], claim.as_ref());
    }
    let task = record.task.as_ref().and_then(|t| Task::try_from(t).ok());
    if let Some(Task::Verify { candidates, .. }) = task {
        let keys: Vec<u64> = candidates
            .iter()
            .map(|(position, _)| position.canonical_key().bits())
            .collect();
        tracing::info!(
            job = job_id,
            candidates = keys.len(),
            "verify job ended without a result: its candidates are free again"
        );
        store.release_abandoned(&keys, None)?;
    }
    Ok(())
}

/// Claim `claim_id` settled as unresolved, if `job_id` was still its check (a claim settled
/// since, or checked by another job, is left as it is).
fn unresolved_claim(
    store: &Store,
    job_id: u64,
    claim_id: u64,
) -> Result<Option<ReleasedClaim>, StoreError> {
    let Some(mut record) = store.claim(claim_id)? else {
        return Ok(None);
    };
    let open = matches!(
        ClaimState::from_stored(record.state),
        ClaimState::Awaiting | ClaimState::Disputed
    );
    if !open || record.check_job != job_id {
        return Ok(None);
    }
    tracing::warn!(
        claim = claim_id,
        job = job_id,
        "a cross-check job ended without a result: the claim is unresolved"
    );
    record.state = ClaimState::Unresolved as u32;
    record.check_job = 0;
    let candidate = match (
        ClaimKind::from_stored(record.kind),
        record.position.parse::<Position>(),
    ) {
        (Some(ClaimKind::Puzzle), Ok(position)) => {
            Some((position.canonical_key().bits(), CandidateState::Undecided))
        }
        _ => None,
    };
    Ok(Some(ReleasedClaim {
        id: claim_id,
        record,
        candidate,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ResultEffect, StoredClaim, StoredTask};

    const CANDIDATE: &str = "oooo../....../....../....../.....x/xxx...";

    fn ended(task: &Task, state: JobState, claim_id: u64) -> StoredJob {
        StoredJob {
            task: Some(StoredTask::from(task)),
            state: state as u32,
            claim_id,
            ..StoredJob::default()
        }
    }

    fn verify() -> (Task, u64) {
        let position: Position = CANDIDATE.parse().unwrap();
        let task = Task::Verify {
            candidates: vec![(position, "test".into())],
            max_moves: 3,
        };
        (task, position.canonical_key().bits())
    }

    #[test]
    fn a_verify_job_that_ends_without_a_result_frees_its_pending_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (task, key) = verify();
        store.mark_candidates_pending(&[key]).unwrap();
        // Still running: nothing is given back.
        release(&store, 7, &ended(&task, JobState::Leased, 0)).unwrap();
        assert!(store.candidate_known(key).unwrap());
        release(&store, 7, &ended(&task, JobState::Cancelled, 0)).unwrap();
        assert!(!store.candidate_known(key).unwrap());
        // A candidate settled meanwhile keeps its verdict.
        let effect = ResultEffect {
            verdicts: vec![(key, CandidateState::NoMate, None)],
            ..ResultEffect::default()
        };
        store
            .apply(1, &StoredJob::default(), "r1", &effect)
            .unwrap();
        release(&store, 7, &ended(&task, JobState::Failed, 0)).unwrap();
        assert_eq!(store.candidate_counts()[CandidateState::NoMate as usize], 1);
    }

    #[test]
    fn a_check_job_that_fails_for_good_leaves_its_claim_unresolved_and_unpublished() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (task, key) = verify();
        let claim = StoredClaim {
            kind: ClaimKind::Puzzle as u32,
            state: ClaimState::Awaiting as u32,
            position: CANDIDATE.into(),
            claimant: "liar".into(),
            check_job: 9,
            ..StoredClaim::default()
        };
        let effect = ResultEffect {
            verdicts: vec![(key, CandidateState::Unconfirmed, None)],
            claims: vec![(5, claim)],
            ..ResultEffect::default()
        };
        store
            .apply(1, &StoredJob::default(), "r1", &effect)
            .unwrap();
        // Another job's end leaves the claim to its own check.
        release(&store, 8, &ended(&task, JobState::Failed, 5)).unwrap();
        let stored = store.claim(5).unwrap().unwrap();
        assert_eq!(ClaimState::from_stored(stored.state), ClaimState::Awaiting);
        release(&store, 9, &ended(&task, JobState::Failed, 5)).unwrap();
        let stored = store.claim(5).unwrap().unwrap();
        assert_eq!(
            ClaimState::from_stored(stored.state),
            ClaimState::Unresolved
        );
        let counts = store.candidate_counts();
        assert_eq!(counts[CandidateState::Undecided as usize], 1);
        assert_eq!(counts[CandidateState::Unconfirmed as usize], 0);
        assert_eq!(store.puzzle(key).unwrap(), None, "nothing is published");
    }
}
