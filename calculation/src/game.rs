//! Playing deals: one deal move by move, and a range of deals summarised with 95% intervals.

use std::ops::Range;

use pentagrid_gamekit::splitmix64;
use pentagrid_rating::{WinRate, win_rate};
use rayon::prelude::*;
use serde::Serialize;

use super::deal::Variant;
use super::moves::Move;
use super::observation::Observation;
use super::players::Player;
use super::table::{Outcome, Table};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// One move of a recorded game and the table it was made on.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The table as the player saw it.
    pub seen: Observation,
    /// The move made.
    pub mv: Move,
}

/// A deal played to its end.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Every move with the table before it.
    pub steps: Vec<Step>,
    /// The table at the end.
    pub end: Observation,
    /// How it ended.
    pub outcome: Outcome,
    /// Random playouts the player ran in all.
    pub playouts: u64,
}

/// The seed of decision `index` of `deal`, from the run's `seed`: every decision gets its own.
fn decision_seed(seed: u64, deal: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed ^ splitmix64(deal)).wrapping_add(index))
}

/// Plays deal `deal` of `variant` with `player` to the end. The player sees only the
/// observation; `seed` and `threads` make its choices reproducible.
#[must_use]
pub fn play_deal(
    variant: Variant,
    deal: u64,
    player: &Player,
    seed: u64,
    threads: usize,
) -> GameRecord {
    let mut table = Table::deal(variant, deal);
    let mut steps = Vec::new();
    let mut playouts = 0u64;
    while !table.legal_moves().is_empty() {
        let seen = *table.observation();
        let decision = player.decide(
            &seen,
            decision_seed(seed, deal, steps.len() as u64),
            threads,
        );
        table
            .play(decision.mv)
            .expect("players choose among the legal moves");
        playouts = playouts.saturating_add(decision.playouts);
        steps.push(Step {
            seen,
            mv: decision.mv,
        });
    }
    GameRecord {
        steps,
        end: *table.observation(),
        outcome: table.outcome(),
        playouts,
    }
}

/// A mean with its 95% interval.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Mean {
    /// The mean.
    pub mean: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// Results of a player on a range of deals.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct BenchSummary {
    /// Deals played.
    pub deals: u64,
    /// Deals won.
    pub wins: u64,
    /// The success rate with its Wilson 95% interval.
    pub success: WinRate,
    /// Cards on the foundations at the end (counting any that started there), with a normal
    /// 95% interval.
    pub foundation_cards: Mean,
    /// Random playouts run by the player in all.
    pub playouts: u64,
}

#[derive(Copy, Clone, Default)]
struct Totals {
    deals: u64,
    wins: u64,
    cards: u64,
    cards_squared: u64,
    playouts: u64,
}

impl Totals {
    fn merge(self, other: Totals) -> Totals {
        Totals {
            deals: self.deals + other.deals,
            wins: self.wins + other.wins,
            cards: self.cards + other.cards,
            cards_squared: self.cards_squared + other.cards_squared,
            playouts: self.playouts.saturating_add(other.playouts),
        }
    }
}

/// The most deals one bench may play (keeps every sum far from overflow).
pub const MAX_BENCH_DEALS: u64 = 1_000_000_000;

/// Plays every deal in `deals` (half-open, at most [`MAX_BENCH_DEALS`]) with `player` and
/// summarises them; `None` for an empty or oversized range. Deals run in parallel on the
/// current rayon pool, each with one search thread, so the totals do not depend on the pool's
/// size.
#[must_use]
pub fn bench(
    variant: Variant,
    player: &Player,
    deals: Range<u64>,
    seed: u64,
) -> Option<BenchSummary> {
    let count = deals.end.checked_sub(deals.start).filter(|&n| n > 0)?;
    if count > MAX_BENCH_DEALS {
        return None;
    }
    let totals = deals
        .into_par_iter()
        .map(|deal| {
            let record = play_deal(variant, deal, player, seed, 1);
            let cards = u64::from(record.outcome.foundation_cards);
            Totals {
                deals: 1,
                wins: u64::from(record.outcome.won),
                cards,
                cards_squared: cards * cards,
                playouts: record.playouts,
            }
        })
        .reduce(Totals::default, Totals::merge);
    summarise(
        totals.deals,
        totals.wins,
        totals.cards,
        totals.cards_squared,
        totals.playouts,
    )
}

