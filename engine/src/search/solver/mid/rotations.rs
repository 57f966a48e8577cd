//! Bit vectors over quadrant rotation states, and five detection for all of them at once.
//!
//! A rotation state gives each quadrant `q` a number `r_q` of clockwise quarter turns (0–3)
//! applied to the fixed-frame stones; there are 4^4 = 256. Every move turns one quadrant by one
//! step, so the parity of `r_0 + r_1 + r_2 + r_3` is fixed by the number of moves made: a layer
//! needs only the 128 states of one parity. Such a *half* is a `u128` with the state
//! `(r_0, r_1, r_2, r_3)` at bit `(r_0 >> 1) | r_1 << 1 | r_2 << 3 | r_3 << 5`; the parity
//! supplies the low bit of `r_0`.

use crate::board::tables::{LANE, LINE_COVERED, TWIST};

/// A set of rotation states of one parity.
pub(crate) type Half = u128;

/// The bit of rotation state `r` (quarter turns per quadrant) in its parity's half.
pub(crate) const fn half_bit(r: [u8; 4]) -> u32 {
    (r[0] >> 1) as u32 | (r[1] as u32) << 1 | (r[2] as u32) << 3 | (r[3] as u32) << 5
}

/// The parity of a rotation state.
pub(crate) const fn parity(r: [u8; 4]) -> usize {
    ((r[0] + r[1] + r[2] + r[3]) & 1) as usize
}

/// Bytes repeated over a `u128`.
const fn repeat8(byte: u8) -> u128 {
    u128::from_le_bytes([byte; 16])
}

/// 32-bit words repeated over a `u128`.
const fn repeat32(word: u32) -> u128 {
    let w = word as u128;
    w | w << 32 | w << 64 | w << 96
}

/// The states one twist away, in the other parity: the parent's half of the states from which
/// some twist reaches a state of `child` (a child half). Twisting quadrant 0 flips the low bit
/// of `r_0`, and both directions together reach both values of `r_0 >> 1`; the other quadrants
/// move their 2-bit field by one step either way. Quadrants 0–2 move bits within a byte or a
/// 32-bit word, so each 64-bit half is done on its own (plain 64-bit shifts, no carries across
/// the halves); quadrant 3 moves whole 32-bit words.
#[inline(always)]
pub(crate) fn spread(child: Half) -> Half {
    let (low, high) = (child as u64, (child >> 64) as u64);
    // Words (w0, w1, w2, w3) for r_3 = 0..3: word i gets w(i - 1) | w(i + 1).
    let q3 = (low | high).rotate_left(32);
    let low = spread_within(low) | q3;
    let high = spread_within(high) | q3;
    low as u128 | (high as u128) << 64
}

/// 64-bit words repeated over a `u64` from a byte.
const fn bytes64(byte: u8) -> u64 {
    u64::from_le_bytes([byte; 8])
}

/// 32-bit words repeated over a `u64`.
const fn words64(word: u32) -> u64 {
    word as u64 | (word as u64) << 32
}

/// The twists of quadrants 0–2 on one 64-bit half (see [`spread`]).
#[inline(always)]
fn spread_within(x: u64) -> u64 {
    // Quadrant 0: both bits of each pair (r_0 >> 1) get their union.
    let pairs = (x | x >> 1) & bytes64(0x55);
    let q0 = pairs | pairs << 1;
    // Quadrant 1: r_1 is bits 1–2 of each byte; turn the byte by 2 bits either way.
    let q1 = ((x << 2) & bytes64(0xFC))
        | ((x >> 6) & bytes64(0x03))
        | ((x >> 2) & bytes64(0x3F))
        | ((x << 6) & bytes64(0xC0));
    // Quadrant 2: r_2 is bits 3–4 of each 32-bit word; turn the word by 8 bits either way.
    let q2 = ((x << 8) & words64(0xFFFF_FF00))
        | ((x >> 24) & words64(0x0000_00FF))
        | ((x >> 8) & words64(0x00FF_FFFF))
        | ((x << 24) & words64(0xFF00_0000));
    q0 | q1 | q2
}

/// `KRON[i][m]`: the 64 states `(r_1, r_2, r_3)` (bit `r_1 + 4 r_2 + 16 r_3`) whose quadrant
/// `i + 1` rotation is in the 4-bit set `m`.
const KRON: [[u64; 16]; 3] = {
    let mut table = [[0u64; 16]; 3];
    let mut m = 0;
    while m < 16 {
        let mut r = 0;
        while r < 64 {
            let parts = [r & 3, (r >> 2) & 3, (r >> 4) & 3];
            let mut i = 0;
            while i < 3 {
                if m & (1 << parts[i]) != 0 {
                    table[i][m] |= 1 << r;
                }
                i += 1;
            }
            r += 1;
        }
        m += 1;
    }
    table
};

/// The low bit of every nibble of a `u128`.
const NIBBLE_LOW: u128 = u128::from_le_bytes([0x11; 16]);

/// Moves bit `i` of a 32-bit set to bit `4 i` (one nibble per five-line).
const fn spread4(set: u32) -> u128 {
    let mut x = set as u128;
    x = (x | x << 48) & (0xFFFF | 0xFFFF << 64);
    x = (x | x << 24) & repeat32(0xFF);
    x = (x | x << 12) & 0x000F_000F_000F_000F_000F_000F_000F_000F;
    x = (x | x << 6) & repeat8(0x03);
    (x | x << 3) & NIBBLE_LOW
}

