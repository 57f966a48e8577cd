//! The rule-based player, after Nozaki's advice for Calculation: a waste pile kept for kings,
//! the other piles stacked so that the cards a foundation needs soonest lie on top — ideally as
//! descending runs in the order one foundation takes them — and a look ahead to the card that
//! comes next.
//!
//! Its rules, in order:
//! 1. a waste pile's top that a foundation takes goes there (the first such move in the legal
//!    order), since it uncovers the card below and costs nothing;
//! 2. a king no foundation takes goes to the king pile: the pile holding kings only, else the
//!    last empty pile (kings are every foundation's last card, so on any other card they bury
//!    it until the very end);
//! 3. otherwise every place for the turned card (a foundation that takes it, or a waste pile)
//!    is tried: the strategy plays it, moves every waste top a foundation then takes, and for
//!    each rank the next card could be (weighted by how many of it are still unseen) finds that
//!    card's best place the same way; the move whose expected [cost](cost) after the next card
//!    is lowest wins (ties: the first in the legal order). With the stock empty the cost of the
//!    table itself decides.
//!
//! The cost of a table weighs cards on the foundations and empty piles (good) against *blocks*:
//! a card lying above one that is needed sooner. "Needed" counts the cards its foundation must
//! take before it: the copies of a rank in sight serve the foundations that want it in order of
//! how near the top they lie, so a second king waits for the second foundation to come near
//! its end, not the first. A card right above the one its foundation takes just after it (a
//! descending run such as 10, 8, 6 for foundation 2) earns a bonus: when the top goes up, the
//! next follows.
//!
//! The weights were chosen by measuring success rates on deals other than the benchmark's
//! (BENCHMARKS.md, "Calculation solitaire"); only the unseen cards' counts are used, never the
//! stock's order.

use super::super::card::{COPIES, Card, FOUNDATIONS, RANKS, position_in_foundation};
use super::super::moves::Move;
use super::super::observation::Observation;

/// The reward for each card on the foundations.
const FOUNDATION_CARD: i64 = 10;
/// The reward for each empty waste pile.
const EMPTY_PILE: i64 = 10;
/// The reward for a pile holding kings only (the king pile is working as meant).
const KING_PILE: i64 = 3;
/// The cost of each card lying above one needed sooner…
const BLOCK: i64 = 3;
/// … plus this for every card of difference in when they are needed.
const BLOCK_PER_CARD: i64 = 3;
/// The reward for a card right above the one its foundation takes just after it.
const RUN: i64 = 6;
/// What "needed" says of a card no foundation still wants (cannot happen with four copies of
/// every rank; kept as the longest possible wait).
const NEVER: u8 = RANKS;

/// The strategy's move on an ongoing table.
pub(super) fn choose(seen: &Observation) -> Move {
    let legal = seen.legal_moves();
    if let Some(&mv) = legal
        .iter()
        .find(|mv| matches!(mv, Move::WasteToFoundation { .. }))
    {
        return mv;
    }
    let Some(card) = seen.turned() else {
        // No turned card and no foundation move: the game is over; the caller never asks.
        return legal[0];
    };
    let to_foundation = legal
        .iter()
        .any(|mv| matches!(mv, Move::StockToFoundation(_)));
    if card == Card::KING
        && !to_foundation
        && let Some(pile) = king_pile(seen)
    {
        return Move::StockToWaste(pile);
    }
    let unseen = seen.unseen();
    let mut best = legal[0];
    let mut best_cost = i64::MAX;
    for &mv in legal.iter() {
        let mut after = *seen;
        place(&mut after, card, mv);
        settle(&mut after);
        let expected = expected_cost(&after, &unseen);
        if expected < best_cost {
            best_cost = expected;
            best = mv;
        }
    }
    best
}

/// The pile kings go to: the first that holds kings only, else the last empty one.
fn king_pile(seen: &Observation) -> Option<u8> {
    let piles = 0..seen.wastes() as u8;
    piles
        .clone()
        .find(|&w| {
            let pile = seen.pile(w as usize);
            !pile.is_empty() && pile.iter().all(|&c| c == Card::KING)
        })
        .or_else(|| piles.rev().find(|&w| seen.pile(w as usize).is_empty()))
}

