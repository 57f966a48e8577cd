//! The distinct positions a position leads to: moves that reach the same position (twisting an
//! empty or symmetric quadrant, or a placement that a twist carries onto another square) are
//! listed once, under the first such move in legal order.

use crate::board::moves::Move;
use crate::board::position::{Position, PositionKey};
use crate::board::symmetry::Symmetry;

/// Collects distinct children, reusing its scratch space between calls.
pub(crate) struct Children {
    slots: Vec<u64>,
    used: Vec<usize>,
}

const SLOTS: usize = 1024;

impl Children {
    pub fn new() -> Children {
        Children {
            slots: vec![0; SLOTS],
            used: Vec::with_capacity(Move::COUNT),
        }
    }

    /// Appends `(move, child)` for each distinct child of an ongoing `position` to `out`.
    /// With `fold_symmetric`, children that are symmetric images of an earlier child are
    /// dropped too when `position` itself is symmetric (their values are equal).
    pub fn collect(
        &mut self,
        position: &Position,
        fold_symmetric: bool,
        out: &mut Vec<(Move, Position)>,
    ) {
        let canonical = fold_symmetric && is_symmetric(position);
        for slot in self.used.drain(..) {
            self.slots[slot] = 0;
        }
        for mv in position.legal_moves().iter().copied() {
            let child = position.play_unchecked(mv);
            if self.insert(merge_key(&child, canonical)) {
                out.push((mv, child));
            }
        }
    }

    /// Inserts a key (never 0: that is the empty board, nobody's child); false if present.
    fn insert(&mut self, key: u64) -> bool {
        let mut slot = home_slot(key, SLOTS);
        loop {
            match self.slots[slot] {
                0 => {
                    self.slots[slot] = key;
                    self.used.push(slot);
                    return true;
                }
                k if k == key => return false,
                _ => slot = (slot + 1) % SLOTS,
            }
        }
    }
}

/// Where a linear-probing table of `slots` (a power of two) starts looking for `key`:
/// Fibonacci hashing, so nearby keys spread out.
fn home_slot(key: u64, slots: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - slots.trailing_zeros())) as usize
}

/// The key under which children are merged: exact, or by symmetry class.
fn merge_key(child: &Position, canonical: bool) -> u64 {
    if canonical {
        child.canonical_key().0
    } else {
        child.key().0
    }
}

/// Whether some non-identity symmetry maps the position onto itself.
pub(crate) fn is_symmetric(position: &Position) -> bool {
    Symmetry::ALL[1..]
        .iter()
        .any(|s| s.apply(position) == *position)
}

/// The moves of a position grouped by the child they reach (by exact position, or with
/// `fold_symmetric` by symmetry class when the position is symmetric): groups in the order of
/// their first move, moves in legal order within a group. Each group's first move stands for
/// the group: search tables and stored tables merge the rows of a group under it. Stable:
/// stored tables depend on it. Held flat (two allocations whatever the number of groups),
/// since book queries and result checks build one per call.
#[derive(Clone, Debug)]
pub struct MoveGroups {
    moves: Vec<Move>,
    /// Where each group ends in `moves`.
    ends: Vec<u16>,
}

/// Hash slots of [`MoveGroups::of`]: a power of two above the most legal moves, small enough to
/// live on the stack of a recursive search.
const GROUP_SLOTS: usize = 512;

impl MoveGroups {
    /// The groups of `position`'s legal moves (none for a finished game).
    #[must_use]
    pub fn of(position: &Position, fold_symmetric: bool) -> MoveGroups {
        let canonical = fold_symmetric && is_symmetric(position);
        let legal = position.legal_moves();
        // Key 0 is the empty board, nobody's child: it marks a free slot.
        let mut slots = [(0u64, 0u16); GROUP_SLOTS];
        let mut group_of_move = [0u16; Move::COUNT];
        // Moves per group; after the prefix sums, where the group's next move goes.
        let mut sizes: Vec<u16> = Vec::new();
        for (index, &mv) in legal.iter().enumerate() {
            let key = merge_key(&position.play_unchecked(mv), canonical);
            let mut slot = home_slot(key, GROUP_SLOTS);
            let group = loop {
                match slots[slot] {
                    (0, _) => {
                        let group = sizes.len() as u16;
                        slots[slot] = (key, group);
                        sizes.push(0);
                        break group;
                    }
                    (k, group) if k == key => break group,
                    _ => slot = (slot + 1) % GROUP_SLOTS,
                }
            };
            group_of_move[index] = group;
            sizes[usize::from(group)] += 1;
        }
        // Counting sort by group, stable: each group keeps its moves in legal order.
        let mut ends = Vec::with_capacity(sizes.len());
        let mut end = 0;
        for size in &mut sizes {
            let start = end;
            end += *size;
            ends.push(end);
            *size = start;
        }
        let mut moves = legal.iter().copied().collect::<Vec<Move>>();
        for (index, &mv) in legal.iter().enumerate() {
            let next = &mut sizes[usize::from(group_of_move[index])];
            moves[usize::from(*next)] = mv;
            *next += 1;
        }
        MoveGroups { moves, ends }
    }

