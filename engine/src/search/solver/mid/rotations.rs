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
/// move their 2-bit field by one step either way.
#[inline(always)]
pub(crate) fn spread(child: Half) -> Half {
    const EVEN: u128 = repeat8(0x55);
    let q0 = child | ((child >> 1) & EVEN) | ((child << 1) & !EVEN);
    let q1 = ((child << 2) & repeat8(0xFC))
        | ((child >> 6) & repeat8(0x03))
        | ((child >> 2) & repeat8(0x3F))
        | ((child << 6) & repeat8(0xC0));
    let q2 = ((child << 8) & repeat32(0xFFFF_FF00))
        | ((child >> 24) & repeat32(0x0000_00FF))
        | ((child >> 8) & repeat32(0x00FF_FFFF))
        | ((child << 24) & repeat32(0xFF00_0000));
    let q3 = child.rotate_left(32) | child.rotate_right(32);
    q0 | q1 | q2 | q3
}

/// `KRON[i][m]`: the 64 states `(r_0, r_1, r_2)` (bit `r_0 + 4 r_1 + 16 r_2`) whose quadrant-`i`
/// rotation is in the 4-bit set `m`.
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

/// For each rotation state, whether `stones` (fixed frame, lane layout) turned by it holds a
/// five: the even-parity half and the odd-parity half.
pub(crate) fn five_halves(stones: u64) -> [Half; 2] {
    // covered[q][rho]: lines whose cells in quadrant q lie in the quadrant turned rho times.
    let mut covered = [[0u32; 4]; 4];
    let mut candidates = u32::MAX;
    for (q, turns) in covered.iter_mut().enumerate() {
        let mut pattern = ((stones >> (16 * q)) & LANE) as usize;
        let mut any = 0;
        for slot in turns.iter_mut() {
            *slot = LINE_COVERED[q][pattern];
            any |= *slot;
            pattern = TWIST[0][pattern] as usize;
        }
        candidates &= any;
    }
    if candidates == 0 {
        return [0, 0];
    }
    let mut full = [0u64; 4];
    while candidates != 0 {
        let line = candidates.trailing_zeros();
        candidates &= candidates - 1;
        let turns = |q: usize| {
            (0..4).fold(0usize, |m, rho| {
                m | (((covered[q][rho] >> line) & 1) as usize) << rho
            })
        };
        let low = KRON[0][turns(0)] & KRON[1][turns(1)] & KRON[2][turns(2)];
        let last = turns(3);
        for (r3, word) in full.iter_mut().enumerate() {
            if last & (1 << r3) != 0 {
                *word |= low;
            }
        }
    }
    [to_half(&full, 0), to_half(&full, 1)]
}

/// The states of one parity out of a full 256-state set (`r_0 + 4 r_1 + 16 r_2 + 64 r_3`).
fn to_half(full: &[u64; 4], parity: u32) -> Half {
    let mut half = 0u128;
    for (r3, &word) in full.iter().enumerate() {
        if word == 0 {
            continue;
        }
        for r12 in 0..16u32 {
            let nibble = (word >> (4 * r12)) & 15;
            let low = parity ^ ((r3 as u32 + (r12 & 3) + (r12 >> 2)) & 1);
            let pair = ((nibble >> low) & 1) | (((nibble >> (2 + low)) & 1) << 1);
            half |= (pair as u128) << (2 * (r12 + 16 * r3 as u32));
        }
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
