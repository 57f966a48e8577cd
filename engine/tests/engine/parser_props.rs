//! Property tests of every text parser that reads untrusted input (the same entry points as the
//! cargo-fuzz targets in `fuzz/`): arbitrary text never panics, and what parses round-trips.

use crate::support;

use std::fmt::{Debug, Display};
use std::str::FromStr;

use pentago::{
    Adjudication, Move, MoveNotation, Opening, OpeningSource, ParamRange, Player, Policy, Position,
    Square, Status, UctConfig,
};
use pentagrid_rating::Sprt;
use proptest::prelude::*;
use support::random_position;

/// When `text` parses, its printed form parses back to the same value.
fn round_trips<T>(text: &str) -> Result<(), TestCaseError>
where
    T: FromStr + Display + PartialEq + Debug,
{
    if let Ok(value) = text.parse::<T>() {
        let printed = value.to_string();
        match printed.parse::<T>() {
            Ok(again) => prop_assert_eq!(again, value, "{:?} printed as {:?}", text, printed),
            Err(_) => prop_assert!(false, "{text:?} parsed, but {printed:?} does not"),
        }
    }
    Ok(())
}

/// Text near the position grammar: the text of a position reached by random play, with one
/// character possibly replaced, so that most cases parse and the rest fail in every way.
fn position_like() -> impl Strategy<Value = String> {
    (any::<u64>(), 0u32..36, any::<Option<(usize, char)>>()).prop_map(|(seed, length, edit)| {
        let mut text: Vec<char> = random_position(seed, length).to_string().chars().collect();
        if let Some((at, c)) = edit {
            let at = at % text.len();
            text[at] = c;
        }
        text.into_iter().collect()
    })
}

/// Text near the move grammar.
fn move_like() -> impl Strategy<Value = String> {
    "[a-hA-H0-9]{1,3}(-[0-9][lrLRx]{0,2})?"
}

/// Text near the key=value grammars of configs, players, SPRT bounds and opening sources.
fn options_like() -> impl Strategy<Value = String> {
    "(uct|flat|random|book|safe|uniform|elo0|monicas-five|triple-power|exact)?:?\
     ((k|expand|depth|policy|playouts|seconds|nodes|plies|elo0|elo1|alpha|beta|stones|budget)=\
     [-0-9.eE+a-z]{0,6},?){0,4}"
}

/// Text near the `NAME=LOW..HIGH` grammar of tuning parameters.
fn range_like() -> impl Strategy<Value = String> {
    "(k|expand|depth|cutoff|prior|playouts|seconds|nodes|policy)?=?[-0-9.eE+]{0,8}(\\.\\.)?\
     [-0-9.eE+a-z]{0,8}"
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn position_text_never_panics(text in prop_oneof![position_like(), any::<String>()]) {
        round_trips::<Position>(&text)?;
        round_trips::<Status>(&text)?;
        if let Ok(position) = text.parse::<Position>() {
            for mv in position.legal_moves().iter() {
                let _ = position.play(*mv);
            }
        }
    }

    #[test]
    fn move_text_never_panics(text in prop_oneof![move_like(), any::<String>()]) {
        round_trips::<Move>(&text)?;
        round_trips::<Square>(&text)?;
        if let Ok(notation) = text.parse::<MoveNotation>() {
            let _ = Position::START.resolve(notation);
        }
    }

    #[test]
    fn parameter_ranges_never_panic(text in prop_oneof![range_like(), any::<String>()]) {
        round_trips::<ParamRange>(&text)?;
    }

    #[test]
    fn option_texts_never_panic(text in prop_oneof![options_like(), any::<String>()]) {
        round_trips::<UctConfig>(&text)?;
        round_trips::<Player>(&text)?;
        round_trips::<Policy>(&text)?;
        round_trips::<Sprt>(&text)?;
        round_trips::<OpeningSource>(&text)?;
        round_trips::<Adjudication>(&text)?;
        round_trips::<Opening>(&text)?;
        let _ = pentago::parse_suite(&text);
    }
}