/// Puts the turned `card` where `mv` says (a foundation or a waste pile); the next card is not
/// turned up (the strategy does not know it).
fn place(table: &mut Observation, card: Card, mv: Move) {
    table.turned = None;
    match mv {
        Move::StockToFoundation(f) => table.foundations[f as usize] += 1,
        Move::StockToWaste(w) => table.piles[w as usize].push(card),
        Move::WasteToFoundation { .. } => {}
    }
}

/// Moves waste tops to the foundations while any fits (lowest pile, then lowest foundation).
fn settle(table: &mut Observation) {
    loop {
        let mut moved = false;
        for w in 0..table.wastes() {
            let Some(top) = table.piles[w].top() else {
                continue;
            };
            if let Some(f) = (0..FOUNDATIONS).find(|&f| table.foundation_next(f) == Some(top)) {
                table.piles[w].pop();
                table.foundations[f] += 1;
                moved = true;
            }
        }
        if !moved {
            return;
        }
    }
}

/// The cost after the next card, summed over the unseen cards (each rank weighted by its
/// count, so sums compare like expectations): each next card goes where its cost is lowest.
/// With nothing unseen, the table's own cost.
fn expected_cost(table: &Observation, unseen: &[u8; RANKS as usize + 1]) -> i64 {
    if unseen.iter().all(|&n| n == 0) {
        return cost(table);
    }
    let mut total = 0;
    for card in Card::all() {
        let copies = i64::from(unseen[card.rank() as usize]);
        if copies == 0 {
            continue;
        }
        let mut best = i64::MAX;
        let places = (0..FOUNDATIONS as u8)
            .filter(|&f| table.foundation_next(f as usize) == Some(card))
            .map(Move::StockToFoundation)
            .chain((0..table.wastes() as u8).map(Move::StockToWaste));
        for mv in places {
            let mut next = *table;
            place(&mut next, card, mv);
            settle(&mut next);
            best = best.min(cost(&next));
        }
        total += copies * best;
    }
    total
}

/// How many cards each foundation must take before it wants each rank, soonest first:
/// `distances[rank][..counts[rank]]`.
struct Distances {
    distances: [[u8; FOUNDATIONS]; RANKS as usize + 1],
    counts: [u8; RANKS as usize + 1],
}

impl Distances {
    fn of(table: &Observation) -> Distances {
        let mut d = Distances {
            distances: [[NEVER; FOUNDATIONS]; RANKS as usize + 1],
            counts: [0; RANKS as usize + 1],
        };
        for card in Card::all() {
            let r = card.rank() as usize;
            for f in 0..FOUNDATIONS {
                let at = position_in_foundation(f, card);
                let have = table.foundation_len(f);
                if at > have {
                    d.distances[r][d.counts[r] as usize] = at - have - 1;
                    d.counts[r] += 1;
                }
            }
            d.distances[r][..d.counts[r] as usize].sort_unstable();
        }
        d
    }

    /// The wait of the copy of `card` that is `ahead` copies behind the nearest.
    fn wait(&self, card: Card, ahead: usize) -> u8 {
        let r = card.rank() as usize;
        if ahead < self.counts[r] as usize {
            self.distances[r][ahead]
        } else {
            NEVER
        }
    }
}

