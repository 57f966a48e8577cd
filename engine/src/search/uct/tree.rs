//! The UCT tree: an arena of nodes (positions) and edges (moves with their statistics).
//!
//! Moves that lead to the same position share one edge: the first move in legal order stands
//! for the group, and the reported tables list the others (`also`). When the node's position is
//! itself symmetric, moves leading to symmetric images of one position share an edge too (their
//! values are equal), which folds the 288 opening moves into 6. The tree is a tree, not a DAG:
//! the same position reached by different move orders has separate nodes.

use crate::board::children::Children;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::eval::{Evaluation, LineOccupancy};
use crate::search::oracle::SharedOracle;
use crate::search::value::Value;

/// Proof state of a node or an edge, from the point of view of the side to move there
/// (for an edge: the player making the move).
pub(crate) type Proof = Option<Value>;

/// One move out of a node: 28 bytes.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Edge {
    /// `(wins + draws / 2) / visits`, kept up to date for selection.
    pub mean: f32,
    /// `1 / sqrt(visits)`, kept up to date for selection.
    pub inv_sqrt: f32,
    pub visits: u32,
    pub wins: u32,
    pub draws: u32,
    /// Node index of the position after the move; 0 while it has none (the root is never a child).
    pub child: u32,
    pub mv: Move,
    pub proof: Proof,
}

/// One position in the tree (its position is not stored: it is replayed from the root).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Node {
    pub first_edge: u32,
    pub edge_count: u16,
    /// Edges `[0, visited)` (relative) have been tried; the rest are still untried.
    pub visited: u16,
    pub proven_edges: u16,
    pub proof: Proof,
    /// Simulations that entered this node since it was created.
    pub visits: u32,
    /// Simulations that ended here because the node's value was known.
    pub stops: u32,
}

/// The arena. Node 0 is the root.
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    children: Children,
    scratch: Vec<(Move, Position)>,
    prior: f32,
    /// Exact values from outside (a tablebase): a node it values is proven on creation.
    oracle: Option<SharedOracle>,
}

/// Bytes per tree node: one move record with its statistics.
pub const BYTES_PER_EDGE: usize = std::mem::size_of::<Edge>();

