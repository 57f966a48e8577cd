//! Refusals of a workflow's parameters, checked before anything is sent, in the domain's words:
//! each names the [`Parameter`] it is about and what is wrong with it. A front end renders them
//! with its own spelling of the parameters ([`ParameterError::render`]: the command line names
//! its flags), so the library never speaks of flags.

use std::fmt;

use thiserror::Error;

/// A parameter of a client workflow (a match, a tuning run, a puzzle round, a study, a
/// campaign). [`Parameter::key`] is its stable name in kebab case.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Parameter {
    /// Game pairs of a match.
    Pairs,
    /// A match's or tuning run's share of the workers.
    Weight,
    /// The time limit of a game.
    Time,
    /// Playing in the client's own process instead of on a cluster.
    InProcess,
    /// Exact adjudication of games.
    Adjudicate,
    /// Where a match's openings come from.
    Openings,
    /// Longest mate of a puzzle.
    MaxMoves,
    /// Shortest mate of a puzzle.
    MinMoves,
    /// Puzzles asked for.
    Count,
    /// Fewest stones of a puzzle position.
    MinStones,
    /// Mining only the stored games.
    StoredOnly,
    /// Rounds of candidates before a puzzle round gives up.
    Rounds,
    /// Least difficulty of a collection's puzzles.
    MinDifficulty,
    /// Most difficulty of a collection's puzzles.
    MaxDifficulty,
    /// Self-play games.
    Games,
    /// The self-play player.
    Selfplay,
    /// Playouts a position.
    Playouts,
    /// Depth of a study or a campaign.
    Depth,
    /// Puzzles a campaign stores.
    Puzzles,
    /// Game pairs of a tuning iteration.
    PairsPerIteration,
    /// Game pairs of the follow-up SPRT.
    SprtPairs,
    /// A tuned parameter and its range.
    Param,
    /// A study's budget of positions.
    Budget,
    /// Positions a study starts from.
    Positions,
    /// Stones from which a study solves exactly.
    SolveStones,
    /// Stones from which a study asks the deep solver.
    DeepFrom,
}

impl Parameter {
    /// The stable kebab-case name (`pairs`, `max-moves`); a command line's flags use it.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Parameter::Pairs => "pairs",
            Parameter::Weight => "weight",
            Parameter::Time => "time",
            Parameter::InProcess => "in-process",
            Parameter::Adjudicate => "adjudicate",
            Parameter::Openings => "openings",
            Parameter::MaxMoves => "max-moves",
            Parameter::MinMoves => "min-moves",
            Parameter::Count => "count",
            Parameter::MinStones => "min-stones",
            Parameter::StoredOnly => "stored-only",
            Parameter::Rounds => "rounds",
            Parameter::MinDifficulty => "min-difficulty",
            Parameter::MaxDifficulty => "max-difficulty",
            Parameter::Games => "games",
            Parameter::Selfplay => "selfplay",
            Parameter::Playouts => "playouts",
            Parameter::Depth => "depth",
            Parameter::Puzzles => "puzzles",
            Parameter::PairsPerIteration => "pairs-per-iteration",
            Parameter::SprtPairs => "sprt-pairs",
            Parameter::Param => "param",
            Parameter::Budget => "budget",
            Parameter::Positions => "positions",
            Parameter::SolveStones => "solve-stones",
            Parameter::DeepFrom => "deep-from",
        }
    }
}

impl fmt::Display for Parameter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key().replace('-', " "))
    }
}

/// What is wrong with a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Outside `low..=high`; `given` quotes the value where it helps.
    Range {
        /// The least allowed.
        low: String,
        /// The most allowed.
        high: String,
        /// The value given.
        given: Option<String>,
    },
    /// Above its most.
    AtMost(String),
    /// Below its least.
    AtLeast(String),
    /// Its `value` is above `other`'s `other_value` (a range given upside down).
    Above {
        /// The value given.
        value: String,
        /// The parameter it must not exceed.
        other: Parameter,
        /// That parameter's value.
        other_value: String,
    },
    /// It cannot go with `other` (`why`): one of the two must go.
    Excludes {
        /// The other parameter.
        other: Parameter,
        /// Why not, in the domain's words.
        why: String,
    },
    /// It must go (`why`), or else `otherwise` be done.
    Drop {
        /// Why it cannot be, in the domain's words.
        why: String,
        /// What else would do, if anything.
        otherwise: Option<String>,
    },
    /// It is needed (`why`), with an example of its form.
    Needed {
        /// Why it is needed.
        why: String,
        /// Examples of values, each a form the parameter takes.
        forms: Vec<String>,
    },
    /// Anything else: a rule in the domain's words, after the parameter's name.
    Rule(String),
}

