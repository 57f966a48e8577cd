//! Named players: `NAME=SPEC` gives a player (`SPEC`, any [`Player`] text) a short name that
//! every table, record and rating list shows, while the full specification stays on hand.
//! Text form (stable, stored with matches): `NAME=SPEC`, or `SPEC` alone for an unnamed player.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::play::player::{ParsePlayerError, Player};
use crate::search::uct::UctConfig;

/// Longest player name.
pub const MAX_PLAYER_NAME: usize = 32;

/// Whether `name` is a valid player name: 1 to [`MAX_PLAYER_NAME`] ASCII letters, digits, `_`,
/// `-`, `.` or `+` (no `:` or `=`, so that `NAME=SPEC` never reads two ways).
#[must_use]
pub fn valid_player_name(name: &str) -> bool {
    (1..=MAX_PLAYER_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+'))
}

/// A player with an optional name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct NamedPlayer {
    /// The name given with `NAME=SPEC` (`None`: the player goes by its specification).
    pub name: Option<String>,
    /// What plays.
    pub player: Player,
}

/// Why a named player text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseNamedPlayerError {
    /// A bad name before `=`.
    #[error(
        "bad player name {0:?}: expected NAME=SPEC with NAME 1 to 32 letters, digits, _, -, . \
         or +"
    )]
    Name(String),
    /// A bad specification.
    #[error(transparent)]
    Player(#[from] ParsePlayerError),
}

impl FromStr for NamedPlayer {
    type Err = ParseNamedPlayerError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        // A name comes before the first `=` and has no `:`; in every specification a `:`
        // comes before the first `=` (`uct:playouts=300`), so the two never mix.
        match text.split_once('=') {
            Some((name, spec)) if !name.contains(':') => {
                if !valid_player_name(name) {
                    return Err(ParseNamedPlayerError::Name(crate::excerpt(name)));
                }
                Ok(NamedPlayer {
                    name: Some(name.to_owned()),
                    player: spec.parse()?,
                })
            }
            _ => Ok(NamedPlayer {
                name: None,
                player: text.parse()?,
            }),
        }
    }
}

impl fmt::Display for NamedPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{name}={}", self.player),
            None => write!(f, "{}", self.player),
        }
    }
}

impl From<NamedPlayer> for String {
    fn from(player: NamedPlayer) -> String {
        player.to_string()
    }
}

impl TryFrom<String> for NamedPlayer {
    type Error = ParseNamedPlayerError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Player> for NamedPlayer {
    fn from(player: Player) -> Self {
        NamedPlayer { name: None, player }
    }
}

impl NamedPlayer {
    /// What tables show: the name, or for an unnamed player its short specification
    /// ([`short_spec`]).
    #[must_use]
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| short_spec(&self.player))
    }

    /// The full specification (`uct:k=0.3,...`).
    #[must_use]
    pub fn spec(&self) -> String {
        self.player.to_string()
    }
}

/// A player's specification with only what differs from the defaults: `uct:playouts=300`
/// where the full form spells out all eight UCT settings (`uct` alone: all defaults). It
/// reads back as the same player.
#[must_use]
pub fn short_spec(player: &Player) -> String {
    let (prefix, config) = match player {
        Player::Uct(config) => ("uct", config),
        Player::Perfect(config) => ("perfect", config),
        other => return other.to_string(),
    };
    let full = config.to_string();
    let default = UctConfig::default().to_string();
    let items = |text: &str| -> Vec<String> {
        text.trim_start_matches("uct:")
            .split(',')
            .map(str::to_owned)
            .collect()
    };
    let defaults = items(&default);
    let changed: Vec<String> = items(&full)
        .into_iter()
        .filter(|item| !defaults.contains(item))
        .collect();
    match (prefix, changed.is_empty()) {
        ("uct", true) => "uct".into(),
        ("uct", false) => format!("uct:{}", changed.join(",")),
        (_, true) => "perfect".into(),
        (_, false) => format!("perfect:uct:{}", changed.join(",")),
    }
}

/// The label of a player as stored (`NAME=SPEC` or `SPEC`); text that does not read as a player
/// (from a newer writer) is its own label.
#[must_use]
pub fn player_label(text: &str) -> String {
    text.parse::<NamedPlayer>()
        .map_or_else(|_| text.to_owned(), |p| p.label())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_specs_read_back() {
        let named: NamedPlayer = "p300=uct:playouts=300".parse().unwrap();
        assert_eq!(named.name.as_deref(), Some("p300"));
        assert_eq!(named.label(), "p300");
        assert_eq!(named.to_string().parse::<NamedPlayer>(), Ok(named.clone()));
        assert!(named.to_string().starts_with("p300=uct:k="));
        let unnamed: NamedPlayer = "uct:playouts=300".parse().unwrap();
        assert_eq!(unnamed.name, None);
        assert_eq!(unnamed.label(), "uct:playouts=300");
        assert_eq!(unnamed.to_string().parse::<NamedPlayer>(), Ok(unnamed));
        for text in [
            "random",
            "engine:morat",
            "flat:playouts=5",
            "a=random",
            "x.1+2=engine:m",
        ] {
            let p: NamedPlayer = text.parse().unwrap();
            assert_eq!(p.to_string(), text);
        }
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in [
            "=random",
            "a b=random",
            "a=",
            "a=uct:foo=1",
            &format!("{}=random", "n".repeat(33)),
        ] {
            assert!(bad.parse::<NamedPlayer>().is_err(), "{bad}");
        }
    }

    #[test]
    fn short_specs_keep_only_what_differs_and_read_back() {
        for (text, short) in [
            ("uct:playouts=300", "uct:playouts=300"),
            ("uct", "uct"),
            ("uct:k=0.5,playouts=600", "uct:k=0.5,playouts=600"),
            ("perfect:uct:playouts=10", "perfect:uct:playouts=10"),
            ("random", "random"),
            ("engine:morat", "engine:morat"),
        ] {
            let player: Player = text.parse().unwrap();
            assert_eq!(short_spec(&player), short);
            assert_eq!(short.parse::<Player>(), Ok(player));
        }
        assert_eq!(player_label("not a player"), "not a player");
        assert_eq!(player_label("fast=random"), "fast");
    }
}
