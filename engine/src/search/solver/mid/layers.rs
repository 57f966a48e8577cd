//! The backward walk over the positions downstream of a root, one layer (number of stones
//! added) at a time, from the last empty square back to the root.
//!
//! Stones stay in the root's frame (quadrant turns live in the rotation state, see
//! `rotations`), so a downstream position is which of the root's `k` empty squares each side
//! has filled. Layer `m` holds every such choice with `m` stones added: the root's mover `A`
//! has added `(m + 1) / 2`, the other side `B` has added `m / 2`. An entry is indexed by the
//! rank of `A`'s subset (the major index: all entries with one `A` subset form a block) and the
//! rank of `B`'s subset among the squares `A` left free. Entries hold, for the side to move in
//! that layer and every rotation state of the layer's parity, whether it wins and whether it
//! avoids losing.
//!
//! Memory: blocks are computed in rank order, and a child block is freed as soon as the last
//! block that reads it is done (where `A` moves, the child block of `c` is last read by `c`
//! minus its lowest square; where `B` moves, only by the block of the same rank), so the walk
//! holds little more than its largest layer rather than two.

use rayon::prelude::*;

use super::rotations::{Half, five_halves, spread};
use super::subsets::{Deposit, MAX_BITS, choose, masks, ranks};

/// The values of one downstream position over its layer's rotation states.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    /// States where the side to move wins.
    pub win: Half,
    /// States where the side to move wins or draws.
    pub notlose: Half,
}

/// The root of a walk: the stones of the side to move (`A`) and of the other side (`B`) in
/// the lane layout, and its empty squares.
pub(crate) struct Root {
    a: u64,
    b: u64,
    /// Number of empty squares.
    k: usize,
    /// Lane bits of subsets of the empty squares, through two 9-bit tables.
    to_lanes: [[u64; 512]; 2],
}

impl Root {
    pub(crate) fn new(a: u64, b: u64) -> Root {
        let empty = !(a | b) & crate::board::tables::FULL;
        let bits: Vec<u32> = (0..64).filter(|&i| empty >> i & 1 == 1).collect();
        let mut to_lanes = [[0u64; 512]; 2];
        for (half, table) in to_lanes.iter_mut().enumerate() {
            for i in 1..512usize {
                let bit = i.trailing_zeros() as usize + 9 * half;
                let lane = bits.get(bit).map_or(0, |&b| 1u64 << b);
                table[i] = table[i & (i - 1)] | lane;
            }
        }
        Root {
            a,
            b,
            k: bits.len(),
            to_lanes,
        }
    }

    /// Number of empty squares.
    pub(crate) fn empties(&self) -> usize {
        self.k
    }

    /// The lane bits of a subset of the empty squares.
    pub(crate) fn lanes(&self, subset: u32) -> u64 {
        self.to_lanes[0][(subset & 511) as usize] | self.to_lanes[1][(subset >> 9) as usize & 511]
    }

    /// Five halves of side `A` (or `B`) with the root's stones plus every `size`-subset of the
    /// empty squares, in rank order.
    fn fives(&self, side_a: bool, size: usize) -> Vec<[Half; 2]> {
        let base = if side_a { self.a } else { self.b };
        let subsets: Vec<u32> = masks(size, self.k).collect();
        subsets
            .par_iter()
            .with_min_len(256)
            .map(|&s| five_halves(base | self.lanes(s)))
            .collect()
    }
}

/// Five halves of each side's subsets of one size, kept from one layer to the next: layer
/// `2j + 1` needs both sides' `(j + 1)`-subsets and layer `2j` needs `A`'s `(j + 1)`-subsets and
/// `B`'s `j`-subsets, so walking down, each layer computes one side's tables and reuses the
/// other's.
pub(crate) struct Fives {
    /// `A`'s subset size and its tables.
    a: (usize, Vec<[Half; 2]>),
    /// `B`'s subset size and its tables.
    b: (usize, Vec<[Half; 2]>),
}

