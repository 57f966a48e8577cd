//! One UCT tree searched by one thread: selection, expansion, playout, backpropagation, and
//! proof propagation (MCTS-solver style: proven wins and losses move up the tree).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use pentagrid_gamekit::EngineRng;
use rand::RngExt;

use super::config::{Budget, UctConfig};
use super::tree::{Edge, Tree};
use crate::board::position::Position;
use crate::search::oracle::SharedOracle;
use crate::search::playout::cut_off_playout;
use crate::search::value::Value;

/// Shared, lock-free control of a running search: a stop flag and a simulation counter that
/// progress displays read.
#[derive(Debug, Default)]
pub struct SearchControl {
    stop: AtomicBool,
    simulations: AtomicU64,
}

impl SearchControl {
    /// A fresh control.
    #[must_use]
    pub fn new() -> SearchControl {
        SearchControl::default()
    }

    /// Asks every thread of the search to stop soon.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Simulations finished so far, over all threads (updated in batches).
    #[must_use]
    pub fn simulations(&self) -> u64 {
        self.simulations.load(Ordering::Relaxed)
    }
}

/// Simulations between looks at the clock and the shared control: a few milliseconds of
/// search at most, so a time budget is kept closely (reading the clock costs far less than
/// one playout).
const CHECK_EVERY: u64 = 64;

/// Searches a tree until its share of the budget is spent, the root is proven, or a stop.
pub(crate) struct TreeSearch<'a> {
    pub tree: Tree,
    pub root: Position,
    pub config: &'a UctConfig,
    rng: EngineRng,
    /// (node, absolute edge index) along the current simulation.
    path: Vec<(u32, u32)>,
    pub simulations: u64,
    /// Playout budget of this tree, or `u64::MAX` under a time budget.
    max_simulations: u64,
    max_edges: usize,
}

