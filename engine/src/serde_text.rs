//! Serde helpers that write moves and positions in their notation (`c4-1R`, `x...../...`),
//! so JSON output is readable and other tools parse it with the notation of `docs/DESIGN.md` §2.

use std::fmt::Display;
use std::str::FromStr;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};

/// One value as text: `#[serde(with = "crate::serde_text")]`.
pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// One value from text.
pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
where
    T: FromStr,
    T::Err: Display,
    D: Deserializer<'de>,
{
    let text = String::deserialize(d)?;
    text.parse().map_err(D::Error::custom)
}

/// A list of values as a list of texts: `#[serde(with = "crate::serde_text::list")]`.
pub mod list {
    use super::*;

    /// Writes each value as text.
    pub fn serialize<T: Display, S: Serializer>(values: &[T], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(values.iter().map(ToString::to_string))
    }

    /// Reads each value from text.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let texts = Vec::<String>::deserialize(d)?;
        texts
            .iter()
            .map(|t| t.parse().map_err(D::Error::custom))
            .collect()
    }
}

/// An optional value as text or null: `#[serde(with = "crate::serde_text::option")]`.
pub mod option {
    use super::*;

    /// Writes the value as text, or null.
    pub fn serialize<T: Display, S: Serializer>(
        value: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.collect_str(v),
            None => s.serialize_none(),
        }
    }

    /// Reads text or null.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        Option::<String>::deserialize(d)?
            .map(|t| t.parse().map_err(D::Error::custom))
            .transpose()
    }
}
