//! Irving's quadrant encoding: a quadrant as a 9-digit base-3 number, the rotation-minimal
//! quadrants of each stone count in his order, and the board geometry that maps pentagrid's
//! positions onto his quadrants.
//!
//! Geometry (his `board.h`, `precompute.cc`): a square at file `x` (0 = a) and rank `y`
//! (0 = rank 1) lies in his quadrant `2·(x div 3) + (y div 3)` — pentagrid's 3, 1, 4, 2 for his
//! 0, 1, 2, 3 — as cell `3·(x mod 3) + (y mod 3)`, whose base-3 digit is 0 empty, 1 black,
//! 2 white. His rotation +1 turns a quadrant anticlockwise. Within each stone count (black,
//! white), the rotation-minimal quadrants (those whose number is the least of their four
//! rotations) are ordered with reflection pairs first (by the pair's smaller member), then the
//! quadrants their own reflection; that order is the index of a quadrant along a section's axis.

use std::sync::OnceLock;

/// Number of quadrant states, 3^9.
pub(crate) const STATES: usize = 19_683;

/// Powers of three, the weight of each cell's digit.
const POW3: [u16; 9] = [1, 3, 9, 27, 81, 243, 729, 2187, 6561];

/// The cell bit of quadrant-local coordinates `(x, y)`, both 0..3.
const fn cell(x: usize, y: usize) -> u16 {
    1 << (3 * x + y)
}

/// A 9-bit cell set turned a quarter anticlockwise: `(x, y)` goes to `(2 - y, x)`.
fn rotate_left(mask: u16) -> u16 {
    let mut out = 0;
    for x in 0..3 {
        for y in 0..3 {
            if mask & cell(x, y) != 0 {
                out |= cell(2 - y, x);
            }
        }
    }
    out
}

/// A 9-bit cell set reflected in the quadrant's anti-diagonal: `(x, y)` goes to `(2 - y, 2 - x)`
/// (the reflection Irving's order pairs quadrants by).
fn reflect(mask: u16) -> u16 {
    let mut out = 0;
    for x in 0..3 {
        for y in 0..3 {
            if mask & cell(x, y) != 0 {
                out |= cell(2 - y, 2 - x);
            }
        }
    }
    out
}

/// The base-3 state of a quadrant with `black` and `white` cell sets.
fn pack(black: u16, white: u16) -> u16 {
    (0..9)
        .map(|i| {
            if black >> i & 1 != 0 {
                POW3[i]
            } else if white >> i & 1 != 0 {
                2 * POW3[i]
            } else {
                0
            }
        })
        .sum()
}

/// The black and white cell sets of a base-3 state.
fn unpack(mut state: u16) -> (u16, u16) {
    let (mut black, mut white) = (0, 0);
    for i in 0..9 {
        match state % 3 {
            1 => black |= 1 << i,
            2 => white |= 1 << i,
            _ => {}
        }
        state /= 3;
    }
    (black, white)
}

/// A state turned `turns` quarters anticlockwise.
fn rotate_state(state: u16, turns: u8) -> u16 {
    let (mut black, mut white) = unpack(state);
    for _ in 0..turns {
        black = rotate_left(black);
        white = rotate_left(white);
    }
    pack(black, white)
}

/// Where a quadrant state stands in Irving's tables.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    /// Index of its rotation-minimal form within the list of its stone count.
    pub index: u16,
    /// Anticlockwise quarter turns from the rotation-minimal form to this state (the least such).
    pub turns: u8,
}

/// The quadrant tables, built once.
pub(crate) struct Tables {
    /// Per state, its place.
    places: Vec<Place>,
    /// Per stone count `(black, white)` (index `10·black + white`), the rotation-minimal states
    /// in Irving's order.
    classes: Vec<Vec<u16>>,
    /// Per state, how many distinct states its four rotations give (1, 2 or 4).
    periods: Vec<u8>,
}

impl Tables {
    /// The tables (built on first use, a few milliseconds).
    pub(crate) fn get() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(Tables::build)
    }

    fn build() -> Tables {
        let rotations: Vec<[u16; 4]> = (0..STATES as u16)
            .map(|q| [0, 1, 2, 3].map(|t| rotate_state(q, t)))
            .collect();
        let minimal: Vec<u16> = rotations
            .iter()
            .map(|r| *r.iter().min().unwrap_or(&0))
            .collect();
        let min_reflect = |q: u16| {
            let (b, w) = unpack(q);
            minimal[usize::from(pack(reflect(b), reflect(w)))]
        };
        // Pairs (a quadrant and its differing reflection) first, by the pair's smaller
        // member; then the quadrants that are their own reflection. The sort is stable, so a
        // pair's members keep their numeric order.
        let key = |q: u16| {
            let r = min_reflect(q);
            u32::from(q.min(r)) + if q == r { STATES as u32 } else { 0 }
        };
        let mut rmins: Vec<u16> = (0..STATES as u16)
            .filter(|&q| minimal[usize::from(q)] == q)
            .collect();
        rmins.sort_by_key(|&q| key(q));
        let mut classes = vec![Vec::new(); 100];
        for q in rmins {
            let (b, w) = unpack(q);
            classes[class_of(b.count_ones() as u8, w.count_ones() as u8)].push(q);
        }
        let mut places = vec![
            Place {
                index: u16::MAX,
                turns: 0
            };
            STATES
        ];
        for list in &classes {
            for (index, &q) in list.iter().enumerate() {
                for turns in (0..4u8).rev() {
                    // Going down keeps the least number of turns for symmetric quadrants.
                    let state = rotations[usize::from(q)][usize::from(turns)];
                    places[usize::from(state)] = Place {
                        index: index as u16,
                        turns,
                    };
                }
            }
        }
        let periods = rotations
            .iter()
            .map(|r| {
                if r[1] == r[0] {
                    1
                } else if r[2] == r[0] {
                    2
                } else {
                    4
                }
            })
            .collect();
        Tables {
            places,
            classes,
            periods,
        }
    }

    /// The place of a quadrant state (below [`STATES`]).
    #[inline]
    pub(crate) fn place(&self, state: u16) -> Place {
        self.places[usize::from(state)]
    }

    /// The rotation-minimal states with `black` and `white` stones, in Irving's order.
    pub(crate) fn class(&self, black: u8, white: u8) -> &[u16] {
        if usize::from(black) + usize::from(white) > 9 {
            return &[];
        }
        &self.classes[class_of(black, white)]
    }

    /// How many distinct states the rotations of `state` give.
    pub(crate) fn period(&self, state: u16) -> u8 {
        self.periods[usize::from(state)]
    }
}

