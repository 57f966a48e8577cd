//! The solver's transposition table: bounds on exact values, keyed by canonical position.

use crate::board::moves::Move;

/// What is known of one position: `lower <= value <= upper` (values -1, 0, 1 for the side to
/// move), the move that gave the bound, and how much work it took (log2 of nodes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    key: u64,
    pub lower: i8,
    pub upper: i8,
    /// Best move index + 1 in the canonical frame (0: none).
    best: u16,
    work: u8,
}

impl Entry {
    /// The best move found, in the frame of the canonical position.
    pub fn best(&self) -> Option<Move> {
        self.best.checked_sub(1).and_then(Move::from_index)
    }
}

/// A fixed-size table of buckets of two entries: one kept by work (deep results survive),
/// one always replaced (recent results are found again soon).
pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    /// A table of `2^bits` entries (16 bytes each).
    pub fn new(bits: u32) -> Table {
        let size = 1usize << bits.clamp(4, 34);
        Table {
            entries: vec![Entry::default(); size],
            mask: (size - 1) & !1,
        }
    }

    fn bucket(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & self.mask
    }

    /// The entry of `key`, if stored. Key 0 (the empty board) marks empty slots, so it is
    /// never stored.
    pub fn get(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.entries[b..b + 2]
            .iter()
            .find(|e| e.key == key && key != 0)
            .copied()
    }

    /// Stores bounds for `key`, merged with what is already known of it.
    pub fn put(&mut self, key: u64, lower: i8, upper: i8, best: Option<Move>, nodes: u64) {
        if key == 0 {
            return;
        }
        let work = (64 - nodes.leading_zeros()) as u8;
        let best = best.map_or(0, |m| m.index() + 1);
        let b = self.bucket(key);
        let slot = if self.entries[b].key == key {
            b
        } else if self.entries[b + 1].key == key {
            b + 1
        } else if work >= self.entries[b].work {
            // The deep slot's old occupant moves to the recent slot.
            self.entries[b + 1] = self.entries[b];
            self.entries[b] = Entry::default();
            b
        } else {
            b + 1
        };
        let e = &mut self.entries[slot];
        if e.key == key {
            e.lower = e.lower.max(lower);
            e.upper = e.upper.min(upper);
            e.work = e.work.max(work);
            if best != 0 {
                e.best = best;
            }
        } else {
            *e = Entry {
                key,
                lower,
                upper,
                best,
                work,
            };
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_merge_and_survive() {
        let mut t = Table::new(8);
        t.put(12345, -1, 1, None, 10);
        t.put(12345, 0, 1, Move::from_index(7), 100);
        let e = t.get(12345).unwrap();
        assert_eq!((e.lower, e.upper), (0, 1));
        assert_eq!(e.best(), Move::from_index(7));
        assert_eq!(t.get(999), None);
        t.put(0, 1, 1, None, 1);
        assert_eq!(t.get(0), None);
    }
}