impl Default for Fives {
    fn default() -> Self {
        Fives {
            a: (usize::MAX, Vec::new()),
            b: (usize::MAX, Vec::new()),
        }
    }
}

impl Fives {
    /// The tables of `A`'s `a_size`-subsets and `B`'s `b_size`-subsets.
    fn get(&mut self, root: &Root, a_size: usize, b_size: usize) -> (&[[Half; 2]], &[[Half; 2]]) {
        if self.a.0 != a_size {
            self.a = (a_size, root.fives(true, a_size));
        }
        if self.b.0 != b_size {
            self.b = (b_size, root.fives(false, b_size));
        }
        (&self.a.1, &self.b.1)
    }
}

/// Stones each side has added in layer `m`: `(A, B)`.
pub(crate) const fn added(m: usize) -> (usize, usize) {
    (m.div_ceil(2), m / 2)
}

/// A layer: one block of entries per subset of `A` (in rank order); a block is emptied once
/// no later block of the layer being computed reads it.
pub(crate) type Layer = Vec<Vec<Entry>>;

/// Parent blocks computed at once (in parallel) before dead child blocks are freed.
const BATCH: usize = 64;

/// Computes layer `m` from layer `m + 1` (`child`, empty when layer `m + 1` is the full board),
/// freeing each child block after its last reader unless `keep_child`; `memory` counts the
/// entries held by both layers. `None` when `stop` says so (it is asked before each batch of
/// blocks, a few milliseconds of work at most).
pub(crate) fn layer(
    root: &Root,
    m: usize,
    child: &mut Layer,
    keep_child: bool,
    fives: &mut Fives,
    memory: &mut Memory,
    stop: &Stop<'_>,
) -> Option<Layer> {
    let k = root.k;
    let (na, nb) = added(m);
    let free = k - na;
    let a_masks: Vec<u32> = masks(na, k).collect();
    let a_moves = m.is_multiple_of(2);
    let (a_fives, b_fives) = if a_moves {
        fives.get(root, na + 1, nb)
    } else {
        fives.get(root, na, nb + 1)
    };
    let free_children = !keep_child && !child.is_empty();
    let mut out: Layer = Vec::with_capacity(a_masks.len());
    for start in (0..a_masks.len()).step_by(BATCH) {
        if stop() {
            return None;
        }
        let end = (start + BATCH).min(a_masks.len());
        let walk = Walk {
            root,
            parity: m & 1,
            a_turn: a_moves,
            full: m + 1 == k,
            free,
            nb,
            child,
        };
        let blocks: Vec<Vec<Entry>> = (start..end)
            .into_par_iter()
            .map_init(Deposit::default, |deposit, rank| {
                walk.block(deposit, rank, a_masks[rank], a_fives, b_fives)
            })
            .collect();
        memory.add(blocks.iter().map(Vec::len).sum());
        out.extend(blocks);
        if free_children {
            release(child, &a_masks[start..end], start, a_moves, k, memory);
        }
    }
    Some(out)
}

/// Whether a walk must stop now (asked from the walk's own thread between batches).
pub(crate) type Stop<'a> = dyn Fn() -> bool + Sync + 'a;

/// Frees the child blocks that no parent block after `parents` (`A`'s subsets of ranks `first`
/// on) reads. Where `B` moves, child block `c` is read by parent block `c` alone. Where `A`
/// moves, child block `c` is read by the parents `c` minus one square, the last of which (in
/// rank order) drops `c`'s lowest square: the children parent `a` reads last are `a` plus a
/// square below its lowest one.
fn release(
    child: &mut Layer,
    parents: &[u32],
    first: usize,
    a_moves: bool,
    k: usize,
    memory: &mut Memory,
) {
    let ranks = ranks();
    for (rank, &a) in (first..).zip(parents) {
        if a_moves {
            let below = if a == 0 {
                k
            } else {
                a.trailing_zeros() as usize
            };
            for j in 0..below {
                let c = ranks[(a | 1 << j) as usize] as usize;
                memory.remove(child[c].len());
                child[c] = Vec::new();
            }
        } else {
            memory.remove(child[rank].len());
            child[rank] = Vec::new();
        }
    }
}

