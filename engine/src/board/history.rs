//! A way to reach a position: legal moves from the empty board that end in it. For telling a
//! position to an engine program that only learns a game by its moves (GTP has no command to
//! set up a position). And a position's parents: the positions one move before it (for carrying
//! exact values up through a stored book).

use crate::board::bitboard::Bitboard;
use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::twist::Twist;

/// Positions the backward search may visit before it gives up (it finds a way at once for
/// ordinary positions; the bound only keeps pathological inputs cheap).
const MAX_STEPS: u32 = 100_000;

/// Moves from the empty board that reach the ongoing `position`, in order, or `None` when the
/// game is over there or no way was found. Found backwards: undo a twist, take away a stone of
/// the player who moved last, as long as each earlier position is an ongoing game and the
/// placement would not have won at once.
#[must_use]
pub fn moves_reaching(position: &Position) -> Option<Vec<Move>> {
    if position.is_over() {
        return None;
    }
    let mut moves = Vec::with_capacity(position.stone_count() as usize);
    let mut steps = MAX_STEPS;
    back(*position, &mut moves, &mut steps).then_some(moves)
}

/// Every (parent, move) such that the ongoing `parent` plays `move` into `position`: undo a
/// twist, take away a stone of the player who moved last. At most 8 twists times 18 stones;
/// a parent reached by several moves (a symmetric quadrant twisted either way) comes once per
/// move. None for the empty board or a finished game (a finished game has parents, but a
/// book never stores one, so they are not asked for).
#[must_use]
pub fn parents(position: &Position) -> Vec<(Position, Move)> {
    if position.stone_count() == 0 || position.is_over() {
        return Vec::new();
    }
    one_move_back(position).collect()
}

/// The ongoing positions that `position` follows by one move, with that move: undo a twist,
/// take away a stone of the player who moved last, keep what replays into `position`.
fn one_move_back(position: &Position) -> impl Iterator<Item = (Position, Move)> + '_ {
    let mover = position.side_to_move().opponent();
    Twist::ALL.into_iter().flat_map(move |twist| {
        let undo = Twist::new(twist.quadrant(), twist.direction().reversed());
        let black = position.black().twisted(undo);
        let white = position.white().twisted(undo);
        let own = match mover {
            Color::Black => black,
            Color::White => white,
        };
        // After the placement and before the twist the mover had no five (it would have won).
        let placed = if own.has_five() { Bitboard::EMPTY } else { own };
        placed.squares().filter_map(move |square| {
            let without = |b: Bitboard| Bitboard::from_bits(b.bits() & !square.mask());
            let (b, w) = match mover {
                Color::Black => (without(black), white),
                Color::White => (black, without(white)),
            };
            let before = Position::from_bitboards(b, w).ok()?;
            let mv = Move::new(square, twist);
            (!before.is_over() && before.play_unchecked(mv) == *position).then_some((before, mv))
        })
    })
}

fn back(position: Position, moves: &mut Vec<Move>, steps: &mut u32) -> bool {
    if position.stone_count() == 0 {
        return true;
    }
    if *steps == 0 {
        return false;
    }
    *steps -= 1;
    for (before, mv) in one_move_back(&position) {
        if back(before, moves, steps) {
            moves.push(mv);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_are_exactly_the_positions_one_move_before() {
        for seed in 0..50u64 {
            let position = random_opening(seed, 1 + (seed % 20) as u32);
            if position.is_over() {
                continue;
            }
            let found = parents(&position);
            assert!(!found.is_empty(), "{position}");
            for (parent, mv) in &found {
                assert_eq!(parent.play(*mv).unwrap(), position);
            }
            // Brute force over one parent's moves finds the same moves into the position.
            let (parent, _) = found[0];
            let forward: Vec<Move> = parent
                .legal_moves()
                .iter()
                .copied()
                .filter(|&m| parent.play_unchecked(m) == position)
                .collect();
            let backward: Vec<Move> = found
                .iter()
                .filter(|(p, _)| *p == parent)
                .map(|(_, m)| *m)
                .collect();
            let mut forward_sorted = forward.clone();
            forward_sorted.sort_unstable();
            let mut backward_sorted = backward.clone();
            backward_sorted.sort_unstable();
            assert_eq!(forward_sorted, backward_sorted, "{parent} -> {position}");
        }
        assert!(parents(&Position::START).is_empty());
    }
    use crate::play::matches::random_opening;
    use pentagrid_gamekit::seeded_rng;
    use rand::RngExt;

    fn replay(moves: &[Move]) -> Position {
        moves.iter().fold(Position::START, |p, &mv| {
            assert!(!p.is_over());
            p.play(mv).unwrap()
        })
    }

    #[test]
    fn openings_and_random_positions_are_reached() {
        for seed in 0..200 {
            let opening = random_opening(seed, (seed % 21) as u32);
            let moves = moves_reaching(&opening).unwrap();
            assert_eq!(replay(&moves), opening);
        }
        let mut rng = seeded_rng(7, 0);
        for _ in 0..100 {
            let mut p = Position::START;
            let length = rng.random_range(0..34);
            for _ in 0..length {
                let legal = p.legal_moves();
                let next = p.play_unchecked(legal[rng.random_range(0..legal.len())]);
                if next.is_over() {
                    break;
                }
                p = next;
            }
            let moves = moves_reaching(&p).unwrap();
            assert_eq!(moves.len() as u32, p.stone_count());
            assert_eq!(replay(&moves), p);
        }
    }

    #[test]
    fn finished_games_have_no_way_in() {
        let over: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
        assert_eq!(moves_reaching(&over), None);
        assert_eq!(moves_reaching(&Position::START), Some(Vec::new()));
    }
}
