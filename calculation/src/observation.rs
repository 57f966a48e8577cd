//! What a player may see of a table: the foundations, the waste piles, the turned-up card and how
//! many cards the stock still holds — never their order. Its text form, one line:
//!
//! `f=A,2,3,4 w=5.9,-,K,- t=7 s=40`
//!
//! `f=` the four foundations' top cards (`-` for one not yet started, in the Computer variant);
//! `w=` the waste piles (three or four), each bottom to top with cards separated by `.`, `-` when
//! empty; `t=` the turned-up card (`-` when none: only once the stock is exhausted); `s=` the
//! cards still face down in the stock.

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

use thiserror::Error;

use super::card::{
    COPIES, Card, DECK, FOUNDATIONS, MAX_WASTES, ParseCardError, RANKS, echo, foundation_card,
    position_in_foundation,
};
use super::moves::Move;

/// The most legal moves a table can have: 4 + 4 from the turned card, 4 × 4 from the wastes.
pub const MAX_MOVES: usize = 2 * FOUNDATIONS + MAX_WASTES * FOUNDATIONS;

/// A waste pile: cards bottom to top; the slots past the top hold kings as filler.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Pile {
    pub(super) cards: [Card; DECK],
    pub(super) len: u8,
}

impl Pile {
    const EMPTY: Pile = Pile {
        cards: [Card::KING; DECK],
        len: 0,
    };

    fn as_slice(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    pub(super) fn top(&self) -> Option<Card> {
        self.as_slice().last().copied()
    }

    pub(super) fn push(&mut self, card: Card) {
        self.cards[self.len as usize] = card;
        self.len += 1;
    }

    pub(super) fn pop(&mut self) -> Option<Card> {
        let card = self.top()?;
        self.len -= 1;
        // Slots past the top always hold the filler, so equal piles compare and hash equal.
        self.cards[self.len as usize] = Card::KING;
        Some(card)
    }
}

/// The visible part of a table (see the module notes). Everything a player decides from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    /// Cards on each foundation, 0 (not started) to 13 (finished).
    pub(super) foundations: [u8; FOUNDATIONS],
    pub(super) piles: [Pile; MAX_WASTES],
    /// Waste piles in play: 4, or 3 in the Superman variant.
    pub(super) wastes: u8,
    pub(super) turned: Option<Card>,
    /// Cards still face down in the stock.
    pub(super) stock: u8,
}

/// The legal moves of a table, in a fixed order: the turned card to foundations 1–4, to waste
/// piles 1–4, then each waste pile's top to foundations 1–4.
#[derive(Copy, Clone, Debug)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: u8,
}

impl Deref for MoveList {
    type Target = [Move];

    fn deref(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

impl MoveList {
    fn push(&mut self, mv: Move) {
        self.moves[self.len as usize] = mv;
        self.len += 1;
    }
}

impl Observation {
    /// An empty table with `wastes` waste piles and nothing dealt.
    pub(super) const fn empty(wastes: u8) -> Observation {
        Observation {
            foundations: [0; FOUNDATIONS],
            piles: [Pile::EMPTY; MAX_WASTES],
            wastes,
            turned: None,
            stock: 0,
        }
    }

    /// Cards on foundation `f` (0-based), 0 to 13.
    #[must_use]
    pub fn foundation_len(&self, f: usize) -> u8 {
        self.foundations[f]
    }

    /// The top card of foundation `f` (0-based), `None` while it is not started.
    #[must_use]
    pub fn foundation_top(&self, f: usize) -> Option<Card> {
        match self.foundations[f] {
            0 => None,
            n => Some(foundation_card(f, n)),
        }
    }

    /// The card foundation `f` (0-based) takes next, `None` once its K is on.
    #[must_use]
    pub fn foundation_next(&self, f: usize) -> Option<Card> {
        let n = self.foundations[f];
        (n < RANKS).then(|| foundation_card(f, n + 1))
    }

    /// Cards on all foundations together (52 when the game is won).
    #[must_use]
    pub fn foundation_cards(&self) -> u32 {
        self.foundations.iter().map(|&n| u32::from(n)).sum()
    }

    /// The number of waste piles in play.
    #[must_use]
    pub fn wastes(&self) -> usize {
        self.wastes as usize
    }

    /// Waste pile `w` (0-based), bottom to top.
    #[must_use]
    pub fn pile(&self, w: usize) -> &[Card] {
        self.piles[w].as_slice()
    }

    /// The turned-up card waiting to be placed.
    #[must_use]
    pub fn turned(&self) -> Option<Card> {
        self.turned
    }

    /// Cards still face down in the stock.
    #[must_use]
    pub fn stock_len(&self) -> usize {
        self.stock as usize
    }

    /// Whether all 52 cards are on the foundations.
    #[must_use]
    pub fn is_won(&self) -> bool {
        self.foundation_cards() == DECK as u32
    }

    /// Whether no move is left (won or stuck).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.legal_moves().is_empty()
    }

    /// The foundation (0-based, lowest first) that takes `card` next, if any.
    fn foundations_taking(&self, card: Card) -> impl Iterator<Item = u8> + '_ {
        (0..FOUNDATIONS as u8).filter(move |&f| self.foundation_next(f as usize) == Some(card))
    }

