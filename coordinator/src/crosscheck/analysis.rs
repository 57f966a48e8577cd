//! Cross-checking analysis results statistically, worker by worker. Playout statistics are no
//! exact claim that a second party could confirm move by move, and one honest search can be
//! far from another: UCT's playouts steer each other, so two honest searches of a sharp position
//! with the same budget, differing only in their seeds, can score the side to move many standard
//! errors apart (as if the playouts were independent). No single result can be called
//! improbable.
//!
//! What no honest worker can do is *lean*: in a sampled share of analysis results
//! ([`super::CrossCheckSettings::analysis_sample`], drawn afresh per result like every sample)
//! the coordinator runs the same search itself — the same position, configuration, playout
//! budget and number of trees, from a seed of its own — and notes whether the worker's overall
//! score (wins and half the draws over all its playouts, for the side to move) came out above
//! or below its own. For an honest worker the two scores are two draws from one distribution,
//! so "above" is a fair coin whatever the positions; a worker that inflates (or deflates) the
//! results it sends wins the toss too often. When one side of a worker's tally reaches odds
//! below [`IMPROBABLE`] under a fair coin (a sign test: at least 30 tosses, all one way, or
//! e.g. 67 of 80), the worker is flagged (and so quarantined) and the result's rows are not
//! stored.
//!
//! The tallies are stored (see [`pentagrid_store::tallies`]) as each toss is counted, durable
//! with the result that moved them, and read back at start, so a restart does not start a
//! worker's clock again. The check skips results of more than [`MAX_CHECK_PLAYOUTS`]
//! playouts, which the coordinator cannot afford to repeat. Once a worker is caught, its
//! analyses are taken back out of the book as it is purged (see
//! [`pentagrid_store::contributions`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use pentago::{Budget, Position, SearchControl, SearchOptions, UctConfig, search};

use super::CrossCheck;
use crate::offload::blocking;
use pentagrid_store::{Flag, ResultEffect, Store, StoreError, Table};

/// The largest analysis the coordinator repeats (a fraction of a second of one core for the
/// optimised engine; the sample rate bounds how often).
const MAX_CHECK_PLAYOUTS: u64 = 50_000;
/// Odds under a fair coin below which a worker's tally is no honest worker's (with checks
/// after every sampled result, the chance that an honest worker is ever flagged stays far
/// below one in a million over its life).
const IMPROBABLE: f64 = 1e-9;

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

/// How often a worker's sampled analyses scored above and below the coordinator's own.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Tally {
    above: u64,
    below: u64,
}

impl Tally {
    /// The odds, under a fair coin, of a split at least as lopsided as this one on its
    /// heavier side.
    fn odds(self) -> f64 {
        upper_tail(self.above.max(self.below), self.above + self.below)
    }
}

