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
        let mut slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize;
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

/// The moves of `position` grouped by the child they reach (by exact position, or with
/// `fold_symmetric` by symmetry class when the position is symmetric), in legal order. Each
/// group's first move stands for the group: search tables and stored tables merge the rows of a
/// group under it. Stable: stored tables depend on it.
pub fn move_groups(position: &Position, fold_symmetric: bool) -> Vec<Vec<Move>> {
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
