//! Solitaire players and their text forms: `random`, `strategy`, `flat:playouts=N` and
//! `uct:playouts=N,k=K` (both with an optional `value=win|cards`).
//!
//! A decision is one legal move: placing the turned-up card (on a foundation or a waste pile) or
//! moving a waste pile's top to a foundation. Every player sees only the [`Observation`]; the
//! searches deal the unseen cards afresh for every playout (determinization), so they never
//! use the real stock's order.

mod flat;
mod strategy;
mod uct;

use std::fmt;
use std::str::FromStr;

use pentagrid_gamekit::seeded_rng;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::card::{DECK, echo};
use super::moves::Move;
use super::observation::Observation;
use super::table::Outcome;

/// The default exploration constant of `uct`: the Pentago engine's, not yet tuned for this game.
pub const DEFAULT_K: f64 = 0.45;
/// The most playouts a decision may be given.
pub const MAX_PLAYOUTS: u64 = 1_000_000_000;

/// What a search maximises over its playouts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reward {
    /// The success rate: 1 for a won playout, 0 otherwise (the definition).
    #[default]
    Win,
    /// The share of the 52 cards that reached the foundations (1 for a win): a denser signal.
    Cards,
}

impl Reward {
    /// The reward of one finished playout, 0 to 1.
    #[must_use]
    pub fn of(self, outcome: Outcome) -> f64 {
        match self {
            Reward::Win => f64::from(u8::from(outcome.won)),
            Reward::Cards => f64::from(outcome.foundation_cards) / DECK as f64,
        }
    }
}

/// A search's settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// Playouts per decision.
    pub playouts: u64,
    /// UCT's exploration constant (unused by flat Monte Carlo).
    pub k: f64,
    /// What the search maximises.
    pub reward: Reward,
}

/// A way of playing Calculation.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Player {
    /// Uniformly random among the legal moves (every waste pile is its own move, so a card is
    /// twice as likely to go to one of two empty piles as to either of them alone).
    Random,
    /// The rule-based player after Nozaki's advice (see `strategy.rs`).
    Strategy,
    /// Flat Monte Carlo: the playouts spread evenly over the legal moves, random playouts.
    Flat(SearchSettings),
    /// UCT over the moves, chance nodes for the cards turned up, random playouts.
    Uct(SearchSettings),
}

/// A player's move with the playouts it spent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The move.
    pub mv: Move,
    /// Random playouts run to find it.
    pub playouts: u64,
}

impl Player {
    /// The player's move on an ongoing table (one with a legal move). `seed` makes it
    /// reproducible; `threads` is the number of UCT trees (on the current rayon pool).
    ///
    /// # Panics
    /// When the table has no legal move: the caller must stop at the end of the game.
    #[must_use]
    pub fn decide(&self, seen: &Observation, seed: u64, threads: usize) -> Decision {
        let legal = seen.legal_moves();
        assert!(!legal.is_empty(), "a decision needs a legal move");
        let mv = |mv| Decision { mv, playouts: 0 };
        match self {
            Player::Random => mv(legal[seeded_rng(seed, 0).random_range(0..legal.len())]),
            Player::Strategy => mv(strategy::choose(seen)),
            Player::Flat(settings) if legal.len() > 1 => flat::choose(seen, settings, seed),
            Player::Uct(settings) if legal.len() > 1 => {
                uct::choose(seen, settings, seed, threads.max(1))
            }
            Player::Flat(_) | Player::Uct(_) => mv(legal[0]),
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = |s: &SearchSettings| match s.reward {
            Reward::Win => "",
            Reward::Cards => ",value=cards",
        };
        match self {
            Player::Random => f.write_str("random"),
            Player::Strategy => f.write_str("strategy"),
            Player::Flat(s) => write!(f, "flat:playouts={}{}", s.playouts, value(s)),
            Player::Uct(s) => write!(f, "uct:playouts={},k={}{}", s.playouts, s.k, value(s)),
        }
    }
}

/// Why a player text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePlayerError {
    /// Not a known player.
    #[error(
        "unknown solitaire player {0:?}: expected random, strategy, \
         flat:playouts=N[,value=win|cards] or uct:playouts=N[,k=K][,value=win|cards]"
    )]
    Unknown(String),
    /// A bad or repeated option.
    #[error("bad option {option:?}: expected {expected}")]
    Option {
        /// The option as given.
        option: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// A search without its budget.
    #[error("{0:?} needs playouts=N")]
    NoPlayouts(String),
}

impl FromStr for Player {
    type Err = ParsePlayerError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "random" => return Ok(Player::Random),
            "strategy" => return Ok(Player::Strategy),
            _ => {}
        }
        let (kind, options) = s
            .split_once(':')
            .ok_or_else(|| ParsePlayerError::Unknown(echo(s)))?;
        if kind != "flat" && kind != "uct" {
            return Err(ParsePlayerError::Unknown(echo(s)));
        }
        let settings = parse_settings(options, kind == "uct")
            .and_then(|o| o.ok_or_else(|| ParsePlayerError::NoPlayouts(echo(s))))?;
        Ok(if kind == "uct" {
            Player::Uct(settings)
        } else {
            Player::Flat(settings)
        })
    }
}

