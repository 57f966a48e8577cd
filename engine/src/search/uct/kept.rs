//! A UCT search that keeps its trees between the moves of one game, as an engine program does:
//! when the game has moved on by this side's move and the opponent's reply, the subtree of the
//! new position is searched further instead of a fresh tree.

use std::time::Instant;

use pentagrid_gamekit::seeded_rng;
use rayon::prelude::*;

use super::search::{TreeSearch, split_budget};
use super::tree::Tree;
use super::{SearchControl, SearchError, SearchOptions, SearchResult, UctConfig};
use super::{finish, max_edges};
use crate::board::position::Position;

/// The trees of the last search of a game and the position they were searched from.
///
/// Each search looks for its position in the kept trees (the same position, or one reached by
/// one or two moves; only exact positions, not symmetric images) and goes on from that
/// subtree with its statistics and proofs; anything else starts fresh. A different thread
/// count or prior weight also starts fresh, since the trees would not fit.
#[derive(Default)]
pub struct KeptSearch {
    root: Option<Position>,
    trees: Vec<Tree>,
}

impl KeptSearch {
    /// Nothing kept yet.
    #[must_use]
    pub fn new() -> KeptSearch {
        KeptSearch::default()
    }

    /// Forgets the kept trees (a new game).
    pub fn clear(&mut self) {
        self.root = None;
        self.trees.clear();
    }

    /// Simulations the kept trees hold at `position`: what a search of it would start from.
    #[must_use]
    pub fn visits_at(&self, position: &Position) -> u64 {
        let Some(root) = self.root else {
            return 0;
        };
        self.trees
            .iter()
            .filter_map(|tree| {
                let node = tree.find(&root, position)?;
                Some(u64::from(tree.nodes[node as usize].visits))
            })
            .sum()
    }

    /// Searches `position` as [`crate::search`] does, but starting from the kept trees where
    /// they reach it, and keeps the trees for the next search. The result's `reused` says how
    /// many simulations were already there; `simulations` counts the new ones only (a playout
    /// budget is the number of new simulations).
    pub fn search(
        &mut self,
        position: &Position,
        config: &UctConfig,
        options: &SearchOptions,
        control: &SearchControl,
    ) -> Result<SearchResult, SearchError> {
        super::ongoing(position)?;
        let started = Instant::now();
        let threads = options.tree_count();
        // Deadlines run from now: copying a large kept subtree counts against the time.
        let budgets: Vec<_> = (0..threads)
            .map(|i| split_budget(config.budget, threads, i))
            .collect();
        let fits = self.trees.len() == threads
            && self.trees.iter().all(|tree| tree.prior() == config.prior);
        let kept = std::mem::take(&mut self.trees);
        let root = self.root.filter(|_| fits);
        let kept: Vec<Option<Tree>> = match root {
            Some(_) => kept.into_iter().map(Some).collect(),
            None => (0..threads).map(|_| None).collect(),
        };
        let max_edges = max_edges(config, threads);
        let searched: Vec<(TreeSearch<'_>, u64)> = kept
            .into_par_iter()
            .zip(budgets)
            .enumerate()
            .map(|(i, (tree, (share, deadline)))| {
                let start = match (tree, root) {
                    (Some(tree), Some(root)) => match tree.find(&root, position) {
                        Some(node) => tree.subtree(node),
                        None => Tree::new(position, config.prior, options.oracle.clone()),
                    },
                    _ => Tree::new(position, config.prior, options.oracle.clone()),
                };
                let reused = u64::from(start.nodes[0].visits);
                let rng = seeded_rng(options.seed, i as u64);
                let mut search =
                    TreeSearch::with_tree(start, *position, config, rng, share, max_edges);
                search.run(control, deadline);
                (search, reused)
            })
            .collect();
        let reused = searched.iter().map(|(_, r)| r).sum();
        let searched: Vec<TreeSearch<'_>> = searched.into_iter().map(|(s, _)| s).collect();
        let result = finish(position, &searched, options, started, reused);
        self.trees = searched.into_iter().map(|s| s.tree).collect();
        self.root = Some(*position);
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> UctConfig {
        text.parse().unwrap()
    }

    fn options(threads: usize) -> SearchOptions {
        SearchOptions {
            seed: 5,
            threads,
            tables_min_visits: None,
            oracle: None,
        }
    }

    #[test]
    fn the_second_search_starts_from_the_kept_subtree() {
        let c = config("uct:playouts=20000");
        let mut kept = KeptSearch::new();
        let start: Position = "x.o.../.x..../....o./..x.../....../......".parse().unwrap();
        let first = kept
            .search(&start, &c, &options(2), &SearchControl::new())
            .unwrap();
        assert_eq!(first.reused, 0);
        assert_eq!(first.simulations, 20_000);
        // This side plays the best move, the opponent the reply the search expected.
        let after = start.play(first.pv[0]).unwrap();
        let reply = first.pv[1];
        let next = after.play(reply).unwrap();
        let waiting = kept.visits_at(&next);
        assert!(waiting > 0, "the expected line was searched");
        let second = kept
            .search(&next, &c, &options(2), &SearchControl::new())
            .unwrap();
        assert_eq!(second.reused, waiting);
        assert_eq!(second.simulations, 20_000);
        let games: u64 = second.moves.iter().map(|m| m.games).sum();
        assert!(
            games > 20_000,
            "the table holds the kept visits too: {games}"
        );
        assert!(next.play(second.best.unwrap()).is_ok());
    }

    #[test]
    fn unrelated_positions_and_new_thread_counts_start_fresh() {
        let c = config("uct:playouts=3000");
        let mut kept = KeptSearch::new();
        let start = Position::START;
        kept.search(&start, &c, &options(1), &SearchControl::new())
            .unwrap();
        let elsewhere: Position = "x...../....../....../....../....../.....o".parse().unwrap();
        assert_eq!(kept.visits_at(&elsewhere), 0);
        let r = kept
            .search(&elsewhere, &c, &options(1), &SearchControl::new())
            .unwrap();
        assert_eq!(r.reused, 0);
        // Same position again, but with two threads: the one kept tree does not fit.
        assert_eq!(kept.visits_at(&elsewhere), 3000);
        let r = kept
            .search(&elsewhere, &c, &options(2), &SearchControl::new())
            .unwrap();
        assert_eq!(r.reused, 0);
        let r = kept
            .search(&elsewhere, &c, &options(2), &SearchControl::new())
            .unwrap();
        assert_eq!(r.reused, 3000);
        kept.clear();
        assert_eq!(kept.visits_at(&elsewhere), 0);
    }

    #[test]
    fn a_kept_search_is_reproducible() {
        let c = config("uct:playouts=4000");
        let p: Position = "x.o.../.x..../....o./..x.../....../......".parse().unwrap();
        let play_two = || {
            let mut kept = KeptSearch::new();
            let a = kept
                .search(&p, &c, &options(1), &SearchControl::new())
                .unwrap();
            let next = p.play(a.pv[0]).unwrap().play(a.pv[1]).unwrap();
            kept.search(&next, &c, &options(1), &SearchControl::new())
                .unwrap()
                .moves
        };
        assert_eq!(play_two(), play_two());
    }

    #[test]
    fn finished_games_are_refused() {
        let over: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
        let err = KeptSearch::new().search(
            &over,
            &UctConfig::default(),
            &SearchOptions::default(),
            &SearchControl::new(),
        );
        assert!(matches!(err, Err(SearchError::GameOver(_))));
    }
}
