//! Many-core UCT search with (move, games, wins, draws) tables.
//!
//! Parallelism is root parallelism: each thread grows its own tree from its own random stream,
//! and the root tables are merged at the end. Threads share nothing while they search (no lock,
//! no atomic on the hot path), so they scale with the cores; a fixed seed and thread count
//! reproduce a playout-budget search bit for bit.
//!
//! A short search with a fixed playout budget (the configuration's text form is the one jobs,
//! matches and the command line use):
//!
//! ```
//! use pentago::{Position, SearchControl, SearchOptions, UctConfig, search};
//!
//! let position: Position = "....../..x.../...o../....../....../......".parse()?;
//! let config: UctConfig = "uct:playouts=2000".parse()?;
//! let options = SearchOptions::default(); // seed 1, one tree
//! let result = search(&position, &config, &options, &SearchControl::new())?;
//!
//! assert_eq!(result.simulations, 2000);
//! let best = result.best.expect("an ongoing game has a move to play");
//! assert_eq!(result.pv.first(), Some(&best));
//! let table: u64 = result.moves.iter().map(|m| m.games).sum();
//! assert_eq!(table, 2000); // every simulation went through one root move
//!
//! let again = search(&position, &config, &options, &SearchControl::new())?;
//! assert_eq!(again.best, Some(best)); // same seed, same tree count: the same search
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod kept;
mod result;
mod search;
mod tree;

use std::collections::HashMap;
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

pub use config::{Budget, ParseConfigError, UctConfig};
pub use kept::KeptSearch;
use pentagrid_gamekit::seeded_rng;
pub use result::{MoveStats, NodeTable, SearchResult};
pub use search::SearchControl;
pub use tree::BYTES_PER_EDGE;

use crate::board::children::MoveGroups;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::search::oracle::SharedOracle;
use search::{TreeSearch, split_budget};

/// Options of one search that are not part of the engine configuration.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Random seed; tree `i` uses stream `i`.
    pub seed: u64,
    /// Trees searched in parallel on the current rayon pool (at least 1).
    pub threads: usize,
    /// Also return the table of every position with at least this many visits.
    pub tables_min_visits: Option<u64>,
    /// Exact values from outside the search (a tablebase): a node whose value it knows is
    /// proven, like a finished game, and simulations stop there (the MCTS-solver's rule).
    pub oracle: Option<SharedOracle>,
}

impl SearchOptions {
    /// Trees to search: `threads`, at least one.
    #[must_use]
    pub fn tree_count(&self) -> usize {
        self.threads.max(1)
    }
}

/// Refuses a finished game: it has no move to search for.
fn ongoing(position: &Position) -> Result<(), SearchError> {
    let status = position.status();
    if status.is_over() {
        Err(SearchError::GameOver(status))
    } else {
        Ok(())
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            seed: 1,
            threads: 1,
            tables_min_visits: None,
            oracle: None,
        }
    }
}

/// Why a search could not start.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SearchError {
    /// The position is a finished game.
    #[error("nothing to search: the game is over ({0})")]
    GameOver(Status),
}

/// Searches `position` with `config`. `control` can stop it early and shows its progress.
pub fn search(
    position: &Position,
    config: &UctConfig,
    options: &SearchOptions,
    control: &SearchControl,
) -> Result<SearchResult, SearchError> {
    ongoing(position)?;
    let started = Instant::now();
    let threads = options.tree_count();
    let max_edges = max_edges(config, threads);
    let trees: Vec<TreeSearch<'_>> = (0..threads)
        .into_par_iter()
        .map(|i| {
            let (share, deadline) = split_budget(config.budget, threads, i);
            let rng = seeded_rng(options.seed, i as u64);
            let oracle = options.oracle.clone();
            let mut tree = TreeSearch::new(*position, config, rng, share, max_edges, oracle);
            tree.run(control, deadline);
            tree
        })
        .collect();
    Ok(finish(position, &trees, options, started, 0))
}

/// Move records each of `threads` trees may hold.
fn max_edges(config: &UctConfig, threads: usize) -> usize {
    (config.max_nodes / threads as u64).max(1_000) as usize
}

