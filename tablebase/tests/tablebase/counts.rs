//! The shipped slices recounted: every section of slices 0–6 gives exactly the counts Irving
//! published in `counts-N.npy`, and every file has its published SHA-1.

use pentagrid_tablebase::{Tablebase, Verdict};

#[test]
fn every_section_of_slices_0_to_6_matches_the_published_counts() {
    let tablebase = Tablebase::shipped().unwrap();
    let mut positions = Vec::new();
    for stones in 0..=6 {
        let check = tablebase.verify_slice(stones).unwrap().unwrap();
        assert_eq!(check.counts, Verdict::Match, "slice {stones}");
        assert_eq!(check.sha1, Verdict::Match, "slice {stones}");
        positions.push(check.totals.positions);
    }
    // Positions with n stones, up to the board's symmetry counted in full: 36 choose the
    // stones, times the ways to colour them (black has ceil(n/2)).
    let expected: Vec<u64> = (0..=6u64)
        .map(|n| binomial(36, n) * binomial(n, n.div_ceil(2)))
        .collect();
    // The counts are per stored section (one per symmetry class of sections), so they sum to
    // fewer positions than the whole slice, except for the empty board.
    assert_eq!(positions[0], expected[0]);
    assert_eq!(positions[1], 9, "one section: a black stone in a quadrant");
    assert!(positions.iter().zip(&expected).all(|(s, e)| s <= e));
    assert!(tablebase.verify_slice(7).is_none());
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}
