//! Certificates of exact values below the midsolver's reach: a proof DAG whose inner nodes are
//! checked with the rules alone and whose leaves are positions of [`MID_MIN_STONES`] stones or
//! more with claimed value bounds, which anyone can re-check with any solver.
//!
//! Stable text format, version 2 (version 1, `solve --proof`'s win proofs, is read too: its
//! `root P` claims a win, `win P M [five]` is `best P win M`, `defend P` is `all P loss`):
//!
//! ```text
//! pentagrid-proof 2
//! root <position> <win|draw|loss>   the value claimed for the side to move, as you wrote it
//! best <position> <win|draw> <move> the side to move gets at least that by <move>: the game
//!                                   ends there with it, or the position after is an `all`
//!                                   (or `leaf`) node holding the opponent to the opposite
//! all <position> <loss|draw>        the side to move gets at most that: every legal move ends
//!                                   the game with no more, or reaches a `best` (or `leaf`) node
//!                                   of the opponent for the opposite
//! leaf <position> <lower> <upper>   claimed: lower <= value <= upper (win, draw or loss each);
//!                                   at least 18 stones; re-check with any solver
//! ```
//!
//! Lines starting with `#` are comments. Node positions are canonical (`docs/DESIGN.md` §3) and
//! moves are in that frame, so symmetric positions share a node. A win is proven by `best … win` at
//! the root, a loss by `all … loss`, a draw by both `best … draw` and `all … draw`. Every edge adds
//! a stone, so the DAG is finite and well-founded.

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};

use pentagrid_gamekit::splitmix64;
use thiserror::Error;

use super::{DeepSolver, LeafMode, Range, Stopped};
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::solver::exact::{SolveLimits, Solver};
use crate::search::solver::mid::MID_MIN_STONES;
use crate::search::value::Value;

/// Proven or claimed bounds on a value: `lower <= value <= upper`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueBounds {
    /// The least the value may be.
    pub lower: Value,
    /// The most the value may be.
    pub upper: Value,
}

impl ValueBounds {
    /// Bounds from -1/0/1 numbers (clamped).
    #[must_use]
    pub fn from_i8(lower: i8, upper: i8) -> ValueBounds {
        ValueBounds {
            lower: super::to_value(lower),
            upper: super::to_value(upper),
        }
    }

    /// The value when the bounds meet.
    #[must_use]
    pub fn exact(self) -> Option<Value> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// Whether `value` lies within the bounds.
    #[must_use]
    pub fn contains(self, value: Value) -> bool {
        self.lower <= value && value <= self.upper
    }
}

impl fmt::Display for ValueBounds {
    /// `win`, `at least draw`, `unknown`, ...: what is proven, in words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lower, self.upper) {
            (lo, hi) if lo == hi => f.write_str(lo.name()),
            (Value::Loss, Value::Win) => f.write_str("unknown"),
            (Value::Loss, hi) => write!(f, "at most {hi}"),
            (lo, _) => write!(f, "at least {lo}"),
        }
    }
}

/// One node of a deep proof DAG (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeepNode {
    /// The side to move gets at least `at_least` (win or draw) by `mv`.
    Best {
        /// The canonical position.
        position: Position,
        /// Win or draw.
        at_least: Value,
        /// The move, in the position's frame.
        mv: Move,
    },
    /// The side to move gets at most `at_most` (loss or draw) whatever it plays.
    All {
        /// The canonical position.
        position: Position,
        /// Loss or draw.
        at_most: Value,
    },
    /// A position from the midsolver's stone count on with its claimed value bounds.
    Leaf {
        /// The canonical position.
        position: Position,
        /// The claim.
        bounds: ValueBounds,
    },
}

impl DeepNode {
    /// The node's (canonical) position.
    #[must_use]
    pub const fn position(&self) -> Position {
        match *self {
            DeepNode::Best { position, .. }
            | DeepNode::All { position, .. }
            | DeepNode::Leaf { position, .. } => position,
        }
    }

    const fn kind(&self) -> u8 {
        match self {
            DeepNode::Best { .. } => 0,
            DeepNode::All { .. } => 1,
            DeepNode::Leaf { .. } => 2,
        }
    }

    /// Whether this node proves its position is worth at least `v` to the side to move.
    fn proves_at_least(&self, v: Value) -> bool {
        match *self {
            DeepNode::Best { at_least, .. } => at_least >= v,
            DeepNode::Leaf { bounds, .. } => bounds.lower >= v,
            DeepNode::All { .. } => false,
        }
    }

