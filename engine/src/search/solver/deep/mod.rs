//! The deep solver: exact values below the midsolver's reach (fewer than [`MID_MIN_STONES`]
//! stones) by a search whose leaves, the positions with [`MID_MIN_STONES`] stones, are decided
//! by a short alpha-beta attempt or the midsolver.
//!
//! The search is alpha-beta negamax over value *bounds*: every node's result is a proven
//! interval `lower <= value <= upper` for the side to move, so a leaf whose value is not known
//! yet is simply `[loss, win]` and the search stays sound whatever it was allowed to solve.
//! Three-valued Pentago is handled by the window, not by separate searches: a node asked
//! "is it at least `beta`?" stops at the first move that proves it, so a win costs one winning
//! line, a draw costs a "not lost" and a "not won" proof, both found in one full-window search.
//!
//! Solving runs in passes over the same top of the tree (see [`LeafMode`]): a quick pass gives
//! new leaves (up to [`QUICK_PASS_ATTEMPTS`]) a short alpha-beta attempt (most leaves in real
//! positions are settled there in milliseconds, and a node whose proof needs only those is done
//! without a midsolve); then a solve pass midsolves the leaves still open, in the order the
//! search needs them, trying first the moves the quick pass already proved. A midsolve values
//! the leaf's whole family of rotated variants (see [`rotated_variants`]), which are learnt with
//! it: the eight twists after one placement, and the transpositions of two moves whose twists
//! differ, cost one midsolve. Proven bounds of the top nodes are kept by canonical
//! position (transpositions and symmetric positions are solved once), and the exact values of
//! the leaves in a [`LeafTable`], whose stable text form is what a stopped search resumes from.
//!
//! The separation a cluster needs: [`DeepSolver::frontier`] runs a pass that solves nothing and
//! returns the open leaves the search needs next (the most proving first: the first one the
//! best-ordered search meets); [`solve_leaf`] values one leaf anywhere; [`DeepSolver::learn`]
//! feeds the value back.

mod certificate;
mod leaves;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::exact::{SolveLimits, Solver};
use super::mate::MateSearch;
use super::mid::{MID_MIN_STONES, MidSolveError, midsolve, rotated_variants};
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::value::Value;

pub use certificate::{
    CertificateError, DeepNode, DeepProof, DeepProveError, ProofFormatError, ProofLeafError,
    ValueBounds, check_leaf,
};
pub use leaves::{LEAVES_HEADER, LeafError, LeafTable};

/// Nodes of the quick alpha-beta attempt at a new leaf (the hybrid solver's first attempt).
pub const QUICK_LEAF_NODES: u64 = super::hybrid::FIRST_ATTEMPT_NODES;

/// Nodes of the second alpha-beta attempt a solve pass gives a leaf before midsolving it (a
/// fraction of a second, against about 5 s for a midsolve at 18 stones).
pub const SECOND_LEAF_NODES: u64 = 400_000;

/// Leaves the quick pass may give an attempt (about 10 s of one core): every leaf of a
/// 17-stone position, but only the first part of a 16-stone position's two-ply tree, whose
/// tens of thousands of leaves would keep the quick pass going long before any midsolve
/// (whose walk values a leaf's whole family of 127 rotated variants) could start.
pub const QUICK_PASS_ATTEMPTS: u32 = 256;

/// Checkmate length probed at top nodes where a win matters.
const MATE_PROBE: u32 = 2;
/// Positions the checkmate probe remembers before starting afresh.
const MATE_MEMORY: usize = 1 << 18;

/// What a pass may do at a leaf whose value is not known yet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LeafMode {
    /// Nothing: the leaf stays open (`[loss, win]`) and is reported as wanted.
    Known,
    /// A short alpha-beta attempt (once per leaf), which may prove a bound.
    Quick,
    /// The attempt, then the midsolver where it did not decide: the leaf's exact value.
    Solve,
}