/// Reads `playouts=N,k=K,value=V` (each at most once; `k` only for UCT); `None` without
/// `playouts`.
fn parse_settings(options: &str, uct: bool) -> Result<Option<SearchSettings>, ParsePlayerError> {
    let mut playouts = None;
    let mut k = None;
    let mut reward = None;
    for option in options.split(',') {
        let bad = |expected| ParsePlayerError::Option {
            option: echo(option),
            expected,
        };
        match option.split_once('=') {
            Some(("playouts", n)) if playouts.is_none() => {
                let n = n
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=MAX_PLAYOUTS).contains(n));
                playouts = Some(n.ok_or_else(|| bad("playouts=N with N from 1 to 10^9"))?);
            }
            Some(("k", x)) if uct && k.is_none() => {
                let x = x.parse::<f64>().ok().filter(|x| (0.0..=100.0).contains(x));
                k = Some(x.ok_or_else(|| bad("k=K with K from 0 to 100"))?);
            }
            Some(("value", v)) if reward.is_none() => {
                reward = Some(match v {
                    "win" => Reward::Win,
                    "cards" => Reward::Cards,
                    _ => return Err(bad("value=win or value=cards")),
                });
            }
            _ => {
                return Err(bad(if uct {
                    "one each of playouts=N, k=K, value=win|cards"
                } else {
                    "one each of playouts=N, value=win|cards"
                }));
            }
        }
    }
    Ok(playouts.map(|playouts| SearchSettings {
        playouts,
        k: k.unwrap_or(DEFAULT_K),
        reward: reward.unwrap_or_default(),
    }))
}

impl Serialize for Player {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Player {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deal::Variant;
    use crate::table::Table;

    #[test]
    fn players_round_trip_through_their_text() {
        for text in [
            "random",
            "strategy",
            "flat:playouts=1000",
            "flat:playouts=7,value=cards",
            "uct:playouts=1000,k=0.45",
            "uct:playouts=100,k=1.5,value=cards",
        ] {
            let player: Player = text.parse().unwrap();
            assert_eq!(player.to_string(), text);
        }
        let short: Player = "uct:playouts=10".parse().unwrap();
        assert_eq!(short.to_string(), "uct:playouts=10,k=0.45");
    }

    #[test]
    fn bad_players_say_what_is_wrong() {
        for bad in [
            "",
            "Random",
            "uct",
            "uct:",
            "flat:k=1,playouts=5",
            "uct:playouts=0",
            "uct:playouts=-1",
            "uct:playouts=1000000001",
            "uct:playouts=10,playouts=10",
            "uct:playouts=10,k=nan",
            "uct:playouts=10,k=-1",
            "uct:playouts=10,k=inf",
            "uct:playouts=10,value=loss",
            "uct:playouts=10,depth=3",
            "uct:k=1",
            "mcts:playouts=10",
        ] {
            assert!(bad.parse::<Player>().is_err(), "{bad:?}");
        }
        let long = format!("uct:playouts={}", "1".repeat(100_000));
        let message = long.parse::<Player>().unwrap_err().to_string();
        assert!(message.len() < 200, "{message}");
    }

    /// Players decide from what they see alone: two tables that look the same but hide different
    /// stocks get the same moves from the same seed.
    #[test]
    fn the_hidden_stock_never_reaches_a_player() {
        let real = Table::deal(Variant::Standard, 11);
        let mut rng = seeded_rng(5, 5);
        let other = Table::sample(real.observation(), &mut rng);
        assert_eq!(real.observation(), other.observation());
        for player in ["random", "strategy", "flat:playouts=60", "uct:playouts=60"] {
            let player: Player = player.parse().unwrap();
            let decide = |t: &Table| player.decide(t.observation(), 3, 1);
            assert_eq!(decide(&real), decide(&other), "{player}");
        }
    }

    /// The same in mid-game, for the searches, with piles built and the two stocks checked to
    /// differ: a search that read the real stock's order (instead of dealing the unseen cards
    /// afresh for every playout) would see two different futures and, over these tables and
    /// seeds, choose differently somewhere.
    #[test]
    fn searches_never_read_the_stock_in_mid_game() {
        for (deal, moves) in [(21u64, 12usize), (22, 20), (23, 30)] {
            let mut real = Table::deal(Variant::Standard, deal);
            for _ in 0..moves {
                let mv = Player::Strategy.decide(real.observation(), 0, 1).mv;
                real.play(mv).unwrap();
            }
            let other = Table::sample(real.observation(), &mut seeded_rng(deal, 9));
            assert_eq!(real.observation(), other.observation());
            assert_ne!(real, other, "deal {deal}: the stocks must differ");
            for player in [
                "flat:playouts=200",
                "uct:playouts=200",
                "uct:playouts=200,k=1",
            ] {
                let player: Player = player.parse().unwrap();
                for seed in 0..3 {
                    let decide = |t: &Table| player.decide(t.observation(), seed, 1);
                    assert_eq!(decide(&real), decide(&other), "{player} deal {deal}");
                }
            }
        }
    }

    #[test]
    fn the_random_player_is_uniform_over_the_legal_moves() {
        // Turned 2 fits foundation 1; waste 6 fits foundation 3: six legal moves.
        let seen: Observation = "f=A,2,3,4 w=6,-,-,- t=2 s=46".parse().unwrap();
        let legal = seen.legal_moves();
        let mut counts = vec![0u32; legal.len()];
        let n = 60_000;
        for seed in 0..n {
            let mv = Player::Random.decide(&seen, seed, 1).mv;
            counts[legal.iter().position(|&m| m == mv).unwrap()] += 1;
        }
        let expected = f64::from(n as u32) / legal.len() as f64;
        for c in counts {
            // Four standard deviations of a binomial(60000, 1/6).
            assert!(
                (f64::from(c) - expected).abs() < 4.0 * 91.3,
                "{c} vs {expected}"
            );
        }
    }
}