    /// Whether this node proves its position is worth at most `v` to the side to move.
    fn proves_at_most(&self, v: Value) -> bool {
        match *self {
            DeepNode::All { at_most, .. } => at_most <= v,
            DeepNode::Leaf { bounds, .. } => bounds.upper <= v,
            DeepNode::Best { .. } => false,
        }
    }
}

/// A proof that the side to move in `root` gets exactly `value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeepProof {
    /// The position, as asked.
    pub root: Position,
    /// The value claimed for its side to move.
    pub value: Value,
    /// The nodes.
    pub nodes: Vec<DeepNode>,
}

/// A proof file that is not in the format.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {reason}")]
pub struct ProofFormatError {
    /// Line number (from 1; 0 for the whole file).
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// Why a proof DAG does not prove its claim (the rules alone decide this).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CertificateError {
    /// The root's game is over, or its nodes do not prove the claimed value.
    #[error("the root {root} has no nodes proving it is a {value}")]
    RootNotProven {
        /// The root.
        root: Position,
        /// The claim.
        value: Value,
    },
    /// A node is not canonical, is listed twice, is a finished game, or claims what its kind
    /// cannot (`best … loss`, `all … win`, a leaf with fewer stones than the midsolver needs).
    #[error("node {0} is malformed: not canonical, listed twice, finished, or a bad claim")]
    BadNode(Position),
    /// A node is not reached from the root (not a legal descendant the proof needs).
    #[error("node {0} is not reached from the root by the proof's moves")]
    Unreachable(Position),
    /// A `best` node's move is not legal.
    #[error("{mv} is not legal in {position}")]
    IllegalMove {
        /// The node's position.
        position: Position,
        /// The move.
        mv: Move,
    },
    /// A `best` node's move ends the game with less than claimed, or leads to no node holding
    /// the opponent to the opposite bound.
    #[error("after {mv} in {position} the opponent's position {after} has no node holding it")]
    MissingDefence {
        /// The node's position.
        position: Position,
        /// The move.
        mv: Move,
        /// The position after it.
        after: Position,
    },
    /// A reply at an `all` node ends the game with more than claimed, or reaches no node of
    /// the opponent proving the opposite bound.
    #[error("the reply {mv} in {position} escapes: {after} has no node answering it")]
    MissingReply {
        /// The node's position.
        position: Position,
        /// The reply.
        mv: Move,
        /// The position after it.
        after: Position,
    },
}

/// A leaf whose claim could not be confirmed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProofLeafError {
    /// The solver's value contradicts the claim.
    #[error("leaf {position} is claimed {claimed} but is a {actual}")]
    Contradicted {
        /// The leaf.
        position: Position,
        /// What the certificate claims.
        claimed: ValueBounds,
        /// The solver's value.
        actual: Value,
    },
    /// The solver did not decide the leaf.
    #[error("leaf {0} could not be solved")]
    Unsolved(Position),
}

fn format_error(line: usize, reason: impl Into<String>) -> ProofFormatError {
    ProofFormatError {
        line,
        reason: reason.into(),
    }
}

fn parse_position(line: usize, text: &str) -> Result<Position, ProofFormatError> {
    text.parse()
        .map_err(|e| format_error(line, format!("bad position {text:?}: {e}")))
}

fn parse_value(line: usize, text: &str) -> Result<Value, ProofFormatError> {
    text.parse().map_err(|e: String| format_error(line, e))
}

fn parse_move(line: usize, text: &str) -> Result<Move, ProofFormatError> {
    text.parse()
        .map_err(|e| format_error(line, format!("bad move: {e}")))
}

