//! UCT for Calculation with hidden cards: every iteration deals the unseen cards afresh (one
//! determinization) and walks the tree with them. A tree node is a table as the player would
//! see it; after a move that turns up a card, the child is chosen by the card that came up
//! (a chance node), so every node's legal moves are fixed and statistics are shared only
//! between determinizations that agree on everything seen. Selection by
//! `x + k·sqrt(2 ln N / n)` with x the mean reward, playouts by the random player.
//!
//! Parallelism is root parallelism as in the Pentago search: each thread grows its own tree
//! from its own random stream and the root tables are added up, so a fixed seed and thread count
//! reproduce a decision exactly. The move played has the best mean reward, ties going to the
//! most cards on the foundations and then to the most visits.

use pentagrid_gamekit::{EngineRng, seeded_rng};
use rand::RngExt;
use rayon::prelude::*;

use super::super::moves::Move;
use super::super::observation::Observation;
use super::super::table::{Outcome, Table};
use super::{Decision, Reward, SearchSettings};

/// One move's statistics and the nodes that follow it, one per card turned up after it.
#[derive(Clone)]
struct Edge {
    mv: Move,
    visits: u64,
    wins: u64,
    cards: u64,
    /// `(rank turned up, 0 for none; node index)`.
    children: Vec<(u8, u32)>,
}

impl Edge {
    fn new(mv: Move) -> Edge {
        Edge {
            mv,
            visits: 0,
            wins: 0,
            cards: 0,
            children: Vec::new(),
        }
    }

    fn mean(&self, reward: Reward) -> f64 {
        let sum = match reward {
            Reward::Win => self.wins as f64,
            Reward::Cards => self.cards as f64 / 52.0,
        };
        sum / self.visits as f64
    }

    fn add(&mut self, outcome: Outcome) {
        self.visits += 1;
        self.wins += u64::from(outcome.won);
        self.cards += u64::from(outcome.foundation_cards);
    }
}

struct Node {
    visits: u64,
    edges: Vec<Edge>,
}

impl Node {
    fn new(seen: &Observation) -> Node {
        Node {
            visits: 0,
            edges: seen.legal_moves().iter().map(|&mv| Edge::new(mv)).collect(),
        }
    }
}

/// The UCT move for `seen` with `settings.playouts` iterations split over `threads` trees.
pub(super) fn choose(
    seen: &Observation,
    settings: &SearchSettings,
    seed: u64,
    threads: usize,
) -> Decision {
    let threads = (threads as u64).min(settings.playouts).max(1);
    let roots: Vec<Vec<Edge>> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let share = settings.playouts / threads + u64::from(t < settings.playouts % threads);
            grow(seen, settings, share, &mut seeded_rng(seed, t))
        })
        .collect();
    let mut total = roots[0].clone();
    for root in &roots[1..] {
        for (sum, edge) in total.iter_mut().zip(root) {
            sum.visits += edge.visits;
            sum.wins += edge.wins;
            sum.cards += edge.cards;
        }
    }
    let score = |e: &Edge| {
        if e.visits == 0 {
            (f64::NEG_INFINITY, f64::NEG_INFINITY, 0)
        } else {
            (
                e.mean(settings.reward),
                e.cards as f64 / e.visits as f64,
                e.visits,
            )
        }
    };
    let mut best = 0;
    for (i, edge) in total.iter().enumerate() {
        if score(edge) > score(&total[best]) {
            best = i;
        }
    }
    Decision {
        mv: total[best].mv,
        playouts: settings.playouts,
    }
}

/// Grows one tree by `iterations` and returns its root's edges.
fn grow(
    seen: &Observation,
    settings: &SearchSettings,
    iterations: u64,
    rng: &mut EngineRng,
) -> Vec<Edge> {
    let mut nodes = vec![Node::new(seen)];
    let mut path: Vec<(u32, usize)> = Vec::new();
    for _ in 0..iterations {
        path.clear();
        let mut table = Table::sample(seen, rng);
        let mut node = 0u32;
        let outcome = loop {
            let Some(e) = select(&nodes[node as usize], settings, rng) else {
                break table.outcome();
            };
            let edge = &nodes[node as usize].edges[e];
            table.play_legal(edge.mv);
            path.push((node, e));
            let key = table.observation().turned().map_or(0, |c| c.rank());
            match edge.children.iter().find(|(k, _)| *k == key) {
                Some(&(_, child)) => node = child,
                None => {
                    let child = nodes.len() as u32;
                    nodes.push(Node::new(table.observation()));
                    nodes[node as usize].edges[e].children.push((key, child));
                    break table.random_playout(rng).0;
                }
            }
        };
        for &(n, e) in &path {
            let node = &mut nodes[n as usize];
            node.visits += 1;
            node.edges[e].add(outcome);
        }
    }
    nodes.swap_remove(0).edges
}

/// The edge to follow: an unvisited one at random, else the best upper confidence bound;
/// `None` at the end of a game.
fn select(node: &Node, settings: &SearchSettings, rng: &mut EngineRng) -> Option<usize> {
    if node.edges.is_empty() {
        return None;
    }
    let unvisited = node.edges.iter().filter(|e| e.visits == 0).count();
    if unvisited > 0 {
        let pick = rng.random_range(0..unvisited);
        return node
            .edges
            .iter()
            .enumerate()
            .filter(|(_, e)| e.visits == 0)
            .nth(pick)
            .map(|(i, _)| i);
    }
    let log_n = 2.0 * (node.visits as f64).ln();
    let mut best = 0;
    let mut best_bound = f64::NEG_INFINITY;
    for (i, edge) in node.edges.iter().enumerate() {
        let bound = edge.mean(settings.reward) + settings.k * (log_n / edge.visits as f64).sqrt();
        if bound > best_bound {
            best = i;
            best_bound = bound;
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;
    use crate::players::Player;

    #[test]
    fn uct_frees_the_buried_card_first() {
        // The table of flat.rs's test: moving the J up first is the clearly better move.
        let seen: Observation = "f=10,K,K,K w=J,-,-,- t=Q s=1".parse().unwrap();
        let player: Player = "uct:playouts=400".parse().unwrap();
        assert_eq!(player.decide(&seen, 2, 1).mv.to_string(), "w1>f1");
        assert_eq!(player.decide(&seen, 2, 2).mv.to_string(), "w1>f1");
    }

    #[test]
    fn a_seed_and_thread_count_reproduce_a_decision() {
        let seen = *Table::deal(Variant::Computer, 9).observation();
        let player: Player = "uct:playouts=500".parse().unwrap();
        for threads in [1, 3] {
            assert_eq!(
                player.decide(&seen, 4, threads),
                player.decide(&seen, 4, threads)
            );
        }
    }

    #[test]
    fn the_tree_counts_every_iteration_once() {
        let seen = *Table::deal(Variant::Standard, 2).observation();
        let settings = SearchSettings {
            playouts: 777,
            k: 0.45,
            reward: Reward::Win,
        };
        let root = grow(&seen, &settings, 777, &mut seeded_rng(1, 1));
        assert_eq!(root.iter().map(|e| e.visits).sum::<u64>(), 777);
        assert!(root.iter().all(|e| e.cards >= 4 * e.visits));
    }
}
