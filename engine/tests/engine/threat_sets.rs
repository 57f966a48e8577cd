//! The threat-set move rules (winning moves, safe moves, one move's safety) against the slow
//! reference — play every legal move and look at the result — on 100,000 random positions.

use pentago::{Move, Position, Status, seeded_rng};
use rand::RngExt;

/// The rules read literally: a move wins when the mover has won after it.
fn reference_winning_moves(position: &Position) -> Vec<Move> {
    let mover = position.side_to_move();
    position
        .legal_moves()
        .iter()
        .copied()
        .filter(|&mv| position.play_unchecked(mv).status() == Status::Won(mover))
        .collect()
}

/// A move is safe when it does not lose at once and leaves the opponent no winning move
/// (`has_immediate_win` is checked against a naive board in `naive_rules`).
fn reference_is_safe(position: &Position, mv: Move) -> bool {
    let after = position.play_unchecked(mv);
    match after.status() {
        Status::Ongoing => !after.has_immediate_win(),
        Status::Won(color) => color == position.side_to_move(),
        Status::Draw => true,
    }
}

/// Ongoing positions from uniform random games, cut at a uniformly random ply.
fn random_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = seeded_rng(seed, 0);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let stop = rng.random_range(0..36);
        let mut position = Position::START;
        for _ in 0..stop {
            let legal = position.legal_moves();
            let next = position.play_unchecked(legal[rng.random_range(0..legal.len())]);
            if next.is_over() {
                break;
            }
            position = next;
        }
        out.push(position);
    }
    out
}

#[test]
fn fast_safe_and_winning_moves_equal_the_reference_on_random_positions() {
    let (mut with_unsafe, mut with_wins, mut all_unsafe) = (0, 0, 0);
    for position in random_positions(100_000, 16) {
        let legal = position.legal_moves();
        let safe: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&mv| reference_is_safe(&position, mv))
            .collect();
        assert_eq!(position.safe_moves().to_vec(), safe, "{position}");
        for &mv in legal.iter() {
            assert_eq!(position.is_safe(mv), safe.contains(&mv), "{position} {mv}");
        }
        let wins = reference_winning_moves(&position);
        assert_eq!(position.winning_moves().to_vec(), wins, "{position}");
        assert_eq!(position.winning_move(), wins.first().copied(), "{position}");
        assert_eq!(position.has_immediate_win(), !wins.is_empty(), "{position}");
        with_unsafe += usize::from(safe.len() < legal.len());
        with_wins += usize::from(!wins.is_empty());
        all_unsafe += usize::from(safe.is_empty());
    }
    // The sample must exercise every branch, not just quiet positions.
    assert!(
        with_unsafe > 20_000 && with_wins > 10_000 && all_unsafe > 1_000,
        "{with_unsafe} {with_wins} {all_unsafe}"
    );
}