impl DeepProof {
    /// The text form, version 2 (see the module documentation).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = format!("pentagrid-proof 2\nroot {} {}\n", self.root, self.value);
        for node in &self.nodes {
            let _ = match *node {
                DeepNode::Best {
                    position,
                    at_least,
                    mv,
                } => writeln!(out, "best {position} {at_least} {mv}"),
                DeepNode::All { position, at_most } => writeln!(out, "all {position} {at_most}"),
                DeepNode::Leaf { position, bounds } => {
                    writeln!(out, "leaf {position} {} {}", bounds.lower, bounds.upper)
                }
            };
        }
        out
    }

    /// Reads version 2 or version 1 text; checks only the format, not the proof.
    pub fn parse(text: &str) -> Result<DeepProof, ProofFormatError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let version = match lines.next() {
            Some((_, "pentagrid-proof 1")) => 1,
            Some((_, "pentagrid-proof 2")) => 2,
            Some((n, _)) => {
                return Err(format_error(
                    n,
                    "expected the header `pentagrid-proof 2` (or 1)",
                ));
            }
            None => return Err(format_error(0, "empty proof")),
        };
        let (n, root_line) = lines
            .next()
            .ok_or_else(|| format_error(0, "no root line"))?;
        let (root, value) = match (
            version,
            &root_line.split_whitespace().collect::<Vec<_>>()[..],
        ) {
            (1, ["root", position]) => (parse_position(n, position)?, Value::Win),
            (2, ["root", position, value]) => {
                (parse_position(n, position)?, parse_value(n, value)?)
            }
            _ => return Err(format_error(n, "expected `root <position> <value>`")),
        };
        let mut nodes = Vec::new();
        for (n, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let node = match (version, &words[..]) {
                (1, ["win", p, mv] | ["win", p, mv, "five"]) => DeepNode::Best {
                    position: parse_position(n, p)?,
                    at_least: Value::Win,
                    mv: parse_move(n, mv)?,
                },
                (1, ["defend", p]) => DeepNode::All {
                    position: parse_position(n, p)?,
                    at_most: Value::Loss,
                },
                (2, ["best", p, v, mv]) => DeepNode::Best {
                    position: parse_position(n, p)?,
                    at_least: parse_value(n, v)?,
                    mv: parse_move(n, mv)?,
                },
                (2, ["all", p, v]) => DeepNode::All {
                    position: parse_position(n, p)?,
                    at_most: parse_value(n, v)?,
                },
                (2, ["leaf", p, lo, hi]) => DeepNode::Leaf {
                    position: parse_position(n, p)?,
                    bounds: ValueBounds {
                        lower: parse_value(n, lo)?,
                        upper: parse_value(n, hi)?,
                    },
                },
                _ => return Err(format_error(n, "not a node of this format version")),
            };
            nodes.push(node);
        }
        Ok(DeepProof { root, value, nodes })
    }

    /// The leaves with their claims, in the order listed.
    #[must_use]
    pub fn leaves(&self) -> Vec<(Position, ValueBounds)> {
        self.nodes
            .iter()
            .filter_map(|n| match *n {
                DeepNode::Leaf { position, bounds } => Some((position, bounds)),
                _ => None,
            })
            .collect()
    }

    /// `count` of the leaves drawn without repetition by a seeded shuffle (splitmix64 of
    /// `seed`, Fisher–Yates); all of them when `count` is at least their number.
    #[must_use]
    pub fn sample_leaves(&self, count: usize, seed: u64) -> Vec<(Position, ValueBounds)> {
        let mut leaves = self.leaves();
        let mut state = seed;
        for i in (1..leaves.len()).rev() {
            state = splitmix64(state);
            leaves.swap(i, (state % (i as u64 + 1)) as usize);
        }
        leaves.truncate(count);
        leaves
    }

    /// Verifies the DAG with the rules alone: the root's claim is proven by its nodes, every
    /// `best` move is legal and holds its bound, every `all` reply is answered, every node is
    /// reached from the root. The leaves'
    /// claims are taken as given here; [`check_leaf`] re-solves them.
    pub fn check(&self) -> Result<(), CertificateError> {
        let mut by_key: HashMap<u64, Vec<usize>> = HashMap::new();
        let mut seen = HashSet::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let p = node.position();
            let bad_claim = match *node {
                DeepNode::Best { at_least, .. } => at_least == Value::Loss,
                DeepNode::All { at_most, .. } => at_most == Value::Win,
                DeepNode::Leaf { bounds, .. } => {
                    bounds.lower > bounds.upper || p.stone_count() < MID_MIN_STONES
                }
            };
            let fresh = seen.insert((p.key().0, node.kind(), claim_of(node)));
            if bad_claim || !fresh || p.is_over() || p.canonical().position != p {
                return Err(CertificateError::BadNode(p));
            }
            by_key.entry(p.key().0).or_default().push(i);
        }
        // The node proving `p` at least (`above`) or at most `v`, if any.
        let find = |p: &Position, v: Value, above: bool| {
            by_key.get(&p.canonical_key().0).and_then(|ids| {
                ids.iter().copied().find(|&i| {
                    if above {
                        self.nodes[i].proves_at_least(v)
                    } else {
                        self.nodes[i].proves_at_most(v)
                    }
                })
            })
        };
        let v = self.value;
        let mut work = Vec::new();
        if !self.root.is_over() {
            work.extend(find(&self.root, v, true).filter(|_| v != Value::Loss));
            work.extend(find(&self.root, v, false).filter(|_| v != Value::Win));
        }
        let needed = if v == Value::Draw { 2 } else { 1 };
        if work.len() != needed {
            return Err(CertificateError::RootNotProven {
                root: self.root,
                value: v,
            });
        }
        // Walk the DAG from the root, checking each node reached once.
        let mut reached = vec![false; self.nodes.len()];
        while let Some(i) = work.pop() {
            if std::mem::replace(&mut reached[i], true) {
                continue;
            }
            match self.nodes[i] {
                DeepNode::Best {
                    position,
                    at_least: bound,
                    mv,
                } => {
                    let mover = position.side_to_move();
                    let after = position
                        .play(mv)
                        .map_err(|_| CertificateError::IllegalMove { position, mv })?;
                    let next = match Value::of_status(after.status(), mover) {
                        Some(result) => (result >= bound).then_some(None),
                        None => find(&after, bound.negate(), false).map(Some),
                    };
                    let Some(next) = next else {
                        return Err(CertificateError::MissingDefence {
                            position,
                            mv,
                            after,
                        });
                    };
                    work.extend(next);
                }
                DeepNode::All {
                    position,
                    at_most: bound,
                } => {
                    let mover = position.side_to_move();
                    for &mv in position.legal_moves().iter() {
                        let after = position.play_unchecked(mv);
                        let next = match Value::of_status(after.status(), mover) {
                            Some(result) => (result <= bound).then_some(None),
                            None => find(&after, bound.negate(), true).map(Some),
                        };
                        let Some(next) = next else {
                            return Err(CertificateError::MissingReply {
                                position,
                                mv,
                                after,
                            });
                        };
                        work.extend(next);
                    }
                }
                DeepNode::Leaf { .. } => {}
            }
        }
        match reached.iter().position(|r| !r) {
            Some(i) => Err(CertificateError::Unreachable(self.nodes[i].position())),
            None => Ok(()),
        }
    }
}

