//! Cards (ranks only: suits play no part in Calculation), the table's counts of foundations and
//! waste piles, and the foundations' arithmetic.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Ranks in a deck: A(1) to K(13).
pub const RANKS: u8 = 13;
/// Copies of each rank in the deck.
pub const COPIES: u8 = 4;
/// Cards in the deck.
pub const DECK: usize = 52;
/// Foundations, numbered 1 to 4 in notation.
pub const FOUNDATIONS: usize = 4;
/// The most waste piles a variant has (numbered from 1 in notation, like the foundations).
pub const MAX_WASTES: usize = 4;

/// A card's rank, 1 (A) to 13 (K). Every value of the type is a valid rank.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The king, the last card of every foundation.
    pub const KING: Card = Card(13);

    /// The card of rank `rank`, or `None` outside 1..=13.
    #[must_use]
    pub const fn new(rank: u8) -> Option<Card> {
        if rank >= 1 && rank <= RANKS {
            Some(Card(rank))
        } else {
            None
        }
    }

    /// The rank, 1 (A) to 13 (K).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0
    }

    /// Every rank in order, A to K.
    pub fn all() -> impl Iterator<Item = Card> {
        (1..=RANKS).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("A"),
            11 => f.write_str("J"),
            12 => f.write_str("Q"),
            13 => f.write_str("K"),
            n => write!(f, "{n}"),
        }
    }
}

/// A card text other than `A`, `2` … `10`, `J`, `Q`, `K`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad card {0:?}: expected A, 2 … 10, J, Q or K")]
pub struct ParseCardError(pub String);

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rank = match s {
            "A" => 1,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            // Only the plain digits 2..=10: no sign, no leading zero.
            _ if (1..=2).contains(&s.len())
                && s.bytes().all(|b| b.is_ascii_digit())
                && !s.starts_with('0') =>
            {
                s.parse::<u8>()
                    .ok()
                    .filter(|n| (2..=10).contains(n))
                    .unwrap_or(0)
            }
            _ => 0,
        };
        match rank {
            1..=13 => Ok(Card(rank)),
            _ => Err(ParseCardError(echo(s))),
        }
    }
}

/// The `k`-th card (1 to 13) of foundation `f` (0-based): `(f + 1) * k` counted round the ranks.
#[must_use]
pub(crate) const fn foundation_card(f: usize, k: u8) -> Card {
    let r = ((f as u32 + 1) * k as u32 % RANKS as u32) as u8;
    Card(if r == 0 { RANKS } else { r })
}

/// The position (1 to 13) of `card` in foundation `f`'s sequence: every rank appears exactly once.
#[must_use]
pub(crate) fn position_in_foundation(f: usize, card: Card) -> u8 {
    POSITIONS[f][card.0 as usize]
}

/// `POSITIONS[f][rank]`: where `rank` comes in foundation `f`'s sequence.
static POSITIONS: [[u8; 14]; FOUNDATIONS] = positions();

const fn positions() -> [[u8; 14]; FOUNDATIONS] {
    let mut table = [[0u8; 14]; FOUNDATIONS];
    let mut f = 0;
    while f < FOUNDATIONS {
        let mut k = 1;
        while k <= RANKS {
            table[f][foundation_card(f, k).0 as usize] = k;
            k += 1;
        }
        f += 1;
    }
    table
}

/// At most the first 40 characters of untrusted text, for error messages.
pub(crate) fn echo(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let mut cut: String = s.chars().take(MAX).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequence(f: usize) -> String {
        (1..=13)
            .map(|k| foundation_card(f, k).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn foundations_build_as_the_rules_say() {
        assert_eq!(sequence(0), "A 2 3 4 5 6 7 8 9 10 J Q K");
        assert_eq!(sequence(1), "2 4 6 8 10 Q A 3 5 7 9 J K");
        assert_eq!(sequence(2), "3 6 9 Q 2 5 8 J A 4 7 10 K");
        assert_eq!(sequence(3), "4 8 Q 3 7 J 2 6 10 A 5 9 K");
    }

    #[test]
    fn positions_invert_the_sequences() {
        for f in 0..FOUNDATIONS {
            for k in 1..=13 {
                assert_eq!(position_in_foundation(f, foundation_card(f, k)), k);
            }
        }
    }

    #[test]
    fn cards_round_trip_and_bad_ones_are_refused() {
        for card in Card::all() {
            assert_eq!(card.to_string().parse::<Card>(), Ok(card));
        }
        for bad in ["", "0", "1", "11", "14", "010", "+2", "a", "T", "KK", " A"] {
            assert!(bad.parse::<Card>().is_err(), "{bad:?}");
        }
        let long = "x".repeat(1000);
        let message = long.parse::<Card>().unwrap_err().to_string();
        assert!(message.len() < 120, "{message}");
    }
}
