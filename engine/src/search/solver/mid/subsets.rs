//! Combinatorial indexing of subsets of the root's empty squares.
//!
//! A subset of `n ≤ 18` numbered squares is an `n`-bit mask. Among the masks with the same
//! number of bits, numeric order is the colexicographic order, whose rank is
//! `Σ C(position_i, i + 1)` over the set bits (the combinatorial number system). The midsolver
//! stores one entry per subset in rank order, so walking masks in numeric order walks memory
//! in order.

use std::sync::OnceLock;

/// The most squares a subset may be drawn from (the midsolver's largest number of empties).
pub(crate) const MAX_BITS: usize = 18;

/// `BINOMIAL[n][k]` = C(n, k) for n, k ≤ 18.
pub(crate) const BINOMIAL: [[u32; MAX_BITS + 1]; MAX_BITS + 1] = {
    let mut table = [[0u32; MAX_BITS + 1]; MAX_BITS + 1];
    let mut n = 0;
    while n <= MAX_BITS {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
};

/// C(n, k), zero when `k > n`.
pub(crate) fn choose(n: usize, k: usize) -> usize {
    if k > n { 0 } else { BINOMIAL[n][k] as usize }
}

/// The rank of every mask of up to 18 bits among the masks with as many bits (1 MiB, built
/// once per process).
pub(crate) fn ranks() -> &'static [u32] {
    static RANKS: OnceLock<Vec<u32>> = OnceLock::new();
    RANKS.get_or_init(|| {
        let mut table = vec![0u32; 1 << MAX_BITS];
        for mask in 1usize..(1 << MAX_BITS) {
            // Dropping the highest bit b (the last of c set bits) removes C(b, c) from the sum.
            let high = usize::BITS - 1 - mask.leading_zeros();
            let count = mask.count_ones() as usize;
            table[mask] = table[mask & !(1 << high)] + BINOMIAL[high as usize][count];
        }
        table
    })
}

/// The next larger mask with as many bits (Gosper's hack); `mask` must be non-zero.
pub(crate) fn next_same_count(mask: u32) -> u32 {
    let low = mask & mask.wrapping_neg();
    let ripple = mask + low;
    ripple | (((mask ^ ripple) >> 2) / low)
}

/// All masks of `bits` set bits among `n` squares, in rank order.
pub(crate) fn masks(bits: usize, n: usize) -> impl Iterator<Item = u32> {
    let count = choose(n, bits);
    let mut mask = (1u32 << bits) - 1;
    (0..count).map(move |i| {
        if i > 0 {
            mask = next_same_count(mask);
        }
        mask
    })
}

/// Spreads the bits of a relative mask over the set bits of another mask (a software `pdep`
/// for up to 18 bits, through two 9-bit lookup tables rebuilt for each target mask).
pub(crate) struct Deposit {
    low: [u32; 512],
    high: [u32; 512],
    /// The absolute bit of each relative square.
    bits: [u32; MAX_BITS],
}

impl Default for Deposit {
    fn default() -> Self {
        Deposit {
            low: [0; 512],
            high: [0; 512],
            bits: [0; MAX_BITS],
        }
    }
}

impl Deposit {
    /// Retargets onto the set bits of `within` (at most 18); afterwards only relative masks
    /// below `1 << within.count_ones()` may be applied (just those entries are rebuilt).
    pub(crate) fn onto(&mut self, within: u32) {
        let mut positions = [0u32; MAX_BITS];
        let mut count = 0;
        let mut rest = within;
        while rest != 0 {
            positions[count] = rest.trailing_zeros();
            self.bits[count] = rest & rest.wrapping_neg();
            rest &= rest - 1;
            count += 1;
        }
        // Doubling: the entries with bit `i` set are those below `1 << i` plus that square
        // (a loop the compiler vectorizes; this runs once per block).
        for (i, &position) in positions[..count.min(9)].iter().enumerate() {
            let (done, next) = self.low.split_at_mut(1 << i);
            for (to, &from) in next[..1 << i].iter_mut().zip(done.iter()) {
                *to = from | 1 << position;
            }
        }
        for (i, &position) in positions[9..count.max(9)].iter().enumerate() {
            let (done, next) = self.high.split_at_mut(1 << i);
            for (to, &from) in next[..1 << i].iter_mut().zip(done.iter()) {
                *to = from | 1 << position;
            }
        }
    }

    /// The absolute bit of relative square `j`.
    #[inline(always)]
    pub(crate) fn bit(&self, j: usize) -> u32 {
        self.bits[j]
    }

    /// The absolute mask of a relative mask.
    #[inline(always)]
    pub(crate) fn apply(&self, relative: u32) -> u32 {
        self.low[(relative & 511) as usize] | self.high[(relative >> 9) as usize & 511]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_count_up_in_numeric_order() {
        let ranks = ranks();
        for bits in 0..=6 {
            for (i, mask) in masks(bits, 12).enumerate() {
                assert_eq!(ranks[mask as usize] as usize, i);
                assert_eq!(mask.count_ones() as usize, bits);
            }
        }
        assert_eq!(masks(9, 18).count(), 48_620);
        assert_eq!(masks(9, 18).last(), Some(0b111_111_111 << 9));
    }

    #[test]
    fn deposit_places_bits_in_order() {
        let within = 0b10_1101_1011_0100_1101_u32;
        let mut deposit = Deposit::default();
        deposit.onto(within);
        let ones = within.count_ones();
        for relative in 0..(1u32 << ones) {
            let mut expected = 0;
            let mut k = 0;
            for bit in 0..18 {
                if within & (1 << bit) != 0 {
                    if relative & (1 << k) != 0 {
                        expected |= 1 << bit;
                    }
                    k += 1;
                }
            }
            assert_eq!(deposit.apply(relative), expected);
        }
        for j in 0..ones as usize {
            assert_eq!(deposit.bit(j), deposit.apply(1 << j));
        }
        // Retargeting onto fewer squares keeps the entries below its range right.
        deposit.onto(0b1010_0110);
        assert_eq!(deposit.apply(0b1111), 0b1010_0110);
        assert_eq!(deposit.apply(0b0101), 0b0010_0010);
    }
}