fn claim_of(node: &DeepNode) -> (i8, i8) {
    match *node {
        DeepNode::Best { at_least, .. } => (at_least.as_i8(), 1),
        DeepNode::All { at_most, .. } => (-1, at_most.as_i8()),
        DeepNode::Leaf { bounds, .. } => (bounds.lower.as_i8(), bounds.upper.as_i8()),
    }
}

/// Re-solves one leaf with `solver` (the hybrid: alpha-beta, then the midsolver) and compares
/// its value with the claim.
pub fn check_leaf(
    solver: &mut Solver,
    position: &Position,
    claimed: ValueBounds,
) -> Result<Value, ProofLeafError> {
    match solver.solve(position, SolveLimits::default()).value {
        Some(value) if claimed.contains(value) => Ok(value),
        Some(actual) => Err(ProofLeafError::Contradicted {
            position: *position,
            claimed,
            actual,
        }),
        None => Err(ProofLeafError::Unsolved(*position)),
    }
}

/// Why [`DeepSolver::prove`] produced no certificate.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DeepProveError {
    /// The value is not proven (the limits stopped the search first) or the game is over.
    #[error("the value of {0} is not proven")]
    NotSolved(Position),
    /// The limits stopped the search while it filled a gap of the proof.
    #[error("stopped while proving a node of the certificate")]
    Stopped,
    /// A node's proven bound was not found again (a bug, reported rather than hidden).
    #[error("no proven move or leaf value was found again for {0}")]
    Lost(Position),
}

impl From<Stopped> for DeepProveError {
    fn from(_: Stopped) -> Self {
        DeepProveError::Stopped
    }
}

struct Builder {
    nodes: Vec<DeepNode>,
    seen: HashSet<(u64, u8, i8)>,
}

