//! Lookup tables computed at compile time: quadrant twists, five-lines, symmetries, keys.
//!
//! Bit layout (internal, shared by every table): a side's stones are one `u64` with quadrant
//! `q` (0 = top-left, 1 = top-right, 2 = bottom-left, 3 = bottom-right) in bits `16q..16q+9`.
//! Inside a quadrant, cell `3 * row + col` (row 0 = top, col 0 = left) is bit `row * 3 + col`.
//! Keeping each quadrant in its own 9-bit lane makes a twist one 512-entry table lookup.

/// All 36 board bits.
pub(crate) const FULL: u64 = 0x01FF_01FF_01FF_01FF;
/// The 9 bits of one quadrant lane.
pub(crate) const LANE: u64 = 0x1FF;

/// Bit position of the cell at `file` (0 = a) and `row` counted from the top (0 = rank 6).
pub(crate) const fn bit_of(file: usize, row: usize) -> u32 {
    let quadrant = (row / 3) * 2 + file / 3;
    let local = (row % 3) * 3 + file % 3;
    (16 * quadrant + local) as u32
}

/// The 32 five-lines (12 horizontal, 12 vertical, 8 diagonal) as bit masks.
pub(crate) const LINES: [u64; 32] = build_lines();

const fn build_lines() -> [u64; 32] {
    let mut out = [0u64; 32];
    let mut count = 0;
    // (dx, dy) with dy pointing down the board.
    let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
    let mut d = 0;
    while d < 4 {
        let (dx, dy) = dirs[d];
        let mut y = 0;
        while y < 6 {
            let mut x = 0;
            while x < 6 {
                let end_x = x + 4 * dx;
                let end_y = y + 4 * dy;
                if end_x >= 0 && end_x < 6 && end_y >= 0 && end_y < 6 {
                    let mut mask = 0u64;
                    let mut k = 0;
                    while k < 5 {
                        mask |= 1 << bit_of((x + k * dx) as usize, (y + k * dy) as usize);
                        k += 1;
                    }
                    out[count] = mask;
                    count += 1;
                }
                x += 1;
            }
            y += 1;
        }
        d += 1;
    }
    assert!(count == 32);
    out
}

/// `LINE_COVERED[q][p]`: the lines (bit `l` for `LINES[l]`) whose cells in quadrant `q` all lie
/// in the 9-bit pattern `p`; lines that miss the quadrant count as covered. A side has five
/// exactly when the AND over its four quadrants is non-zero.
pub(crate) const LINE_COVERED: [[u32; 512]; 4] = build_line_tables(0);

/// `LINE_ONE_MISSING[q][p]`: the lines of which exactly one cell in quadrant `q` is not in `p`.
pub(crate) const LINE_ONE_MISSING: [[u32; 512]; 4] = build_line_tables(1);

const fn build_line_tables(missing: u32) -> [[u32; 512]; 4] {
    let mut out = [[0u32; 512]; 4];
    let mut q = 0;
    while q < 4 {
        let mut p = 0;
        while p < 512 {
            let mut set = 0u32;
            let mut l = 0;
            while l < 32 {
                let part = (LINES[l] >> (16 * q)) & LANE;
                if (part & !(p as u64)).count_ones() == missing {
                    set |= 1 << l;
                }
                l += 1;
            }
            out[q][p] = set;
            p += 1;
        }
        q += 1;
    }
    out
}

/// `ANY_TURN_COVERED[q][p]`: the lines covered in quadrant `q` by some rotation of pattern `p`
/// (see [`LINE_COVERED`]); with [`ANY_TURN_ONE_MISSING`], a cheap bound on what twists can make.
pub(crate) const ANY_TURN_COVERED: [[u32; 512]; 4] = any_turn(&LINE_COVERED);

/// `ANY_TURN_ONE_MISSING[q][p]`: the lines missing exactly one cell in quadrant `q` for some
/// rotation of pattern `p`.
pub(crate) const ANY_TURN_ONE_MISSING: [[u32; 512]; 4] = any_turn(&LINE_ONE_MISSING);

const fn any_turn(table: &[[u32; 512]; 4]) -> [[u32; 512]; 4] {
    let mut out = [[0u32; 512]; 4];
    let mut q = 0;
    while q < 4 {
        let mut p = 0;
        while p < 512 {
            let mut turned = p;
            let mut r = 0;
            while r < 4 {
                out[q][p] |= table[q][turned];
                turned = TWIST[0][turned] as usize;
                r += 1;
            }
            p += 1;
        }
        q += 1;
    }
    out
}

/// `LANE_COUNT[p]`: the number of stones in a 9-bit quadrant pattern (no `popcnt` needed).
pub(crate) const LANE_COUNT: [u8; 512] = build_lane_count();

const fn build_lane_count() -> [u8; 512] {
    let mut out = [0u8; 512];
    let mut p = 0;
    while p < 512 {
        out[p] = (p as u32).count_ones() as u8;
        p += 1;
    }
    out
}