/// The cost of a table (see the module notes): lower is better.
fn cost(table: &Observation) -> i64 {
    let distances = Distances::of(table);
    // Where each rank's copies lie in the piles, as (depth below the top, pile).
    let mut copies = [[(0u8, 0u8); COPIES as usize]; RANKS as usize + 1];
    let mut found = [0usize; RANKS as usize + 1];
    for w in 0..table.wastes() {
        let pile = table.pile(w);
        for (i, card) in pile.iter().enumerate() {
            let r = card.rank() as usize;
            copies[r][found[r]] = ((pile.len() - 1 - i) as u8, w as u8);
            found[r] += 1;
        }
    }
    let mut total = -FOUNDATION_CARD * i64::from(table.foundation_cards());
    let mut waits = [0u8; 52];
    for w in 0..table.wastes() {
        let pile = table.pile(w);
        if pile.is_empty() {
            total -= EMPTY_PILE;
            continue;
        }
        if pile.iter().all(|&c| c == Card::KING) {
            total -= KING_PILE;
        }
        for (i, &card) in pile.iter().enumerate() {
            let r = card.rank() as usize;
            let here = ((pile.len() - 1 - i) as u8, w as u8);
            let ahead = copies[r][..found[r]].iter().filter(|&&c| c < here).count();
            waits[i] = distances.wait(card, ahead);
        }
        total += pile_cost(table, pile, &waits[..pile.len()]);
    }
    total
}

/// The blocks and runs of one pile whose cards wait `waits` (bottom to top).
fn pile_cost(table: &Observation, pile: &[Card], waits: &[u8]) -> i64 {
    let mut total = 0;
    for i in 0..pile.len() {
        for j in i + 1..pile.len() {
            // Card j lies above card i.
            if waits[j] > waits[i] || (waits[j] == waits[i] && pile[j] != pile[i]) {
                total += BLOCK + BLOCK_PER_CARD * i64::from(waits[j] - waits[i]);
            }
        }
        if i + 1 < pile.len() && waits[i + 1] < waits[i] && is_run(table, pile[i], pile[i + 1]) {
            total -= RUN;
        }
    }
    total
}

/// Whether some foundation still wants `upper` and takes `lower` right after it.
fn is_run(table: &Observation, lower: Card, upper: Card) -> bool {
    (0..FOUNDATIONS).any(|f| {
        let at = position_in_foundation(f, upper);
        at > table.foundation_len(f) && position_in_foundation(f, lower) == at + 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deal::Variant;
    use crate::players::Player;
    use crate::table::Table;

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
        // An existing pile of kings takes the next one, whichever it is.
        assert_eq!(choose_on("f=A,2,3,4 w=-,K,-,- t=K s=46"), "s>w2");
    }

    #[test]
    fn second_copies_wait_for_the_second_foundation() {
        // The foundations take a 5 after 3 (foundation 1: 2 3 4), 6, 4 and 9 more cards: the
        // 5 nearest the top serves foundation 1, the next one foundation 3, and a fifth copy
        // (there is none) no foundation.
        let seen: Observation = "f=A,4,3,4 w=5,5,-,- t=9 s=44".parse().unwrap();
        let d = Distances::of(&seen);
        let five = Card::new(5).unwrap();
        assert_eq!(d.wait(five, 0), 3);
        assert!(d.wait(five, 1) > 3);
        assert_eq!(d.wait(five, 4), NEVER);
    }

    #[test]
    fn a_card_goes_on_the_one_its_foundation_takes_next() {
        // Foundation 2 (at 4) takes 6, 8, 10: a turned 8 belongs on the 10, a run, rather than
        // on an empty pile (on the J it would be a run too: foundation 3 takes 8 then J).
        let seen: Observation = "f=A,4,3,8 w=10,J,-,- t=8 s=43".parse().unwrap();
        assert_eq!(choose(&seen).to_string(), "s>w1");
        assert!(is_run(&seen, Card::new(11).unwrap(), Card::new(8).unwrap()));
        // An A (needed after 5 more cards) does not bury a 3 (needed after 1) while a pile is
        // empty; a mild burial can be worth keeping an empty pile, a long one is not.
        let seen: Observation = "f=A,2,3,4 w=3,-,-,- t=A s=46".parse().unwrap();
        assert_ne!(choose(&seen).to_string(), "s>w1");
    }

    #[test]
    fn the_strategy_plays_every_deal_to_the_end_legally() {
        for variant in Variant::ALL {
            for deal in 0..30 {
                let mut table = Table::deal(variant, deal);
                while !table.legal_moves().is_empty() {
                    let mv = Player::Strategy.decide(table.observation(), 0, 1).mv;
                    table.play(mv).unwrap();
                }
            }
        }
    }
}