impl Tree {
    /// A tree with just the root; `prior` is the weight of the evaluation prior in new nodes
    /// (see [`super::UctConfig::prior`]); `oracle` proves the nodes whose exact value it knows.
    ///
    /// At the root the oracle values each move rather than the root itself: a root proven
    /// from its own value would stop the search with no move to recommend, while root edges
    /// proven one by one give the best move (a win, else a draw) and leave the search free
    /// where some children are not covered.
    pub fn new(root: &Position, prior: f32, oracle: Option<SharedOracle>) -> Tree {
        let mut tree = Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            children: Children::new(),
            scratch: Vec::with_capacity(Move::COUNT),
            prior,
            oracle: None,
        };
        tree.create_node(root);
        tree.oracle = oracle;
        tree.prove_root_edges(root);
        tree
    }

    /// Proves each root edge whose child the oracle values, and the root when that settles it
    /// (one winning edge, or every edge proven).
    fn prove_root_edges(&mut self, root: &Position) {
        let Some(oracle) = self.oracle.clone() else {
            return;
        };
        let node = self.nodes[0];
        if node.proof.is_some() {
            return;
        }
        let first = node.first_edge as usize;
        let mut proven = node.proven_edges;
        for edge in &mut self.edges[first..first + node.edge_count as usize] {
            if edge.proof.is_none()
                && let Some(value) = oracle.0.exact_value(&root.play_unchecked(edge.mv))
            {
                edge.proof = Some(value.negate());
                proven += 1;
            }
        }
        let edges = &self.edges[first..first + node.edge_count as usize];
        let root_node = &mut self.nodes[0];
        root_node.proven_edges = proven;
        root_node.proof = if edges.iter().any(|e| e.proof == Some(Value::Win)) {
            Some(Value::Win)
        } else if proven == node.edge_count {
            edges.iter().filter_map(|e| e.proof).max()
        } else {
            None
        };
    }

    /// The weight of the evaluation prior its nodes were created with.
    pub fn prior(&self) -> f32 {
        self.prior
    }

    pub fn edges_of(&self, node: u32) -> &[Edge] {
        let n = &self.nodes[node as usize];
        &self.edges[n.first_edge as usize..n.first_edge as usize + n.edge_count as usize]
    }

    /// Adds the node for `position` and its edges.
    /// A side to move with an immediate win gets a proven node with that one winning edge.
    pub fn create_node(&mut self, position: &Position) -> u32 {
        let index = self.nodes.len() as u32;
        let first_edge = self.edges.len() as u32;
        let mut node = Node {
            first_edge,
            edge_count: 0,
            visited: 0,
            proven_edges: 0,
            proof: None,
            visits: 0,
            stops: 0,
        };
        if let Some(mv) = position.winning_move() {
            self.edges
                .push(Edge::new(mv, Some(Value::Win), 1.0, self.prior));
            node.edge_count = 1;
            node.proven_edges = 1;
            node.proof = Some(Value::Win);
        } else {
            let mover = position.side_to_move();
            let mut children = std::mem::take(&mut self.scratch);
            children.clear();
            self.children.collect(position, true, &mut children);
            for &(mv, child) in &children {
                let proof = Value::of_status(child.status(), mover);
                node.proven_edges += u16::from(proof.is_some());
                let prior_mean = match proof {
                    Some(value) => value.score() as f32,
                    None if self.prior > 0.0 => {
                        let occupancy = LineOccupancy::of(&child);
                        1.0 - Evaluation::FITTED.win_probability(&child, &occupancy)
                    }
                    None => 0.0,
                };
                self.edges
                    .push(Edge::new(mv, proof, prior_mean, self.prior));
                node.edge_count += 1;
            }
            self.scratch = children;
            if node.proven_edges == node.edge_count {
                node.proof = self.edges[first_edge as usize..]
                    .iter()
                    .filter_map(|e| e.proof)
                    .max();
            }
            if node.proof.is_none()
                && let Some(oracle) = &self.oracle
            {
                node.proof = oracle.0.exact_value(position);
            }
        }
        self.nodes.push(node);
        index
    }

    /// Number of move records (the tree's node count for memory purposes).
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The part of the tree below `node` as a tree of its own (`node` becomes the root, node 0),
    /// with every statistic and proof kept: how a game's search keeps its work when the game
    /// moves on to that position. Nodes outside the subtree are dropped, so the arena shrinks.
    pub fn subtree(&self, node: u32) -> Tree {
        let mut tree = Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            children: Children::new(),
            scratch: Vec::with_capacity(Move::COUNT),
            prior: self.prior,
            oracle: self.oracle.clone(),
        };
        // Breadth first: a node's new index is its place in `order`, known when it is queued,
        // so each edge is copied once with its child renumbered.
        let mut order = vec![node];
        let mut next = 0;
        while let Some(&old) = order.get(next) {
            let first_edge = tree.edges.len() as u32;
            for edge in self.edges_of(old) {
                let mut edge = *edge;
                if edge.child != 0 {
                    order.push(edge.child);
                    edge.child = (order.len() - 1) as u32;
                }
                tree.edges.push(edge);
            }
            tree.nodes.push(Node {
                first_edge,
                ..self.nodes[old as usize]
            });
            next += 1;
        }
        tree
    }

    /// The node of `target` within two moves below the root (whose position is `root`): the
    /// position after this side's move and the opponent's reply. Only exact positions count;
    /// a symmetric image of a searched position is not found.
    pub fn find(&self, root: &Position, target: &Position) -> Option<u32> {
        let depth = target.stone_count().checked_sub(root.stone_count())?;
        self.find_below(0, root, target, depth)
    }

    fn find_below(&self, node: u32, at: &Position, target: &Position, depth: u32) -> Option<u32> {
        if depth == 0 {
            return (at == target).then_some(node);
        }
        if depth > 2 {
            return None;
        }
        self.edges_of(node)
            .iter()
            .filter(|e| e.child != 0)
            .find_map(|e| self.find_below(e.child, &at.play_unchecked(e.mv), target, depth - 1))
    }
}

