//! Move tables as stored: one value per canonical position.
//!
//! Stable format: one version byte (1), then rows sorted by move, each 26 bytes: the move's
//! packed index (`square * 8 + twist`, u16) in the canonical position's frame, then games, wins
//! and draws (u64 each), all big-endian. Rows of moves that reach the same position (or, from a
//! symmetric position, symmetric positions) are merged under the group's first move.
//! Keys are the canonical position key as 8 big-endian bytes, so key order is key order.

use std::collections::BTreeMap;

use pentago::Move;
use thiserror::Error;

const VERSION: u8 = 1;
const ROW_BYTES: usize = 26;

/// Counts of one move.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Games (or playouts) through the move.
    pub games: u64,
    /// Won by the player making the move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
}

/// A count would pass 2^64 − 1: the addition is refused rather than wrapped.
#[derive(Copy, Clone, Debug, Error, PartialEq, Eq)]
#[error("a count would pass 2^64 - 1")]
pub struct Overflow;

impl Counts {
    /// The sum of two sets of counts, or [`Overflow`] when any count would pass `u64::MAX`.
    pub fn checked_add(self, other: Counts) -> Result<Counts, Overflow> {
        Ok(Counts {
            games: self.games.checked_add(other.games).ok_or(Overflow)?,
            wins: self.wins.checked_add(other.wins).ok_or(Overflow)?,
            draws: self.draws.checked_add(other.draws).ok_or(Overflow)?,
        })
    }

    /// Adds another set of counts; on [`Overflow`] `self` is left as it was.
    pub fn add(&mut self, other: Counts) -> Result<(), Overflow> {
        *self = self.checked_add(other)?;
        Ok(())
    }
}

/// A move table: counts per representative move, in the canonical frame.
pub type Table = BTreeMap<Move, Counts>;

/// A table from its stored bytes; `None` if they are not a valid table.
#[must_use]
pub fn decode(bytes: &[u8]) -> Option<Table> {
    let (&version, rows) = bytes.split_first()?;
    if version != VERSION || rows.len() % ROW_BYTES != 0 {
        return None;
    }
    rows.chunks_exact(ROW_BYTES)
        .map(|row| {
            let mv = Move::from_index(u16::from_be_bytes([row[0], row[1]]))?;
            let number = |i: usize| u64::from_be_bytes(row[i..i + 8].try_into().expect("8 bytes"));
            Some((
                mv,
                Counts {
                    games: number(2),
                    wins: number(10),
                    draws: number(18),
                },
            ))
        })
        .collect()
}

/// The stored bytes of a table.
#[must_use]
pub fn encode(table: &Table) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + table.len() * ROW_BYTES);
    out.push(VERSION);
    for (mv, counts) in table {
        out.extend_from_slice(&mv.index().to_be_bytes());
        out.extend_from_slice(&counts.games.to_be_bytes());
        out.extend_from_slice(&counts.wins.to_be_bytes());
        out.extend_from_slice(&counts.draws.to_be_bytes());
    }
    out
}

/// Adds `delta` into `table`, exactly or not at all: on [`Overflow`] `table` is left as it was.
pub fn merge(table: &mut Table, delta: &Table) -> Result<(), Overflow> {
    let sums = delta
        .iter()
        .map(|(mv, counts)| {
            let current = table.get(mv).copied().unwrap_or_default();
            Ok((*mv, current.checked_add(*counts)?))
        })
        .collect::<Result<Vec<_>, Overflow>>()?;
    table.extend(sums);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tables_round_trip_and_merge() {
        let mut table = Table::new();
        table.insert(
            Move::from_index(5).unwrap(),
            Counts {
                games: 10,
                wins: 4,
                draws: 1,
            },
        );
        let bytes = encode(&table);
        assert_eq!(bytes.len(), 1 + ROW_BYTES);
        assert_eq!(decode(&bytes), Some(table.clone()));
        let mut merged = table.clone();
        merge(&mut merged, &table).unwrap();
        assert_eq!(merged[&Move::from_index(5).unwrap()].games, 20);
        assert_eq!(decode(&[2]), None);
        assert_eq!(decode(&[1, 0]), None);
    }

    fn counts() -> impl Strategy<Value = Counts> {
        // Near the top of the range as often as near zero, so that sums do overflow.
        let count = prop_oneof![0..1_000u64, (u64::MAX - 1_000)..=u64::MAX, any::<u64>()];
        (count.clone(), count.clone(), count).prop_map(|(games, wins, draws)| Counts {
            games,
            wins,
            draws,
        })
    }

    fn tables() -> impl Strategy<Value = Table> {
        proptest::collection::btree_map(
            (0u16..8).prop_map(|i| Move::from_index(i).unwrap()),
            counts(),
            0..6,
        )
    }

    proptest! {
        /// A merge is exact (every count the true sum) or refused with the table unchanged;
        /// it never wraps.
        #[test]
        fn merges_are_exact_or_refused(table in tables(), delta in tables()) {
            let mut merged = table.clone();
            let exact = |mv: &Move, pick: fn(&Counts) -> u64| -> u128 {
                u128::from(table.get(mv).map_or(0, pick)) + u128::from(delta.get(mv).map_or(0, pick))
            };
            let fits = delta.keys().all(|mv| {
                [|c: &Counts| c.games, |c: &Counts| c.wins, |c: &Counts| c.draws]
                    .iter()
                    .all(|pick| exact(mv, *pick) <= u128::from(u64::MAX))
            });
            match merge(&mut merged, &delta) {
                Ok(()) => {
                    prop_assert!(fits);
                    for mv in table.keys().chain(delta.keys()) {
                        prop_assert_eq!(u128::from(merged[mv].games), exact(mv, |c| c.games));
                        prop_assert_eq!(u128::from(merged[mv].wins), exact(mv, |c| c.wins));
                        prop_assert_eq!(u128::from(merged[mv].draws), exact(mv, |c| c.draws));
                    }
                    prop_assert_eq!(merged.len(), table.keys().chain(delta.keys()).collect::<std::collections::BTreeSet<_>>().len());
                }
                Err(Overflow) => {
                    prop_assert!(!fits);
                    prop_assert_eq!(&merged, &table);
                }
            }
        }
    }
}
