//! The retrograde midsolver: exact values of a position with at least 18 stones and of all its
//! moves, by backward induction over every position downstream of it.
//!
//! The idea is G. Irving's ("Pentago is a first player win", arXiv:1404.0743): keep the stones
//! in the root's frame and carry the quadrant turns as a rotation state, so that the root's
//! empty squares never move and a downstream position is just which of them each side filled
//! (see `layers`); evaluate all 256 rotation states of a position at once as bit vectors (see
//! `rotations`). The time depends only on the number of empty squares, never on the position.

mod layers;
mod rotations;
mod subsets;

use std::time::Instant;

use thiserror::Error;

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::twist::{Direction, Quadrant, Twist};
use crate::search::value::Value;
use layers::{Entry, Fives, Layer, Memory, Root, Stop, layer};
use rotations::{Half, five_halves, half_bit, parity};
use subsets::MAX_BITS;

/// The fewest stones the midsolver accepts (at most 18 empty squares).
pub const MID_MIN_STONES: u32 = 36 - MAX_BITS as u32;

/// Why the midsolver refused a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MidSolveError {
    /// The position has too many empty squares for the midsolver's tables.
    #[error("the midsolver needs at least {min} stones, the position has {stones}")]
    TooFewStones {
        /// Stones on the board.
        stones: u32,
        /// The fewest the midsolver accepts.
        min: u32,
    },
    /// The game is already over: there is nothing to solve.
    #[error("the game is over")]
    Finished,
    /// The caller's stop condition ended the walk before it reached the position.
    #[error("the midsolve was stopped before it finished")]
    Stopped,
}

/// The midsolver's answer: the value of the root and of each of its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct MidSolution {
    /// The value for the side to move.
    pub value: Value,
    /// Every legal move (in legal order) with its value for the side to move.
    pub moves: Vec<(Move, Value)>,
    /// The values of the root's [`rotated_variants`], in their order (`None` where the game
    /// is over): the same walk values them all. A search below the midsolver's reach meets
    /// many of them (the eight twists after one placement are one such family).
    pub rotated: Vec<Option<Value>>,
    /// The most bytes of layer tables held at once during the walk.
    pub table_bytes: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Solves `position` exactly, with the values of all its moves. Uses the rayon pool within
/// each layer; the result does not depend on the number of threads.
pub fn midsolve(position: &Position) -> Result<MidSolution, MidSolveError> {
    midsolve_until(position, &|| false)
}