/// `P(X >= k)` for `X` binomial with `n` tosses of a fair coin, summed in log space so that
/// large tallies neither overflow nor underflow to a false 0.
fn upper_tail(k: u64, n: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    // ln C(n, k) by the product of (n - k + i) / i.
    let ln_choose: f64 = (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum();
    let mut ln_term = ln_choose - n as f64 * std::f64::consts::LN_2;
    let mut total = 0.0;
    for j in k..=n {
        total += ln_term.exp();
        if j < n {
            ln_term += ((n - j) as f64 / (j + 1) as f64).ln();
        }
    }
    total.min(1.0)
}

/// Every worker's tally, read from the store at start and written through to it.
#[derive(Default)]
pub(super) struct SignTallies(Mutex<HashMap<String, Tally>>);

impl SignTallies {
    /// The tallies stored in `store`.
    pub(super) fn load(store: &Store) -> Result<SignTallies, StoreError> {
        let tallies = store
            .sign_tallies()?
            .into_iter()
            .map(|(id, (above, below))| (id, Tally { above, below }))
            .collect();
        Ok(SignTallies(Mutex::new(tallies)))
    }

    /// Records whether `worker`'s score came out above (`true`) or below the coordinator's,
    /// in memory and in `store` (under the lock, so the store sees the tallies in order);
    /// returns its tally. A count that would pass 2^64 − 1 stays where it is.
    fn record(&self, store: &Store, worker: &str, above: bool) -> Result<Tally, StoreError> {
        let mut tallies = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut tally = tallies.get(worker).copied().unwrap_or_default();
        let side = if above {
            &mut tally.above
        } else {
            &mut tally.below
        };
        *side = side.saturating_add(1);
        store.put_sign_tally(worker, (tally.above, tally.below))?;
        tallies.insert(worker.to_owned(), tally);
        Ok(tally)
    }
}

impl CrossCheck {
    /// Repeats `worker`'s analysis of `position` (job `job_id`, `config`, `playouts`, on the
    /// worker's `threads` trees) with a seed of the coordinator's, adds the comparison to the
    /// worker's tally, and flags the worker (dropping the rows) once its tally leans too far.
    pub(super) async fn check_analysis(
        &self,
        worker: &str,
        job_id: u64,
        (position, config, playouts, threads): (&Position, &UctConfig, u64, u32),
        effect: &mut ResultEffect,
    ) -> Result<(), StoreError> {
        if playouts > MAX_CHECK_PLAYOUTS {
            return Ok(());
        }
        let Some(claimed) = score(effect.playouts.values()) else {
            return Ok(());
        };
        let position = *position;
        let config = config.with_budget(Budget::Playouts(playouts.max(1)));
        // The semaphore is never closed, so acquiring cannot fail.
        let _permit = self.judging.acquire().await.ok();
        let own = blocking(move || {
            use rand::RngExt;
            let options = SearchOptions {
                seed: rand::rng().random(),
                threads: threads.clamp(1, 256) as usize,
                ..SearchOptions::default()
            };
            let result = search(&position, &config, &options, &SearchControl::new()).ok()?;
            let table: Table = result
                .moves
                .iter()
                .map(|m| {
                    let counts = pentagrid_store::Counts {
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
            return Ok(());
        };
        if claimed.1 == own.1 {
            return Ok(());
        }
        let tally = self.signs.record(&self.store, worker, claimed.1 > own.1)?;
        let odds = tally.odds();
        if odds >= IMPROBABLE {
            return Ok(());
        }
        tracing::warn!(worker = %worker, job = job_id, %position, above = tally.above, below = tally.below, odds, "a worker's analyses lean improbably");
        effect.playouts.clear();
        effect.playout_count = 0;
        effect.flags.push(Flag {
            worker: worker.to_owned(),
            reason: format!(
                "job {job_id}: of {} sampled analyses, {} scored above the coordinator's own search of the same position and {} below (odds {odds:.1e} for an honest worker)",
                tally.above + tally.below,
                tally.above,
                tally.below
            ),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_test_needs_a_long_lopsided_tally() {
        assert_eq!(upper_tail(0, 10), 1.0);
        assert!((upper_tail(1, 1) - 0.5).abs() < 1e-12);
        assert!((upper_tail(3, 4) - 5.0 / 16.0).abs() < 1e-12);
        // 29 of 29 one way is not yet enough, 30 of 30 is.
        assert!(upper_tail(29, 29) > IMPROBABLE);
        assert!(upper_tail(30, 30) < IMPROBABLE);
        // An honest tally of thousands of tosses stays far from the bound.
        assert!(
            Tally {
                above: 5_100,
                below: 4_900
            }
            .odds()
                > 0.01
        );
        // A lean of 68 of 80, and one of 60% over 10,000, are flagged; 62 of 80 is not yet.
        assert!(
            Tally {
                above: 68,
                below: 12
            }
            .odds()
                < IMPROBABLE
        );
        assert!(
            Tally {
                above: 62,
                below: 18
            }
            .odds()
                > IMPROBABLE
        );
        assert!(
            Tally {
                above: 4_000,
                below: 6_000
            }
            .odds()
                < IMPROBABLE
        );
    }

    #[test]
    fn tallies_are_per_worker_and_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let tallies = SignTallies::load(&store).unwrap();
            tallies.record(&store, "a", true).unwrap();
            tallies.record(&store, "a", true).unwrap();
            let a = tallies.record(&store, "a", false).unwrap();
            assert_eq!(a, Tally { above: 2, below: 1 });
            let b = tallies.record(&store, "b", false).unwrap();
            assert_eq!(b, Tally { above: 0, below: 1 });
            store.flush_blocking().unwrap();
        }
        // A restart reads them back: the next toss adds to them.
        let store = Store::open(dir.path()).unwrap();
        let tallies = SignTallies::load(&store).unwrap();
        let a = tallies.record(&store, "a", true).unwrap();
        assert_eq!(a, Tally { above: 3, below: 1 });
        let c = tallies.record(&store, "c", true).unwrap();
        assert_eq!(c, Tally { above: 1, below: 0 });
    }

    #[test]
    fn scores_count_half_the_draws() {
        let table: Table = [(
            pentago::Move::from_index(0).unwrap(),
            pentagrid_store::Counts {
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
