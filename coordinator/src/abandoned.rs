//! What a job that ends without a result (failed for good, or cancelled) gives back, so that
//! nothing it held stays pending forever: a verify job's candidates are forgotten (mining may
//! offer them again), and the claim a check job was checking ends unresolved, its puzzle never
//! published.

use pentagrid_model::Task;

use pentagrid_store::claim::{ClaimKind, ClaimState};
use pentagrid_store::job::{Job, JobState};
use pentagrid_store::{CandidateState, ReleasedClaim, Store, StoreError};

/// Gives back what job `job_id`, now stored as `record`, held if it ended without a result.
pub(crate) fn release(store: &Store, job_id: u64, record: &Job) -> Result<(), StoreError> {
    if !matches!(record.state, JobState::Failed | JobState::Cancelled) {
        return Ok(());
    }
    if let Some(claim_id) = record.claim_id {
        let claim = unresolved_claim(store, job_id, claim_id)?;
        return store.release_abandoned(&[], claim.as_ref());
    }
    if let Some(Task::Verify { candidates, .. }) = &record.task {
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
    let open = matches!(record.state, ClaimState::Awaiting | ClaimState::Disputed);
    if !open || record.check_job != Some(job_id) {
        return Ok(None);
    }
    tracing::warn!(
        claim = claim_id,
        job = job_id,
        "a cross-check job ended without a result: the claim is unresolved"
    );
    record.state = ClaimState::Unresolved;
    record.check_job = None;
    let candidate = match record.kind() {
        ClaimKind::Puzzle => Some((
            record.position.canonical_key().bits(),
            CandidateState::Undecided,
        )),
        ClaimKind::Solve => None,
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
    use pentago::{MateSearch, Position, Puzzle};
    use pentagrid_store::ResultEffect;
    use pentagrid_store::claim::{Answer, Claim, PuzzleAnswer};

    const CANDIDATE: &str = "oooo../....../....../....../.....x/xxx...";

    fn ended(task: &Task, state: JobState, claim_id: Option<u64>) -> Job {
        Job {
            task: Some(task.clone()),
            claim_id,
            ..Job::in_state(state)
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
        release(&store, 7, &ended(&task, JobState::Leased, None)).unwrap();
        assert!(store.candidate_known(key).unwrap());
        release(&store, 7, &ended(&task, JobState::Cancelled, None)).unwrap();
        assert!(!store.candidate_known(key).unwrap());
        // A candidate settled meanwhile keeps its verdict.
        let effect = ResultEffect {
            verdicts: vec![(key, CandidateState::NoMate, None)],
            ..ResultEffect::default()
        };
        store
            .apply(1, &Job::in_state(JobState::Done), "r1", &effect)
            .unwrap();
        release(&store, 7, &ended(&task, JobState::Failed, None)).unwrap();
        assert_eq!(store.candidate_counts()[CandidateState::NoMate as usize], 1);
    }

    #[test]
    fn a_check_job_that_fails_for_good_leaves_its_claim_unresolved_and_unpublished() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (task, key) = verify();
        let position: Position = CANDIDATE.parse().unwrap();
        let puzzle = Puzzle::from_proof(MateSearch::new().find(&position, 1).unwrap());
        let says = Answer::Puzzle(PuzzleAnswer::Unique(puzzle.first_move));
        let claim = Claim {
            puzzle_json: serde_json::to_string(&puzzle).unwrap(),
            check_job: Some(9),
            ..Claim::new("liar", 1, position, says)
        };
        let effect = ResultEffect {
            verdicts: vec![(key, CandidateState::Unconfirmed, None)],
            claims: vec![(5, claim)],
            ..ResultEffect::default()
        };
        store
            .apply(1, &Job::in_state(JobState::Done), "r1", &effect)
            .unwrap();
        // Another job's end leaves the claim to its own check.
        release(&store, 8, &ended(&task, JobState::Failed, Some(5))).unwrap();
        let stored = store.claim(5).unwrap().unwrap();
        assert_eq!(stored.state, ClaimState::Awaiting);
        release(&store, 9, &ended(&task, JobState::Failed, Some(5))).unwrap();
        let stored = store.claim(5).unwrap().unwrap();
        assert_eq!(stored.state, ClaimState::Unresolved);
        let counts = store.candidate_counts();
        assert_eq!(counts[CandidateState::Undecided as usize], 1);
        assert_eq!(counts[CandidateState::Unconfirmed as usize], 0);
        assert_eq!(store.puzzle(key).unwrap(), None, "nothing is published");
    }
}
