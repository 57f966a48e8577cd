//! The openings catalog (`docs/DESIGN.md` §7): Monica's five, middle five, straight five and triple
//! power, each as exact stone patterns, the five-lines it aims at, a recogniser that works in any
//! position up to symmetry, and the canonical start positions of its study.
//!
//! Squares are named as in `docs/DESIGN.md` §2; the quadrant centres are b5 (quadrant 1), e5 (2),
//! b2 (3) and e2 (4). Every pattern set below is closed under the eight board symmetries, so
//! recognising a position recognises all its symmetric images.
//!
//! - **Monica's five**: black holds two diagonally opposite centres ({b5, e2} or {e5, b2});
//!   aims at the fives of the main diagonal through them.
//! - **Middle five**: black holds two adjacent centres ({b5, e5}, {b2, e2}, {b5, b2},
//!   {e5, e2}); aims at the fives of the row or column through them (rank 5 or 2, file b or e).
//! - **Straight five**: black holds the three squares of one edge of a quadrant (16 such
//!   lines, inner edges included, e.g. a4-a5-a6 or c4-c5-c6); aims at the five of that row or
//!   column that contains all three.
//! - **Triple power**: on one of the four off-centre diagonals that cross three quadrants
//!   (a5-e1, b6-f2, a2-e6, b1-f5), black holds the two squares of one end quadrant (the
//!   "tops"), the square of the middle quadrant (the "pivot") and one square of the other end
//!   quadrant (the "tail"), with the diagonal's fifth square empty — a check along it.
//!
//! A study starts after black's second move from every placement of black's first two stones
//! that opens the plan (the two centres; two squares of a quadrant edge; the two tops) with
//! every white stone in between. Each such position is reachable: each side's twist can turn a
//! quadrant that holds no stone off its centre, so the stones stay put.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::bitboard::Bitboard;
use crate::board::color::Color;
use crate::board::position::Position;
use crate::board::square::Square;
use crate::board::status::Status;
use crate::board::symmetry::Symmetry;

/// An opening of the catalog.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Opening {
    /// Two diagonally opposite centres.
    MonicasFive,
    /// Two adjacent centres.
    MiddleFive,
    /// Three stones along a quadrant edge.
    StraightFive,
    /// Tops, pivot and tail on an off-centre diagonal.
    TriplePower,
}

/// One way of playing an opening: the black stones that define it, squares that must be
/// empty, and the five-lines it aims at.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Black stones of the pattern.
    pub stones: Bitboard,
    /// Squares that must be empty.
    pub empty: Bitboard,
    /// The five-lines aimed at (each five squares).
    pub aims: [Bitboard; 2],
}

/// An opening name that is not in the catalog.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown opening {0:?}: expected monicas-five, middle-five, straight-five or triple-power")]
pub struct ParseOpeningError(pub String);

fn square(file: u8, rank: u8) -> Square {
    Square::from_coords(file, rank).expect("coordinates on the board")
}

fn board(squares: &[(u8, u8)]) -> Bitboard {
    squares
        .iter()
        .fold(Bitboard::EMPTY, |b, &(f, r)| b.with(square(f, r)))
}

/// `length` squares from (file, rank) in direction (df, dr).
fn line(file: u8, rank: u8, df: i8, dr: i8, length: u8) -> Vec<(u8, u8)> {
    (0..length as i8)
        .map(|i| ((file as i8 + i * df) as u8, (rank as i8 + i * dr) as u8))
        .collect()
}

/// The fives (of the two on a row, column or long diagonal) that contain all of `stones`.
fn fives_through(stones: Bitboard, lines: [Vec<(u8, u8)>; 2]) -> [Bitboard; 2] {
    let [first, second] = lines.map(|l| board(&l));
    match (first.union(stones) == first, second.union(stones) == second) {
        (true, true) => [first, second],
        (true, false) => [first, first],
        (false, _) => [second, second],
    }
}