/// Entries held by the walk (both layers), and the most held at once.
#[derive(Default)]
pub(crate) struct Memory {
    /// Entries held now.
    live: usize,
    /// The most entries held at once.
    pub peak: usize,
}

impl Memory {
    fn add(&mut self, entries: usize) {
        self.live += entries;
        self.peak = self.peak.max(self.live);
    }

    fn remove(&mut self, entries: usize) {
        self.live -= entries;
    }
}

/// What every block of one layer shares.
struct Walk<'a> {
    root: &'a Root,
    /// Rotation parity of the layer (its children have the other one).
    parity: usize,
    /// Whether `A` moves in this layer.
    a_turn: bool,
    /// Whether the children fill the board.
    full: bool,
    /// Squares `A` left free (the width of `B`'s relative subsets).
    free: usize,
    /// Stones `B` has added.
    nb: usize,
    child: &'a Layer,
}

/// Accumulates a position's moves over the child states, then turns them into its value.
struct Moves {
    /// Child states where the mover's placement has five.
    five: Half,
    /// Parent states where a placement wins before any twist.
    placement: Half,
    /// Child states where every child's mover avoids losing.
    child_notlose: Half,
    /// Child states where every child's mover wins.
    child_win: Half,
}

impl Moves {
    #[inline(always)]
    fn new() -> Moves {
        Moves {
            five: 0,
            placement: 0,
            child_notlose: !0,
            child_win: !0,
        }
    }

    #[inline(always)]
    fn add(&mut self, five: [Half; 2], parity: usize, child: Option<&Entry>) {
        self.five |= five[parity ^ 1];
        self.placement |= five[parity];
        match child {
            Some(c) => {
                self.child_notlose &= c.notlose;
                self.child_win &= c.win;
            }
            // A full board without fives is a draw: the mover neither wins nor loses.
            None => self.child_win = 0,
        }
    }

    /// The value given the other side's fives (which the move does not change): a twist that
    /// completes only the mover's five wins, only the other's loses, both draws; otherwise the
    /// mover wins where some child's mover loses, and avoids losing where some child's mover
    /// does not win.
    #[inline(always)]
    fn value(&self, other_five: Half) -> Entry {
        let win = !other_five & (self.five | !self.child_notlose);
        let notlose = self.five | !(other_five | self.child_win);
        Entry {
            win: self.placement | spread(win),
            notlose: self.placement | spread(notlose),
        }
    }
}

