//! Cross-checked truth: an exact claim — a puzzle's first move is the only one that wins, a
//! solve's move values — is one worker's word, so it is published only once a second party
//! confirms it.
//!
//! A claim (every puzzle of a sampled verify result, the values of a sampled solve result) is
//! stored as pending, not published: its puzzle is `unconfirmed`, its values are held back.
//! The second party is the coordinator itself where that is cheap (the midsolver, from
//! [`CrossCheckSettings::judge_stones`] stones on), else a check job — the same verify or solve
//! task — that the claimant may not lease. When the second party agrees, the claim is
//! published. When it disagrees, the claim is disputed and a third party decides: the
//! coordinator where cheap, else a job neither earlier party may lease. Whoever contradicts
//! the deciding answer is flagged; a worker flagged [`crate::flags::QUARANTINE_FLAGS`] times is
//! quarantined. Everything a result decides is written in the same transaction as the result.
//! A check job that ends without a result (its attempts used up, or cancelled) leaves its claim
//! unresolved and its puzzle unpublished ([`crate::abandoned`]).

pub mod answer;
mod judge;
mod leaves;
mod settings;

use std::sync::Arc;

use pentago::{Position, splitmix64};
use pentagrid_proto::Task;

use crate::offload::blocking;
use crate::seed::job_seed;
use crate::store::book::encode_proven;
use crate::store::{
    CandidateState, Flag, JobState, ProvenTable, ResultEffect, Store, StoreError, StoredClaim,
    StoredJob, StoredTask,
};
use answer::{Answer, ClaimKind, ClaimState};
pub use settings::{CrossCheckSettings, CrossCheckSettingsError, MAX_JUDGE_STONES};

/// Whether the result of `job_id` is in a sample of `rate` (fixed per job, so a retried
/// submission is sampled the same way).
fn sampled(job_id: u64, rate: f64) -> bool {
    rate >= 1.0 || (splitmix64(job_id ^ 0xC4EC_4ED0) as f64) < rate * u64::MAX as f64
}

/// A claim being worked on.
struct Claim {
    id: u64,
    record: StoredClaim,
    kind: ClaimKind,
    position: Position,
    /// What the claimant says.
    says: Answer,
}

/// A party's answer: the worker, or `None` for the coordinator.
type Party = (Option<String>, Answer);

/// The cross-check service.
pub struct CrossCheck {
    store: Arc<Store>,
    settings: CrossCheckSettings,
    /// One coordinator solve at a time: the midsolver's tables are large.
    judging: tokio::sync::Semaphore,
}

impl CrossCheck {
    pub(crate) fn new(store: Arc<Store>, settings: CrossCheckSettings) -> CrossCheck {
        CrossCheck {
            store,
            settings,
            judging: tokio::sync::Semaphore::new(1),
        }
    }

    /// Turns a validated result of `worker` for job `job_id` (running `task`, checking claim
    /// `claim_id` where not 0) into what it may change: a check job's result settles its
    /// claim; a sampled claim is held back and its cross-check begins; anything else passes
    /// unchanged. May solve a position on the blocking pool first.
    pub(crate) async fn review(
        &self,
        worker: &str,
        job_id: u64,
        claim_id: u64,
        task: &Task,
        mut effect: ResultEffect,
    ) -> Result<ResultEffect, StoreError> {
        if claim_id != 0 {
            return self.settle(worker, claim_id, &effect).await;
        }
        match task {
            Task::Verify {
                candidates,
                max_moves,
            } if sampled(job_id, self.settings.puzzle_sample) => {
                // Each puzzle becomes a claim, which sets its candidate's state.
                let mut claims = Vec::new();
                let verdicts = std::mem::take(&mut effect.verdicts);
                for ((position, source), verdict) in candidates.iter().zip(verdicts) {
                    let (key, CandidateState::Puzzle, Some(json)) = verdict else {
                        effect.verdicts.push(verdict);
                        continue;
                    };
                    debug_assert_eq!(key, position.canonical_key().bits());
                    claims.push(StoredClaim {
                        kind: ClaimKind::Puzzle as u32,
                        puzzle_json: json,
                        max_moves: *max_moves,
                        source: source.clone(),
                        ..new_claim(worker, job_id, position)
                    });
                }
                for record in claims {
                    self.open(record, &mut effect).await?;
                }
            }
            Task::DeepLeaves { leaves, .. } if sampled(job_id, self.settings.solve_sample) => {
                self.check_leaf(worker, job_id, leaves, &mut effect).await;
            }
            Task::Solve { position } if sampled(job_id, self.settings.solve_sample) => {
                if let Some((_, table)) = effect.proven.take() {
                    let record = StoredClaim {
                        kind: ClaimKind::Solve as u32,
                        proven: encode_proven(&table),
                        ..new_claim(worker, job_id, position)
                    };
                    self.open(record, &mut effect).await?;
                }
            }
            _ => {}
        }
        Ok(effect)
    }