impl<'a> TreeSearch<'a> {
    pub fn new(
        root: Position,
        config: &'a UctConfig,
        rng: EngineRng,
        max_simulations: u64,
        max_edges: usize,
        oracle: Option<SharedOracle>,
    ) -> TreeSearch<'a> {
        let tree = Tree::new(&root, config.prior, oracle);
        TreeSearch::with_tree(tree, root, config, rng, max_simulations, max_edges)
    }

    /// Goes on searching `tree`, whose root is `root` (a tree kept from an earlier search).
    pub fn with_tree(
        tree: Tree,
        root: Position,
        config: &'a UctConfig,
        rng: EngineRng,
        max_simulations: u64,
        max_edges: usize,
    ) -> TreeSearch<'a> {
        TreeSearch {
            tree,
            root,
            config,
            rng,
            path: Vec::with_capacity(40),
            simulations: 0,
            max_simulations,
            max_edges,
        }
    }

    /// Runs simulations until done.
    pub fn run(&mut self, control: &SearchControl, deadline: Option<Instant>) {
        let mut unreported = 0;
        while self.simulations < self.max_simulations && self.tree.nodes[0].proof.is_none() {
            self.simulate();
            self.simulations += 1;
            unreported += 1;
            if unreported == CHECK_EVERY {
                control.simulations.fetch_add(unreported, Ordering::Relaxed);
                unreported = 0;
                if control.is_stopped() || deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
            }
        }
        control.simulations.fetch_add(unreported, Ordering::Relaxed);
    }

    /// One simulation: walk down by UCT, grow the tree, play out, back up the result.
    fn simulate(&mut self) {
        self.path.clear();
        let mut position = self.root;
        let mut node = 0u32;
        // The result, from the point of view of the player to move at `position`.
        let result = loop {
            let n = &mut self.tree.nodes[node as usize];
            n.visits += 1;
            if let Some(proof) = n.proof {
                n.stops += 1;
                break proof;
            }
            let edge_index = self.select(node);
            self.path.push((node, edge_index));
            let edge = self.tree.edges[edge_index as usize];
            if let Some(proof) = edge.proof {
                // A finished game, or a child already proven: no playout needed.
                break proof.negate();
            }
            position = position.play_unchecked(edge.mv);
            if edge.child != 0 {
                node = edge.child;
                continue;
            }
            let may_grow = edge.visits >= self.config.expand
                && self.path.len() < self.config.max_depth as usize
                && self.tree.edge_count() + 288 <= self.max_edges;
            if may_grow {
                let child = self.tree.create_node(&position);
                self.tree.edges[edge_index as usize].child = child;
                node = child;
                continue;
            }
            let cutoff = (self.config.cutoff > 0).then_some(self.config.cutoff);
            let end = cut_off_playout(&position, self.config.policy, cutoff, &mut self.rng);
            let mover = position.side_to_move();
            break Value::of_status(end.status, mover).expect("playouts end the game");
        };
        self.backpropagate(result);
    }

    /// The edge to follow from `node`: an untried one (chosen at random) while any is left,
    /// then the best by `mean + K * sqrt(2 ln n / n_i)`, never a proven loss unless all are.
    /// With an evaluation prior, untried moves compete by their prior from the start.
    #[inline]
    fn select(&mut self, node: u32) -> u32 {
        let n = self.tree.nodes[node as usize];
        let first = n.first_edge as usize;
        let count = n.edge_count as usize;
        if (n.visited as usize) < count && self.config.prior == 0.0 {
            // Lazy Fisher-Yates: swap a random untried edge into the next slot.
            let pick = self.rng.random_range(n.visited as usize..count);
            self.tree
                .edges
                .swap(first + n.visited as usize, first + pick);
            self.tree.nodes[node as usize].visited += 1;
            return (first + n.visited as usize) as u32;
        }
        let total: u32 = n.visits;
        let c = self.config.exploration * (2.0 * (total.max(1) as f32).ln()).sqrt();
        let edges = &self.tree.edges[first..first + count];
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for (i, edge) in edges.iter().enumerate() {
            let score = if edge.proof == Some(Value::Loss) {
                -1.0
            } else {
                edge.mean + c * edge.inv_sqrt
            };
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        (first + best) as u32
    }

    /// Records the result along the path and moves proofs up.
    fn backpropagate(&mut self, leaf_result: Value) {
        // `leaf_result` is for the player to move after the last edge; flip once per edge.
        let mut result = leaf_result;
        let mut proof_changed = true;
        for &(node, edge_index) in self.path.iter().rev() {
            result = result.negate();
            let edge: &mut Edge = &mut self.tree.edges[edge_index as usize];
            edge.record(result, self.config.prior);
            if !proof_changed {
                continue;
            }
            proof_changed = false;
            if edge.proof.is_none()
                && edge.child != 0
                && let Some(child_proof) = self.tree.nodes[edge.child as usize].proof
            {
                let proof = child_proof.negate();
                edge.proof = Some(proof);
                let n = &mut self.tree.nodes[node as usize];
                n.proven_edges += 1;
                if proof == Value::Win {
                    n.proof = Some(Value::Win);
                } else if n.proven_edges == n.edge_count {
                    let (first, count) = (n.first_edge as usize, n.edge_count as usize);
                    n.proof = self.tree.edges[first..first + count]
                        .iter()
                        .filter_map(|e| e.proof)
                        .max();
                }
                proof_changed = self.tree.nodes[node as usize].proof.is_some();
            }
        }
    }
}

/// Each tree's share of a playout budget, and the deadline of a time budget.
pub(crate) fn split_budget(budget: Budget, trees: usize, tree: usize) -> (u64, Option<Instant>) {
    match budget {
        Budget::Playouts(total) => {
            let trees = trees as u64;
            let share = total / trees + u64::from((tree as u64) < total % trees);
            (share, None)
        }
        Budget::Seconds(seconds) => (
            u64::MAX,
            Some(Instant::now() + std::time::Duration::from_secs_f64(seconds)),
        ),
    }
}