impl Edge {
    /// A fresh edge; with `prior_weight` > 0 it starts as if it had that many visits averaging
    /// `prior_mean`.
    fn new(mv: Move, proof: Proof, prior_mean: f32, prior_weight: f32) -> Edge {
        let (mean, inv_sqrt) = if prior_weight > 0.0 {
            (prior_mean, 1.0 / prior_weight.sqrt())
        } else {
            (0.0, f32::MAX)
        };
        Edge {
            mean,
            inv_sqrt,
            visits: 0,
            wins: 0,
            draws: 0,
            child: 0,
            mv,
            proof,
        }
    }

    /// Records one simulation result for the player making this move; `prior_weight` virtual
    /// visits of the prior stay in the mean (see [`Edge::new`]).
    #[inline]
    pub fn record(&mut self, result: Value, prior_weight: f32) {
        self.visits += 1;
        match result {
            Value::Win => self.wins += 1,
            Value::Draw => self.draws += 1,
            Value::Loss => {}
        }
        let visits = self.visits as f32;
        if prior_weight > 0.0 {
            // The prior's weight is not stored, so the mean moves by the running-mean step.
            let seen = visits + prior_weight;
            self.mean += (result.score() as f32 - self.mean) / seen;
            self.inv_sqrt = 1.0 / seen.sqrt();
        } else {
            self.mean = (self.wins as f32 + 0.5 * self.draws as f32) / visits;
            self.inv_sqrt = 1.0 / visits.sqrt();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_is_small() {
        assert_eq!(BYTES_PER_EDGE, 28);
    }

    #[test]
    fn start_folds_into_six_moves() {
        let tree = Tree::new(&Position::START, 0.0, None);
        assert_eq!(tree.edges_of(0).len(), 6);
        let groups = crate::board::children::move_groups(&Position::START, true);
        assert_eq!(groups.len(), 6);
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 288);
        for (edge, group) in tree.edges_of(0).iter().zip(&groups) {
            assert_eq!(edge.mv, group[0]);
        }
    }

    #[test]
    fn subtree_keeps_the_statistics_below_its_root() {
        let mut tree = Tree::new(&Position::START, 0.0, None);
        let first = tree.edges_of(0)[2];
        let after = Position::START.play_unchecked(first.mv);
        let child = tree.create_node(&after);
        tree.edges[2].child = child;
        let reply = tree.edges_of(child)[5];
        let after_reply = after.play_unchecked(reply.mv);
        let grandchild = tree.create_node(&after_reply);
        let reply_edge = (tree.nodes[child as usize].first_edge + 5) as usize;
        tree.edges[reply_edge].child = grandchild;
        tree.edges[reply_edge].visits = 7;
        tree.nodes[grandchild as usize].visits = 6;

        assert_eq!(tree.find(&Position::START, &Position::START), Some(0));
        assert_eq!(tree.find(&Position::START, &after), Some(child));
        assert_eq!(tree.find(&Position::START, &after_reply), Some(grandchild));
        let elsewhere = after.play_unchecked(tree.edges_of(child)[0].mv);
        assert_eq!(tree.find(&Position::START, &elsewhere), None);

        let kept = tree.subtree(child);
        assert_eq!(kept.nodes.len(), 2);
        assert_eq!(kept.edges_of(0).len(), tree.edges_of(child).len());
        assert_eq!(kept.edges_of(0)[5].visits, 7);
        assert_eq!(kept.edges_of(0)[5].child, 1);
        assert_eq!(kept.nodes[1].visits, 6);
        assert_eq!(kept.edges_of(1).len(), tree.edges_of(grandchild).len());
        assert_eq!(kept.find(&after, &after_reply), Some(1));
    }

    #[test]
    fn immediate_win_makes_a_proven_node() {
        let p: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let tree = Tree::new(&p, 0.0, None);
        assert_eq!(tree.nodes[0].proof, Some(Value::Win));
        assert_eq!(tree.edges_of(0).len(), 1);
        assert_eq!(tree.edges_of(0)[0].mv.square().to_string(), "e1");
    }
}
