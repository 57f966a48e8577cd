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

mod analysis;
mod judge;
mod leaves;
mod settings;

use std::sync::Arc;

use pentago::Puzzle;
use pentagrid_model::Task;

use crate::offload::blocking;
use crate::seed::job_seed;
use pentagrid_store::claim::{Answer, Claim, ClaimKind, ClaimState, PuzzleAnswer};
use pentagrid_store::job::Job;
use pentagrid_store::{
    CandidateState, Flag, ProvenTable, ResultEffect, Store, StoreError, WordSource, corrupt,
};
pub use settings::{CrossCheckSettings, CrossCheckSettingsError, MAX_JUDGE_STONES};

/// Whether a result goes into a sample of `rate`: drawn afresh for each result from a
/// generator the operating system seeds, so no worker can tell in advance which of its results
/// will be checked (a rule it could compute — a hash of the job id — lets a liar answer
/// honestly exactly where it would be looked at). A result is reviewed once, when it is
/// applied; its retries are duplicates and are not drawn again.
fn sampled(rate: f64) -> bool {
    use rand::RngExt;
    rate >= 1.0 || (rate > 0.0 && rand::rng().random::<f64>() < rate)
}

/// A party's answer: the worker, or `None` for the coordinator.
type Party = (Option<String>, Answer);

/// The cross-check service.
pub struct CrossCheck {
    store: Arc<Store>,
    settings: CrossCheckSettings,
    /// One coordinator solve at a time: the midsolver's tables are large.
    judging: tokio::sync::Semaphore,
    /// Each worker's analyses against the coordinator's own searches (see [`analysis`]).
    signs: analysis::SignTallies,
}

impl CrossCheck {
    /// The cross-checks over `store`, with the analysis tallies it holds.
    pub(crate) fn new(
        store: Arc<Store>,
        settings: CrossCheckSettings,
    ) -> Result<CrossCheck, StoreError> {
        Ok(CrossCheck {
            signs: analysis::SignTallies::load(&store)?,
            store,
            settings,
            judging: tokio::sync::Semaphore::new(1),
        })
    }

    /// Turns a validated result of `worker` (which runs `threads` search trees) for job
    /// `job_id` (running `task`, checking claim
    /// `claim_id` if it is a check job) into what it may change: a check job's result settles its
    /// claim; a sampled claim is held back and its cross-check begins; anything else passes
    /// unchanged. May solve a position on the blocking pool first.
    pub(crate) async fn review(
        &self,
        (worker, threads): (&str, u32),
        job_id: u64,
        claim_id: Option<u64>,
        task: &Task,
        mut effect: ResultEffect,
    ) -> Result<ResultEffect, StoreError> {
        if let Some(claim_id) = claim_id {
            return self.settle(worker, claim_id, &effect).await;
        }
        match task {
            Task::Analyse {
                position,
                config,
                playouts,
            } if sampled(self.settings.analysis_sample) => {
                let analysed = (position, config, *playouts, threads);
                self.check_analysis(worker, job_id, analysed, &mut effect)
                    .await?;
            }
            Task::Verify {
                candidates,
                max_moves,
            } if sampled(self.settings.puzzle_sample) => {
                // Each puzzle becomes a claim, which sets its candidate's state.
                let mut claims = Vec::new();
                let verdicts = std::mem::take(&mut effect.verdicts);
                for ((position, source), verdict) in candidates.iter().zip(verdicts) {
                    let (key, CandidateState::Puzzle, Some(json)) = verdict else {
                        effect.verdicts.push(verdict);
                        continue;
                    };
                    debug_assert_eq!(key, position.canonical_key().bits());
                    let puzzle = serde_json::from_str::<Puzzle>(&json)
                        .map_err(|_| corrupt("claim", "a new claim does not read back"))?;
                    let says = Answer::Puzzle(PuzzleAnswer::Unique(puzzle.first_move));
                    claims.push(Claim {
                        puzzle_json: json,
                        max_moves: *max_moves,
                        source: source.clone(),
                        ..Claim::new(worker, job_id, *position, says)
                    });
                }
                for claim in claims {
                    self.open(claim, &mut effect).await?;
                }
            }
            Task::DeepLeaves { leaves, solve_id } => {
                if sampled(self.settings.solve_sample) {
                    self.check_leaf(worker, job_id, leaves, &mut effect).await;
                }
                // What a caught worker said stays its own: its leaves are purged if it is ever
                // caught (a result the check just caught keeps only the coordinator's values).
                if effect.flags.is_empty() {
                    effect.on_word = Some(WordSource {
                        solved: None,
                        deep_solve: Some(*solve_id),
                    });
                }
            }
            Task::Solve { position } if sampled(self.settings.solve_sample) => {
                if let Some((_, table)) = effect.proven.take() {
                    let claim = Claim::new(worker, job_id, *position, Answer::Values(table));
                    self.open(claim, &mut effect).await?;
                }
            }
            Task::Solve { position } if effect.proven.is_some() => {
                effect.on_word = Some(WordSource {
                    solved: Some(*position),
                    deep_solve: None,
                });
            }
            _ => {}
        }
        Ok(effect)
    }

