//! Where an exact value shown beside the statistics came from (`docs/DESIGN.md` §5: every exact
//! value names its source), as the store records it per proven move.

use std::fmt;
use std::str::FromStr;

/// The source of one stored exact move value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExactSource {
    /// Irving's strong solution (the tablebase) gave it.
    Table,
    /// A solver settled it: a worker's exact solve, a deep solve, or the coordinator's own
    /// check of an immediate win.
    Solver,
    /// Propagation up the stored book from proven children (see the store's `propagate`).
    Propagated,
    /// An imported book carried it (the importing coordinator did not prove it itself).
    Imported,
    /// Stored before sources were recorded (an older database): a solver's, propagation's or
    /// an import's, no longer known which.
    Unrecorded,
}

impl ExactSource {
    /// Every source, in the order of their stored codes.
    pub const ALL: [ExactSource; 5] = [
        ExactSource::Table,
        ExactSource::Solver,
        ExactSource::Propagated,
        ExactSource::Imported,
        ExactSource::Unrecorded,
    ];

    /// The name shown and written in exports (stable).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ExactSource::Table => "table",
            ExactSource::Solver => "solver",
            ExactSource::Propagated => "propagated",
            ExactSource::Imported => "imported",
            ExactSource::Unrecorded => "unrecorded",
        }
    }

    /// The stored code (stable: the store's `proven` records use it).
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            ExactSource::Table => 1,
            ExactSource::Solver => 2,
            ExactSource::Propagated => 3,
            ExactSource::Imported => 4,
            ExactSource::Unrecorded => 5,
        }
    }

    /// The source of a stored code; `None` for an unknown one.
    #[must_use]
    pub fn of_code(code: u8) -> Option<ExactSource> {
        ExactSource::ALL.into_iter().find(|s| s.code() == code)
    }
}

impl fmt::Display for ExactSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown source name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown exact-value source {0:?} (table, solver, propagated, imported or unrecorded)")]
pub struct ParseExactSourceError(pub String);

impl FromStr for ExactSource {
    type Err = ParseExactSourceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ExactSource::ALL
            .into_iter()
            .find(|s| s.name() == text)
            .ok_or_else(|| ParseExactSourceError(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        for source in ExactSource::ALL {
            assert_eq!(ExactSource::of_code(source.code()), Some(source));
            assert_eq!(source.name().parse::<ExactSource>(), Ok(source));
        }
        assert_eq!(ExactSource::of_code(0), None);
        assert_eq!(ExactSource::of_code(6), None);
        assert!("tablebase".parse::<ExactSource>().is_err());
    }
}