/// The summary of `deals` deals with `wins` won, `cards` cards on the foundations at the end in
/// all and `cards_squared` the sum of their squares (as a cluster's totals keep them); `None`
/// for no deal or sums no deals could make.
#[must_use]
pub fn summarise(
    deals: u64,
    wins: u64,
    cards: u64,
    cards_squared: u64,
    playouts: u64,
) -> Option<BenchSummary> {
    if deals == 0 || wins > deals || cards.div_ceil(52) > deals {
        return None;
    }
    let n = deals as f64;
    let mean = cards as f64 / n;
    let variance = if deals > 1 {
        ((cards_squared as f64 - n * mean * mean) / (n - 1.0)).max(0.0)
    } else {
        0.0
    };
    let half = Z95 * (variance / n).sqrt();
    Some(BenchSummary {
        deals,
        wins,
        success: win_rate(deals, wins, 0)?,
        foundation_cards: Mean {
            mean,
            low: (mean - half).max(0.0),
            high: (mean + half).min(52.0),
        },
        playouts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_game_replays_to_its_end() {
        let player: Player = "strategy".parse().unwrap();
        let record = play_deal(Variant::Standard, 3, &player, 0, 1);
        let mut table = Table::deal(Variant::Standard, 3);
        for step in &record.steps {
            assert_eq!(*table.observation(), step.seen);
            table.play(step.mv).unwrap();
        }
        assert_eq!(*table.observation(), record.end);
        assert!(table.legal_moves().is_empty());
        assert_eq!(table.outcome(), record.outcome);
    }

    #[test]
    fn bench_totals_add_up_and_do_not_depend_on_threads() {
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let run = |pool: &rayon::ThreadPool| {
            pool.install(|| bench(Variant::Standard, &Player::Random, 10..60, 5).unwrap())
        };
        let summary = run(&one);
        assert_eq!(summary, run(&two));
        assert_eq!(summary.deals, 50);
        let replayed: u32 = (10..60)
            .map(|d| {
                play_deal(Variant::Standard, d, &Player::Random, 5, 1)
                    .outcome
                    .foundation_cards
            })
            .sum();
        assert!((summary.foundation_cards.mean - f64::from(replayed) / 50.0).abs() < 1e-9);
        let m = summary.foundation_cards;
        assert!(m.low <= m.mean && m.mean <= m.high && m.low >= 4.0);
    }

    #[test]
    fn summaries_of_totals_match_the_bench_and_refuse_impossible_sums() {
        let summary = bench(Variant::Superman, &Player::Strategy, 0..40, 2).unwrap();
        let (cards, squares) = (0..40).fold((0u64, 0u64), |(c, s), d| {
            let n = u64::from(
                play_deal(Variant::Superman, d, &Player::Strategy, 2, 1)
                    .outcome
                    .foundation_cards,
            );
            (c + n, s + n * n)
        });
        assert_eq!(
            summarise(40, summary.wins, cards, squares, 0),
            Some(summary)
        );
        assert_eq!(summarise(0, 0, 0, 0, 0), None);
        assert_eq!(summarise(2, 3, 60, 1800, 0), None, "more wins than deals");
        assert_eq!(
            summarise(1, 0, 53, 2809, 0),
            None,
            "more cards than a deal holds"
        );
        assert_eq!(
            summarise(u64::MAX, 0, 0, 0, 0).map(|s| s.deals),
            Some(u64::MAX)
        );
    }

    #[test]
    fn empty_and_oversized_ranges_are_refused() {
        assert_eq!(bench(Variant::Standard, &Player::Random, 5..5, 0), None);
        assert_eq!(
            bench(
                Variant::Standard,
                &Player::Random,
                Range { start: 6, end: 5 },
                0
            ),
            None
        );
        assert_eq!(
            bench(Variant::Standard, &Player::Random, 0..u64::MAX, 0),
            None
        );
    }

    #[test]
    fn the_strategy_beats_random_play() {
        let random = bench(Variant::Standard, &Player::Random, 0..200, 1).unwrap();
        let strategy = bench(Variant::Standard, &Player::Strategy, 0..200, 1).unwrap();
        assert!(
            strategy.foundation_cards.low > random.foundation_cards.high,
            "{strategy:?} vs {random:?}"
        );
    }
}