    /// Every legal move (see [`MoveList`] for the order).
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList {
            moves: [Move::StockToWaste(0); MAX_MOVES],
            len: 0,
        };
        if let Some(card) = self.turned {
            for f in self.foundations_taking(card) {
                list.push(Move::StockToFoundation(f));
            }
            for w in 0..self.wastes {
                list.push(Move::StockToWaste(w));
            }
        }
        for waste in 0..self.wastes {
            if let Some(top) = self.piles[waste as usize].top() {
                for foundation in self.foundations_taking(top) {
                    list.push(Move::WasteToFoundation { waste, foundation });
                }
            }
        }
        list
    }

    /// How many of each rank the player has not seen: the face-down stock as a multiset,
    /// indexed by rank (index 0 unused).
    #[must_use]
    pub fn unseen(&self) -> [u8; RANKS as usize + 1] {
        let mut counts = [COPIES; RANKS as usize + 1];
        counts[0] = 0;
        for card in self.visible_cards() {
            counts[card.rank() as usize] -= 1;
        }
        counts
    }

    /// Every card in sight: the foundations' contents, the waste piles and the turned card.
    fn visible_cards(&self) -> impl Iterator<Item = Card> + '_ {
        let on_foundations = (0..FOUNDATIONS)
            .flat_map(move |f| (1..=self.foundations[f]).map(move |k| foundation_card(f, k)));
        let in_wastes = self.piles[..self.wastes as usize]
            .iter()
            .flat_map(|p| p.as_slice().iter().copied());
        on_foundations.chain(in_wastes).chain(self.turned)
    }
}

impl fmt::Display for Observation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let card = |c: Option<Card>| c.map_or_else(|| "-".to_owned(), |c| c.to_string());
        let tops: Vec<String> = (0..FOUNDATIONS)
            .map(|i| card(self.foundation_top(i)))
            .collect();
        let piles: Vec<String> = (0..self.wastes())
            .map(|w| match self.pile(w) {
                [] => "-".to_owned(),
                cards => cards
                    .iter()
                    .map(Card::to_string)
                    .collect::<Vec<_>>()
                    .join("."),
            })
            .collect();
        write!(
            f,
            "f={} w={} t={} s={}",
            tops.join(","),
            piles.join(","),
            card(self.turned),
            self.stock
        )
    }
}

/// Why a table text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseObservationError {
    /// Not the shape `f=… w=… t=… s=…`.
    #[error(
        "bad table {0:?}: expected f=T,T,T,T w=P,P,P[,P] t=C s=N (T a foundation's top or -, P a \
         waste pile as cards joined by . or -, C the turned card or -, N the stock's size)"
    )]
    Shape(String),
    /// A card that is not a card.
    #[error(transparent)]
    Card(#[from] ParseCardError),
    /// More than four of one rank in sight.
    #[error("more than four {0}s in sight")]
    TooMany(Card),
    /// The cards in sight and the stock do not make 52.
    #[error("{visible} cards in sight and {stock} in the stock make {} cards, not 52", visible + stock)]
    Count {
        /// Cards in sight.
        visible: usize,
        /// The stock's size as given.
        stock: usize,
    },
    /// The stock holds cards but none is turned up: the rules always turn up the next one.
    #[error("the stock holds cards but none is turned up")]
    NothingTurned,
}

