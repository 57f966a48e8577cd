//! The line-occupancy evaluation: for each colour, how many of the 32 five-lines hold exactly
//! k of its stones and none of the other's (`b_k`, `w_k`), weighed into a score
//! `g = a4·(b4−w4) + a3·(b3−w3) + a2·(b2−w2) + a1·(b1−w1)` and read as a win probability by a
//! logistic fitted to game outcomes (`cargo run --release -p pentagrid-bench --bin fit-eval`).
//!
//! Per line, the stones of a colour are kept as 4-bit counts, 16 lines to a `u64`: each
//! quadrant contributes one table entry, so a move updates one or two entries and the counts
//! `b_k` are a few nibble compares and popcounts.

use crate::board::bitboard::Bitboard;
use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::tables::{LANE, LINES, TWIST};

/// Per-line stone counts of one colour: line `l` in bits `4(l % 16)..` of word `l / 16`.
type Nibbles = [u64; 2];

/// `LINE_NIBBLES[q][p]`: per line, how many of its cells in quadrant `q` the pattern `p` holds.
static LINE_NIBBLES: [[Nibbles; 512]; 4] = build_line_nibbles();

const fn build_line_nibbles() -> [[Nibbles; 512]; 4] {
    let mut out = [[[0u64; 2]; 512]; 4];
    let mut q = 0;
    while q < 4 {
        let mut p = 0;
        while p < 512 {
            let mut l = 0;
            while l < 32 {
                let part = (LINES[l] >> (16 * q)) & LANE & p as u64;
                out[q][p][l / 16] |= (part.count_ones() as u64) << (4 * (l % 16));
                l += 1;
            }
            p += 1;
        }
        q += 1;
    }
    out
}

const NIBBLE_HIGH: u64 = 0x8888_8888_8888_8888;
const NIBBLE_LOW: u64 = 0x7777_7777_7777_7777;
const NIBBLE_ONES: u64 = 0x1111_1111_1111_1111;

/// The high bit of every nibble of `x` that is zero (nibbles here never exceed 5).
#[inline(always)]
const fn zero_nibbles(x: u64) -> u64 {
    !(((x & NIBBLE_LOW) + NIBBLE_LOW) | x) & NIBBLE_HIGH
}

/// How the 32 five-lines are occupied, kept up to date move by move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineOccupancy {
    black: Nibbles,
    white: Nibbles,
}

/// `b_k` and `w_k`: lines with exactly `k` (index) stones of one colour and none of the other.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// `black[k]` = `b_k` for k = 1..=4 (`black[0]` is unused and 0).
    pub black: [u32; 5],
    /// `white[k]` = `w_k`.
    pub white: [u32; 5],
}

fn nibbles_of(bits: u64) -> Nibbles {
    let mut sum = [0u64; 2];
    for (q, table) in LINE_NIBBLES.iter().enumerate() {
        let entry = table[((bits >> (16 * q)) & LANE) as usize];
        sum[0] += entry[0];
        sum[1] += entry[1];
    }
    sum
}

/// Replaces quadrant `q`'s contribution `old` (a lane pattern) by `new`.
#[inline(always)]
fn swap_lane(sum: &mut Nibbles, q: usize, old: u64, new: u64) {
    let (old, new) = (LINE_NIBBLES[q][old as usize], LINE_NIBBLES[q][new as usize]);
    // Every nibble of `sum` includes the old contribution, so nothing borrows across nibbles.
    sum[0] = sum[0] - old[0] + new[0];
    sum[1] = sum[1] - old[1] + new[1];
}

impl LineOccupancy {
    /// The occupancy of `position`, from scratch.
    #[must_use]
    pub fn of(position: &Position) -> LineOccupancy {
        LineOccupancy {
            black: nibbles_of(position.black().bits()),
            white: nibbles_of(position.white().bits()),
        }
    }

    /// The occupancy after `mv` is played in `position` (the occupancy of which `self` is),
    /// updating only the quadrants the move changes.
    #[must_use]
    pub fn after(&self, position: &Position, mv: Move) -> LineOccupancy {
        let mover = position.side_to_move();
        let mut next = *self;
        let lane = |bits: u64, q: usize| (bits >> (16 * q)) & LANE;
        let (mut black, mut white) = (position.black().bits(), position.white().bits());
        let placed_q = mv.square().quadrant().index();
        let (own, own_sum) = match mover {
            Color::Black => (&mut black, &mut next.black),
            Color::White => (&mut white, &mut next.white),
        };
        let before = lane(*own, placed_q);
        *own |= mv.square().mask();
        swap_lane(own_sum, placed_q, before, lane(*own, placed_q));
        if Bitboard::from_bits(*own).has_five() {
            // A placement five ends the game before the twist.
            return next;
        }
        let q = mv.twist().quadrant().index();
        let turn = &TWIST[mv.twist().index() & 1];
        for (bits, sum) in [(black, &mut next.black), (white, &mut next.white)] {
            let old = lane(bits, q);
            swap_lane(sum, q, old, u64::from(turn[old as usize]));
        }
        next
    }

