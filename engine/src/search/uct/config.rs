//! The engine configuration of a UCT search and its short text form
//! (`uct:k=0.45,expand=8,policy=safe,playouts=100000`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::search::playout::Policy;

/// How long a search runs.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Budget {
    /// A number of simulations (one playout each, fewer where a result is already known).
    Playouts(u64),
    /// Wall-clock seconds.
    Seconds(f64),
}

/// Everything that defines how a UCT search plays. Its text form is stable: it names engine
/// configurations in jobs, matches and stored results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct UctConfig {
    /// Exploration constant `K` of `x_i + K * sqrt(2 ln n / n_i)`. Default 0.3 (tuned by
    /// matches; see BENCHMARKS.md).
    pub exploration: f32,
    /// Visits a move needs before the position it leads to gets its own node. Default 1
    /// (chosen by equal-time matches on top of the prior; BENCHMARKS.md).
    pub expand: u32,
    /// Deepest node level; below it, playouts only. Default 36 (no limit).
    pub max_depth: u32,
    /// Playout policy. Default safe (stronger than uniform at equal time; BENCHMARKS.md).
    pub policy: Policy,
    /// Moves after which a playout stops and is scored by the line-occupancy evaluation's win
    /// probability; 0 plays every playout to the end. Default 0.
    pub cutoff: u32,
    /// Weight of the evaluation's prior in a new node: each move starts with this many virtual
    /// visits at the evaluation's win probability of the position it leads to, and untried
    /// moves compete by that prior instead of all being tried first; 0: no prior. Default 10
    /// (chosen by equal-time matches; BENCHMARKS.md).
    pub prior: f32,
    /// Search budget. Default 100,000 playouts.
    pub budget: Budget,
    /// Cap on tree nodes (one per move record, 28 bytes each); the tree stops growing there.
    /// Default 10,000,000 (about 280 MB).
    pub max_nodes: u64,
    /// Whether a player with this configuration uses exact knowledge before and around the
    /// search ([`crate::play::exact_clock`]): a tablebase's values where it has one, the
    /// solvers where they finish within a share of the move's budget. Default on; text
    /// `exact=off` (written only when off, so the default's text is unchanged). The search
    /// itself does not read it.
    pub exact: bool,
}

impl Default for UctConfig {
    fn default() -> Self {
        UctConfig {
            exploration: 0.3,
            expand: 1,
            max_depth: 36,
            policy: Policy::Safe,
            cutoff: 0,
            prior: 10.0,
            budget: Budget::Playouts(100_000),
            max_nodes: 10_000_000,
            exact: true,
        }
    }
}

impl UctConfig {
    /// The same configuration with another budget.
    #[must_use]
    pub fn with_budget(&self, budget: Budget) -> UctConfig {
        UctConfig {
            budget,
            ..self.clone()
        }
    }
}

impl fmt::Display for UctConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "uct:k={},expand={},depth={},policy={},cutoff={},prior={},",
            self.exploration, self.expand, self.max_depth, self.policy, self.cutoff, self.prior
        )?;
        match self.budget {
            Budget::Playouts(n) => write!(f, "playouts={n}")?,
            Budget::Seconds(s) => write!(f, "seconds={s}")?,
        }
        write!(f, ",nodes={}", self.max_nodes)?;
        if !self.exact {
            f.write_str(",exact=off")?;
        }
        Ok(())
    }
}

/// Why a configuration text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseConfigError {
    /// It does not start with `uct`.
    #[error("engine config {0:?} must start with \"uct\" (as in uct:k=0.45,playouts=100000)")]
    Engine(String),
    /// A `key=value` item without `=`.
    #[error("config item {0:?} is not key=value")]
    Item(String),
    /// An unknown key.
    #[error(
        "unknown config key {0:?}: expected k, expand, depth, policy, cutoff, prior, playouts, \
         seconds, nodes or exact"
    )]
    Key(String),
    /// A value that is not valid for its key.
    #[error("bad value {value:?} for {key}: {why}")]
    Value {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What is expected.
        why: &'static str,
    },
    /// A key given twice, or both budgets.
    #[error("config key {0} given twice (a config has one budget: playouts or seconds)")]
    Repeated(String),
}

fn number<T: FromStr>(key: &str, value: &str, why: &'static str) -> Result<T, ParseConfigError> {
    value.parse().map_err(|_| ParseConfigError::Value {
        key: key.to_owned(),
        value: value.to_owned(),
        why,
    })
}

impl FromStr for UctConfig {
    type Err = ParseConfigError;

