//! Solitaire campaigns: a range of Calculation deals played by one player on the cluster, split
//! into jobs, and the cluster's totals per (variant, player) read back. The coordinator counts
//! each deal of a (variant, player) once, so a campaign run twice, or over overlapping ranges,
//! adds only the deals not played before.

use std::ops::Range;

use pentagrid_calculation::{Player, Variant};
use pentagrid_proto::{Client, MAX_SOLITAIRE_DEALS, Task};

use crate::error::{ClientError, Result};
use crate::jobs::{self, JobsOutcome, JobsProgress, run_jobs};
pub use crate::status::SolitaireTotals;

/// Most deals per job: small enough that a lost lease repeats little work and progress moves,
/// large enough that the per-job overhead is small beside a fast player's deals.
pub const DEALS_PER_JOB: u64 = 100;

/// Playouts per decision times deals a search's job is cut to (a job of a search player
/// plays about this many playouts per decision in all, so a job at 10^5 playouts per decision
/// has 10 deals, one at 10^6 a single deal).
const JOB_PLAYOUT_DEALS: u64 = 1_000_000;

/// Most deals one campaign may ask for.
pub const MAX_CAMPAIGN_DEALS: u64 = 1_000_000;

/// What a solitaire campaign plays.
#[derive(Clone, Debug, PartialEq)]
pub struct SolitairePlan {
    /// The rules' variant.
    pub variant: Variant,
    /// The player.
    pub player: Player,
    /// The deals (half-open), 1 to [`MAX_CAMPAIGN_DEALS`] of them.
    pub deals: Range<u64>,
    /// Seed of the player's own random choices.
    pub seed: u64,
}

impl SolitairePlan {
    /// Deals per job for this plan's player: [`DEALS_PER_JOB`], fewer for a search with a
    /// large budget, at least one.
    #[must_use]
    pub fn deals_per_job(&self) -> u64 {
        let per_decision = match self.player {
            Player::Random | Player::Strategy => 1,
            Player::Flat(s) | Player::Uct(s) => s.playouts,
        };
        (JOB_PLAYOUT_DEALS / per_decision).clamp(1, DEALS_PER_JOB)
    }

    /// The plan's jobs, each of at most [`SolitairePlan::deals_per_job`] deals, in order.
    ///
    /// # Errors
    /// [`ClientError::Invalid`] for an empty or reversed range or one of more than
    /// [`MAX_CAMPAIGN_DEALS`].
    pub fn tasks(&self) -> Result<Vec<Task>> {
        let Range { start, end } = self.deals;
        let count = end.saturating_sub(start);
        if count == 0 || count > MAX_CAMPAIGN_DEALS {
            return Err(ClientError::Invalid(format!(
                "a solitaire campaign plays 1 to {MAX_CAMPAIGN_DEALS} deals, not {count} \
                 (deals {start}..{end})"
            )));
        }
        const _: () = assert!(DEALS_PER_JOB <= MAX_SOLITAIRE_DEALS);
        let per_job = self.deals_per_job();
        let mut tasks = Vec::new();
        let mut first = start;
        while first < end {
            let last = end.min(first.saturating_add(per_job));
            tasks.push(Task::Solitaire {
                variant: self.variant,
                player: self.player,
                deals: first..last,
                seed: self.seed,
            });
            first = last;
        }
        Ok(tasks)
    }
}

/// What a campaign left: how its jobs ended, and the cluster's totals for its (variant,
/// player) afterwards (over every deal it has played, in this campaign or before).
#[derive(Clone, Debug)]
pub struct SolitaireReport {
    /// How the campaign's jobs ended.
    pub jobs: JobsOutcome,
    /// The totals, `None` when the cluster has none for the pair (every job failed).
    pub totals: Option<SolitaireTotals>,
}

/// Runs `plan` on the cluster, telling `progress` as jobs finish.
///
/// # Errors
/// A bad plan, or the coordinator refusing or failing a call.
pub async fn solitaire_campaign(
    client: &Client,
    plan: &SolitairePlan,
    progress: &mut dyn FnMut(JobsProgress),
) -> Result<SolitaireReport> {
    let tasks = plan.tasks()?;
    let outcome = run_jobs(client, &tasks, progress).await?;
    let status = jobs::status(client).await?;
    Ok(SolitaireReport {
        jobs: outcome,
        totals: totals_of(&status.solitaire, plan.variant, &plan.player).cloned(),
    })
}

/// The totals of one (variant, player) among `all`, if it has results.
#[must_use]
pub fn totals_of<'a>(
    all: &'a [SolitaireTotals],
    variant: Variant,
    player: &Player,
) -> Option<&'a SolitaireTotals> {
    let name = player.to_string();
    all.iter()
        .find(|t| t.variant == variant && t.player == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_proto::v2;

    fn plan(player: &str, deals: Range<u64>) -> SolitairePlan {
        SolitairePlan {
            variant: Variant::Standard,
            player: player.parse().unwrap(),
            deals,
            seed: 1,
        }
    }

    fn ranges(plan: &SolitairePlan) -> Vec<Range<u64>> {
        plan.tasks()
            .unwrap()
            .iter()
            .map(|t| match t {
                Task::Solitaire { deals, .. } => deals.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_plan_splits_into_jobs_covering_every_deal_once() {
        assert_eq!(
            ranges(&plan("strategy", 5..255)),
            [5..105, 105..205, 205..255]
        );
        assert_eq!(
            ranges(&plan("random", 7..8)),
            std::iter::once(7..8).collect::<Vec<_>>()
        );
        assert_eq!(
            ranges(&plan("uct:playouts=100000", 0..25)),
            [0..10, 10..20, 20..25]
        );
        assert_eq!(
            ranges(&plan("flat:playouts=1000000000", 3..5)),
            [3..4, 4..5]
        );
        // The last deal numbers: no job runs past them.
        let top = u64::MAX - 150..u64::MAX;
        assert_eq!(
            ranges(&plan("strategy", top)),
            [u64::MAX - 150..u64::MAX - 50, u64::MAX - 50..u64::MAX]
        );
    }

    #[test]
    fn empty_reversed_and_oversized_plans_are_refused() {
        let reversed = Range { start: 6, end: 5 };
        for deals in [5..5, reversed, 0..MAX_CAMPAIGN_DEALS + 1, 0..u64::MAX] {
            assert!(
                matches!(
                    plan("random", deals.clone()).tasks(),
                    Err(ClientError::Invalid(_))
                ),
                "{deals:?}"
            );
        }
    }

    #[test]
    fn totals_that_do_not_read_are_left_out() {
        let wire = |variant: &str, deals, wins, cards| v2::SolitaireTotals {
            variant: variant.into(),
            player: "random".into(),
            deals,
            wins,
            cards,
            cards_squared: cards * cards,
        };
        let good = SolitaireTotals::of_wire(&wire("superman", 1, 1, 52)).unwrap();
        assert_eq!(
            (good.variant, good.deals, good.wins),
            (Variant::Superman, 1, 1)
        );
        assert_eq!(good.foundation_cards.mean, 52.0);
        for bad in [
            wire("klondike", 1, 0, 10),
            wire("standard", 0, 0, 0),
            wire("standard", 1, 2, 52),
            wire("standard", 1, 0, 53),
        ] {
            assert_eq!(SolitaireTotals::of_wire(&bad), None, "{bad:?}");
        }
    }
}
