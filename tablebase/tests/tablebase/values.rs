//! Values read from the shipped slices: the published facts about the opening, consistency of
//! every position with its moves (which needs the quadrant order, the rotation direction and
//! the symmetry handling all right), and agreement between symmetric images.

use pentago::{ExactOracle, Position, Square, Symmetry, Value, best_of, splitmix64};
use pentagrid_tablebase::Tablebase;

#[test]
fn the_empty_board_is_a_first_player_win() {
    let tablebase = Tablebase::shipped().unwrap();
    assert_eq!(tablebase.probe(&Position::START).unwrap(), Some(Value::Win));
}

/// Whether a square is one of the three corners of its quadrant on the board's edge (a6, c6
/// and a4 for the top-left quadrant): not the quadrant corner at the board's centre.
fn edge_corner(square: Square) -> bool {
    let (file, rank) = (square.file(), square.rank());
    let corner = file % 3 != 1 && rank % 3 != 1;
    let central = (2..=3).contains(&file) && (2..=3).contains(&rank);
    corner && !central
}

#[test]
fn first_moves_draw_exactly_on_the_edge_corners() {
    let tablebase = Tablebase::shipped().unwrap();
    let moves = tablebase.probe_moves(&Position::START).unwrap().unwrap();
    assert_eq!(moves.len(), 288);
    let wins = moves.iter().filter(|(_, v)| *v == Value::Win).count();
    let draws = moves.iter().filter(|(_, v)| *v == Value::Draw).count();
    assert_eq!((wins, draws), (192, 96));
    for (mv, value) in moves {
        let child = Position::START.play(mv).unwrap();
        let square = (0..36u8)
            .filter_map(Square::new)
            .find(|&s| child.stone_at(s).is_some())
            .unwrap();
        let expected = if edge_corner(square) {
            Value::Draw
        } else {
            Value::Win
        };
        assert_eq!(value, expected, "{mv} ends on {square}");
    }
    assert!(edge_corner("a6".parse().unwrap()));
    assert!(!edge_corner("c4".parse().unwrap()));
    assert!(!edge_corner("b5".parse().unwrap()));
}

/// A position of `stones` stones from seeded random play (none of 0–6 stones can be finished).
fn random_position(seed: u64, stones: u32) -> Position {
    let mut position = Position::START;
    let mut state = seed;
    while position.stone_count() < stones {
        let moves = position.legal_moves();
        state = splitmix64(state);
        position = position.play_unchecked(moves[(state % moves.len() as u64) as usize]);
    }
    position
}

#[test]
fn each_value_is_the_best_of_its_moves() {
    let tablebase = Tablebase::shipped().unwrap();
    let mut seen = [0usize; 3];
    for seed in 0..150u64 {
        let position = random_position(seed, (seed % 6) as u32);
        let value = tablebase.probe(&position).unwrap().unwrap();
        let moves = tablebase.probe_moves(&position).unwrap().unwrap();
        let (_, best) = best_of(&moves).unwrap();
        assert_eq!(value, best, "{position}");
        seen[(value.as_i8() + 1) as usize] += 1;
    }
    // The sample reaches positions of every value, so a wrong sign could not pass.
    assert!(
        seen.iter().all(|&n| n > 0),
        "values seen (loss, draw, win): {seen:?}"
    );
}

#[test]
fn symmetric_images_have_equal_values() {
    let tablebase = Tablebase::shipped().unwrap();
    for seed in 0..200u64 {
        let position = random_position(seed ^ 0xabc, 2 + (seed % 5) as u32);
        let value = tablebase.probe(&position).unwrap();
        for symmetry in Symmetry::ALL {
            let image = symmetry.apply(&position);
            assert_eq!(
                tablebase.probe(&image).unwrap(),
                value,
                "{position} vs {image}"
            );
        }
    }
}

#[test]
fn positions_beyond_the_slices_are_not_covered() {
    let tablebase = Tablebase::shipped().unwrap();
    let seven = random_position(7, 7);
    assert_eq!(tablebase.probe(&seven).unwrap(), None);
    let six = random_position(6, 6);
    assert!(tablebase.probe(&six).unwrap().is_some());
    assert_eq!(
        tablebase.probe_moves(&six).unwrap(),
        None,
        "its children have 7 stones"
    );
    assert!(tablebase.covers(6) && !tablebase.covers(7));
}

#[test]
fn a_small_cache_gives_the_same_values() {
    let big = Tablebase::shipped().unwrap();
    let small = Tablebase::shipped().unwrap().with_cache_budget(20_000);
    for seed in 0..100u64 {
        let position = random_position(seed ^ 0x5eed, 3 + (seed % 4) as u32);
        assert_eq!(
            small.probe(&position).unwrap(),
            big.probe(&position).unwrap()
        );
        assert!(small.cache_used() <= 20_000);
    }
}