    /// How many groups (distinct children).
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no groups (a finished game).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The groups, in the order of their first move.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[Move]> + '_ {
        (0..self.len()).map(|group| self.group(group))
    }

    /// The group holding `mv`, if it is a legal move.
    #[must_use]
    pub fn group_of(&self, mv: Move) -> Option<&[Move]> {
        let at = self.moves.iter().position(|&m| m == mv)? as u16;
        Some(self.group(self.ends.partition_point(|&end| end <= at)))
    }

    fn group(&self, group: usize) -> &[Move] {
        let start = if group == 0 { 0 } else { self.ends[group - 1] };
        &self.moves[usize::from(start)..usize::from(self.ends[group])]
    }
}

/// The groups of [`MoveGroups`], each as its own vector (for callers that keep them).
#[must_use]
pub fn move_groups(position: &Position, fold_symmetric: bool) -> Vec<Vec<Move>> {
    MoveGroups::of(position, fold_symmetric)
        .iter()
        .map(<[Move]>::to_vec)
        .collect()
}

/// One legal move of `position` per position the moves reach, up to symmetry (canonical
/// keys), in move order, leaving out the moves that reach a position of `skip`: the moves
/// whose values can differ, as a search for another winning first move needs them.
pub fn distinct_moves(position: &Position, skip: &[PositionKey]) -> Vec<Move> {
    let mut seen = skip.to_vec();
    let mut moves = Vec::new();
    for &mv in position.legal_moves().iter() {
        let key = position.play_unchecked(mv).canonical_key();
        if !seen.contains(&key) {
            seen.push(key);
            moves.push(mv);
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_children_agree() {
        let p = Position::START
            .play("a1-4R".parse().unwrap())
            .unwrap()
            .play("b6-2R".parse().unwrap())
            .unwrap();
        let mut out = Vec::new();
        Children::new().collect(&p, true, &mut out);
        let groups = move_groups(&p, true);
        assert_eq!(out.len(), groups.len());
        for ((mv, child), group) in out.iter().zip(&groups) {
            assert_eq!(*mv, group[0]);
            assert!(group.iter().all(|&m| p.play_unchecked(m) == *child));
        }
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 34 * 8);
    }

    /// Groups as first written: a linear search for each move's group.
    fn reference_groups(position: &Position, fold_symmetric: bool) -> Vec<Vec<Move>> {
        let canonical = fold_symmetric && is_symmetric(position);
        let mut groups: Vec<(u64, Vec<Move>)> = Vec::new();
        for mv in position.legal_moves().iter().copied() {
            let key = merge_key(&position.play_unchecked(mv), canonical);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, moves)) => moves.push(mv),
                None => groups.push((key, vec![mv])),
            }
        }
        groups.into_iter().map(|(_, moves)| moves).collect()
    }

    #[test]
    fn flat_groups_are_the_reference_groups_and_find_each_move() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        for _ in 0..300 {
            let mut position = Position::START;
            let plies = rng.random_range(0..30);
            for _ in 0..plies {
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                position = position.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
            for fold in [false, true] {
                let groups = MoveGroups::of(&position, fold);
                let flat: Vec<Vec<Move>> = groups.iter().map(<[Move]>::to_vec).collect();
                assert_eq!(flat, reference_groups(&position, fold), "{position} {fold}");
                for group in &flat {
                    for &mv in group {
                        assert_eq!(groups.group_of(mv), Some(group.as_slice()));
                    }
                }
                assert_eq!(groups.is_empty(), position.is_over());
            }
        }
    }

    #[test]
    fn symmetric_start_folds_to_six() {
        let mut out = Vec::new();
        Children::new().collect(&Position::START, true, &mut out);
        assert_eq!(out.len(), 6);
        out.clear();
        Children::new().collect(&Position::START, false, &mut out);
        assert_eq!(
            out.len(),
            36,
            "one stone anywhere, twists of empty quadrants fold away"
        );
    }

    #[test]
    fn distinct_moves_reach_each_position_once_up_to_symmetry_and_skip_what_is_asked() {
        let p = Position::START.play("a1-4R".parse().unwrap()).unwrap();
        let keys = |moves: &[Move]| -> Vec<PositionKey> {
            moves
                .iter()
                .map(|&mv| p.play_unchecked(mv).canonical_key())
                .collect()
        };
        let all = distinct_moves(&p, &[]);
        let mut reached = keys(&all);
        reached.sort_unstable();
        reached.dedup();
        assert_eq!(reached.len(), all.len(), "each position once");
        let mut every = keys(&p.legal_moves());
        every.sort_unstable();
        every.dedup();
        assert_eq!(reached, every, "every position reached");
        let skipped = distinct_moves(&p, &[reached[0]]);
        assert_eq!(skipped.len(), all.len() - 1);
        assert!(!keys(&skipped).contains(&reached[0]));
    }
}