/// Limits of a deep solve.
#[derive(Clone, Debug, Default)]
pub struct DeepLimits {
    /// Stop after this long (checked between leaves: a midsolve under way is finished first).
    pub max_time: Option<Duration>,
    /// Stop when this flag is set (by another thread, a signal handler, ...).
    pub stop: Option<Arc<AtomicBool>>,
    /// Stop after this many midsolved leaves.
    pub max_midsolves: Option<u64>,
    /// Stop after this many top nodes.
    pub max_nodes: Option<u64>,
}

/// What a deep solve has done so far (reported through the progress callback).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct DeepProgress {
    /// Top nodes visited (below the midsolver's stone count).
    pub nodes: u64,
    /// Leaves decided (a bound or the value) by the quick alpha-beta attempt.
    pub leaves_quick: u64,
    /// Leaves valued by the midsolver.
    pub leaves_midsolved: u64,
    /// Leaf visits answered from the learnt values.
    pub leaves_reused: u64,
    /// Open leaves the last `Known` pass wanted.
    pub leaves_wanted: u64,
    /// The root's proven lower bound (for the side to move).
    pub lower: i8,
    /// The root's proven upper bound.
    pub upper: i8,
    /// Seconds since the solve started.
    pub seconds: f64,
}

impl DeepProgress {
    /// The root's proven bounds as values.
    #[must_use]
    pub fn bounds(&self) -> ValueBounds {
        ValueBounds::from_i8(self.lower, self.upper)
    }
}

/// The answer of a deep solve.
#[derive(Clone, Debug, PartialEq)]
pub struct DeepSolution {
    /// The exact value for the side to move, or `None` when stopped before it was proven.
    pub value: Option<Value>,
    /// What is proven about the value (exact when `value` is known).
    pub bounds: ValueBounds,
    /// A move that achieves the value (none when unknown or the game is over).
    pub best: Option<Move>,
    /// The work done.
    pub progress: DeepProgress,
}

/// The open leaves a pass wanted, for someone else to solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Frontier {
    /// The root's proven bounds with the values known now.
    pub bounds: ValueBounds,
    /// Open leaves (canonical), in the order the search met them: the most proving first.
    pub leaves: Vec<Position>,
    /// Top nodes the pass visited.
    pub nodes: u64,
}

/// A pass stopped (a limit or the stop flag).
struct Stopped;

/// Proven bounds on a value for the side to move (`lo <= value <= hi`, each -1, 0 or 1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Range {
    lo: i8,
    hi: i8,
}

impl Range {
    const OPEN: Range = Range { lo: -1, hi: 1 };

    const fn exact(v: i8) -> Range {
        Range { lo: v, hi: v }
    }