/// The result of searched `trees`, which held `reused` simulations at the root when it started.
fn finish(
    position: &Position,
    trees: &[TreeSearch<'_>],
    options: &SearchOptions,
    started: Instant,
    reused: u64,
) -> SearchResult {
    let seconds = started.elapsed().as_secs_f64();
    let moves = merged_root_table(position, trees);
    let value = trees.iter().find_map(|t| t.tree.nodes[0].proof);
    let best = moves.iter().max_by_key(|m| m.rank()).map(|m| m.mv);
    let pv = principal_variation(trees, best);
    let tables = match options.tables_min_visits {
        Some(min) => collect_tables(trees, min),
        None => Vec::new(),
    };
    SearchResult {
        position: *position,
        moves,
        best,
        pv,
        value,
        simulations: trees.iter().map(|t| t.simulations).sum(),
        reused,
        seconds,
        tree_nodes: trees.iter().map(|t| t.tree.edge_count() as u64).sum(),
        threads: trees.len(),
        tables,
    }
}

/// Sums the tables of one node over trees, keyed by the representative move.
fn merge_edges<'t>(
    position: &Position,
    edge_lists: impl Iterator<Item = &'t [tree::Edge]>,
) -> Vec<MoveStats> {
    let mut by_move: HashMap<Move, MoveStats> = HashMap::new();
    for edges in edge_lists {
        for edge in edges {
            let stats = by_move.entry(edge.mv).or_insert_with(|| MoveStats {
                mv: edge.mv,
                also: Vec::new(),
                games: 0,
                wins: 0,
                draws: 0,
                proven: None,
            });
            stats.games += u64::from(edge.visits);
            stats.wins += u64::from(edge.wins);
            stats.draws += u64::from(edge.draws);
            stats.proven = stats.proven.or(edge.proof);
        }
    }
    for group in MoveGroups::of(position, true).iter() {
        if let Some(stats) = by_move.get_mut(&group[0]) {
            stats.also = group[1..].to_vec();
        }
    }
    let mut table: Vec<MoveStats> = by_move.into_values().collect();
    table.sort_by(|a, b| b.rank().cmp(&a.rank()).then(a.mv.cmp(&b.mv)));
    table
}