    /// Starts the cross-check of a new claim: the coordinator answers at once where cheap,
    /// otherwise a check job goes out to another worker.
    async fn open(&self, record: StoredClaim, out: &mut ResultEffect) -> Result<(), StoreError> {
        let id = self.store.generate_id()?;
        let Some(claim) = Claim::read(id, record) else {
            return Err(crate::store::corrupt(
                "claim",
                "a new claim does not read back",
            ));
        };
        if judge::judges(self.settings.judge_stones, &claim.position) {
            let decision = self.judge(&claim).await;
            resolve(claim, None, (None, decision), out);
        } else {
            let excluded = vec![claim.record.claimant.clone()];
            self.dispatch(claim, excluded, ClaimState::Awaiting, out)?;
        }
        Ok(())
    }

    /// A check job's answer on claim `id`.
    async fn settle(
        &self,
        worker: &str,
        id: u64,
        effect: &ResultEffect,
    ) -> Result<ResultEffect, StoreError> {
        let mut out = ResultEffect::default();
        let Some(claim) = self
            .store
            .claim(id)?
            .and_then(|record| Claim::read(id, record))
        else {
            tracing::error!(claim = id, "a check job's claim is missing or unreadable");
            return Ok(out);
        };
        let answer = Answer::of_result(claim.kind, effect);
        let record = &claim.record;
        if worker == record.claimant || worker == record.checker {
            // Its job excluded this worker; answer nothing rather than let it check itself.
            tracing::error!(claim = id, worker = %worker, "a party answered its own cross-check");
            return Ok(out);
        }
        match ClaimState::from_stored(record.state) {
            ClaimState::Awaiting if answer.agrees(&claim.says, &claim.position) => {
                confirm(claim, worker, answer, &mut out);
            }
            ClaimState::Awaiting => {
                let second = (Some(worker.to_owned()), answer);
                if judge::judges(self.settings.judge_stones, &claim.position) {
                    let decision = self.judge(&claim).await;
                    resolve(claim, Some(second), (None, decision), &mut out);
                } else {
                    let mut claim = claim;
                    claim.record.checker = worker.to_owned();
                    claim.record.second = Some(second.1.to_stored());
                    let excluded = vec![claim.record.claimant.clone(), worker.to_owned()];
                    tracing::warn!(claim = id, "cross-check disputed: a third party decides");
                    self.dispatch(claim, excluded, ClaimState::Disputed, &mut out)?;
                }
            }
            ClaimState::Disputed => {
                let second = record.second.as_ref().and_then(Answer::from_stored);
                let second = second.map(|answer| (Some(record.checker.clone()), answer));
                resolve(claim, second, (Some(worker.to_owned()), answer), &mut out);
            }
            ClaimState::Confirmed | ClaimState::Refuted | ClaimState::Unresolved => {}
        }
        Ok(out)
    }

    /// Queues a check job for `claim` that the `excluded` workers may not lease, and records
    /// the claim in `state`.
    fn dispatch(
        &self,
        mut claim: Claim,
        excluded: Vec<String>,
        state: ClaimState,
        out: &mut ResultEffect,
    ) -> Result<(), StoreError> {
        let job_id = self.store.generate_id()?;
        let task = match claim.kind {
            ClaimKind::Puzzle => Task::Verify {
                candidates: vec![(claim.position, claim.record.source.clone())],
                max_moves: claim.record.max_moves,
            },
            ClaimKind::Solve => Task::Solve {
                position: claim.position,
            },
        };
        out.new_jobs.push((
            job_id,
            StoredJob {
                task: Some(StoredTask::from(&task)),
                state: JobState::Queued as u32,
                seed: job_seed(job_id),
                excluded_workers: excluded,
                claim_id: claim.id,
                ..StoredJob::default()
            },
        ));
        if claim.kind == ClaimKind::Puzzle {
            let candidate = match state {
                ClaimState::Disputed => CandidateState::Disputed,
                _ => CandidateState::Unconfirmed,
            };
            out.verdicts
                .push((claim.position.canonical_key().bits(), candidate, None));
        }
        claim.record.state = state as u32;
        claim.record.check_job = job_id;
        out.claims.push((claim.id, claim.record));
        Ok(())
    }

