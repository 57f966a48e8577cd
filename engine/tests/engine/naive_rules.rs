//! A deliberately naive second implementation of the rules (a 6×6 array, no bit tricks),
//! played move by move against the fast engine over many random games.

use crate::support;

use pentago::{Color, Move, Position, Status, seeded_rng};
use rand::RngExt;
use support::NaiveBoard;

#[test]
fn fast_rules_match_naive_rules_move_by_move() {
    let mut rng = seeded_rng(2024, 0);
    let mut moves_compared = 0u64;
    let mut endings = [0u32; 3];
    for _game in 0..20_000 {
        let mut position = Position::START;
        let mut naive = NaiveBoard::from_position(&position);
        loop {
            let legal = position.legal_moves();
            assert_eq!(legal.to_vec(), naive.moves());
            let mv = legal[rng.random_range(0..legal.len())];
            let (next_naive, naive_status) = naive.play_move(mv);
            position = position.play(mv).expect("legal move");
            moves_compared += 1;
            assert_eq!(position.to_string(), next_naive.text(), "after {mv}");
            assert_eq!(position.status(), naive_status, "after {mv}");
            assert_eq!(next_naive.status(), naive_status);
            naive = next_naive;
            if naive_status.is_over() {
                endings[match naive_status {
                    Status::Won(Color::Black) => 0,
                    Status::Won(Color::White) => 1,
                    _ => 2,
                }] += 1;
                break;
            }
        }
    }
    assert!(moves_compared > 400_000);
    assert!(endings.iter().all(|&n| n > 100), "{endings:?}");
}

#[test]
fn immediate_wins_and_safe_moves_match_naive_search() {
    let mut rng = seeded_rng(77, 0);
    let (mut wins_seen, mut unsafe_seen) = (0, 0);
    for _game in 0..150 {
        let mut position = Position::START;
        while !position.is_over() {
            let naive = NaiveBoard::from_position(&position);
            let naive_win = naive.has_immediate_win();
            assert_eq!(position.has_immediate_win(), naive_win, "{position}");
            wins_seen += usize::from(naive_win);
            if position.stone_count() >= 14 && position.stone_count().is_multiple_of(3) {
                let safe = position.safe_moves();
                let naive_safe: Vec<Move> = naive
                    .moves()
                    .into_iter()
                    .filter(|&mv| match naive.play_move(mv) {
                        (after, Status::Ongoing) => !after.has_immediate_win(),
                        (_, status) => status != Status::Won(naive.to_move().opponent()),
                    })
                    .collect();
                unsafe_seen += naive.moves().len() - naive_safe.len();
                assert_eq!(safe.to_vec(), naive_safe, "{position}");
            }
            let legal = position.legal_moves();
            position = position.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
    }
    assert!(
        wins_seen > 200 && unsafe_seen > 200,
        "{wins_seen} {unsafe_seen}"
    );
}
