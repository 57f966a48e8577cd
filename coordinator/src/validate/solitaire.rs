//! Checking a solitaire job's result: one outcome per deal, each one the rules allow.

use std::ops::Range;

use pentagrid_calculation::{DECK, FOUNDATIONS, Player, Variant};
use pentagrid_model::DealResult;

use super::InvalidResult;
use pentagrid_store::{ResultEffect, SolitaireEffect};

/// The effect of a solitaire result: the deals of `deals` with how each ended, for `variant`
/// and `player`. Refused unless there is one result per deal and each is possible: at most 52
/// cards up, at least the four laid out at the start where the variant lays them out, won
/// exactly when all 52 are up.
pub(super) fn solitaire_effect(
    variant: Variant,
    player: &Player,
    deals: &Range<u64>,
    results: &[DealResult],
) -> Result<ResultEffect, InvalidResult> {
    let expected = deals.end.saturating_sub(deals.start);
    if results.len() as u64 != expected {
        return Err(InvalidResult::DealCount {
            results: results.len(),
            deals: expected,
        });
    }
    let least = if variant.lays_out_bases() {
        FOUNDATIONS as u32
    } else {
        0
    };
    let deck = DECK as u32;
    for (deal, result) in deals.clone().zip(results) {
        let cards = result.foundation_cards;
        if !(least..=deck).contains(&cards) || result.won != (cards == deck) {
            return Err(InvalidResult::ImpossibleDeal {
                deal,
                won: result.won,
                cards,
            });
        }
    }
    Ok(ResultEffect {
        solitaire: Some(SolitaireEffect {
            variant,
            player: player.to_string(),
            deals: deals.clone().zip(results.iter().copied()).collect(),
        }),
        ..ResultEffect::default()
    })
}

#[cfg(test)]
mod tests {
    use pentagrid_model::{Outcome, Task};

    use super::super::result_effect;
    use super::*;

    fn task(variant: Variant) -> Task {
        Task::Solitaire {
            variant,
            player: "strategy".parse().unwrap(),
            deals: 10..12,
            seed: 1,
        }
    }

    fn deals(d: &[(bool, u32)]) -> Outcome {
        Outcome::Solitaire {
            deals: d
                .iter()
                .map(|&(won, foundation_cards)| DealResult {
                    won,
                    foundation_cards,
                })
                .collect(),
        }
    }

    #[test]
    fn a_complete_possible_result_is_taken_deal_by_deal() {
        let effect = result_effect(
            &task(Variant::Standard),
            1,
            &deals(&[(true, 52), (false, 4)]),
        )
        .unwrap()
        .solitaire
        .unwrap();
        assert_eq!(
            (effect.variant, effect.player.as_str()),
            (Variant::Standard, "strategy")
        );
        assert_eq!(
            effect.deals,
            [
                (
                    10,
                    DealResult {
                        won: true,
                        foundation_cards: 52
                    }
                ),
                (
                    11,
                    DealResult {
                        won: false,
                        foundation_cards: 4
                    }
                ),
            ]
        );
        // The computer variant lays nothing out: no card up is a possible end.
        assert!(result_effect(&task(Variant::Computer), 1, &deals(&[(false, 0); 2])).is_ok());
    }

    #[test]
    fn missing_extra_and_impossible_deals_are_refused() {
        let refused = |outcome: &Outcome| result_effect(&task(Variant::Standard), 1, outcome);
        assert_eq!(
            refused(&deals(&[(true, 52)])).unwrap_err(),
            InvalidResult::DealCount {
                results: 1,
                deals: 2
            }
        );
        assert_eq!(
            refused(&deals(&[(true, 52); 3])).unwrap_err(),
            InvalidResult::DealCount {
                results: 3,
                deals: 2
            }
        );
        for (bad, deal, won, cards) in [
            (deals(&[(true, 51), (false, 4)]), 10, true, 51),
            (deals(&[(false, 52), (false, 4)]), 10, false, 52),
            (deals(&[(false, 5), (false, 3)]), 11, false, 3),
            (deals(&[(false, 53), (false, 4)]), 10, false, 53),
            (deals(&[(true, u32::MAX), (false, 4)]), 10, true, u32::MAX),
        ] {
            assert_eq!(
                refused(&bad).unwrap_err(),
                InvalidResult::ImpossibleDeal { deal, won, cards },
                "{bad:?}"
            );
        }
        let wrong_kind = Outcome::Solve { moves: vec![] };
        assert_eq!(refused(&wrong_kind).unwrap_err(), InvalidResult::WrongKind);
    }
}
