//! Move tables as stored: one value per canonical position.
//!
//! Stable format: one version byte (1), then rows sorted by move, each 26 bytes: the move's
//! packed index (`square * 8 + twist`, u16) in the canonical position's frame, then games, wins
//! and draws (u64 each), all big-endian. Rows of moves that reach the same position (or, from a
//! symmetric position, symmetric positions) are merged under the group's first move.
//! Keys are the canonical position key as 8 big-endian bytes, so key order is key order.

use std::collections::BTreeMap;

use pentago::{Move, PositionKey};

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

impl Counts {
    /// Adds another set of counts.
    pub fn add(&mut self, other: Counts) {
        self.games += other.games;
        self.wins += other.wins;
        self.draws += other.draws;
    }
}

/// A move table: counts per representative move, in the canonical frame.
pub type Table = BTreeMap<Move, Counts>;

/// The database key of a position.
#[must_use]
pub fn key_bytes(key: PositionKey) -> [u8; 8] {
    key.bits().to_be_bytes()
}

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

/// Adds `delta` into `table`.
pub fn merge(table: &mut Table, delta: &Table) {
    for (mv, counts) in delta {
        table.entry(*mv).or_default().add(*counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        merge(&mut merged, &table);
        assert_eq!(merged[&Move::from_index(5).unwrap()].games, 20);
        assert_eq!(decode(&[2]), None);
        assert_eq!(decode(&[1, 0]), None);
    }
}
