//! Cross-checking analysis results statistically. Playout statistics are no exact claim that a
//! second party could confirm move by move, but they are not free to invent either: in a
//! sampled share of analysis results ([`super::CrossCheckSettings::analysis_sample`], drawn
//! afresh per result like every sample) the coordinator runs a short search of the same
//! position with the same configuration itself and compares the result's overall score — the
//! mean outcome of all its playouts for the side to move — with its own. A score further off
//! than [`IMPROBABLE_Z`] standard errors is improbable for any honest search; the worker is
//! flagged (and so quarantined) and the result's rows are not stored.
//!
//! Playouts of one UCT search are not independent draws (the tree steers them), and searches
//! of different budgets legitimately disagree a little, so each side is credited with at most
//! [`EFFECTIVE_PLAYOUTS`] independent playouts: a deliberately weak test that honest workers
//! never fail, and that a fabricated table (the probe's 40,000,000 playouts all won) fails by
//! a wide margin.

use std::collections::BTreeMap;

use pentago::{Budget, Position, SearchControl, SearchOptions, UctConfig, search};

use super::CrossCheck;
use crate::offload::blocking;
use crate::store::{Flag, ResultEffect, Table};

/// Playouts the coordinator spends on its own search (fewer when the job asked for fewer).
const CHECK_PLAYOUTS: u64 = 4_000;
/// The most independent playouts a side's score is credited with.
const EFFECTIVE_PLAYOUTS: f64 = 400.0;
/// How many standard errors apart two honest scores never are (odds about 10^-9).
const IMPROBABLE_Z: f64 = 6.0;

/// Playouts and score (wins and half the draws over games, for the side to move) of a
/// result's tables; `None` without playouts.
fn score<'a>(tables: impl IntoIterator<Item = &'a Table>) -> Option<(f64, f64)> {
    let (mut games, mut points) = (0u128, 0u128);
    for counts in tables.into_iter().flat_map(BTreeMap::values) {
        games += u128::from(counts.games);
        points += 2 * u128::from(counts.wins) + u128::from(counts.draws);
    }
    (games > 0).then(|| (games as f64, points as f64 / (2.0 * games as f64)))
}

/// How many standard errors apart two scores are, each side credited with at most
/// [`EFFECTIVE_PLAYOUTS`] playouts.
fn separation((games_a, score_a): (f64, f64), (games_b, score_b): (f64, f64)) -> f64 {
    let (n_a, n_b) = (
        games_a.min(EFFECTIVE_PLAYOUTS),
        games_b.min(EFFECTIVE_PLAYOUTS),
    );
    // The pooled score, kept off 0 and 1 so that two unanimous searches still have a spread.
    let pooled = ((score_a * n_a + score_b * n_b) / (n_a + n_b)).clamp(0.02, 0.98);
    let error = (pooled * (1.0 - pooled) * (1.0 / n_a + 1.0 / n_b)).sqrt();
    (score_a - score_b).abs() / error
}

impl CrossCheck {
    /// Compares `worker`'s analysis of `position` (job `job_id`, `config`, `playouts`) with
    /// the coordinator's own short search; flags the worker and drops the rows when the two
    /// are improbably far apart.
    pub(super) async fn check_analysis(
        &self,
        worker: &str,
        job_id: u64,
        (position, config, playouts): (&Position, &UctConfig, u64),
        effect: &mut ResultEffect,
    ) {
        let Some(claimed) = score(effect.playouts.values()) else {
            return;
        };
        let (position, seed) = (*position, job_id);
        let config = config.with_budget(Budget::Playouts(CHECK_PLAYOUTS.min(playouts).max(1)));
        // The semaphore is never closed, so acquiring cannot fail.
        let _permit = self.judging.acquire().await.ok();
        let own = blocking(move || {
            let options = SearchOptions {
                seed,
                threads: 1,
                tables_min_visits: None,
            };
            let result = search(&position, &config, &options, &SearchControl::new()).ok()?;
            let table: Table = result
                .moves
                .iter()
                .map(|m| {
                    let counts = crate::store::Counts {
                        games: m.games,
                        wins: m.wins,
                        draws: m.draws,
                    };
                    (m.mv, counts)
                })
                .collect();
            score([&table])
        })
        .await;
        let Some(own) = own else {
            return;
        };
        let z = separation(claimed, own);
        if z <= IMPROBABLE_Z {
            return;
        }
        tracing::warn!(worker = %worker, job = job_id, %position, claimed = claimed.1, own = own.1, z, "an improbable analysis result");
        effect.playouts.clear();
        effect.playout_count = 0;
        effect.flags.push(Flag {
            worker: worker.to_owned(),
            reason: format!(
                "job {job_id}: an analysis of {position} scoring {:.3} over {} playouts, against {:.3} in the coordinator's own search ({z:.1} standard errors)",
                claimed.1, claimed.0, own.1
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honest_spreads_pass_and_a_fabricated_score_does_not() {
        // Two honest searches a few points apart, at any budgets.
        assert!(separation((300.0, 0.52), (4_000.0, 0.55)) < 1.0);
        assert!(separation((1e6, 0.48), (4_000.0, 0.56)) < 3.0);
        assert!(separation((50.0, 0.30), (50.0, 0.70)) < IMPROBABLE_Z);
        // The probe's table: everything won, against an even position.
        assert!(separation((4e7, 1.0), (4_000.0, 0.52)) > 2.0 * IMPROBABLE_Z);
        // Unanimity on both sides is no division by zero.
        assert_eq!(separation((10.0, 1.0), (10.0, 1.0)), 0.0);
    }

    #[test]
    fn scores_count_half_the_draws() {
        let table: Table = [(
            pentago::Move::from_index(0).unwrap(),
            crate::store::Counts {
                games: 10,
                wins: 4,
                draws: 2,
            },
        )]
        .into();
        assert_eq!(score([&table]), Some((10.0, 0.5)));
        assert_eq!(score([&Table::new()]), None);
    }
}
