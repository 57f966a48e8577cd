//! Reading a stored puzzle collection page by page, as the explorer and `puzzles export` do:
//! N puzzle records (mates in 1 and 2 found in random games) stored through the store's result
//! transaction, then the whole collection read by cursor, 100 a page, twice (the first read
//! builds what listings keep between calls). Run with
//! `cargo bench -p pentagrid-bench --bench puzzle_list -- [puzzles]` (default 5000).

use std::sync::Arc;
use std::time::Instant;

use pentago::{MateSearch, Puzzle};
use pentagrid_bench::late_positions;
use pentagrid_coordinator::puzzles::PuzzleQuery;
use pentagrid_coordinator::{Coordinator, CoordinatorSettings, Job, JobState};
use pentagrid_store::{CandidateState, ResultEffect, Store};

/// Puzzle records of positions from random games with a forced win in at most two moves.
fn puzzles(count: usize) -> Vec<(u64, String)> {
    let mut search = MateSearch::new();
    late_positions(20)
        .filter_map(|position| Some((position, search.find(&position, 2)?)))
        .take(count)
        .enumerate()
        .map(|(index, (position, proof))| {
            let puzzle = Puzzle {
                difficulty: (index % 80) as f64,
                source: "random game".into(),
                ..Puzzle::from_proof(proof)
            };
            let json = serde_json::to_string(&puzzle).expect("a puzzle serializes");
            (position.canonical_key().bits(), json)
        })
        .collect()
}

fn store(dir: &std::path::Path, puzzles: &[(u64, String)]) {
    let store = Store::open(dir).expect("open the store");
    for (index, chunk) in puzzles.chunks(500).enumerate() {
        let effect = ResultEffect {
            verdicts: chunk
                .iter()
                .map(|(key, json)| (*key, CandidateState::Puzzle, Some(json.clone())))
                .collect(),
            ..ResultEffect::default()
        };
        let id = index as u64 + 1;
        store
            .apply(
                id,
                &Job::in_state(JobState::Done),
                &format!("r{id}"),
                &effect,
            )
            .expect("store the puzzles");
    }
    store.flush_blocking().expect("flush");
}

/// Reads the whole collection by cursor; returns the puzzles read and each page's time in ms.
fn read_all(coordinator: &Coordinator) -> (usize, Vec<f64>) {
    let mut filter = PuzzleQuery {
        page_size: 100,
        ..PuzzleQuery::default()
    };
    let (mut read, mut pages) = (0, Vec::new());
    loop {
        let started = Instant::now();
        let page = coordinator.puzzles.list(&filter).expect("a page");
        pages.push(started.elapsed().as_secs_f64() * 1e3);
        read += page.puzzles_json.len();
        match page.next_cursor {
            Some(cursor) => filter.cursor = Some(cursor),
            None => return (read, pages),
        }
    }
}

fn main() {
    let count = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5_000);
    let started = Instant::now();
    let records = puzzles(count);
    let bytes: usize = records.iter().map(|(_, json)| json.len()).sum();
    println!(
        "{count} puzzles ({} KB of JSON) found in {:.1} s",
        bytes / 1024,
        started.elapsed().as_secs_f64()
    );
    let dir = tempfile::tempdir().expect("temporary directory");
    store(dir.path(), &records);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let _context = runtime.enter();
    let coordinator =
        Arc::new(Coordinator::open(dir.path(), CoordinatorSettings::default()).expect("open"));
    for pass in ["first read", "second read"] {
        let started = Instant::now();
        let (read, mut pages) = read_all(&coordinator);
        let total = started.elapsed().as_secs_f64();
        assert_eq!(read, count, "every puzzle read once");
        let first = pages[0];
        pages.sort_by(f64::total_cmp);
        println!(
            "{pass}: {read} puzzles in {} pages, {total:.3} s; first page {first:.2} ms, median page {:.2} ms, slowest {:.2} ms",
            pages.len(),
            pages[pages.len() / 2],
            pages[pages.len() - 1],
        );
    }
}