    /// `b_k` and `w_k` for k = 1..=4.
    #[must_use]
    pub fn counts(&self) -> LineCounts {
        let mut counts = LineCounts::default();
        for word in 0..2 {
            let (b, w) = (self.black[word], self.white[word]);
            let (no_white, no_black) = (zero_nibbles(w), zero_nibbles(b));
            for k in 1..5u64 {
                counts.black[k as usize] +=
                    (zero_nibbles(b ^ (k * NIBBLE_ONES)) & no_white).count_ones();
                counts.white[k as usize] +=
                    (zero_nibbles(w ^ (k * NIBBLE_ONES)) & no_black).count_ones();
            }
        }
        counts
    }
}

/// The weights of `g` and the logistic that reads it as a win probability. Stable in the sense
/// that configurations name no weights: the fitted ones are part of the engine version.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// `a1..a4`: `weights[k - 1]` weighs `b_k − w_k`.
    pub weights: [f32; 4],
    /// The logistic's constant, from the side to move's view (the value of having the move).
    pub tempo: f32,
}

impl Evaluation {
    /// Weights fitted by logistic regression on the outcomes of safe-policy games, the games
    /// that cut-off playouts stand for (`fit-eval 200000 1`; BENCHMARKS.md).
    pub const FITTED: Evaluation = Evaluation {
        weights: [0.0333, 0.0605, 0.1179, 0.5804],
        tempo: 0.1059,
    };

    /// `g(P)` from black's point of view.
    #[must_use]
    pub fn score(&self, counts: &LineCounts) -> f32 {
        (1..5)
            .map(|k| self.weights[k - 1] * (counts.black[k] as f32 - counts.white[k] as f32))
            .sum()
    }

    /// The probability that the side to move wins (a draw counting one half), by the logistic
    /// of `tempo ± g` (plus for black to move, minus for white).
    #[must_use]
    pub fn win_probability(&self, position: &Position, occupancy: &LineOccupancy) -> f32 {
        let g = self.score(&occupancy.counts());
        let x = match position.side_to_move() {
            Color::Black => self.tempo + g,
            Color::White => self.tempo - g,
        };
        1.0 / (1.0 + (-x).exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_gamekit::seeded_rng;
    use rand::RngExt;

    fn counts(text: &str) -> LineCounts {
        LineOccupancy::of(&text.parse().unwrap()).counts()
    }

    /// The definition read literally: count stones line by line.
    fn naive_counts(position: &Position) -> LineCounts {
        let mut out = LineCounts::default();
        for line in LINES {
            let b = (line & position.black().bits()).count_ones() as usize;
            let w = (line & position.white().bits()).count_ones() as usize;
            if w == 0 && (1..5).contains(&b) {
                out.black[b] += 1;
            }
            if b == 0 && (1..5).contains(&w) {
                out.white[w] += 1;
            }
        }
        out
    }

    #[test]
    fn counts_on_hand_made_positions() {
        assert_eq!(counts("start"), LineCounts::default());
        // A corner stone lies on 3 lines: its row, its column, the main diagonal.
        let corner = counts("....../....../....../....../....../x.....");
        assert_eq!(corner.black, [0, 3, 0, 0, 0]);
        // A centre-ish stone (c3) lies on 2 row + 2 column + 2 diagonal + 1 anti-diagonal lines.
        let centre = counts("....../....../....../..x.../....../......");
        assert_eq!(centre.black, [0, 7, 0, 0, 0]);
        // a1-d1 black: a1-e1 holds four, b1-f1 three; the same for white one rank up.
        let fours = counts("....../....../....../....../oooo../xxxx..");
        assert_eq!((fours.black[4], fours.black[3]), (1, 1));
        assert_eq!((fours.white[4], fours.white[3]), (1, 1));
        // White's f1 blocks b1-f1, which then counts for neither side.
        let blocked = counts("o.o.../....../....../....../....../xxxx.o");
        assert_eq!((blocked.black[4], blocked.black[3]), (1, 0));
        // a6 and c6 share a6-e6 and have two lines each of their own; f1 has two that black
        // does not block.
        assert_eq!(blocked.white, [0, 6, 1, 0, 0]);
    }

    #[test]
    fn score_is_the_weighted_difference() {
        let eval = Evaluation {
            weights: [1.0, 10.0, 100.0, 1000.0],
            tempo: 0.0,
        };
        let c = LineCounts {
            black: [0, 2, 1, 0, 1],
            white: [0, 1, 0, 3, 0],
        };
        assert_eq!(eval.score(&c), 1.0 + 10.0 - 300.0 + 1000.0);
        let p: Position = "start".parse().unwrap();
        let even = eval.win_probability(&p, &LineOccupancy::of(&p));
        assert!((even - 0.5).abs() < 1e-6);
    }

    #[test]
    fn incremental_equals_from_scratch_on_random_games() {
        let mut rng = seeded_rng(4, 4);
        for _ in 0..2_000 {
            let mut position = Position::START;
            let mut occupancy = LineOccupancy::of(&position);
            while !position.is_over() {
                let legal = position.legal_moves();
                let mv = legal[rng.random_range(0..legal.len())];
                occupancy = occupancy.after(&position, mv);
                position = position.play_unchecked(mv);
                assert_eq!(occupancy, LineOccupancy::of(&position), "{position}");
                assert_eq!(occupancy.counts(), naive_counts(&position), "{position}");
            }
        }
    }
}
