//! Puzzle verification throughput: candidates from random games (20+ stones, as `puzzles
//! generate` mines them) checked on one thread, as a one-thread worker does.
//! Reports candidates and puzzles per second and the share of candidates that become puzzles.
//! Run with `cargo bench -p pentagrid-bench --bench puzzles` (about a minute).

use std::time::Instant;

use pentago::{Position, PuzzleVerifier, Rejection, SolveLimits};
use pentagrid_bench::late_positions;

const CANDIDATES: usize = 400;

fn candidates() -> Vec<Position> {
    late_positions(20).take(CANDIDATES).collect()
}

fn main() {
    let candidates = candidates();
    for max_moves in [3, 5] {
        let limits = SolveLimits {
            max_nodes: 3_000_000,
            max_time: None,
        };
        let mut verifier = PuzzleVerifier::new(20, limits, 1);
        let started = Instant::now();
        let (mut puzzles, mut no_mate, mut not_unique, mut undecided) = (0, 0, 0, 0);
        let mut lengths = [0u32; 8];
        for position in &candidates {
            match verifier.verify(position, max_moves) {
                Ok(puzzle) => {
                    puzzles += 1;
                    lengths[puzzle.mate_in as usize] += 1;
                }
                Err(Rejection::NoMate) => no_mate += 1,
                Err(Rejection::NotUnique(_)) => not_unique += 1,
                Err(_) => undecided += 1,
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "max {max_moves} moves: {} candidates in {seconds:.1} s = {:.1} candidates/s, {:.2} puzzles/s on one thread; \
             {puzzles} puzzles ({:.1}%), {no_mate} no mate, {not_unique} another winning move, {undecided} undecided; puzzles by length {:?}",
            candidates.len(),
            candidates.len() as f64 / seconds,
            puzzles as f64 / seconds,
            100.0 * puzzles as f64 / candidates.len() as f64,
            &lengths[1..=max_moves as usize],
        );
    }
}