fn class_of(black: u8, white: u8) -> usize {
    10 * usize::from(black) + usize::from(white)
}

/// The eight symmetries of the board as maps of `(file, rank)`: `k` quarter turns, then for
/// `g >= 4` a reflection in the main diagonal. Any one of them maps a position to one of equal
/// value, which is all the reader needs: it looks for an image whose section the file stores.
fn map_square(g: usize, file: usize, rank: usize) -> (usize, usize) {
    let (mut x, mut y) = (file, rank);
    for _ in 0..g % 4 {
        (x, y) = (5 - y, x);
    }
    if g >= 4 { (y, x) } else { (x, y) }
}

/// Per symmetry and square index (`rank·6 + file`): Irving's quadrant and the weight of the
/// square's base-3 digit within it.
pub(crate) struct Geometry {
    cells: [[(u8, u16); 36]; 8],
}

impl Geometry {
    /// The table (built on first use).
    pub(crate) fn get() -> &'static Geometry {
        static GEOMETRY: OnceLock<Geometry> = OnceLock::new();
        GEOMETRY.get_or_init(|| {
            let mut cells = [[(0u8, 0u16); 36]; 8];
            for (g, row) in cells.iter_mut().enumerate() {
                for (square, slot) in row.iter_mut().enumerate() {
                    let (x, y) = map_square(g, square % 6, square / 6);
                    let quadrant = 2 * (x / 3) + y / 3;
                    *slot = (quadrant as u8, POW3[3 * (x % 3) + y % 3]);
                }
            }
            Geometry { cells }
        })
    }

    /// The quadrant and digit weight of square index `square` under symmetry `g` (0..8).
    #[inline]
    pub(crate) fn cell(&self, g: usize, square: usize) -> (u8, u16) {
        self.cells[g][square]
    }

    /// Irving's quadrant that his quadrant `q` goes to under symmetry `g`.
    pub(crate) fn quadrant_image(&self, g: usize, q: usize) -> usize {
        // The quadrant's centre square: file 1 or 4, rank 1 or 4.
        let (file, rank) = (1 + 3 * (q / 2), 1 + 3 * (q % 2));
        usize::from(self.cells[g][rank * 6 + file].0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_sizes_are_the_shapes_in_the_files() {
        let t = Tables::get();
        // From the section headers of slices 0–6.
        assert_eq!(t.class(0, 0).len(), 1);
        assert_eq!(t.class(1, 0).len(), 3);
        assert_eq!(t.class(1, 1).len(), 18);
        assert_eq!(t.class(2, 0).len(), 10);
        assert_eq!(t.class(2, 1).len(), 64);
        assert_eq!(t.class(2, 2).len(), 192);
        assert_eq!(t.class(3, 2).len(), 318);
        assert_eq!(t.class(3, 3).len(), 420);
        assert_eq!(t.class(9, 1).len(), 0);
        let total: usize = (0..10u8)
            .flat_map(|b| (0..10 - b).map(move |w| (b, w)))
            .map(|(b, w)| t.class(b, w).len())
            .sum();
        // Burnside: (3^9 + 3^3 + 3^5 + 3^3) / 4 orbits of the rotation group.
        assert_eq!(total, (19_683 + 27 + 243 + 27) / 4);
    }

    #[test]
    fn places_invert_the_classes() {
        let t = Tables::get();
        for q in 0..STATES as u16 {
            let (b, w) = unpack(q);
            let place = t.place(q);
            let rmin =
                t.class(b.count_ones() as u8, w.count_ones() as u8)[usize::from(place.index)];
            assert_eq!(rotate_state(rmin, place.turns), q);
            assert!(place.turns < t.period(q));
        }
    }

    #[test]
    fn rotation_is_anticlockwise_and_reflection_pairs_are_adjacent() {
        // The cell at the quadrant's bottom-right (x 2, y 0) goes to its top-right (x 2, y 2).
        assert_eq!(rotate_left(cell(2, 0)), cell(2, 2));
        let t = Tables::get();
        let class = t.class(1, 0);
        // Corner, edge and centre stones: 1 (x0 y0), 3 (x1 y0), 81 (centre); all self-reflective.
        assert_eq!(class, &[1, 3, 81]);
    }

    #[test]
    fn symmetries_are_distinct_permutations() {
        let g = Geometry::get();
        let mut seen = std::collections::HashSet::new();
        for s in 0..8 {
            let image: Vec<(u8, u16)> = (0..36).map(|sq| g.cell(s, sq)).collect();
            let mut sorted = image.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 36);
            assert!(seen.insert(image));
        }
        // Identity: a1 is file 0 rank 0, Irving's quadrant 0 cell 0; f6 is quadrant 3 cell 8.
        assert_eq!(g.cell(0, 0), (0, 1));
        assert_eq!(g.cell(0, 35), (3, 6561));
        assert_eq!(g.quadrant_image(0, 2), 2);
    }
}
