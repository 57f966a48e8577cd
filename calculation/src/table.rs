//! The full table: what a player sees plus the stock's hidden order. Only the game itself and
//! the searches' own sampled tables hold one; players decide from the [`Observation`] alone.

use pentagrid_gamekit::EngineRng;
use rand::RngExt;
use thiserror::Error;

use super::card::{Card, DECK, FOUNDATIONS};
use super::deal::Variant;
use super::moves::Move;
use super::observation::{MoveList, Observation};

/// A table: the visible [`Observation`] and the face-down stock.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Table {
    visible: Observation,
    /// The face-down stock, `hidden[..visible.stock]`, the next card to turn up last.
    hidden: [Card; DECK],
}

/// A move the rules do not allow on this table.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("illegal move {mv} on {table}")]
pub struct IllegalMoveError {
    /// The move.
    pub mv: Move,
    /// The table it was tried on, in its text form.
    pub table: String,
}

/// How a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// All 52 cards reached the foundations.
    pub won: bool,
    /// Cards on the foundations at the end, counting any that started there.
    pub foundation_cards: u32,
}

impl Table {
    /// Deal `deal` of `variant` (see [`Variant::deal`]), its first card turned up.
    #[must_use]
    pub fn deal(variant: Variant, deal: u64) -> Table {
        Table::with_stock(variant, &variant.deal(deal))
    }

    /// A fresh table of `variant` whose stock is `stock`, top first. `stock` must hold the
    /// variant's [`Variant::initial_stock`] in some order.
    fn with_stock(variant: Variant, stock: &[Card]) -> Table {
        let mut visible = Observation::empty(variant.wastes());
        if variant.lays_out_bases() {
            visible.foundations = [1; FOUNDATIONS];
        }
        let mut hidden = [Card::KING; DECK];
        for (slot, &card) in hidden.iter_mut().zip(stock.iter().rev()) {
            *slot = card;
        }
        visible.stock = stock.len() as u8;
        let mut table = Table { visible, hidden };
        table.turn_up();
        table
    }

    /// A table consistent with `visible` whose face-down cards are the unseen ones in an order
    /// drawn uniformly at random: one sample of what the stock might be.
    #[must_use]
    pub fn sample(visible: &Observation, rng: &mut EngineRng) -> Table {
        let mut hidden = [Card::KING; DECK];
        let mut n = 0;
        let unseen = visible.unseen();
        for card in Card::all() {
            for _ in 0..unseen[card.rank() as usize] {
                hidden[n] = card;
                n += 1;
            }
        }
        debug_assert_eq!(n, visible.stock_len());
        for i in (1..n).rev() {
            hidden.swap(i, rng.random_range(0..=i));
        }
        Table {
            visible: *visible,
            hidden,
        }
    }

    /// What a player may see.
    #[must_use]
    pub fn observation(&self) -> &Observation {
        &self.visible
    }

