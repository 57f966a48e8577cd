//! Property tests: symmetry commutes with play, canonical form is invariant, notation round-trips.

use crate::support;

use pentago::{Move, Position, Square, Symmetry};
use proptest::prelude::*;
use support::random_position;

fn positions() -> impl Strategy<Value = Position> {
    (any::<u64>(), 0u32..36).prop_map(|(seed, length)| random_position(seed, length))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn symmetry_commutes_with_play(position in positions(), pick in any::<usize>(), g in 0usize..8) {
        let legal = position.legal_moves();
        prop_assume!(!legal.is_empty());
        let mv = legal[pick % legal.len()];
        let s = Symmetry::ALL[g];
        let image = s.apply(&position);
        prop_assert_eq!(s.apply(&position.play(mv).unwrap()), image.play(s.apply_move(mv)).unwrap());
        prop_assert_eq!(image.status(), position.status());
        prop_assert_eq!(image.has_immediate_win(), position.has_immediate_win());
    }

    #[test]
    fn canonical_form_is_the_same_for_all_images(position in positions(), g in 0usize..8) {
        let canonical = position.canonical();
        prop_assert_eq!(canonical.symmetry.apply(&position), canonical.position);
        let image = Symmetry::ALL[g].apply(&position);
        prop_assert_eq!(image.canonical().position, canonical.position);
        prop_assert_eq!(image.canonical_key(), canonical.position.key());
    }

    #[test]
    fn position_text_round_trips(position in positions()) {
        prop_assert_eq!(position.to_string().parse::<Position>().unwrap(), position);
        prop_assert_eq!(Position::from_key(position.key()).unwrap(), position);
    }

    #[test]
    fn move_and_square_text_round_trip(index in 0u16..288) {
        let mv = Move::from_index(index).unwrap();
        prop_assert_eq!(mv.to_string().parse::<Move>().unwrap(), mv);
        let square = mv.square();
        prop_assert_eq!(square.to_string().parse::<Square>().unwrap(), square);
    }

    #[test]
    fn garbage_never_panics(text in "\\PC{0,60}") {
        let _ = text.parse::<Position>();
        let _ = text.parse::<Move>();
        let _ = text.parse::<Square>();
    }
}