impl FromStr for Observation {
    type Err = ParseObservationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let shape = || ParseObservationError::Shape(echo(s));
        let fields: Vec<&str> = s.split_whitespace().collect();
        let [f, w, t, n] = fields[..] else {
            return Err(shape());
        };
        let (Some(f), Some(w), Some(t), Some(n)) = (
            f.strip_prefix("f="),
            w.strip_prefix("w="),
            t.strip_prefix("t="),
            n.strip_prefix("s="),
        ) else {
            return Err(shape());
        };
        let optional = |text: &str| -> Result<Option<Card>, ParseCardError> {
            if text == "-" {
                Ok(None)
            } else {
                text.parse().map(Some)
            }
        };
        let tops: Vec<&str> = f.split(',').collect();
        let piles: Vec<&str> = w.split(',').collect();
        if tops.len() != FOUNDATIONS || !(3..=MAX_WASTES).contains(&piles.len()) {
            return Err(shape());
        }
        let mut obs = Observation::empty(piles.len() as u8);
        for (i, top) in tops.iter().enumerate() {
            obs.foundations[i] = optional(top)?.map_or(0, |c| position_in_foundation(i, c));
        }
        let mut in_piles = 0usize;
        for (i, pile) in piles.iter().enumerate() {
            if *pile == "-" {
                continue;
            }
            for card in pile.split('.') {
                in_piles += 1;
                if in_piles > DECK {
                    return Err(shape());
                }
                obs.piles[i].push(card.parse()?);
            }
        }
        obs.turned = optional(t)?;
        let stock: usize = match n.parse::<u8>() {
            // The plain decimal form only: no sign, no leading zero.
            Ok(v) if v.to_string() == n && v as usize <= DECK => v as usize,
            _ => return Err(shape()),
        };
        obs.stock = stock as u8;
        let mut counts = [0u8; RANKS as usize + 1];
        let mut visible = 0;
        for card in obs.visible_cards() {
            visible += 1;
            counts[card.rank() as usize] += 1;
            if counts[card.rank() as usize] > COPIES {
                return Err(ParseObservationError::TooMany(card));
            }
        }
        if visible + stock != DECK {
            return Err(ParseObservationError::Count { visible, stock });
        }
        if stock > 0 && obs.turned.is_none() {
            return Err(ParseObservationError::NothingTurned);
        }
        Ok(obs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_round_trips_through_its_text() {
        let text = "f=A,4,3,8 w=5.9,-,K.K,- t=7 s=41";
        let obs: Observation = text.parse().unwrap();
        assert_eq!(obs.to_string(), text);
        assert_eq!(obs.foundation_len(1), 2);
        assert_eq!(obs.foundation_len(3), 2);
        assert_eq!(obs.pile(2), [Card::KING, Card::KING]);
        assert_eq!(obs.unseen()[13], 2);
        assert_eq!(
            obs.unseen()[4],
            2,
            "one 4 on foundation 2, one on foundation 4"
        );
        let superman = "f=-,-,-,- w=-,-,- t=A s=51";
        assert_eq!(
            superman.parse::<Observation>().unwrap().to_string(),
            superman
        );
    }

    #[test]
    fn bad_tables_say_what_is_wrong() {
        let err = |s: &str| s.parse::<Observation>().unwrap_err();
        assert!(matches!(err(""), ParseObservationError::Shape(_)));
        assert!(matches!(
            err("f=A,2,3 w=-,-,-,- t=7 s=48"),
            ParseObservationError::Shape(_)
        ));
        assert!(matches!(
            err("f=A,2,3,4 w=-,- t=7 s=47"),
            ParseObservationError::Shape(_)
        ));
        assert!(matches!(
            err("f=A,2,3,4 w=-,-,-,- t=7 s=-1"),
            ParseObservationError::Shape(_)
        ));
        assert!(matches!(
            err("f=A,2,3,4 w=Z,-,-,- t=7 s=46"),
            ParseObservationError::Card(_)
        ));
        assert_eq!(
            err("f=A,2,3,4 w=K.K.K.K.K,-,-,- t=7 s=42"),
            ParseObservationError::TooMany(Card::KING)
        );
        assert_eq!(
            err("f=A,2,3,4 w=-,-,-,- t=7 s=40"),
            ParseObservationError::Count {
                visible: 5,
                stock: 40
            }
        );
        assert_eq!(
            err("f=A,2,3,4 w=5,-,-,- t=- s=47"),
            ParseObservationError::NothingTurned
        );
        let huge = format!("f=A,2,3,4 w={},-,-,- t=7 s=0", vec!["K"; 100_000].join("."));
        assert!(err(&huge).to_string().len() < 400);
    }

    #[test]
    fn legal_moves_follow_the_rules() {
        // 2 fits foundation 1 (after A); the waste top 6 fits foundation 3 (after 3).
        let obs: Observation = "f=A,2,3,4 w=6,-,-,- t=2 s=46".parse().unwrap();
        let moves: Vec<String> = obs.legal_moves().iter().map(Move::to_string).collect();
        assert_eq!(moves, ["s>f1", "s>w1", "s>w2", "s>w3", "s>w4", "w1>f3"]);
        // A finished game has no moves.
        let won: Observation = "f=K,K,K,K w=-,-,-,- t=- s=0".parse().unwrap();
        assert!(won.is_won() && won.is_over());
    }
}