impl DeepSolver {
    /// A certificate of the exact value of `position`, solving it first within `limits` (what
    /// a previous [`DeepSolver::solve`] learnt is reused, so this costs little after it).
    pub fn prove(
        &mut self,
        position: &Position,
        limits: super::DeepLimits,
    ) -> Result<DeepProof, DeepProveError> {
        let solution = self.solve(position, limits.clone());
        let value = solution
            .value
            .filter(|_| !position.is_over())
            .ok_or(DeepProveError::NotSolved(*position))?;
        self.begin(limits, usize::MAX);
        let mut builder = Builder {
            nodes: Vec::new(),
            seen: HashSet::new(),
        };
        let root = position.canonical().position;
        let v = value.as_i8();
        if v >= 0 {
            self.at_least(&mut builder, &root, v)?;
        }
        if v <= 0 {
            self.at_most(&mut builder, &root, v)?;
        }
        Ok(DeepProof {
            root: *position,
            value,
            nodes: builder.nodes,
        })
    }

    /// A leaf node for the canonical `position`, its bounds within `need`.
    fn leaf_node(
        &mut self,
        b: &mut Builder,
        position: &Position,
        need: Range,
    ) -> Result<(), DeepProveError> {
        let within = |r: Range| r.lo >= need.lo && r.hi <= need.hi;
        let mut have = self.known(position);
        if !within(have) {
            have = self.leaf(position, need.lo - 1, need.hi + 1, LeafMode::Solve)?;
        }
        if !within(have) {
            return Err(DeepProveError::Lost(*position));
        }
        if b.seen.insert((position.key().0, 2, have.lo * 3 + have.hi)) {
            b.nodes.push(DeepNode::Leaf {
                position: *position,
                bounds: ValueBounds::from_i8(have.lo, have.hi),
            });
        }
        Ok(())
    }

    /// Nodes proving the canonical ongoing `position` is worth at least `v` (0 or 1).
    fn at_least(
        &mut self,
        b: &mut Builder,
        position: &Position,
        v: i8,
    ) -> Result<(), DeepProveError> {
        // A win at once is checked by the rules, even at a leaf.
        if let Some(mv) = position.winning_move() {
            if b.seen.insert((position.key().0, 0, 1)) {
                b.nodes.push(DeepNode::Best {
                    position: *position,
                    at_least: Value::Win,
                    mv,
                });
            }
            return Ok(());
        }
        if position.stone_count() >= self.leaf_stones {
            return self.leaf_node(b, position, Range { lo: v, hi: 1 });
        }
        if !b.seen.insert((position.key().0, 0, v)) {
            return Ok(());
        }
        let mover = position.side_to_move();
        let moves = self.solver.candidates(position);
        let proven =
            |s: &DeepSolver, child: &Position| match Value::of_status(child.status(), mover) {
                Some(result) => result.as_i8() >= v,
                None => -s.known(child).hi >= v,
            };
        let mut chosen = moves.iter().find(|c| proven(self, &c.child)).copied();
        if chosen.is_none() {
            // Not proven by what is stored: search the moves until one is.
            for c in &moves {
                if !c.child.is_over() && -self.node(&c.child, -v, -v + 1, LeafMode::Solve)?.hi >= v
                {
                    chosen = Some(*c);
                    break;
                }
            }
        }
        let c = chosen.ok_or(DeepProveError::Lost(*position))?;
        b.nodes.push(DeepNode::Best {
            position: *position,
            at_least: super::to_value(v),
            mv: c.mv,
        });
        if !c.child.is_over() {
            self.at_most(b, &c.child.canonical().position, -v)?;
        }
        Ok(())
    }

    /// Nodes proving the canonical ongoing `position` is worth at most `v` (0 or -1).
    fn at_most(
        &mut self,
        b: &mut Builder,
        position: &Position,
        v: i8,
    ) -> Result<(), DeepProveError> {
        if position.stone_count() >= self.leaf_stones {
            return self.leaf_node(b, position, Range { lo: -1, hi: v });
        }
        if !b.seen.insert((position.key().0, 1, v)) {
            return Ok(());
        }
        b.nodes.push(DeepNode::All {
            position: *position,
            at_most: super::to_value(v),
        });
        let mut done = HashSet::new();
        for &mv in position.legal_moves().iter() {
            let child = position.play_unchecked(mv);
            // Finished children hold the bound: the node's value is proven at most `v`.
            if child.is_over() || !done.insert(child.canonical_key().0) {
                continue;
            }
            self.at_least(b, &child.canonical().position, -v)?;
        }
        Ok(())
    }
}
