//! Solitaire results: one row per (variant, player, deal), so that a deal counts once however
//! often it is played or reported, and one running total per (variant, player).
//!
//! Stored format of the `solitaire` tree (stable; a database from before it has no such tree,
//! which reads as empty):
//! - a deal: key `d` ‖ variant ‖ player ‖ deal number (8 bytes, big-endian) → 2 bytes: 1 if
//!   won else 0, then the cards on the foundations at the end (0 to 52);
//! - a total: key `t` ‖ variant ‖ player → 32 bytes: deals, wins, Σ cards, Σ cards², each 8
//!   bytes big-endian.
//!
//! Variant is one byte (0 standard, 1 computer, 2 superman); player is its canonical text form
//! (as `Player`'s `Display` writes it) after 2 bytes of length, big-endian.

use pentagrid_calculation::Variant;
pub use pentagrid_model::DealResult;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::{Store, StoreError, abort, corrupt};

/// Most (variant, player) totals a status lists (the first in key order): at about 50 bytes
/// each, far below the wire's message cap, however many players an admin tries.
pub const MAX_LISTED_TOTALS: usize = 1_000;

/// The running sums of the deals a (variant, player) has played, each counted once: what a
/// total row stores (the statistics a client shows are drawn from them, as its
/// `SolitaireTotals`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SolitaireSums {
    /// Deals played.
    pub deals: u64,
    /// Deals won.
    pub wins: u64,
    /// Cards on the foundations at the end, summed over the deals.
    pub cards: u64,
    /// Their squares, summed (for the interval of the mean).
    pub cards_squared: u64,
}

impl SolitaireSums {
    fn encode(self) -> [u8; 32] {
        let mut bytes = [0; 32];
        for (slot, n) in
            bytes
                .chunks_exact_mut(8)
                .zip([self.deals, self.wins, self.cards, self.cards_squared])
        {
            slot.copy_from_slice(&n.to_be_bytes());
        }
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<SolitaireSums> {
        if bytes.len() != 32 {
            return None;
        }
        let n = |i: usize| {
            let mut word = [0; 8];
            word.copy_from_slice(&bytes[8 * i..8 * i + 8]);
            u64::from_be_bytes(word)
        };
        Some(SolitaireSums {
            deals: n(0),
            wins: n(1),
            cards: n(2),
            cards_squared: n(3),
        })
    }

    /// Adds one deal; `None` when a sum would pass 2^64 − 1.
    fn add(self, deal: DealResult) -> Option<SolitaireSums> {
        let cards = u64::from(deal.foundation_cards);
        Some(SolitaireSums {
            deals: self.deals.checked_add(1)?,
            wins: self.wins.checked_add(u64::from(deal.won))?,
            cards: self.cards.checked_add(cards)?,
            cards_squared: self.cards_squared.checked_add(cards * cards)?,
        })
    }
}

/// What a solitaire result adds: its deals' outcomes for one (variant, player).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolitaireEffect {
    /// The variant.
    pub variant: Variant,
    /// The player's canonical text form.
    pub player: String,
    /// Each deal with how it ended.
    pub deals: Vec<(u64, DealResult)>,
}

const DEAL: u8 = b'd';
const TOTAL: u8 = b't';

fn variant_byte(variant: Variant) -> u8 {
    match variant {
        Variant::Standard => 0,
        Variant::Computer => 1,
        Variant::Superman => 2,
    }
}

fn variant_of_byte(byte: u8) -> Option<Variant> {
    Variant::ALL.into_iter().find(|&v| variant_byte(v) == byte)
}

/// `kind` ‖ variant ‖ player length ‖ player: the start of every key of a (variant, player).
/// Player texts are short (parsed from at most a few dozen characters), far below 2^16.
fn prefix(kind: u8, variant: Variant, player: &str) -> Vec<u8> {
    let len = u16::try_from(player.len()).unwrap_or(u16::MAX);
    let mut key = Vec::with_capacity(4 + player.len() + 8);
    key.push(kind);
    key.push(variant_byte(variant));
    key.extend_from_slice(&len.to_be_bytes());
    key.extend_from_slice(player.as_bytes());
    key
}

/// Records the deals of `effect` not recorded before and adds them to their total, inside the
/// result's transaction. Returns how many were new.
pub(super) fn add_deals(
    tree: &TransactionalTree,
    effect: &SolitaireEffect,
) -> Result<u64, ConflictableTransactionError<StoreError>> {
    let total_key = prefix(TOTAL, effect.variant, &effect.player);
    let mut totals = match tree.get(&total_key)? {
        Some(bytes) => SolitaireSums::decode(&bytes).ok_or_else(|| {
            ConflictableTransactionError::Abort(corrupt("solitaire totals", "not 32 bytes"))
        })?,
        None => SolitaireSums::default(),
    };
    let deal_prefix = prefix(DEAL, effect.variant, &effect.player);
    let mut new = 0;
    for &(deal, result) in &effect.deals {
        let mut key = deal_prefix.clone();
        key.extend_from_slice(&deal.to_be_bytes());
        if tree.get(&key)?.is_some() {
            continue;
        }
        let cards = u8::try_from(result.foundation_cards).map_err(abort("solitaire deal"))?;
        tree.insert(key, &[u8::from(result.won), cards])?;
        totals = totals
            .add(result)
            .ok_or(ConflictableTransactionError::Abort(StoreError::Overflow {
                what: "solitaire totals",
            }))?;
        new += 1;
    }
    if new > 0 {
        tree.insert(total_key, &totals.encode())?;
    }
    Ok(new)
}

