//! The rule-based player, after Nozaki's advice for Calculation: keep one waste pile for kings,
//! and stack the others so the cards needed soonest lie on top.
//!
//! Its rules, in order:
//! 1. a waste pile's top that a foundation takes goes there (the lowest such pile, then the
//!    lowest foundation), since it uncovers the card below and costs nothing;
//! 2. the turned card goes to a foundation that takes it (the lowest);
//! 3. a king goes to the last waste pile, the king pile (kings are needed last by every
//!    foundation, so they bury nothing there);
//! 4. any other card goes to one of the other piles, judged by the *wait* of a card: how many
//!    cards must reach the foundations before it can, through the foundation that wants it
//!    soonest. On a pile whose top waits longer than the card, the card comes off first and
//!    buries nothing: the pile with the smallest such margin wins (keeping piles ordered from
//!    cards needed late at the bottom to cards needed early on top); failing that an empty pile;
//!    failing that the pile whose top waits longest (the burial that hurts least). Ties go to
//!    the lowest pile.

use super::super::card::{Card, FOUNDATIONS, position_in_foundation};
use super::super::moves::Move;
use super::super::observation::Observation;

/// The strategy's move on an ongoing table.
pub(super) fn choose(seen: &Observation) -> Move {
    let legal = seen.legal_moves();
    if let Some(&mv) = legal
        .iter()
        .find(|mv| matches!(mv, Move::WasteToFoundation { .. }))
    {
        return mv;
    }
    if let Some(&mv) = legal
        .iter()
        .find(|mv| matches!(mv, Move::StockToFoundation(_)))
    {
        return mv;
    }
    let Some(card) = seen.turned() else {
        // No turned card and no foundation move: the game is over; the caller never asks.
        return legal[0];
    };
    let king_pile = seen.wastes() - 1;
    if card == Card::KING {
        return Move::StockToWaste(king_pile as u8);
    }
    let need = wait(seen, card);
    let piles = 0..king_pile;
    let mut best: Option<(u8, u32)> = None;
    let mut empty = None;
    let mut burial: Option<(u8, u32)> = None;
    for w in piles {
        match seen.pile(w).last() {
            None => {
                empty = empty.or(Some(w as u8));
            }
            Some(&top) => {
                let top_wait = wait(seen, top);
                if top_wait > need {
                    let margin = top_wait - need;
                    if best.is_none_or(|(_, m)| margin < m) {
                        best = Some((w as u8, margin));
                    }
                } else if burial.is_none_or(|(_, t)| top_wait > t) {
                    burial = Some((w as u8, top_wait));
                }
            }
        }
    }
    let pile = best
        .map(|(w, _)| w)
        .or(empty)
        .or(burial.map(|(w, _)| w))
        .unwrap_or(0);
    Move::StockToWaste(pile)
}

/// How many cards must reach the foundations before `card` can, through the foundation that
/// wants it soonest (13 when none still wants it, which four copies per rank rule out).
fn wait(seen: &Observation, card: Card) -> u32 {
    (0..FOUNDATIONS)
        .filter_map(|f| {
            let at = position_in_foundation(f, card);
            let have = seen.foundation_len(f);
            (at > have).then(|| u32::from(at - have - 1))
        })
        .min()
        .unwrap_or(13)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calculation::deal::Variant;
    use crate::calculation::players::Player;
    use crate::calculation::table::Table;

    fn choose_on(text: &str) -> String {
        choose(&text.parse().unwrap()).to_string()
    }

    #[test]
    fn foundation_moves_come_first() {
        assert_eq!(choose_on("f=A,2,3,4 w=6,-,-,- t=2 s=46"), "w1>f3");
        assert_eq!(choose_on("f=A,2,3,4 w=-,-,-,- t=2 s=47"), "s>f1");
    }

    #[test]
    fn kings_go_to_the_king_pile() {
        assert_eq!(choose_on("f=A,2,3,4 w=-,-,-,- t=K s=47"), "s>w4");
        assert_eq!(choose_on("f=A,2,3,4 w=-,-,- t=K s=47"), "s>w3");
    }

    #[test]
    fn cards_needed_sooner_go_on_top_of_cards_needed_later() {
        // Waits after A 2 3 4: the 5 three (foundation 1), the Q one (foundation 4: 8 Q),
        // the J four (foundation 4: 8 Q 3 7 J).
        let seen: Observation = "f=A,2,3,4 w=Q,J,-,- t=5 s=45".parse().unwrap();
        let five = wait(&seen, "5".parse().unwrap());
        let queen = wait(&seen, Card::new(12).unwrap());
        let jack = wait(&seen, Card::new(11).unwrap());
        assert_eq!((five, queen, jack), (3, 1, 4));
        // The J waits longer than the 5: the 5 goes on it; the Q would be buried.
        assert_eq!(choose(&seen).to_string(), "s>w2");
        // A card that every top waits less for goes to the empty pile, not on top of them.
        let seen: Observation = "f=A,2,3,4 w=Q,5,-,- t=J s=45".parse().unwrap();
        assert_eq!(choose(&seen).to_string(), "s>w3");
        // With no empty pile, it buries the top that waits longest.
        let seen: Observation = "f=A,2,3,4 w=Q,5,9,- t=J s=44".parse().unwrap();
        assert_eq!(choose(&seen).to_string(), "s>w2");
    }

    #[test]
    fn the_strategy_plays_every_deal_to_the_end_legally() {
        for variant in Variant::ALL {
            for deal in 0..50 {
                let mut table = Table::deal(variant, deal);
                while !table.legal_moves().is_empty() {
                    let mv = Player::Strategy.decide(table.observation(), 0, 1).mv;
                    table.play(mv).unwrap();
                }
            }
        }
    }
}