/// The two fives of the six-square line from (file, rank) in direction (df, dr).
fn fives_of_six(file: u8, rank: u8, df: i8, dr: i8) -> [Vec<(u8, u8)>; 2] {
    let six = line(file, rank, df, dr, 6);
    [six[..5].to_vec(), six[1..].to_vec()]
}

const B5: (u8, u8) = (1, 4);
const E5: (u8, u8) = (4, 4);
const B2: (u8, u8) = (1, 1);
const E2: (u8, u8) = (4, 1);

impl Opening {
    /// Every opening.
    pub const ALL: [Opening; 4] = [
        Opening::MonicasFive,
        Opening::MiddleFive,
        Opening::StraightFive,
        Opening::TriplePower,
    ];

    /// The stable name (`monicas-five`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Opening::MonicasFive => "monicas-five",
            Opening::MiddleFive => "middle-five",
            Opening::StraightFive => "straight-five",
            Opening::TriplePower => "triple-power",
        }
    }

    /// The name players use.
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            Opening::MonicasFive => "Monica's five",
            Opening::MiddleFive => "Middle five",
            Opening::StraightFive => "Straight five",
            Opening::TriplePower => "Triple power",
        }
    }

    /// Every pattern of the opening (closed under symmetry).
    #[must_use]
    pub fn patterns(self) -> Vec<Pattern> {
        let plain = |stones: Bitboard, aims: [Bitboard; 2]| Pattern {
            stones,
            empty: Bitboard::EMPTY,
            aims,
        };
        match self {
            Opening::MonicasFive => vec![
                plain(
                    board(&[B5, E2]),
                    fives_through(board(&[B5, E2]), fives_of_six(0, 5, 1, -1)),
                ),
                plain(
                    board(&[E5, B2]),
                    fives_through(board(&[E5, B2]), fives_of_six(0, 0, 1, 1)),
                ),
            ],
            Opening::MiddleFive => [
                ([B5, E5], fives_of_six(0, 4, 1, 0)),
                ([B2, E2], fives_of_six(0, 1, 1, 0)),
                ([B2, B5], fives_of_six(1, 0, 0, 1)),
                ([E2, E5], fives_of_six(4, 0, 0, 1)),
            ]
            .into_iter()
            .map(|(pair, lines)| plain(board(&pair), fives_through(board(&pair), lines)))
            .collect(),
            Opening::StraightFive => edge_lines()
                .into_iter()
                .map(|edge| {
                    let stones = board(&edge);
                    let (f, r) = edge[0];
                    let lines = if edge[1].1 == r {
                        fives_of_six(0, r, 1, 0)
                    } else {
                        fives_of_six(f, 0, 0, 1)
                    };
                    plain(stones, fives_through(stones, lines))
                })
                .collect(),
            Opening::TriplePower => off_centre_diagonals()
                .into_iter()
                .flat_map(|diagonal| {
                    let aim = board(&diagonal);
                    // Tops at either end; the tail is either square of the other end.
                    [(0, 1, 3, 4), (0, 1, 4, 3), (3, 4, 1, 0), (3, 4, 0, 1)].map(
                        |(top1, top2, tail, free)| Pattern {
                            stones: board(&[
                                diagonal[top1],
                                diagonal[top2],
                                diagonal[2],
                                diagonal[tail],
                            ]),
                            empty: board(&[diagonal[free]]),
                            aims: [aim, aim],
                        },
                    )
                })
                .collect(),
        }
    }

    /// The first pattern of the opening that black shows in `position`, if any.
    #[must_use]
    pub fn recognise(self, position: &Position) -> Option<Pattern> {
        let black = position.black();
        let occupied = position.occupied();
        self.patterns().into_iter().find(|p| {
            p.stones.union(black) == black
                && p.empty.union(occupied.complement()) == occupied.complement()
        })
    }

    /// The five-lines of the opening's family (every pattern's aims).
    #[must_use]
    pub fn aimed_fives(self) -> Vec<Bitboard> {
        let mut lines: Vec<Bitboard> = self.patterns().iter().flat_map(|p| p.aims).collect();
        lines.sort_unstable_by_key(|b| b.bits());
        lines.dedup();
        lines
    }

    /// Whether black completed one of the opening's aimed fives in a finished game.
    #[must_use]
    pub fn aim_completed(self, final_position: &Position) -> bool {
        if final_position.status() != Status::Won(Color::Black) {
            return false;
        }
        let black = final_position.black();
        self.aimed_fives()
            .iter()
            .any(|five| five.union(black) == black)
    }

    /// Black's first two stones that open the plan.
    #[must_use]
    pub fn seeds(self) -> Vec<Bitboard> {
        let mut seeds: Vec<Bitboard> = match self {
            Opening::MonicasFive | Opening::MiddleFive => {
                self.patterns().iter().map(|p| p.stones).collect()
            }
            Opening::StraightFive => edge_lines()
                .into_iter()
                .flat_map(|e| {
                    [
                        board(&[e[0], e[1]]),
                        board(&[e[1], e[2]]),
                        board(&[e[0], e[2]]),
                    ]
                })
                .collect(),
            Opening::TriplePower => off_centre_diagonals()
                .into_iter()
                .flat_map(|d| [board(&[d[0], d[1]]), board(&[d[3], d[4]])])
                .collect(),
        };
        seeds.sort_unstable_by_key(|b| b.bits());
        seeds.dedup();
        seeds
    }

    /// The study's start positions after black's second move (white to move), canonical and
    /// each once, in key order.
    #[must_use]
    pub fn start_positions(self) -> Vec<Position> {
        let mut keys = Vec::new();
        for seed in self.seeds() {
            for white in Square::all().filter(|s| !seed.contains(*s)) {
                let position = Position::from_bitboards(seed, Bitboard::EMPTY.with(white))
                    .expect("two black stones and one white stone");
                keys.push(position.canonical_key());
            }
        }
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter()
            .map(|key| Position::from_key(key).expect("keys of real positions"))
            .collect()
    }

    /// Whether `position` is one of the study's start positions, in any orientation.
    #[must_use]
    pub fn is_start(self, position: &Position) -> bool {
        position.stone_count() == 3
            && self.seeds().iter().any(|seed| {
                Symmetry::ALL
                    .iter()
                    .any(|s| s.apply(position).black() == *seed)
            })
    }
}