impl Store {
    /// The first `limit` (variant, player) pairs with solitaire results, with their totals, in
    /// key order (variant, then player text by length and bytes).
    pub fn solitaire_totals(
        &self,
        limit: usize,
    ) -> Result<Vec<(Variant, String, SolitaireSums)>, StoreError> {
        let mut out = Vec::new();
        for entry in self.solitaire.scan_prefix([TOTAL]).take(limit) {
            let (key, value) = entry?;
            let bad = || corrupt("solitaire totals", "bad key or value");
            let variant = key
                .get(1)
                .copied()
                .and_then(variant_of_byte)
                .ok_or_else(bad)?;
            let player = key
                .get(4..)
                .and_then(|p| std::str::from_utf8(p).ok())
                .ok_or_else(bad)?;
            let totals = SolitaireSums::decode(&value).ok_or_else(bad)?;
            out.push((variant, player.to_owned(), totals));
        }
        Ok(out)
    }

    /// How deal `deal` of `variant` ended for `player` (its canonical text), if it was played.
    pub fn solitaire_deal(
        &self,
        variant: Variant,
        player: &str,
        deal: u64,
    ) -> Result<Option<DealResult>, StoreError> {
        let mut key = prefix(DEAL, variant, player);
        key.extend_from_slice(&deal.to_be_bytes());
        match self.solitaire.get(key)? {
            None => Ok(None),
            Some(bytes) => match bytes.as_ref() {
                &[won @ (0 | 1), cards] => Ok(Some(DealResult {
                    won: won == 1,
                    foundation_cards: u32::from(cards),
                })),
                _ => Err(corrupt("solitaire deal", "not 2 bytes")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_encode_stably_and_refuse_overflow() {
        let totals = SolitaireSums {
            deals: 2,
            wins: 1,
            cards: 52 + 30,
            cards_squared: 52 * 52 + 30 * 30,
        };
        let bytes = totals.encode();
        assert_eq!(
            &bytes[..8],
            &[0, 0, 0, 0, 0, 0, 0, 2],
            "big-endian deals first"
        );
        assert_eq!(SolitaireSums::decode(&bytes), Some(totals));
        assert_eq!(SolitaireSums::decode(&bytes[1..]), None);
        let full = SolitaireSums {
            deals: u64::MAX,
            ..SolitaireSums::default()
        };
        let deal = DealResult {
            won: false,
            foundation_cards: 9,
        };
        assert_eq!(full.add(deal), None);
    }

    #[test]
    fn keys_start_with_their_kind_variant_and_player() {
        let key = prefix(TOTAL, Variant::Superman, "strategy");
        assert_eq!(&key[..4], &[b't', 2, 0, 8]);
        assert_eq!(&key[4..], b"strategy");
        for variant in Variant::ALL {
            assert_eq!(variant_of_byte(variant_byte(variant)), Some(variant));
        }
        assert_eq!(variant_of_byte(3), None);
    }

    #[test]
    fn a_deal_counts_once_and_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let effect = |deals: &[(u64, bool, u32)]| SolitaireEffect {
            variant: Variant::Computer,
            player: "strategy".into(),
            deals: deals
                .iter()
                .map(|&(d, won, cards)| {
                    (
                        d,
                        DealResult {
                            won,
                            foundation_cards: cards,
                        },
                    )
                })
                .collect(),
        };
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(
                store.solitaire_totals(10).unwrap().is_empty(),
                "absent tree: empty"
            );
            let add = |e: &SolitaireEffect| {
                store
                    .solitaire
                    .transaction(|tree| add_deals(tree, e))
                    .map_err(StoreError::from)
                    .unwrap()
            };
            assert_eq!(add(&effect(&[(5, true, 52), (6, false, 20)])), 2);
            // Deal 6 again (a duplicate, even with another outcome) and a new deal 7.
            assert_eq!(add(&effect(&[(6, true, 52), (7, false, 10)])), 1);
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        let totals = store.solitaire_totals(10).unwrap();
        assert_eq!(
            totals,
            [(
                Variant::Computer,
                "strategy".to_owned(),
                SolitaireSums {
                    deals: 3,
                    wins: 1,
                    cards: 82,
                    cards_squared: 52 * 52 + 400 + 100,
                }
            )]
        );
        let six = store
            .solitaire_deal(Variant::Computer, "strategy", 6)
            .unwrap();
        assert_eq!(
            six,
            Some(DealResult {
                won: false,
                foundation_cards: 20
            })
        );
        assert_eq!(
            store
                .solitaire_deal(Variant::Standard, "strategy", 6)
                .unwrap(),
            None
        );
    }
}
