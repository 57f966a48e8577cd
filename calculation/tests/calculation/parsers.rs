//! The solitaire's text forms: every parser round-trips what it accepts and never panics.

use std::fmt::{Debug, Display};
use std::str::FromStr;

use proptest::prelude::*;

use pentagrid_calculation::{Card, Move, Observation, Player, Variant};

/// What parses prints back to itself, and nothing panics.
fn round_trips<T: FromStr + Display + PartialEq + Debug>(text: &str) -> Result<(), TestCaseError> {
    if let Ok(value) = text.parse::<T>() {
        let printed = value.to_string();
        prop_assert_eq!(
            printed.parse::<T>().ok(),
            Some(value),
            "{:?} as {:?}",
            text,
            printed
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn parsers_never_panic_and_round_trip(text in "\\PC{0,40}") {
        round_trips::<Card>(&text)?;
        round_trips::<Move>(&text)?;
        round_trips::<Variant>(&text)?;
        round_trips::<Player>(&text)?;
        round_trips::<Observation>(&text)?;
    }

    #[test]
    fn near_miss_texts_round_trip(
        tops in prop::collection::vec("(-|A|[2-9]|10|J|Q|K)", 4),
        piles in prop::collection::vec("(-|[2-9AJQK](\\.[2-9AJQK]){0,3})", 3..=4),
        turned in "(-|[2-9AJQK])",
        stock in 0u8..60,
        player in "(uct|flat):(playouts=[0-9]{1,4}|k=[0-9]\\.[0-9]{1,3}|value=(win|cards))(,(playouts=[0-9]{1,4}|k=[0-9]|value=cards)){0,2}",
        mv in "[swf][0-5]?>[swf][0-5]",
    ) {
        let table = format!("f={} w={} t={turned} s={stock}", tops.join(","), piles.join(","));
        round_trips::<Observation>(&table)?;
        round_trips::<Player>(&player)?;
        round_trips::<Move>(&mv)?;
    }
}

/// Parses `text` as `T` and returns the error's message.
fn message<T: FromStr>(text: &str) -> String
where
    T::Err: std::fmt::Display,
{
    match text.parse::<T>() {
        Ok(_) => panic!("{} bytes of junk parsed", text.len()),
        Err(error) => error.to_string(),
    }
}

/// A 100 KB argument must not become a 100 KB error message.
#[test]
fn every_parser_quotes_a_bounded_prefix_of_bad_input() {
    let junk = "z".repeat(100_000);
    let messages = [
        ("move", message::<Move>(&junk)),
        ("variant", message::<Variant>(&junk)),
        ("table", message::<Observation>(&junk)),
        ("player", message::<Player>(&junk)),
    ];
    for (what, message) in messages {
        assert!(
            message.len() < 400,
            "a {what} error is {} bytes long: {}…",
            message.len(),
            &message[..200]
        );
    }
}