    /// Reads `uct` or `uct:key=value,...`; keys left out keep their defaults.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let items = match s.strip_prefix("uct") {
            Some("") => "",
            Some(rest) => rest
                .strip_prefix(':')
                .ok_or_else(|| ParseConfigError::Engine(crate::excerpt(s)))?,
            None => return Err(ParseConfigError::Engine(crate::excerpt(s))),
        };
        let mut config = UctConfig::default();
        let mut seen: Vec<&str> = Vec::new();
        for item in items.split(',').filter(|i| !i.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| ParseConfigError::Item(crate::excerpt(item)))?;
            let slot = if key == "seconds" { "playouts" } else { key };
            if seen.contains(&slot) {
                return Err(ParseConfigError::Repeated(crate::excerpt(key)));
            }
            seen.push(slot);
            let bad = |why| ParseConfigError::Value {
                key: key.to_owned(),
                value: value.to_owned(),
                why,
            };
            match key {
                "k" => {
                    let k: f32 = number(key, value, "a number from 0 to 100")?;
                    if !(0.0..=100.0).contains(&k) {
                        return Err(bad("a number from 0 to 100"));
                    }
                    config.exploration = k;
                }
                "expand" => {
                    config.expand = number(key, value, "a whole number from 1 to 1000000")?;
                    if !(1..=1_000_000).contains(&config.expand) {
                        return Err(bad("a whole number from 1 to 1000000"));
                    }
                }
                "depth" => {
                    config.max_depth = number(key, value, "a whole number from 1 to 36")?;
                    if !(1..=36).contains(&config.max_depth) {
                        return Err(bad("a whole number from 1 to 36"));
                    }
                }
                "policy" => {
                    config.policy = value.parse().map_err(|_| bad("uniform or safe"))?;
                }
                "cutoff" => {
                    config.cutoff = number(key, value, "a whole number from 0 to 36")?;
                    if config.cutoff > 36 {
                        return Err(bad("a whole number from 0 to 36"));
                    }
                }
                "prior" => {
                    let w: f32 = number(key, value, "a number from 0 to 10000")?;
                    if !(0.0..=10_000.0).contains(&w) {
                        return Err(bad("a number from 0 to 10000"));
                    }
                    config.prior = w;
                }
                "playouts" => {
                    let n: u64 = number(key, value, "a whole number from 1 to 10^12")?;
                    if !(1..=1_000_000_000_000).contains(&n) {
                        return Err(bad("a whole number from 1 to 10^12"));
                    }
                    config.budget = Budget::Playouts(n);
                }
                "seconds" => {
                    let t: f64 = number(key, value, "seconds, more than 0 and at most 86400")?;
                    if !(t > 0.0 && t <= 86_400.0) {
                        return Err(bad("seconds, more than 0 and at most 86400"));
                    }
                    config.budget = Budget::Seconds(t);
                }
                "nodes" => {
                    let n: u64 = number(key, value, "a whole number from 1000 to 10^10")?;
                    if !(1_000..=10_000_000_000).contains(&n) {
                        return Err(bad("a whole number from 1000 to 10^10"));
                    }
                    config.max_nodes = n;
                }
                "exact" => {
                    config.exact = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad("on or off")),
                    };
                }
                _ => return Err(ParseConfigError::Key(crate::excerpt(key))),
            }
        }
        Ok(config)
    }
}

impl From<UctConfig> for String {
    fn from(config: UctConfig) -> String {
        config.to_string()
    }
}

impl TryFrom<String> for UctConfig {
    type Error = ParseConfigError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        let config: UctConfig = "uct:k=0.7,expand=16,policy=safe,cutoff=12,prior=20,seconds=1.5"
            .parse()
            .unwrap();
        assert_eq!(config.exploration, 0.7);
        assert_eq!((config.cutoff, config.prior), (12, 20.0));
        assert_eq!(config.expand, 16);
        assert_eq!(config.policy, Policy::Safe);
        assert_eq!(config.budget, Budget::Seconds(1.5));
        assert_eq!(config.to_string().parse::<UctConfig>().unwrap(), config);
        assert_eq!("uct".parse::<UctConfig>().unwrap(), UctConfig::default());
        assert_eq!(
            UctConfig::default().to_string(),
            "uct:k=0.3,expand=1,depth=36,policy=safe,cutoff=0,prior=10,playouts=100000,nodes=10000000"
        );
        let json = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<UctConfig>(&json).unwrap(), config);
        let plain: UctConfig = "uct:exact=off,playouts=50".parse().unwrap();
        assert!(!plain.exact && config.exact);
        assert!(plain.to_string().ends_with(",exact=off"), "{plain}");
        assert_eq!(plain.to_string().parse::<UctConfig>().unwrap(), plain);
    }

    #[test]
    fn bad_configs_say_what_is_wrong() {
        for text in [
            "mcts:k=1",
            "uct:k",
            "uct:k=-1",
            "uct:k=abc",
            "uct:expand=0",
            "uct:depth=40",
            "uct:policy=greedy",
            "uct:playouts=0",
            "uct:seconds=nan",
            "uct:playouts=5,seconds=1",
            "uct:k=1,k=2",
            "uct:colour=red",
            "uct:cutoff=37",
            "uct:cutoff=-1",
            "uct:prior=-2",
            "uct:prior=inf",
            "uctk=1",
            "uct:exact=yes",
            "uct:exact=on,exact=off",
        ] {
            assert!(text.parse::<UctConfig>().is_err(), "{text} should fail");
        }
        let err = "uct:policy=greedy".parse::<UctConfig>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad value \"greedy\" for policy: uniform or safe"
        );
    }
}
