//! The stable text form of an adjudication: `exact`, optionally followed by `:` and the
//! options `stones=N` and `budget=SECONDS` (each at most once, in any order, comma-separated).
//! It prints as `exact:stones=N,budget=SECONDS`, which parses back to the same adjudication.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::{Adjudication, MAX_ADJUDICATION_BUDGET_MS};

/// An adjudication text that does not parse: what was wrong, with a bounded excerpt of it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseAdjudicationError {
    /// Not `exact` nor `exact:OPTIONS`.
    #[error(
        "bad adjudication {0:?}: expected exact, or exact: with the options stones=N and \
         budget=SECONDS, e.g. exact:stones=20,budget=0.1"
    )]
    NotExact(String),
    /// An option other than `stones=N` or `budget=SECONDS`.
    #[error("unknown adjudication option {0:?}: expected stones=N or budget=SECONDS")]
    UnknownOption(String),
    /// The same option twice.
    #[error("adjudication option {0} given twice")]
    Repeated(&'static str),
    /// A stone count that is not a whole number from 0 to 35.
    #[error("bad adjudication stones {0:?}: expected a whole number from 0 to 35")]
    Stones(String),
    /// A budget that is not a number of seconds from 0 to the most, in whole milliseconds.
    #[error(
        "bad adjudication budget {0:?}: expected seconds from 0 to {max}, in whole \
         milliseconds (e.g. 0.1)",
        max = MAX_ADJUDICATION_BUDGET_MS / 1000
    )]
    Budget(String),
}

impl fmt::Display for Adjudication {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, millis) = (self.budget_ms / 1000, self.budget_ms % 1000);
        write!(f, "exact:stones={},budget={whole}", self.min_stones)?;
        if millis > 0 {
            let fraction = format!("{millis:03}");
            write!(f, ".{}", fraction.trim_end_matches('0'))?;
        }
        Ok(())
    }
}

impl FromStr for Adjudication {
    type Err = ParseAdjudicationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let options = match text.split_once(':') {
            None if text == "exact" => return Ok(Adjudication::default()),
            Some(("exact", options)) => options,
            _ => return Err(ParseAdjudicationError::NotExact(crate::excerpt(text))),
        };
        let (mut stones, mut budget) = (None, None);
        for option in options.split(',') {
            match option.split_once('=') {
                Some(("stones", n)) => set(&mut stones, "stones", stones_of(n)?)?,
                Some(("budget", seconds)) => set(&mut budget, "budget", budget_ms_of(seconds)?)?,
                _ => {
                    return Err(ParseAdjudicationError::UnknownOption(crate::excerpt(
                        option,
                    )));
                }
            }
        }
        let default = Adjudication::default();
        Ok(Adjudication {
            min_stones: stones.unwrap_or(default.min_stones),
            budget_ms: budget.unwrap_or(default.budget_ms),
        })
    }
}

/// Sets an option given once.
fn set<T>(
    slot: &mut Option<T>,
    name: &'static str,
    value: T,
) -> Result<(), ParseAdjudicationError> {
    match slot.replace(value) {
        None => Ok(()),
        Some(_) => Err(ParseAdjudicationError::Repeated(name)),
    }
}

fn stones_of(text: &str) -> Result<u32, ParseAdjudicationError> {
    text.parse()
        .ok()
        .filter(|n| *n < 36)
        .ok_or_else(|| ParseAdjudicationError::Stones(crate::excerpt(text)))
}

/// Seconds in whole milliseconds, from 0 to the most: the budget in milliseconds.
fn budget_ms_of(text: &str) -> Result<u32, ParseAdjudicationError> {
    let error = || ParseAdjudicationError::Budget(crate::excerpt(text));
    let seconds: f64 = text.parse().map_err(|_| error())?;
    let millis = seconds * 1000.0;
    let whole = millis.round();
    let exact = (millis - whole).abs() <= 1e-6;
    if !seconds.is_finite()
        || !exact
        || !(0.0..=f64::from(MAX_ADJUDICATION_BUDGET_MS)).contains(&whole)
    {
        return Err(error());
    }
    // In range and whole: the cast is exact.
    Ok(whole as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Adjudication, ParseAdjudicationError> {
        text.parse()
    }

    #[test]
    fn the_old_forms_keep_their_threshold_and_take_the_default_budget() {
        let default = Adjudication::default();
        assert_eq!(default.min_stones, 20);
        assert_eq!(default.budget_ms, 100);
        assert_eq!(parse("exact"), Ok(default));
        assert_eq!(
            parse("exact:stones=5"),
            Ok(Adjudication {
                min_stones: 5,
                budget_ms: 100
            })
        );
    }

    #[test]
    fn adjudications_print_every_option_and_read_back() {
        for (text, printed) in [
            ("exact", "exact:stones=20,budget=0.1"),
            ("exact:stones=5", "exact:stones=5,budget=0.1"),
            ("exact:budget=0", "exact:stones=20,budget=0"),
            ("exact:budget=0.25,stones=12", "exact:stones=12,budget=0.25"),
            ("exact:stones=0,budget=2", "exact:stones=0,budget=2"),
            (
                "exact:stones=35,budget=1.005",
                "exact:stones=35,budget=1.005",
            ),
            ("exact:budget=60", "exact:stones=20,budget=60"),
            ("exact:budget=1e-3", "exact:stones=20,budget=0.001"),
        ] {
            let adjudication = parse(text).unwrap();
            assert_eq!(adjudication.to_string(), printed, "{text}");
            assert_eq!(parse(printed), Ok(adjudication), "{printed}");
        }
    }

    #[test]
    fn bad_forms_say_what_is_wrong() {
        use ParseAdjudicationError::*;
        for (bad, error) in [
            ("", NotExact(String::new())),
            ("table", NotExact("table".into())),
            ("exact:", UnknownOption(String::new())),
            ("exact:plies=3", UnknownOption("plies=3".into())),
            ("exact:stones=20,", UnknownOption(String::new())),
            ("exact:stones=36", Stones("36".into())),
            ("exact:stones=x", Stones("x".into())),
            ("exact:stones=-1", Stones("-1".into())),
            ("exact:stones=5,stones=6", Repeated("stones")),
            ("exact:budget=0.1,budget=0.2", Repeated("budget")),
            ("exact:budget=-0.1", Budget("-0.1".into())),
            ("exact:budget=60.001", Budget("60.001".into())),
            ("exact:budget=0.0005", Budget("0.0005".into())),
            ("exact:budget=inf", Budget("inf".into())),
            ("exact:budget=NaN", Budget("NaN".into())),
            ("exact:budget=", Budget(String::new())),
        ] {
            assert_eq!(parse(bad), Err(error), "{bad}");
        }
        let message = parse("exact:budget=fast").unwrap_err().to_string();
        assert!(
            message.contains("budget") && message.contains("\"fast\""),
            "{message}"
        );
    }
}