/// Applies one of the 8 symmetries of an `(n+1) × (n+1)` grid to `(x, y)` (y pointing down).
/// Symmetry `g`: mirror left-right when `g >= 4`, then turn clockwise `g % 4` times.
pub(crate) const fn map_coords(g: usize, n: usize, x: usize, y: usize) -> (usize, usize) {
    let (mut x, mut y) = if g >= 4 { (n - x, y) } else { (x, y) };
    let mut k = 0;
    while k < g % 4 {
        let turned = (n - y, x);
        x = turned.0;
        y = turned.1;
        k += 1;
    }
    (x, y)
}

/// `LOCAL_SYMMETRY[g][p]`: a 3×3 quadrant pattern under symmetry `g`.
pub(crate) const LOCAL_SYMMETRY: [[u16; 512]; 8] = build_local_symmetry();

const fn build_local_symmetry() -> [[u16; 512]; 8] {
    let mut out = [[0u16; 512]; 8];
    let mut g = 0;
    while g < 8 {
        let mut p = 0;
        while p < 512 {
            let mut image = 0u16;
            let mut cell = 0;
            while cell < 9 {
                if p & (1 << cell) != 0 {
                    let (x, y) = map_coords(g, 2, cell % 3, cell / 3);
                    image |= 1 << (y * 3 + x);
                }
                cell += 1;
            }
            out[g][p] = image;
            p += 1;
        }
        g += 1;
    }
    out
}

/// `QUADRANT_SYMMETRY[g][q]`: where quadrant `q` goes under symmetry `g`.
pub(crate) const QUADRANT_SYMMETRY: [[u8; 4]; 8] = build_quadrant_symmetry();

const fn build_quadrant_symmetry() -> [[u8; 4]; 8] {
    let mut out = [[0u8; 4]; 8];
    let mut g = 0;
    while g < 8 {
        let mut q = 0;
        while q < 4 {
            let (x, y) = map_coords(g, 1, q % 2, q / 2);
            out[g][q] = (y * 2 + x) as u8;
            q += 1;
        }
        g += 1;
    }
    out
}

/// `TWIST[0][p]` turns a quadrant pattern clockwise, `TWIST[1][p]` anticlockwise.
pub(crate) const TWIST: [[u16; 512]; 2] = [LOCAL_SYMMETRY[1], LOCAL_SYMMETRY[3]];

/// `TERNARY[p]`: the pattern read as base-3 digits that are 0 or 1 (cell `i` weighs `3^i`).
pub(crate) const TERNARY: [u16; 512] = build_ternary();

const fn build_ternary() -> [u16; 512] {
    let mut out = [0u16; 512];
    let mut p = 0;
    while p < 512 {
        let mut value = 0u32;
        let mut weight = 1u32;
        let mut cell = 0;
        while cell < 9 {
            if p & (1 << cell) != 0 {
                value += weight;
            }
            weight *= 3;
            cell += 1;
        }
        out[p] = value as u16;
        p += 1;
    }
    out
}

/// `SELECT[p][k]`: the cell of the `k`-th set bit (from the lowest) of a 9-bit pattern.
pub(crate) const SELECT: [[u8; 9]; 512] = build_select();

const fn build_select() -> [[u8; 9]; 512] {
    let mut out = [[0u8; 9]; 512];
    let mut p = 0;
    while p < 512 {
        let mut k = 0;
        let mut cell = 0;
        while cell < 9 {
            if p & (1 << cell) != 0 {
                out[p][k] = cell as u8;
                k += 1;
            }
            cell += 1;
        }
        p += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_distinct_fives_inside_the_board() {
        for (i, line) in LINES.iter().enumerate() {
            assert_eq!(line.count_ones(), 5);
            assert_eq!(line & !FULL, 0);
            assert!(!LINES[..i].contains(line));
        }
    }

    #[test]
    fn twists_are_inverse_and_have_order_four() {
        for p in 0..512usize {
            assert_eq!(TWIST[1][TWIST[0][p] as usize] as usize, p);
            let mut q = p;
            for _ in 0..4 {
                q = TWIST[0][q] as usize;
            }
            assert_eq!(q, p);
        }
        // Top-left corner goes to top-right corner on a clockwise turn.
        assert_eq!(TWIST[0][1], 1 << 2);
    }

    #[test]
    fn select_finds_every_set_bit() {
        for (p, cells) in SELECT.iter().enumerate() {
            for (k, &cell) in cells.iter().take(p.count_ones() as usize).enumerate() {
                assert!(p & (1 << cell) != 0);
                assert_eq!((p & ((1 << cell) - 1)).count_ones() as usize, k);
            }
        }
    }

    #[test]
    fn quadrant_symmetry_is_a_permutation() {
        for row in QUADRANT_SYMMETRY {
            let mut seen = [false; 4];
            for q in row {
                seen[q as usize] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