/// [`midsolve`], abandoned ([`MidSolveError::Stopped`]) as soon as `stop` answers `true`: it
/// is asked from the walk's thread every few milliseconds of work (a deadline, a stop flag, or a
/// count of calls where a test must not depend on the clock).
pub fn midsolve_until(
    position: &Position,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<MidSolution, MidSolveError> {
    let started = Instant::now();
    let stones = position.stone_count();
    if position.is_over() {
        return Err(MidSolveError::Finished);
    }
    if stones < MID_MIN_STONES {
        return Err(MidSolveError::TooFewStones {
            stones,
            min: MID_MIN_STONES,
        });
    }
    // The whole walk runs as one job in the rayon pool: each parallel step started from outside
    // the pool would hand a job to a worker and wait for it (hundreds of steps per walk), which
    // costs more than the work itself in the small walks.
    let (value, moves, rotated, peak) =
        rayon::scope(|_| walk(position, stop)).ok_or(MidSolveError::Stopped)?;
    Ok(MidSolution {
        value,
        moves,
        rotated,
        table_bytes: peak * size_of::<Entry>(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What [`walk`] finds: the position's value, its moves' values, its rotated variants' values,
/// and the most entries held at once.
type Walk = (Value, Vec<(Move, Value)>, Vec<Option<Value>>, usize);

/// The backward walk from the full board to `position` (see [`Walk`]); `None` when `stop`
/// ended it.
fn walk(position: &Position, stop: &Stop<'_>) -> Option<Walk> {
    let mover = position.side_to_move();
    let a = position.stones(mover).bits();
    let root = Root::new(a, position.stones(mover.opponent()).bits());
    let k = root.empties();
    let mut fives = Fives::default();
    let mut memory = Memory::default();
    let mut child: Layer = Vec::new();
    for m in (1..k).rev() {
        child = layer(&root, m, &mut child, false, &mut fives, &mut memory, stop)?;
    }
    // `child` is now layer 1 (or empty when one square is left): the root's children.
    let top = layer(&root, 0, &mut child, true, &mut fives, &mut memory, stop)?[0][0];
    let value = value_at(&top, [0; 4]);
    let moves = root_moves(position, &root, &child);
    debug_assert_eq!(Some(value), moves.iter().map(|&(_, v)| v).max());
    let rotated = rotated_values(position, &top);
    Some((value, moves, rotated, memory.peak))
}

/// Number of [`rotated_variants`] of a position.
pub const ROTATED_VARIANTS: usize = 127;

/// The rotation states of [`rotated_variants`], in order: every quarter-turn count per
/// quadrant whose sum is even, but none at all; ordered by `r_0 + 4 r_1 + 16 r_2 + 64 r_3`.
fn even_states() -> impl Iterator<Item = [u8; 4]> {
    (1u32..256)
        .map(|n| [0, 2, 4, 6].map(|shift| (n >> shift & 3) as u8))
        .filter(|&r| parity(r) == 0)
}

/// The positions `position` becomes when its quadrants are turned by an even number of
/// quarter turns in all (some may repeat, or equal `position`, when a quadrant is symmetric):
/// [`ROTATED_VARIANTS`] of them in a stable order, the order of [`MidSolution::rotated`]
/// (stable: the cluster's wire format sends values in it).
#[must_use]
pub fn rotated_variants(position: &Position) -> Vec<Position> {
    even_states().map(|r| rotated(position, r)).collect()
}

/// The values of the root's rotated variants from its entry (`None` where the game is over:
/// the entry's bit is then the value of playing on).
fn rotated_values(position: &Position, top: &Entry) -> Vec<Option<Value>> {
    even_states()
        .map(|r| (!rotated(position, r).is_over()).then(|| value_at(top, r)))
        .collect()
}

/// `position` with each quadrant `q` turned `r[q]` quarter turns clockwise.
fn rotated(position: &Position, r: [u8; 4]) -> Position {
    let (mut own, mut other) = position.sides();
    for (q, &turns) in r.iter().enumerate() {
        let twist = Twist::new(Quadrant::from_index_unchecked(q), Direction::Right);
        for _ in 0..turns {
            own = own.twisted(twist);
            other = other.twisted(twist);
        }
    }
    Position::from_sides(position.side_to_move(), own, other)
}

/// The value for the side to move in the rotation state `r` of an entry.
fn value_at(entry: &Entry, r: [u8; 4]) -> Value {
    let bit = half_bit(r);
    if entry.win >> bit & 1 == 1 {
        Value::Win
    } else if entry.notlose >> bit & 1 == 1 {
        Value::Draw
    } else {
        Value::Loss
    }
}

fn has(half: Half, r: [u8; 4]) -> bool {
    half >> half_bit(r) & 1 == 1
}

/// The value of each root move from layer 1: a placement that makes five wins at once;
/// otherwise the twist decides by the fives it leaves, else the child's value.
fn root_moves(position: &Position, root: &Root, layer1: &Layer) -> Vec<(Move, Value)> {
    let mover = position.side_to_move();
    let a = position.stones(mover).bits();
    let other_five = five_halves(position.stones(mover.opponent()).bits());
    let empties = position.empty().bits();
    position
        .legal_moves()
        .iter()
        .map(|&mv| {
            let lane = mv.square().mask();
            // The square's number among the empties is its rank as a one-square subset.
            let index = (empties & (lane - 1)).count_ones() as usize;
            debug_assert_eq!(root.lanes(1 << index), lane);
            let five = five_halves(a | lane);
            let value = if has(five[0], [0; 4]) {
                Value::Win
            } else {
                let r = twisted_state(mv.twist());
                let (mine, theirs) = (has(five[parity(r)], r), has(other_five[parity(r)], r));
                match (mine, theirs) {
                    (true, true) => Value::Draw,
                    (true, false) => Value::Win,
                    (false, true) => Value::Loss,
                    (false, false) if layer1.is_empty() => Value::Draw,
                    (false, false) => value_at(&layer1[index][0], r).negate(),
                }
            };
            (mv, value)
        })
        .collect()
}

/// The rotation state after one twist from the root's frame.
fn twisted_state(twist: Twist) -> [u8; 4] {
    let mut r = [0u8; 4];
    r[twist.quadrant().index()] = match twist.direction() {
        Direction::Right => 1,
        Direction::Left => 3,
    };
    r
}

#[cfg(test)]
mod tests;
