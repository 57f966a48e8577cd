//! Every parser of the engine's text forms quotes at most a bounded prefix of bad input: a
//! 100 KB argument must not become a 100 KB error message.

use std::str::FromStr;

use pentago::{Move, Opening, Player, Policy, Position, Status, UctConfig};

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

#[test]
fn every_parser_quotes_a_bounded_prefix_of_bad_input() {
    let junk = "z".repeat(100_000);
    let messages = [
        ("move", message::<Move>(&junk)),
        ("position", message::<Position>(&junk)),
        ("status", message::<Status>(&junk)),
        ("policy", message::<Policy>(&junk)),
        ("opening", message::<Opening>(&junk)),
        ("config", message::<UctConfig>(&format!("uct:{junk}"))),
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