impl Walk<'_> {
    /// The block of `A`'s subset `a` (of rank `rank`).
    fn block(
        &self,
        deposit: &mut Deposit,
        rank: usize,
        a: u32,
        a_fives: &[[Half; 2]],
        b_fives: &[[Half; 2]],
    ) -> Vec<Entry> {
        deposit.onto(!a & ((1 << self.root.k) - 1));
        let mut out = Vec::with_capacity(choose(self.free, self.nb));
        // The last layer before the full board has no child tables: a separate copy of each
        // loop keeps that test out of the inner loops.
        match (self.a_turn, self.full) {
            (true, false) => self.a_moves::<false>(deposit, &mut out, a, a_fives, b_fives),
            (true, true) => self.a_moves::<true>(deposit, &mut out, a, a_fives, b_fives),
            (false, false) => {
                self.b_moves::<false>(deposit, &mut out, rank, a_fives[rank], b_fives)
            }
            (false, true) => self.b_moves::<true>(deposit, &mut out, rank, a_fives[rank], b_fives),
        }
        out
    }

    /// One block of a layer where `A` moves: `A`'s subset `a` is fixed, children lie in the
    /// blocks of `a` plus one square.
    fn a_moves<const FULL: bool>(
        &self,
        deposit: &Deposit,
        out: &mut Vec<Entry>,
        a: u32,
        a_next: &[[Half; 2]],
        b_now: &[[Half; 2]],
    ) {
        let ranks = ranks();
        let free_mask = (1u32 << self.free) - 1;
        let mut child_blocks: [&[Entry]; MAX_BITS] = [&[]; MAX_BITS];
        let mut five = [[0; 2]; MAX_BITS];
        for j in 0..self.free {
            let grown = ranks[(a | deposit.bit(j)) as usize] as usize;
            if !FULL {
                child_blocks[j] = &self.child[grown];
            }
            five[j] = a_next[grown];
        }
        // With square j empty, `y` minus bit j walks every subset of the other squares in
        // order, so the child's place in block j counts the entries seen so far with j empty.
        let mut seen = [0usize; MAX_BITS];
        out.extend(masks(self.nb, self.free).map(|y| {
            let other_five = b_now[ranks[deposit.apply(y) as usize] as usize][self.parity ^ 1];
            let mut moves = Moves::new();
            let mut empty = !y & free_mask;
            while empty != 0 {
                let j = empty.trailing_zeros() as usize;
                empty &= empty - 1;
                let child = (!FULL).then(|| &child_blocks[j][seen[j]]);
                seen[j] += 1;
                moves.add(five[j], self.parity, child);
            }
            moves.value(other_five)
        }));
    }

    /// One block of a layer where `B` moves: children lie in the same block of the next layer.
    fn b_moves<const FULL: bool>(
        &self,
        deposit: &Deposit,
        out: &mut Vec<Entry>,
        rank: usize,
        a_five: [Half; 2],
        b_next: &[[Half; 2]],
    ) {
        let ranks = ranks();
        let free_mask = (1u32 << self.free) - 1;
        let child_block: &[Entry] = if FULL { &[] } else { &self.child[rank] };
        let other_five = a_five[self.parity ^ 1];
        out.extend(masks(self.nb, self.free).map(|y| {
            let b = deposit.apply(y);
            let mut moves = Moves::new();
            let mut empty = !y & free_mask;
            while empty != 0 {
                let j = empty.trailing_zeros() as usize;
                empty &= empty - 1;
                let grown = ranks[(b | deposit.bit(j)) as usize] as usize;
                let child = (!FULL).then(|| &child_block[ranks[(y | 1 << j) as usize] as usize]);
                moves.add(b_next[grown], self.parity, child);
            }
            moves.value(other_five)
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tables::FULL;

    #[test]
    fn every_child_block_is_freed_by_its_last_reader() {
        // Ten empty squares (the lowest board bits); the stones' values do not matter here.
        let mut rest = FULL;
        for _ in 0..10 {
            rest &= rest - 1;
        }
        let (mut a, mut b) = (0, 0);
        for (i, bit) in (0..64).filter(|&i| rest >> i & 1 == 1).enumerate() {
            *(if i % 2 == 0 { &mut a } else { &mut b }) |= 1u64 << bit;
        }
        let root = Root::new(a, b);
        assert_eq!(root.empties(), 10);
        let (mut fives, mut memory) = (Fives::default(), Memory::default());
        let mut child: Layer = Vec::new();
        for m in (0..10).rev() {
            let next = layer(
                &root,
                m,
                &mut child,
                false,
                &mut fives,
                &mut memory,
                &|| false,
            )
            .unwrap();
            assert!(child.iter().all(Vec::is_empty), "layer {}", m + 1);
            let (na, nb) = added(m);
            assert_eq!(next.len(), choose(10, na));
            assert!(next.iter().all(|block| block.len() == choose(10 - na, nb)));
            assert_eq!(memory.live, next.iter().map(Vec::len).sum::<usize>());
            child = next;
        }
    }
}