    /// The coordinator's own answer to `claim`, worked out on the blocking pool one at a time.
    async fn judge(&self, claim: &Claim) -> Answer {
        // The semaphore is never closed, so acquiring cannot fail.
        let _permit = self.judging.acquire().await.ok();
        let started = std::time::Instant::now();
        let (kind, position, says) = (claim.kind, claim.position, claim.says.clone());
        let answer = blocking(move || judge::answer(kind, &position, &says)).await;
        tracing::info!(
            ?kind,
            stones = position.stone_count(),
            seconds = started.elapsed().as_secs_f64(),
            "the coordinator judged a claim"
        );
        answer
    }
}

/// A fresh claim of `worker` from the result of `job_id` about `position`.
fn new_claim(worker: &str, job_id: u64, position: &Position) -> StoredClaim {
    StoredClaim {
        state: ClaimState::Awaiting as u32,
        position: position.to_string(),
        claimant: worker.to_owned(),
        job_id,
        ..StoredClaim::default()
    }
}

impl Claim {
    /// A stored claim with its kind, position and the claimant's answer read back.
    fn read(id: u64, record: StoredClaim) -> Option<Claim> {
        let kind = ClaimKind::from_stored(record.kind)?;
        let position = record.position.parse().ok()?;
        let says = Answer::of_claim(kind, &record)?;
        Some(Claim {
            id,
            record,
            kind,
            position,
            says,
        })
    }

    /// Publishes `values` (solves) or the claimed puzzle (puzzles) as confirmed, or records
    /// the candidate's `state` otherwise; the claim is stored as `state`.
    fn close(
        mut self,
        state: ClaimState,
        decided: &Answer,
        values: ProvenTable,
        out: &mut ResultEffect,
    ) {
        let key = self.position.canonical_key().bits();
        match self.kind {
            ClaimKind::Puzzle => {
                let (candidate, json) = match state {
                    ClaimState::Confirmed => (
                        CandidateState::Puzzle,
                        Some(self.record.puzzle_json.clone()),
                    ),
                    _ => (decided.refuted_candidate_state(), None),
                };
                out.verdicts.push((key, candidate, json));
            }
            ClaimKind::Solve if !values.is_empty() => out.proven = Some((key, values)),
            ClaimKind::Solve => {}
        }
        self.record.state = state as u32;
        self.record.check_job = 0;
        tracing::info!(claim = self.id, ?state, kind = ?self.kind, "cross-check settled");
        out.claims.push((self.id, self.record));
    }
}

/// The second party agrees with the claimant: publish what both say.
fn confirm(mut claim: Claim, worker: &str, second: Answer, out: &mut ResultEffect) {
    let values = claim.says.common_values(&second);
    claim.record.checker = worker.to_owned();
    claim.record.second = Some(second.to_stored());
    let says = claim.says.clone();
    claim.close(ClaimState::Confirmed, &says, values, out);
}

/// The deciding party answered: the claim stands or falls by that answer, and every earlier
/// party that contradicts it is flagged. Values stored: the coordinator's own in full, a
/// worker's where an earlier party gave the same.
fn resolve(mut claim: Claim, second: Option<Party>, decision: Party, out: &mut ResultEffect) {
    let (judge, decided) = decision;
    let state = if decided.is_empty() {
        ClaimState::Unresolved
    } else if claim.says.agrees(&decided, &claim.position) {
        ClaimState::Confirmed
    } else {
        ClaimState::Refuted
    };
    let claimant = (Some(claim.record.claimant.clone()), claim.says.clone());
    let mut values = match (&judge, &decided) {
        (None, Answer::Values(table)) => table.clone(),
        _ => ProvenTable::new(),
    };
    for (party, said) in std::iter::once(&claimant).chain(second.as_ref()) {
        if judge.is_some() {
            values.extend(decided.common_values(said));
        }
        if let Some(worker) = party
            && said.contradicts(&decided, &claim.position)
        {
            let reason = format!(
                "claim {}: a wrong {} of {}",
                claim.id,
                match claim.kind {
                    ClaimKind::Puzzle => "puzzle uniqueness",
                    ClaimKind::Solve => "solve value",
                },
                claim.position
            );
            out.flags.push(Flag {
                worker: worker.clone(),
                reason,
            });
        }
    }
    if let Some((Some(worker), answer)) = &second {
        claim.record.checker.clone_from(worker);
        claim.record.second = Some(answer.to_stored());
    }
    claim.record.judge = judge.unwrap_or_default();
    claim.record.decision = Some(decided.to_stored());
    claim.close(state, &decided, values, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_fixed_per_job_and_about_their_share() {
        let count = |rate: f64| (1..=10_000).filter(|&id| sampled(id, rate)).count();
        assert_eq!(count(0.0), 0);
        assert_eq!(count(1.0), 10_000);
        let five_percent = count(0.05);
        assert!((400..600).contains(&five_percent), "{five_percent}");
        assert_eq!(sampled(77, 0.5), sampled(77, 0.5));
    }
}
