//! Shared checks of the fuzz targets: a parser never panics, and what it accepts round-trips.

use std::fmt::{Debug, Display};
use std::str::FromStr;

/// Parses `text` as a `T`; when it parses, its printed form must parse back to the same value.
///
/// Panics (which the fuzzer reports as a finding) only when that round trip breaks.
pub fn check_round_trip<T>(text: &str)
where
    T: FromStr + Display + PartialEq + Debug,
{
    if let Ok(value) = text.parse::<T>() {
        let printed = value.to_string();
        match printed.parse::<T>() {
            Ok(again) => assert_eq!(again, value, "{text:?} printed as {printed:?}"),
            Err(_) => panic!("{text:?} parsed, but its printed form {printed:?} does not"),
        }
    }
}

/// The fuzzer's bytes as text, when they are UTF-8 (parsers take `&str`).
pub fn as_text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