    /// Starts the cross-check of a new claim: the coordinator answers at once where cheap,
    /// otherwise a check job goes out to another worker.
    async fn open(&self, claim: Claim, out: &mut ResultEffect) -> Result<(), StoreError> {
        let id = self.store.generate_id()?;
        if judge::judges(self.settings.judge_stones, &claim.position) {
            let decision = self.judge(&claim).await;
            resolve(id, claim, None, (None, decision), out);
        } else {
            let excluded = vec![claim.claimant.clone()];
            self.dispatch(id, claim, excluded, ClaimState::Awaiting, out)?;
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
        let Some(mut claim) = self.store.claim(id)? else {
            tracing::error!(claim = id, "a check job's claim is missing or unreadable");
            return Ok(out);
        };
        let answer = Answer::of_result(claim.kind(), effect);
        if worker == claim.claimant || worker == claim.checker {
            // Its job excluded this worker; answer nothing rather than let it check itself.
            tracing::error!(claim = id, worker = %worker, "a party answered its own cross-check");
            return Ok(out);
        }
        match claim.state {
            ClaimState::Awaiting if answer.agrees(&claim.says, &claim.position) => {
                confirm(id, claim, worker, answer, &mut out);
            }
            ClaimState::Awaiting => {
                if judge::judges(self.settings.judge_stones, &claim.position) {
                    let decision = self.judge(&claim).await;
                    let second = (Some(worker.to_owned()), answer);
                    resolve(id, claim, Some(second), (None, decision), &mut out);
                } else {
                    claim.checker = worker.to_owned();
                    claim.second = Some(answer);
                    let excluded = vec![claim.claimant.clone(), worker.to_owned()];
                    tracing::warn!(claim = id, "cross-check disputed: a third party decides");
                    self.dispatch(id, claim, excluded, ClaimState::Disputed, &mut out)?;
                }
            }
            ClaimState::Disputed => {
                let second = claim.second.clone();
                let second = second.map(|answer| (Some(claim.checker.clone()), answer));
                resolve(
                    id,
                    claim,
                    second,
                    (Some(worker.to_owned()), answer),
                    &mut out,
                );
            }
            ClaimState::Confirmed | ClaimState::Refuted | ClaimState::Unresolved => {}
        }
        Ok(out)
    }

    /// Queues a check job for claim `id` that the `excluded` workers may not lease, and
    /// records the claim in `state`.
    fn dispatch(
        &self,
        id: u64,
        mut claim: Claim,
        excluded: Vec<String>,
        state: ClaimState,
        out: &mut ResultEffect,
    ) -> Result<(), StoreError> {
        let job_id = self.store.generate_id()?;
        let task = match claim.kind() {
            ClaimKind::Puzzle => Task::Verify {
                candidates: vec![(claim.position, claim.source.clone())],
                max_moves: claim.max_moves,
            },
            ClaimKind::Solve => Task::Solve {
                position: claim.position,
            },
        };
        out.new_jobs.push((
            job_id,
            Job {
                excluded_workers: excluded,
                claim_id: Some(id),
                ..Job::queued(task, job_seed(job_id))
            },
        ));
        if claim.kind() == ClaimKind::Puzzle {
            let candidate = match state {
                ClaimState::Disputed => CandidateState::Disputed,
                _ => CandidateState::Unconfirmed,
            };
            out.verdicts
                .push((claim.position.canonical_key().bits(), candidate, None));
        }
        claim.state = state;
        claim.check_job = Some(job_id);
        out.claims.push((id, claim));
        Ok(())
    }

    /// The coordinator's own answer to `claim`, worked out on the blocking pool one at a time.
    async fn judge(&self, claim: &Claim) -> Answer {
        // The semaphore is never closed, so acquiring cannot fail.
        let _permit = self.judging.acquire().await.ok();
        let started = std::time::Instant::now();
        let (kind, position, says) = (claim.kind(), claim.position, claim.says.clone());
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

/// Publishes `values` (solves) or the claimed puzzle (puzzles) of claim `id` as confirmed, or
/// records the candidate's `state` otherwise; the claim is stored as `state`.
fn close(
    id: u64,
    mut claim: Claim,
    state: ClaimState,
    decided: &Answer,
    values: ProvenTable,
    out: &mut ResultEffect,
) {
    let key = claim.position.canonical_key().bits();
    match claim.kind() {
        ClaimKind::Puzzle => {
            let (candidate, json) = match state {
                ClaimState::Confirmed => (CandidateState::Puzzle, Some(claim.puzzle_json.clone())),
                _ => (decided.refuted_candidate_state(), None),
            };
            out.verdicts.push((key, candidate, json));
        }
        ClaimKind::Solve if !values.is_empty() => out.proven = Some((key, values)),
        ClaimKind::Solve => {}
    }
    claim.state = state;
    claim.check_job = None;
    tracing::info!(claim = id, ?state, kind = ?claim.kind(), "cross-check settled");
    out.claims.push((id, claim));
}

/// The second party agrees with the claimant: publish what both say.
fn confirm(id: u64, mut claim: Claim, worker: &str, second: Answer, out: &mut ResultEffect) {
    let values = claim.says.common_values(&second);
    claim.checker = worker.to_owned();
    claim.second = Some(second);
    let says = claim.says.clone();
    close(id, claim, ClaimState::Confirmed, &says, values, out);
}

/// The deciding party answered: the claim stands or falls by that answer, and every earlier
/// party that contradicts it is flagged. Values stored: the coordinator's own in full, a
/// worker's where an earlier party gave the same.
fn resolve(
    id: u64,
    mut claim: Claim,
    second: Option<Party>,
    decision: Party,
    out: &mut ResultEffect,
) {
    let (judge, decided) = decision;
    let state = if decided.is_empty() {
        ClaimState::Unresolved
    } else if claim.says.agrees(&decided, &claim.position) {
        ClaimState::Confirmed
    } else {
        ClaimState::Refuted
    };
    let claimant = (Some(claim.claimant.clone()), claim.says.clone());
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
                "claim {id}: a wrong {} of {}",
                match claim.kind() {
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
    if let Some((Some(worker), answer)) = second {
        claim.checker = worker;
        claim.second = Some(answer);
    }
    claim.judge = judge.unwrap_or_default();
    claim.decision = Some(decided.clone());
    close(id, claim, state, &decided, values, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_take_about_their_share_and_follow_no_rule() {
        let count = |rate: f64| (0..10_000).filter(|_| sampled(rate)).count();
        assert_eq!(count(0.0), 0);
        assert_eq!(count(1.0), 10_000);
        // 5% of 10,000: 500, with a standard deviation of about 22.
        let five_percent = count(0.05);
        assert!((380..620).contains(&five_percent), "{five_percent}");
        // Two runs of 256 draws at one half agree everywhere with probability 2^-256: the
        // choice is not a function of anything a worker knows.
        let draws = || (0..256).map(|_| sampled(0.5)).collect::<Vec<_>>();
        assert_ne!(draws(), draws());
    }
}