fn merged_root_table(position: &Position, trees: &[TreeSearch<'_>]) -> Vec<MoveStats> {
    merge_edges(position, trees.iter().map(|t| t.tree.edges_of(0)))
}

/// The best move, then in the tree that explored it most, the most simulated moves below.
fn principal_variation(trees: &[TreeSearch<'_>], best: Option<Move>) -> Vec<Move> {
    let Some(best) = best else {
        return Vec::new();
    };
    let edge_of = |t: &TreeSearch<'_>| t.tree.edges_of(0).iter().find(|e| e.mv == best).copied();
    let Some(tree) = trees
        .iter()
        .max_by_key(|t| edge_of(t).map_or(0, |e| e.visits))
    else {
        return vec![best];
    };
    let mut pv = vec![best];
    let mut edge = edge_of(tree);
    while let Some(e) = edge {
        if e.child == 0 {
            break;
        }
        let next = tree
            .tree
            .edges_of(e.child)
            .iter()
            .filter(|c| c.visits > 0 || c.proof.is_some())
            .max_by_key(|c| (result::proof_class(c.proof), c.visits))
            .copied();
        if let Some(n) = next {
            pv.push(n.mv);
        }
        edge = next;
    }
    pv
}

/// Tables of every position with at least `min` visits, merged over trees by exact position.
fn collect_tables(trees: &[TreeSearch<'_>], min: u64) -> Vec<NodeTable> {
    struct Found<'t> {
        position: Position,
        visits: u64,
        edges: Vec<&'t [tree::Edge]>,
    }
    let mut found: HashMap<u64, Found<'_>> = HashMap::new();
    for t in trees {
        let mut stack = vec![(0u32, t.root, u64::from(t.tree.nodes[0].visits))];
        while let Some((node, position, visits)) = stack.pop() {
            let edges = t.tree.edges_of(node);
            let entry = found.entry(position.key().0).or_insert_with(|| Found {
                position,
                visits: 0,
                edges: Vec::new(),
            });
            entry.visits += visits;
            entry.edges.push(edges);
            for e in edges.iter().filter(|e| e.child != 0) {
                stack.push((e.child, position.play_unchecked(e.mv), u64::from(e.visits)));
            }
        }
    }
    let mut tables: Vec<NodeTable> = found
        .into_values()
        .filter(|f| f.visits >= min)
        .map(|f| NodeTable {
            position: f.position,
            visits: f.visits,
            moves: merge_edges(&f.position, f.edges.into_iter()),
        })
        .collect();
    tables.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(a.position.key().cmp(&b.position.key()))
    });
    tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::value::Value;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    fn config(text: &str) -> UctConfig {
        text.parse().unwrap()
    }

    fn run(position: &Position, config: &UctConfig, seed: u64, threads: usize) -> SearchResult {
        let options = SearchOptions {
            seed,
            threads,
            tables_min_visits: Some(50),
            oracle: None,
        };
        search(position, config, &options, &SearchControl::new()).unwrap()
    }

    /// Checks the bookkeeping of one tree: every simulation entering a node either stops there
    /// or follows exactly one edge, and an edge's visits are its child's plus the `expand`
    /// visits it had when the child was created.
    fn check_invariants(t: &TreeSearch<'_>) {
        let tree = &t.tree;
        let root = &tree.nodes[0];
        assert_eq!(u64::from(root.visits), t.simulations);
        for (index, node) in tree.nodes.iter().enumerate() {
            let edges = tree.edges_of(index as u32);
            let through: u64 = edges.iter().map(|e| u64::from(e.visits)).sum();
            assert_eq!(through + u64::from(node.stops), u64::from(node.visits));
            for edge in edges {
                assert!(edge.wins + edge.draws <= edge.visits);
                if edge.child != 0 {
                    let child = &tree.nodes[edge.child as usize];
                    assert_eq!(edge.visits, child.visits + t.config.expand);
                }
            }
        }
    }

    #[test]
    fn statistics_invariants_hold_in_parallel_trees() {
        let c = config("uct:expand=4,playouts=40000");
        let positions = [
            Position::START,
            pos("x.o.../.x..../....o./..x.../....../......"),
        ];
        for position in positions {
            let trees: Vec<TreeSearch<'_>> = (0..4)
                .into_par_iter()
                .map(|i| {
                    let mut t =
                        TreeSearch::new(position, &c, seeded_rng(1, i), 10_000, 1 << 24, None);
                    t.run(&SearchControl::new(), None);
                    t
                })
                .collect();
            for t in &trees {
                check_invariants(t);
            }
            let merged = merged_root_table(&position, &trees);
            assert_eq!(merged.iter().map(|m| m.games).sum::<u64>(), 40_000);
            assert!(merged.iter().all(|m| m.wins + m.draws <= m.games));
        }
    }

    #[test]
    fn single_thread_search_is_reproducible() {
        let c = config("uct:playouts=20000");
        let p = pos("x.o.../.x..../....o./..x.../....../......");
        let a = run(&p, &c, 42, 1);
        let b = run(&p, &c, 42, 1);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.pv, b.pv);
        assert_eq!(a.tables, b.tables);
        let other = run(&p, &c, 43, 1);
        assert_ne!(a.moves, other.moves, "another seed explores differently");
    }

    #[test]
    fn cut_off_and_prior_searches_are_reproducible() {
        let p = pos("x.o.../.x..../....o./..x.../....../......");
        for text in [
            "uct:cutoff=8,playouts=8000",
            "uct:prior=20,playouts=8000",
            "uct:cutoff=10,prior=5,policy=uniform,playouts=8000",
        ] {
            let c = config(text);
            let a = run(&p, &c, 42, 1);
            assert_eq!(a.simulations, 8_000);
            assert_eq!(a.moves, run(&p, &c, 42, 1).moves, "{text}");
            assert_ne!(a.moves, run(&p, &c, 43, 1).moves, "{text}");
        }
    }

    #[test]
    fn prior_ranks_untried_moves_by_the_evaluation() {
        // With a heavy prior and few simulations, the search stays on the moves the evaluation
        // likes instead of trying every move once first.
        let p = pos("....../....../....../....../.x.x.x/.ooo..");
        let r = run(&p, &config("uct:prior=1000,playouts=300"), 1, 1);
        let tried = |r: &SearchResult| r.moves.iter().filter(|m| m.games > 0).count();
        assert!(
            tried(&r) < 60,
            "{} moves tried of {}",
            tried(&r),
            r.moves.len()
        );
        let plain = run(&p, &config("uct:prior=0,playouts=300"), 1, 1);
        assert!(
            tried(&plain) > 100,
            "without a prior every move is tried first: {} of {}",
            tried(&plain),
            plain.moves.len()
        );
    }

    #[test]
    fn finds_an_immediate_win_without_playouts() {
        // Black wins with e1 at once (whatever the twist).
        let p = pos("o...../....../....../....../oo.o../xxxx..");
        let r = run(&p, &config("uct:playouts=1000"), 1, 2);
        assert_eq!(r.value, Some(Value::Win));
        assert_eq!(r.best.unwrap().square().to_string(), "e1");
        assert_eq!(r.best_stats().unwrap().proven, Some(Value::Win));
    }

    #[test]
    fn avoids_a_move_that_allows_an_immediate_loss() {
        // White threatens f1 after b1-e1; every black move but f1 loses at once.
        let p = pos("x...../x...../x...../....../....../xoooo.");
        // Uniform playouts run into the loss, so the losing moves get proven.
        let r = run(&p, &config("uct:playouts=20000,policy=uniform"), 5, 2);
        let best = r.best.unwrap();
        assert_eq!(best.square().to_string(), "f1", "{best}");
        assert!(!p.play(best).unwrap().has_immediate_win());
        let losing = r
            .moves
            .iter()
            .filter(|m| m.proven == Some(Value::Loss))
            .count();
        assert!(losing > 100, "most moves are proven losses, {losing} found");
    }

    #[test]
    fn node_tables_are_from_the_movers_view() {
        let p = Position::START;
        let r = run(&p, &config("uct:playouts=30000"), 3, 2);
        assert_eq!(r.tables[0].position, p);
        assert_eq!(r.tables[0].visits, 30_000);
        assert!(r.tables.len() > 1);
        for table in &r.tables {
            assert!(table.visits >= 50);
            let games: u64 = table.moves.iter().map(|m| m.games).sum();
            assert!(games <= table.visits);
            for stats in &table.moves {
                assert!(table.position.play(stats.mv).is_ok());
            }
        }
        // The start position's 288 moves fold into 6 rows.
        assert_eq!(r.moves.len(), 6);
        assert_eq!(r.moves.iter().map(|m| 1 + m.also.len()).sum::<usize>(), 288);
        // Black wins more than half of random games from the start, and the best
        // move's win rate says so from black's (the mover's) side.
        assert!(r.best_stats().unwrap().win_rate() > 0.5);
    }

    #[test]
    fn time_budget_and_stop_are_honoured() {
        let c = config("uct:seconds=0.2");
        let started = Instant::now();
        let r = run(&Position::START, &c, 1, 2);
        assert!(r.simulations > 1000);
        assert!(started.elapsed().as_secs_f64() < 5.0);
        let control = SearchControl::new();
        control.stop();
        let options = SearchOptions::default();
        let r = search(
            &Position::START,
            &config("uct:playouts=100000000"),
            &options,
            &control,
        )
        .unwrap();
        assert!(r.simulations <= 256, "stops at the first check");
    }

    #[test]
    fn finished_games_are_refused() {
        let over = pos("....../....../....../....../oooo../xxxxx.");
        let err = search(
            &over,
            &UctConfig::default(),
            &SearchOptions::default(),
            &SearchControl::new(),
        );
        assert!(matches!(err, Err(SearchError::GameOver(_))));
    }
}
