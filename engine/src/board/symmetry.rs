//! The 8 symmetries of the board (dihedral group D4) acting on squares, moves and positions,
//! and the canonical form of a position.
//!
//! ```
//! use pentago::{Move, Position};
//!
//! // The four corners of the empty board after one stone are one position up to symmetry.
//! let corners = ["a1-1R", "f1-1R", "a6-4R", "f6-3R"].map(|m| {
//!     let mv: Move = m.parse().unwrap();
//!     Position::START.play(mv).unwrap()
//! });
//! let canonical = corners[0].canonical();
//! assert!(corners.iter().all(|p| p.canonical().position == canonical.position));
//!
//! // The symmetry maps moves into the canonical frame, and its inverse maps them back.
//! let reply: Move = "b2-2L".parse().unwrap();
//! let mapped = canonical.symmetry.apply_move(reply);
//! assert_eq!(canonical.symmetry.inverse().apply_move(mapped), reply);
//! ```

use std::fmt;

use crate::board::moves::Move;
use crate::board::position::{Position, PositionKey};
use crate::board::square::Square;
use crate::board::tables::{QUADRANT_SYMMETRY, map_coords};
use crate::board::twist::{Quadrant, Twist};

/// A board symmetry. Symmetry `g` mirrors left-right when `g >= 4` and then turns the board
/// clockwise `g % 4` times. Because the board is a 2×2 grid of 3×3 quadrants, every symmetry
/// moves whole quadrants and transforms each quadrant's contents the same way, so it maps
/// positions to positions and moves to moves (mirrors reverse the twist direction).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All eight symmetries: identity, three clockwise turns, then the four mirror images.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// Index 0–7 in the order of [`Symmetry::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Whether this symmetry mirrors the board (and so reverses twist directions).
    #[must_use]
    pub const fn is_mirror(self) -> bool {
        self.0 >= 4
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub const fn inverse(self) -> Symmetry {
        if self.is_mirror() {
            self
        } else {
            Symmetry((4 - self.0) % 4)
        }
    }

    /// The image of a square.
    #[must_use]
    pub const fn square(self, square: Square) -> Square {
        let (x, y) = map_coords(
            self.0 as usize,
            5,
            square.file() as usize,
            5 - square.rank() as usize,
        );
        match Square::from_coords(x as u8, (5 - y) as u8) {
            Some(image) => image,
            None => unreachable!(),
        }
    }

    /// The image of a quadrant.
    #[must_use]
    pub const fn quadrant(self, quadrant: Quadrant) -> Quadrant {
        Quadrant::from_index_unchecked(
            QUADRANT_SYMMETRY[self.0 as usize][quadrant.index()] as usize,
        )
    }

    /// The image of a twist.
    #[must_use]
    pub const fn twist(self, twist: Twist) -> Twist {
        let direction = if self.is_mirror() {
            twist.direction().reversed()
        } else {
            twist.direction()
        };
        Twist::new(self.quadrant(twist.quadrant()), direction)
    }

    /// The image of a move.
    #[must_use]
    pub const fn apply_move(self, mv: Move) -> Move {
        Move::new(self.square(mv.square()), self.twist(mv.twist()))
    }

    /// The image of a position.
    #[must_use]
    pub const fn apply(self, position: &Position) -> Position {
        Position::from_sides(
            crate::Color::Black,
            position.black().transformed(self.0 as usize),
            position.white().transformed(self.0 as usize),
        )
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; 8] = [
            "identity",
            "turn90",
            "turn180",
            "turn270",
            "mirror",
            "mirror+turn90",
            "mirror+turn180",
            "mirror+turn270",
        ];
        f.write_str(NAMES[self.index()])
    }
}

/// A position in canonical form together with the symmetry that leads there.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical image.
    pub position: Position,
    /// The symmetry that maps the original position onto `position`; map moves into the
    /// canonical frame with it, and back with its inverse.
    pub symmetry: Symmetry,
}

impl Position {
    /// The canonical form: of the 8 images under [`Symmetry::ALL`], the one with the smallest
    /// [`PositionKey`] (ties, from symmetric positions, go to the first symmetry in that order).
    /// Stable: stored tables are keyed by it.
    #[must_use]
    pub fn canonical(&self) -> Canonical {
        let mut best = Canonical {
            position: *self,
            symmetry: Symmetry::IDENTITY,
        };
        let mut best_key = self.key();
        for symmetry in &Symmetry::ALL[1..] {
            let image = symmetry.apply(self);
            let key = image.key();
            if key < best_key {
                best_key = key;
                best = Canonical {
                    position: image,
                    symmetry: *symmetry,
                };
            }
        }
        best
    }

    /// The key of the canonical form: equal for exactly the positions that are symmetric.
    #[must_use]
    pub fn canonical_key(&self) -> PositionKey {
        Symmetry::ALL
            .iter()
            .map(|s| s.apply(self).key())
            .min()
            .expect("eight symmetries")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn clockwise_turn_moves_corners_clockwise() {
        let turn = Symmetry::ALL[1];
        assert_eq!(turn.square(sq("a6")), sq("f6"));
        assert_eq!(turn.square(sq("f6")), sq("f1"));
        assert_eq!(turn.square(sq("f1")), sq("a1"));
        assert_eq!(turn.quadrant(Quadrant::ALL[0]).number(), 2);
        let mirror = Symmetry::ALL[4];
        assert_eq!(mirror.square(sq("a1")), sq("f1"));
        assert_eq!(mirror.twist(Twist::ALL[0]).to_string(), "2L");
    }

    #[test]
    fn inverse_undoes_every_symmetry() {
        for s in Symmetry::ALL {
            for square in Square::all() {
                assert_eq!(s.inverse().square(s.square(square)), square);
            }
            for index in 0..288 {
                let mv = Move::from_index(index).unwrap();
                assert_eq!(s.inverse().apply_move(s.apply_move(mv)), mv);
            }
        }
    }

    #[test]
    fn symmetries_are_distinct() {
        let probe = [sq("a6"), sq("b6")];
        let images: std::collections::HashSet<_> = Symmetry::ALL
            .iter()
            .map(|s| probe.map(|p| s.square(p)))
            .collect();
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn position_image_agrees_with_square_image() {
        let p: Position = "x.o.../.x..../....../....../....../.....o".parse().unwrap();
        for s in Symmetry::ALL {
            let image = s.apply(&p);
            for square in Square::all() {
                assert_eq!(image.stone_at(s.square(square)), p.stone_at(square));
            }
        }
    }
}
