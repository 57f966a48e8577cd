//! The reference figures of `docs/DESIGN.md` §3: canonical counts and uniform random-play
//! statistics.

use std::collections::HashSet;

use pentago::{Bitboard, Policy, Position, Square, run_playouts};

/// Every set of `k` squares out of `from`.
fn subsets(from: &[Square], k: usize) -> Vec<Bitboard> {
    if k == 0 {
        return vec![Bitboard::EMPTY];
    }
    let mut out = Vec::new();
    for (i, &square) in from.iter().enumerate() {
        for rest in subsets(&from[i + 1..], k - 1) {
            out.push(rest.with(square));
        }
    }
    out
}

/// (raw positions, distinct canonical positions) with these stone counts.
fn canonical_count(black: usize, white: usize) -> (usize, usize) {
    let all: Vec<Square> = Square::all().collect();
    let mut raw = 0;
    let mut canonical = HashSet::new();
    for b in subsets(&all, black) {
        let free: Vec<Square> = all.iter().copied().filter(|&s| !b.contains(s)).collect();
        for w in subsets(&free, white) {
            raw += 1;
            canonical.insert(Position::from_bitboards(b, w).unwrap().canonical_key());
        }
    }
    (raw, canonical.len())
}

#[test]
fn canonical_counts_match_design() {
    assert_eq!(canonical_count(1, 0), (36, 6));
    assert_eq!(canonical_count(1, 1), (1_260, 165));
    assert_eq!(canonical_count(2, 1), (21_420, 2_715));
}

/// `docs/DESIGN.md` §3, measured over 2,000,000 games with an independent implementation.
#[test]
fn uniform_random_play_matches_reference_figures() {
    let games = 1_000_000u64;
    let stats = run_playouts(&Position::START, Policy::Uniform, games, 20_261_121);
    let share = |n: u64| n as f64 / games as f64;
    // Standard error of a share near one half over 1e6 games is 0.0005; allow about five.
    let close = |measured: f64, reference: f64, name: &str| {
        let sigma = (reference * (1.0 - reference) / games as f64).sqrt();
        assert!(
            (measured - reference).abs() < 5.0 * sigma,
            "{name}: measured {measured:.5}, reference {reference:.5}"
        );
    };
    close(share(stats.black_wins), 0.5208, "black wins");
    close(share(stats.white_wins), 0.4278, "white wins");
    close(share(stats.draws), 0.0514, "draws");
    close(share(stats.placement_wins), 0.3766, "placement wins");
    close(share(stats.both_five_draws), 0.0184, "both-five draws");
    close(share(stats.full_board_games), 0.0531, "full-board games");
    assert!(
        (stats.mean_length() - 27.55).abs() < 0.05,
        "mean length {}",
        stats.mean_length()
    );
}