/// Outside `low..=high`, without quoting the value.
#[must_use]
pub fn range(low: impl fmt::Display, high: impl fmt::Display) -> Problem {
    Problem::Range {
        low: low.to_string(),
        high: high.to_string(),
        given: None,
    }
}

/// A parameter refused before anything was sent.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("{}", self.render(&|p: Parameter| p.to_string()))]
pub struct ParameterError {
    /// The parameter.
    pub parameter: Parameter,
    /// What is wrong with it.
    pub problem: Problem,
}

impl ParameterError {
    /// A refusal of `parameter` for `problem`.
    #[must_use]
    pub fn new(parameter: Parameter, problem: Problem) -> ParameterError {
        ParameterError { parameter, problem }
    }

    /// `parameter` outside `low..=high` (the value given quoted when `given` is some).
    #[must_use]
    pub fn range(
        parameter: Parameter,
        low: impl fmt::Display,
        high: impl fmt::Display,
        given: Option<&dyn fmt::Display>,
    ) -> ParameterError {
        ParameterError::new(
            parameter,
            Problem::Range {
                low: low.to_string(),
                high: high.to_string(),
                given: given.map(ToString::to_string),
            },
        )
    }

    /// The message with each parameter spelled by `name` (the library's own words: the
    /// parameter's name; a command line: its flag).
    #[must_use]
    pub fn render(&self, name: &dyn Fn(Parameter) -> String) -> String {
        let this = name(self.parameter);
        match &self.problem {
            Problem::Range { low, high, given } => match given {
                Some(given) => format!("{this} must be from {low} to {high}, not {given}"),
                None => format!("{this} must be from {low} to {high}"),
            },
            Problem::AtMost(high) => format!("{this} must be at most {high}"),
            Problem::AtLeast(low) => format!("{this} must be at least {low}"),
            Problem::Above {
                value,
                other,
                other_value,
            } => format!("{this} {value} is above {} {other_value}", name(*other)),
            Problem::Excludes { other, why } => {
                format!("{why}: drop {this} or {}", name(*other))
            }
            Problem::Drop { why, otherwise } => match otherwise {
                Some(otherwise) => format!("{why}: drop {this}, or {otherwise}"),
                None => format!("{why}: drop {this}"),
            },
            Problem::Needed { why, forms } => {
                let forms: Vec<String> = forms.iter().map(|f| format!("{this} {f}")).collect();
                format!("{why}: give {}", forms.join(" or "))
            }
            Problem::Rule(rule) => format!("{this} {rule}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(p: Parameter) -> String {
        format!("--{}", p.key())
    }

    #[test]
    fn refusals_read_in_the_domains_words_and_render_with_any_spelling() {
        let range = ParameterError::range(Parameter::Weight, 1, 1000, Some(&0));
        assert_eq!(range.to_string(), "weight must be from 1 to 1000, not 0");
        assert_eq!(
            range.render(&flag),
            "--weight must be from 1 to 1000, not 0"
        );
        let above = ParameterError::new(
            Parameter::MinMoves,
            Problem::Above {
                value: "3".into(),
                other: Parameter::MaxMoves,
                other_value: "2".into(),
            },
        );
        assert_eq!(above.to_string(), "min moves 3 is above max moves 2");
        assert_eq!(above.render(&flag), "--min-moves 3 is above --max-moves 2");
        let excludes = ParameterError::new(
            Parameter::InProcess,
            Problem::Excludes {
                other: Parameter::Time,
                why: "a time limit is kept by a cluster's referee".into(),
            },
        );
        assert_eq!(
            excludes.render(&flag),
            "a time limit is kept by a cluster's referee: drop --in-process or --time"
        );
        let needed = ParameterError::new(
            Parameter::Time,
            Problem::Needed {
                why: "engine:x plays only under a time limit".into(),
                forms: vec!["move:SECONDS".into(), "game:BASE+INCREMENT".into()],
            },
        );
        assert_eq!(
            needed.render(&flag),
            "engine:x plays only under a time limit: give --time move:SECONDS or --time \
             game:BASE+INCREMENT"
        );
        assert!(!needed.to_string().contains("--"));
    }
}