/// `TURN_COVER[q][p]`: for each five-line `l`, nibble `l` holds the turns `rho` (bit `rho`)
/// after which quadrant `q` with the pattern `p`, turned clockwise `rho` times, covers the
/// line's cells in that quadrant (all four for a line that misses the quadrant). Built at
/// compile time: five detection then needs one load per quadrant.
static TURN_COVER: [[u128; 512]; 4] = {
    let mut table = [[0u128; 512]; 4];
    let mut q = 0;
    while q < 4 {
        let mut p = 0;
        while p < 512 {
            let mut turned = p;
            let mut rho = 0;
            while rho < 4 {
                table[q][p] |= spread4(LINE_COVERED[q][turned]) << rho;
                turned = TWIST[0][turned] as usize;
                rho += 1;
            }
            p += 1;
        }
        q += 1;
    }
    table
};

/// For each rotation state, whether `stones` (fixed frame, lane layout) turned by it holds a
/// five: the even-parity half and the odd-parity half. A line is five in state `r` exactly when
/// every quadrant's turn `r_q` covers it, so each line that some turn completes in all four
/// quadrants adds the product of its four turn sets.
pub(crate) fn five_halves(stones: u64) -> [Half; 2] {
    let turns = [0, 1, 2, 3].map(|q| TURN_COVER[q][((stones >> (16 * q)) & LANE) as usize]);
    let any = |t: u128| (t | t >> 1 | t >> 2 | t >> 3) & NIBBLE_LOW;
    let mut candidates = any(turns[0]) & any(turns[1]) & any(turns[2]) & any(turns[3]);
    if candidates == 0 {
        return [0, 0];
    }
    // by_r0[r0]: the states (r_1, r_2, r_3) that make five together with that r_0.
    let mut by_r0 = [0u64; 4];
    while candidates != 0 {
        let shift = candidates.trailing_zeros();
        candidates &= candidates - 1;
        let nibble = |q: usize| ((turns[q] >> shift) & 15) as usize;
        let rest = KRON[0][nibble(1)] & KRON[1][nibble(2)] & KRON[2][nibble(3)];
        let first = nibble(0) as u64;
        for (r0, word) in by_r0.iter_mut().enumerate() {
            // All ones when `first` holds r0, else zero.
            *word |= rest & ((first >> r0) & 1).wrapping_neg();
        }
    }
    [to_half(&by_r0, 0), to_half(&by_r0, 1)]
}

/// The states `(r_1, r_2, r_3)` (bit `r_1 + 4 r_2 + 16 r_3`) with `r_1 + r_2 + r_3` even.
const EVEN_REST: u64 = {
    let mut mask = 0u64;
    let mut i = 0;
    while i < 64 {
        if (i ^ i >> 2 ^ i >> 4) & 1 == 0 {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
};

/// Moves bit `i` of a 32-bit word to bit `2 i`.
#[inline(always)]
fn spread2(word: u32) -> u64 {
    let mut x = word as u64;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// The half of one parity out of the five states grouped by `r_0`: state `(r_0, rest)` sits at
/// bit `(r_0 >> 1) + 2 rest`, and the parity fixes the low bit of `r_0` from `rest`'s parity.
#[inline(always)]
fn to_half(by_r0: &[u64; 4], parity: usize) -> Half {
    let mut half = 0u128;
    for high in 0..2 {
        let even = by_r0[2 * high + parity];
        let odd = by_r0[2 * high + (parity ^ 1)];
        let set = (even & EVEN_REST) | (odd & !EVEN_REST);
        let spread = spread2(set as u32) as u128 | (spread2((set >> 32) as u32) as u128) << 64;
        half |= spread << high;
    }
    half
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::bitboard::Bitboard;
    use crate::board::twist::{Direction, Quadrant, Twist};

    fn all_states() -> impl Iterator<Item = [u8; 4]> {
        (0..256u32).map(|i| [0, 2, 4, 6].map(|s| ((i >> s) & 3) as u8))
    }

    fn turned(stones: Bitboard, r: [u8; 4]) -> Bitboard {
        let mut board = stones;
        for (q, &turns) in r.iter().enumerate() {
            for _ in 0..turns {
                board = board.twisted(Twist::new(Quadrant::ALL[q], Direction::Right));
            }
        }
        board
    }

    #[test]
    fn five_halves_match_turning_the_board() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Dense sets find many fives; sparse ones exercise the early exit.
            let bits = if round % 2 == 0 {
                x | x.rotate_left(7)
            } else {
                x & x.rotate_left(11)
            };
            let stones = Bitboard::from_bits(bits);
            let halves = five_halves(stones.bits());
            for r in all_states() {
                let expected = turned(stones, r).has_five();
                let got = halves[parity(r)] >> half_bit(r) & 1 == 1;
                assert_eq!(got, expected, "stones {stones:?} state {r:?}");
            }
        }
    }

    #[test]
    fn spread_reaches_exactly_the_states_one_twist_away() {
        for child_state in all_states() {
            let child: Half = 1 << half_bit(child_state);
            let parents = spread(child);
            for r in all_states().filter(|&r| parity(r) != parity(child_state)) {
                let one_twist = (0..4).any(|q| {
                    (0..4).all(|i| i == q || r[i] == child_state[i])
                        && (r[q] + 1) % 4 == child_state[q]
                        || (0..4).all(|i| i == q || r[i] == child_state[i])
                            && (r[q] + 3) % 4 == child_state[q]
                });
                assert_eq!(
                    parents >> half_bit(r) & 1 == 1,
                    one_twist,
                    "{r:?} {child_state:?}"
                );
            }
        }
    }
}