/// The 16 three-square edges of the quadrants.
fn edge_lines() -> Vec<[(u8, u8); 3]> {
    let mut edges = Vec::new();
    for (qf, qr) in [(0, 0), (3, 0), (0, 3), (3, 3)] {
        for offset in [0, 2] {
            edges.push([
                (qf, qr + offset),
                (qf + 1, qr + offset),
                (qf + 2, qr + offset),
            ]);
            edges.push([
                (qf + offset, qr),
                (qf + offset, qr + 1),
                (qf + offset, qr + 2),
            ]);
        }
    }
    edges
}

/// The four off-centre diagonals that cross three quadrants, square by square.
fn off_centre_diagonals() -> [Vec<(u8, u8)>; 4] {
    [
        line(0, 4, 1, -1, 5), // a5-e1
        line(1, 5, 1, -1, 5), // b6-f2
        line(0, 1, 1, 1, 5),  // a2-e6
        line(1, 0, 1, 1, 5),  // b1-f5
    ]
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Opening {
    type Err = ParseOpeningError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text
            .trim()
            .to_ascii_lowercase()
            .replace(['\'', '’'], "")
            .replace(['_', ' '], "-");
        Opening::ALL
            .into_iter()
            .find(|o| o.name() == wanted)
            .ok_or_else(|| ParseOpeningError(crate::excerpt(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_black(squares: &[&str], white: &[&str]) -> Position {
        let set = |names: &[&str]| {
            names
                .iter()
                .fold(Bitboard::EMPTY, |b, n| b.with(n.parse().unwrap()))
        };
        Position::from_bitboards(set(squares), set(white)).unwrap()
    }

    fn every_image(position: &Position) -> impl Iterator<Item = Position> + '_ {
        Symmetry::ALL.iter().map(|s| s.apply(position))
    }

    #[test]
    fn each_opening_recognises_its_examples_in_every_orientation() {
        let examples = [
            (Opening::MonicasFive, with_black(&["b5", "e2"], &["c3"])),
            (Opening::MiddleFive, with_black(&["b5", "e5"], &["a1"])),
            (
                Opening::StraightFive,
                with_black(&["a4", "a5", "a6"], &["f1", "f2"]),
            ),
            (
                Opening::StraightFive,
                with_black(&["c4", "c5", "c6"], &["f1", "f2"]),
            ),
            (
                Opening::TriplePower,
                with_black(&["a5", "b4", "c3", "d2"], &["f6", "f5", "f4"]),
            ),
        ];
        for (opening, example) in examples {
            for image in every_image(&example) {
                assert!(opening.recognise(&image).is_some(), "{opening} {image}");
            }
        }
    }

    #[test]
    fn near_misses_are_rejected() {
        let misses = [
            // Centres of the same row: middle five, not Monica's.
            (Opening::MonicasFive, with_black(&["b5", "e5"], &["c3"])),
            // Off-centre squares of opposite quadrants.
            (Opening::MonicasFive, with_black(&["a6", "f1"], &["c3"])),
            // Opposite centres are not adjacent.
            (Opening::MiddleFive, with_black(&["b5", "e2"], &["a1"])),
            // Three in a row across two quadrants' edges is no single quadrant edge.
            (
                Opening::StraightFive,
                with_black(&["b6", "c6", "d6"], &["f1", "f2"]),
            ),
            // Three through a quadrant's middle column, not an edge.
            (
                Opening::StraightFive,
                with_black(&["b4", "b5", "b6"], &["f1", "f2"]),
            ),
            // The fifth square of the diagonal is taken: no check.
            (
                Opening::TriplePower,
                with_black(&["a5", "b4", "c3", "d2"], &["e1", "f5", "f4"]),
            ),
            // Four on the main diagonal, not an off-centre one.
            (
                Opening::TriplePower,
                with_black(&["a6", "b5", "c4", "d3"], &["f6", "f5", "f4"]),
            ),
        ];
        for (opening, miss) in misses {
            for image in every_image(&miss) {
                assert!(opening.recognise(&image).is_none(), "{opening} {image}");
            }
        }
    }

    #[test]
    fn aims_are_fives_through_the_pattern() {
        for opening in Opening::ALL {
            for pattern in opening.patterns() {
                for aim in pattern.aims {
                    assert_eq!(aim.count(), 5, "{opening}");
                    assert!(aim.has_five(), "{opening}: an aim is a five-line");
                    assert_eq!(
                        aim.union(pattern.stones),
                        aim,
                        "{opening}: the stones lie on the aim"
                    );
                }
            }
        }
        assert_eq!(Opening::MonicasFive.aimed_fives().len(), 4);
        assert_eq!(Opening::TriplePower.aimed_fives().len(), 4);
        assert_eq!(Opening::StraightFive.patterns().len(), 16);
        assert_eq!(Opening::TriplePower.patterns().len(), 16);
    }

    #[test]
    fn study_starts_are_canonical_reachable_and_recognised() {
        for opening in Opening::ALL {
            let starts = opening.start_positions();
            assert!(!starts.is_empty());
            for start in &starts {
                assert_eq!(start.canonical().position, *start);
                assert_eq!(start.side_to_move(), Color::White);
                assert!(opening.is_start(start), "{opening} {start}");
            }
        }
        // b5+e2 with white on any of 34 squares; the diagonal mirror halves them, roughly.
        let monica = Opening::MonicasFive.start_positions().len();
        assert!((10..=34).contains(&monica), "{monica}");
        assert!(!Opening::MonicasFive.is_start(&with_black(&["b5", "e5"], &["a1"])));
    }

    #[test]
    fn names_parse_and_print() {
        for opening in Opening::ALL {
            assert_eq!(opening.name().parse::<Opening>(), Ok(opening));
        }
        assert_eq!("Monica's five".parse::<Opening>(), Ok(Opening::MonicasFive));
        assert!("queens-gambit".parse::<Opening>().is_err());
    }
}
