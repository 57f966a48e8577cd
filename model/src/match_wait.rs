//! Why a running match's pairs are not being played: the coordinator finds it when it hands out
//! pairs, and clients show it while they follow the match.

use serde::Serialize;

/// Why a running match's pairs are not being played (serialized in snake case).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchWait {
    /// No connected worker runs each of these external engines (the match's engines).
    NoWorkerHasEngines(Vec<String>),
}

impl std::fmt::Display for MatchWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchWait::NoWorkerHasEngines(names) => {
                let names: Vec<String> = names.iter().map(|n| format!("engine:{n}")).collect();
                write!(
                    f,
                    "waiting: no connected worker runs {}",
                    names.join(" and ")
                )
            }
        }
    }
}