    /// The legal moves.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        self.visible.legal_moves()
    }

    /// Plays `mv` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] when the rules do not allow it; the table is then unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        if !self.legal_moves().contains(&mv) {
            return Err(IllegalMoveError {
                mv,
                table: self.visible.to_string(),
            });
        }
        self.play_legal(mv);
        Ok(())
    }

    /// Plays `mv`, known to be legal (the searches draw it from [`Table::legal_moves`]).
    pub(super) fn play_legal(&mut self, mv: Move) {
        let v = &mut self.visible;
        match mv {
            Move::StockToFoundation(f) => {
                debug_assert_eq!(v.turned, v.foundation_next(f as usize));
                v.foundations[f as usize] += 1;
                self.turn_up();
            }
            Move::StockToWaste(w) => {
                let card = v.turned.expect("a turned card to place");
                v.piles[w as usize].push(card);
                self.turn_up();
            }
            Move::WasteToFoundation { waste, foundation } => {
                let card = v.piles[waste as usize].pop();
                debug_assert_eq!(card, v.foundation_next(foundation as usize));
                v.foundations[foundation as usize] += 1;
            }
        }
    }

    fn turn_up(&mut self) {
        let v = &mut self.visible;
        v.turned = match v.stock {
            0 => None,
            n => {
                v.stock = n - 1;
                Some(self.hidden[usize::from(n - 1)])
            }
        };
    }

    /// The outcome so far (final once no move is left).
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        Outcome {
            won: self.visible.is_won(),
            foundation_cards: self.visible.foundation_cards(),
        }
    }

    /// Plays uniformly random legal moves until none is left: the random player's game, and
    /// the searches' playouts. Returns the outcome and the number of moves made.
    pub fn random_playout(&mut self, rng: &mut EngineRng) -> (Outcome, u32) {
        let mut moves = 0;
        loop {
            let legal = self.legal_moves();
            if legal.is_empty() {
                return (self.outcome(), moves);
            }
            self.play_legal(legal[rng.random_range(0..legal.len())]);
            moves += 1;
        }
    }

    /// Every card on the table, hidden or not, counted by rank: four of each, always.
    #[cfg(test)]
    pub(super) fn census(&self) -> [u8; super::card::RANKS as usize + 1] {
        use super::card::{RANKS, foundation_card};
        let mut counts = [0u8; RANKS as usize + 1];
        let v = &self.visible;
        for f in 0..FOUNDATIONS {
            for k in 1..=v.foundations[f] {
                counts[foundation_card(f, k).rank() as usize] += 1;
            }
        }
        for w in 0..v.wastes() {
            for card in v.pile(w) {
                counts[card.rank() as usize] += 1;
            }
        }
        for card in v.turned.iter().chain(&self.hidden[..v.stock_len()]) {
            counts[card.rank() as usize] += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use pentagrid_gamekit::seeded_rng;
    use proptest::prelude::*;

    use super::*;
    use crate::card::RANKS;

    fn variant() -> impl Strategy<Value = Variant> {
        prop::sample::select(Variant::ALL.to_vec())
    }

    #[test]
    fn a_deal_starts_as_the_rules_say() {
        let table = Table::deal(Variant::Standard, 1);
        let v = table.observation();
        assert_eq!(v.foundation_cards(), 4);
        assert_eq!(v.stock_len(), 47);
        assert_eq!(v.turned(), Some(Variant::Standard.deal(1)[0]));
        let computer = Table::deal(Variant::Computer, 1);
        assert_eq!(computer.observation().foundation_cards(), 0);
        assert_eq!(computer.observation().stock_len(), 51);
        assert_eq!(Table::deal(Variant::Superman, 1).observation().wastes(), 3);
    }

    #[test]
    fn illegal_moves_are_refused_and_change_nothing() {
        let mut table = Table::deal(Variant::Superman, 3);
        let before = table;
        for mv in [
            Move::StockToWaste(3),
            Move::WasteToFoundation {
                waste: 0,
                foundation: 0,
            },
        ] {
            let err = table.play(mv).unwrap_err();
            assert_eq!(err.mv, mv);
            assert_eq!(table, before);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Cards are conserved, foundations only ever hold their sequences' prefixes, and every
        /// finished game is won (52 up) or stuck (no move, fewer than 52 up).
        #[test]
        fn random_games_keep_the_rules(variant in variant(), deal in any::<u64>(), seed in any::<u64>()) {
            let mut table = Table::deal(variant, deal);
            let mut rng = seeded_rng(seed, 0);
            let mut expected = [4u8; RANKS as usize + 1];
            expected[0] = 0;
            let mut moves = 0;
            loop {
                prop_assert_eq!(table.census(), expected);
                let v = *table.observation();
                // The text form names this table exactly.
                prop_assert_eq!(v.to_string().parse::<Observation>().unwrap(), v);
                let legal = table.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let mv = legal[rng.random_range(0..legal.len())];
                let before = v.foundation_cards();
                table.play(mv).unwrap();
                let after = table.observation().foundation_cards();
                prop_assert!(after == before || after == before + 1);
                moves += 1;
                prop_assert!(moves <= 2 * DECK);
            }
            let outcome = table.outcome();
            prop_assert_eq!(outcome.won, outcome.foundation_cards == 52);
            prop_assert!(table.observation().turned().is_none() && table.observation().stock_len() == 0);
        }

        /// A sampled table shows exactly the observation it was drawn from, and its stock is the
        /// unseen multiset.
        #[test]
        fn samples_agree_with_what_is_seen(deal in any::<u64>(), steps in 0usize..60, seed in any::<u64>()) {
            let mut table = Table::deal(Variant::Standard, deal);
            let mut rng = seeded_rng(seed, 1);
            for _ in 0..steps {
                let legal = table.legal_moves();
                if legal.is_empty() { break; }
                table.play_legal(legal[rng.random_range(0..legal.len())]);
            }
            let sample = Table::sample(table.observation(), &mut rng);
            prop_assert_eq!(sample.observation(), table.observation());
            prop_assert_eq!(sample.census(), table.census());
        }
    }
}