    /// The same bounds seen by the other player.
    const fn negate(self) -> Range {
        Range {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    fn meet(self, other: Range) -> Range {
        Range {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    /// Whether a search with this window learns nothing more.
    const fn settles(self, alpha: i8, beta: i8) -> bool {
        self.lo >= beta || self.hi <= alpha || self.lo == self.hi
    }
}

/// The progress callback.
type Reporter = Box<dyn FnMut(&DeepProgress) + Send>;

/// The deep solver. Keep one to reuse what it learnt across positions.
pub struct DeepSolver {
    solver: Solver,
    mates: MateSearch,
    leaves: LeafTable,
    /// Bounds proven by quick attempts on leaves whose exact value is not known.
    leaf_bounds: HashMap<u64, Range>,
    /// Proven bounds of top nodes, by canonical key.
    tops: HashMap<u64, Range>,
    /// Open leaves below each top node at its last visit (an estimate of a proof's cost).
    open: HashMap<u64, u32>,
    wanted: Vec<Position>,
    wanted_keys: HashSet<u64>,
    max_wanted: usize,
    /// Attempts the quick pass under way may still make.
    quick_attempts_left: u32,
    progress: DeepProgress,
    limits: DeepLimits,
    started: Instant,
    reporter: Option<Reporter>,
    leaf_stones: u32,
}

impl DeepSolver {
    /// A deep solver whose leaf solver has a transposition table of `2^table_bits` entries.
    #[must_use]
    pub fn new(table_bits: u32) -> DeepSolver {
        DeepSolver {
            solver: Solver::new(table_bits),
            mates: MateSearch::new(),
            leaves: LeafTable::new(),
            leaf_bounds: HashMap::new(),
            tops: HashMap::new(),
            open: HashMap::new(),
            wanted: Vec::new(),
            wanted_keys: HashSet::new(),
            max_wanted: usize::MAX,
            quick_attempts_left: QUICK_PASS_ATTEMPTS,
            progress: DeepProgress::default(),
            limits: DeepLimits::default(),
            started: Instant::now(),
            reporter: None,
            leaf_stones: MID_MIN_STONES,
        }
    }

    /// Starts from leaf values learnt before (a resumed search).
    #[must_use]
    pub fn with_leaves(mut self, leaves: LeafTable) -> DeepSolver {
        self.leaves = leaves;
        self
    }

    /// Treats positions from `stones` stones on (at least [`MID_MIN_STONES`]) as leaves. The
    /// default is [`MID_MIN_STONES`]; more makes leaves cheaper and the top larger (tests use
    /// it to check the search against the hybrid solver on late positions).
    #[must_use]
    pub fn with_leaf_stones(mut self, stones: u32) -> DeepSolver {
        self.leaf_stones = stones.max(MID_MIN_STONES);
        self
    }

    /// Calls `report` after every midsolved leaf and at the end of every pass.
    #[must_use]
    pub fn with_progress(
        mut self,
        report: impl FnMut(&DeepProgress) + Send + 'static,
    ) -> DeepSolver {
        self.reporter = Some(Box::new(report));
        self
    }

    /// The leaf values learnt so far (save them with [`LeafTable::to_text`] to resume).
    #[must_use]
    pub fn leaves(&self) -> &LeafTable {
        &self.leaves
    }

    /// Learns the exact value of a leaf solved elsewhere.
    pub fn learn(&mut self, position: &Position, value: Value) -> Result<(), LeafError> {
        self.leaves.insert(position, value)
    }

    /// Solves `position` exactly unless `limits` stop it first: a quick pass, then a solve
    /// pass. Positions from [`MID_MIN_STONES`] stones on are one leaf.
    pub fn solve(&mut self, position: &Position, limits: DeepLimits) -> DeepSolution {
        self.begin(limits, usize::MAX);
        let mover = position.side_to_move();
        if let Some(value) = Value::of_status(position.status(), mover) {
            self.progress.lower = value.as_i8();
            self.progress.upper = value.as_i8();
            return self.answer(position, Range::exact(value.as_i8()));
        }
        let mut range = Range::OPEN;
        for mode in [LeafMode::Quick, LeafMode::Solve] {
            match self.pass(position, mode) {
                Ok(r) => range = r,
                Err(Stopped) => break,
            }
            if range.lo == range.hi {
                break;
            }
        }
        let range = range.meet(self.known(position));
        self.progress.lower = range.lo;
        self.progress.upper = range.hi;
        self.report();
        self.answer(position, range)
    }

    /// Runs a pass that solves nothing and returns up to `max` open leaves the search wants
    /// (the most proving first) with the root's bounds as far as the known values go.
    pub fn frontier(&mut self, position: &Position, max: usize) -> Frontier {
        self.begin(DeepLimits::default(), max.max(1));
        let range = if position.is_over() {
            let value = Value::of_status(position.status(), position.side_to_move());
            Range::exact(value.map_or(0, Value::as_i8))
        } else {
            // A pass stopped by `max` has still proven what it stored.
            self.pass(position, LeafMode::Known)
                .unwrap_or(Range::OPEN)
                .meet(self.known(position))
        };
        Frontier {
            bounds: ValueBounds::from_i8(range.lo, range.hi),
            leaves: std::mem::take(&mut self.wanted),
            nodes: self.progress.nodes,
        }
    }

    fn begin(&mut self, limits: DeepLimits, max_wanted: usize) {
        self.limits = limits;
        self.started = Instant::now();
        self.progress = DeepProgress {
            lower: -1,
            upper: 1,
            ..DeepProgress::default()
        };
        self.wanted.clear();
        self.wanted_keys.clear();
        self.max_wanted = max_wanted;
        self.quick_attempts_left = QUICK_PASS_ATTEMPTS;
    }

    fn answer(&mut self, position: &Position, range: Range) -> DeepSolution {
        self.progress.seconds = self.started.elapsed().as_secs_f64();
        let value = (range.lo == range.hi).then(|| to_value(range.lo));
        let best = match value {
            Some(v) if !position.is_over() => self.proven_move(position, v.as_i8()),
            _ => None,
        };
        DeepSolution {
            value,
            bounds: ValueBounds::from_i8(range.lo, range.hi),
            best,
            progress: self.progress,
        }
    }

    /// A move of the ongoing `position` proven to reach at least `target`: one whose stored
    /// bounds show it, else the first the search proves (a root settled by the checkmate probe
    /// has no stored children); `None` when the limits stop that search.
    fn proven_move(&mut self, position: &Position, target: i8) -> Option<Move> {
        let mover = position.side_to_move();
        let stored = position.legal_moves().iter().copied().find(|&mv| {
            let child = position.play_unchecked(mv);
            match Value::of_status(child.status(), mover) {
                Some(v) => v.as_i8() >= target,
                None => -self.known(&child).hi >= target,
            }
        });
        if stored.is_some() {
            return stored;
        }
        for c in self.solver.candidates(position) {
            if c.child.is_over() {
                continue;
            }
            match self.node(&c.child, -target, -target + 1, LeafMode::Solve) {
                Ok(theirs) if -theirs.hi >= target => return Some(c.mv),
                Ok(_) => {}
                Err(Stopped) => return None,
            }
        }
        None
    }

    /// What is proven about an ongoing `position` without searching.
    fn known(&self, position: &Position) -> Range {
        let key = position.canonical_key().0;
        if position.stone_count() >= self.leaf_stones {
            match self.leaves.get_key(key) {
                Some(v) => Range::exact(v.as_i8()),
                None => self.leaf_bounds.get(&key).copied().unwrap_or(Range::OPEN),
            }
        } else {
            self.tops.get(&key).copied().unwrap_or(Range::OPEN)
        }
    }

    fn pass(&mut self, root: &Position, mode: LeafMode) -> Result<Range, Stopped> {
        let range = self.node(root, -1, 1, mode);
        let known = self.known(root);
        self.progress.lower = known.lo;
        self.progress.upper = known.hi;
        self.progress.leaves_wanted = self.wanted.len() as u64;
        self.report();
        range
    }

    fn report(&mut self) {
        self.progress.seconds = self.started.elapsed().as_secs_f64();
        if let Some(report) = self.reporter.as_mut() {
            report(&self.progress);
        }
    }

    fn check_stop(&self) -> Result<(), Stopped> {
        let flagged = self
            .limits
            .stop
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed));
        let late = self
            .limits
            .max_time
            .is_some_and(|t| self.started.elapsed() >= t);
        let long = self
            .limits
            .max_nodes
            .is_some_and(|n| self.progress.nodes > n);
        if flagged || late || long || self.wanted.len() >= self.max_wanted {
            Err(Stopped)
        } else {
            Ok(())
        }
    }

    /// Proven bounds on the value of the ongoing `position` for the side to move, searched
    /// with the window `[alpha, beta]`: the search may stop as soon as the bounds settle the
    /// window, but whatever it returns is proven.
    fn node(
        &mut self,
        position: &Position,
        alpha: i8,
        beta: i8,
        mode: LeafMode,
    ) -> Result<Range, Stopped> {
        if position.has_immediate_win() {
            return Ok(Range::exact(1));
        }
        if position.stone_count() >= self.leaf_stones {
            return self.leaf(position, alpha, beta, mode);
        }
        self.progress.nodes += 1;
        self.check_stop()?;
        let key = position.canonical_key().0;
        let known = self.tops.get(&key).copied().unwrap_or(Range::OPEN);
        if known.settles(alpha, beta) {
            return Ok(known);
        }
        if beta > 0 && self.mates.mates_within(position, MATE_PROBE, MATE_MEMORY) {
            self.tops.insert(key, Range::exact(1));
            return Ok(Range::exact(1));
        }
        let (alpha, beta) = (alpha.max(known.lo), beta.min(known.hi));
        let mover = position.side_to_move();
        let mut moves = self.solver.candidates(position);
        // Moves already proven good enough first, moves proven useless last; in between, the
        // moves with the fewest open leaves below them at the last visit first (a proof-number
        // order: the cheapest proof first), then the evaluation's order.
        moves.sort_by_cached_key(|c| match Value::of_status(c.child.status(), mover) {
            Some(_) => (1, 0),
            None => {
                let mine = self.known(&c.child).negate();
                if mine.lo >= beta {
                    (0, 0)
                } else if mine.hi <= alpha {
                    (2, 0)
                } else {
                    (1, self.open_below(&c.child))
                }
            }
        });
        // Moves left out by `candidates` lose at once: they are worth -1 and change nothing.
        let mut found = Range::exact(-1);
        let mut complete = true;
        let mut open = 0u32;
        for (i, c) in moves.iter().enumerate() {
            let mine = match Value::of_status(c.child.status(), mover) {
                Some(v) => Range::exact(v.as_i8()),
                None => {
                    let result = self.node(&c.child, -beta, -alpha.max(found.lo), mode);
                    match result {
                        Ok(r) => {
                            if !r.settles(-beta, -alpha) {
                                open = open.saturating_add(self.open_below(&c.child));
                            }
                            r.negate()
                        }
                        Err(Stopped) => {
                            self.store(
                                key,
                                Range {
                                    lo: found.lo,
                                    hi: 1,
                                },
                            );
                            return Err(Stopped);
                        }
                    }
                }
            };
            found.lo = found.lo.max(mine.lo);
            found.hi = found.hi.max(mine.hi);
            if found.lo >= beta && i + 1 < moves.len() {
                complete = false;
                break;
            }
        }
        if !complete {
            found.hi = 1;
        }
        self.open.insert(key, open);
        Ok(self.store(key, found))
    }

    /// Open leaves below an ongoing `position` at the last visit (1 for an open leaf itself).
    fn open_below(&self, position: &Position) -> u32 {
        let key = position.canonical_key().0;
        if position.stone_count() >= self.leaf_stones {
            u32::from(self.leaves.get_key(key).is_none())
        } else {
            self.open.get(&key).copied().unwrap_or(1)
        }
    }

    fn store(&mut self, key: u64, range: Range) -> Range {
        let entry = self.tops.entry(key).or_insert(Range::OPEN);
        *entry = entry.meet(range);
        *entry
    }

    fn leaf(
        &mut self,
        position: &Position,
        alpha: i8,
        beta: i8,
        mode: LeafMode,
    ) -> Result<Range, Stopped> {
        let key = position.canonical_key().0;
        if let Some(v) = self.leaves.get_key(key) {
            self.progress.leaves_reused += 1;
            return Ok(Range::exact(v.as_i8()));
        }
        let tried = self.leaf_bounds.get(&key).copied();
        let known = tried.unwrap_or(Range::OPEN);
        if known.settles(alpha, beta) {
            self.progress.leaves_reused += 1;
            return Ok(known);
        }
        if mode == LeafMode::Known {
            if self.wanted_keys.insert(key) {
                self.wanted.push(position.canonical().position);
            }
            return Ok(known);
        }
        self.check_stop()?;
        if mode == LeafMode::Quick && self.quick_attempts_left == 0 {
            return Ok(known);
        }
        if tried.is_none() {
            if mode == LeafMode::Quick {
                self.quick_attempts_left -= 1;
            }
            let range = self.attempt(position, alpha, beta, QUICK_LEAF_NODES);
            if range.settles(alpha, beta) || mode == LeafMode::Quick {
                return Ok(range);
            }
        }
        if mode == LeafMode::Quick {
            return Ok(known);
        }
        let range = self
            .attempt(position, alpha, beta, SECOND_LEAF_NODES)
            .meet(known);
        if range.settles(alpha, beta) {
            return Ok(range);
        }
        if self
            .limits
            .max_midsolves
            .is_some_and(|m| self.progress.leaves_midsolved >= m)
        {
            return Err(Stopped);
        }
        match self.exact_leaf(position) {
            Some(value) => {
                self.progress.leaves_midsolved += 1;
                self.learn_exact(position, value.as_i8());
                self.report();
                Ok(Range::exact(value.as_i8()))
            }
            // Never for an ongoing leaf; an open leaf keeps the search sound regardless.
            None => Ok(known),
        }
    }

    /// An alpha-beta attempt of `nodes` nodes at a leaf within the window; what it proves is
    /// kept.
    fn attempt(&mut self, position: &Position, alpha: i8, beta: i8, nodes: u64) -> Range {
        let limits = SolveLimits {
            max_nodes: nodes,
            max_time: None,
        };
        let range = match self.solver.window(position, alpha, beta, limits) {
            Some(v) if v <= alpha => Range { lo: -1, hi: v },
            Some(v) if v >= beta => Range { lo: v, hi: 1 },
            Some(v) => Range::exact(v),
            None => Range::OPEN,
        };
        let key = position.canonical_key().0;
        let range = range.meet(self.leaf_bounds.get(&key).copied().unwrap_or(Range::OPEN));
        self.leaf_bounds.insert(key, range);
        if range != Range::OPEN {
            self.progress.leaves_quick += 1;
        }
        if range.lo == range.hi {
            self.learn_exact(position, range.lo);
        }
        range
    }

    /// The exact value of a leaf: the midsolver at its stone count, the hybrid above it. The
    /// midsolver's walk also values the leaf's rotated variants, which are learnt with it.
    fn exact_leaf(&mut self, position: &Position) -> Option<Value> {
        if position.stone_count() == MID_MIN_STONES {
            let solved = midsolve(position).ok()?;
            self.learn_rotated(position, &solved.rotated);
            Some(solved.value)
        } else {
            self.solver.solve(position, SolveLimits::default()).value
        }
    }

    /// Learns the values of `position`'s rotated variants (see [`LeafValue::rotated`]).
    fn learn_rotated(&mut self, position: &Position, rotated: &[Option<Value>]) {
        for (turned, value) in rotated_variants(position).iter().zip(rotated) {
            if let Some(value) = value {
                self.learn_exact(turned, value.as_i8());
            }
        }
    }

    fn learn_exact(&mut self, position: &Position, v: i8) {
        self.leaf_bounds.remove(&position.canonical_key().0);
        // Refused only for a conflicting value, which the solvers' agreement rules out.
        let _ = self.leaves.insert(position, to_value(v));
    }
}

/// A leaf's exact value, with the values of its rotated variants where a midsolve found it.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafValue {
    /// The value for the side to move.
    pub value: Value,
    /// Empty when alpha-beta decided (it values the leaf alone); else the values of the
    /// leaf's [`rotated_variants`], in their order, `None` where the game is over.
    pub rotated: Vec<Option<Value>>,
}

/// The exact value of an ongoing leaf (at least [`MID_MIN_STONES`] stones) for the side to
/// move: a short alpha-beta attempt with `solver`, then the midsolver, whose walk values the
/// leaf's rotated variants too. What a cluster worker runs for one leaf.
pub fn solve_leaf(solver: &mut Solver, position: &Position) -> Result<LeafValue, MidSolveError> {
    let limits = SolveLimits {
        max_nodes: QUICK_LEAF_NODES,
        max_time: None,
    };
    if position.stone_count() >= MID_MIN_STONES
        && let Some(value) = solver.alpha_beta(position, limits).value
    {
        return Ok(LeafValue {
            value,
            rotated: Vec::new(),
        });
    }
    let solved = midsolve(position)?;
    Ok(LeafValue {
        value: solved.value,
        rotated: solved.rotated,
    })
}

fn to_value(v: i8) -> Value {
    super::exact::to_value(v)
}
