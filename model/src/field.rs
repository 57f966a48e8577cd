//! Reading a text field (of a wire message or a stored record) as the value it holds: the one
//! parse helper of the workspace, with an error that quotes the text bounded and escaped, so a
//! 20 KB position makes a short message and a control character cannot reach a log line.

use std::fmt::Display;
use std::str::FromStr;

use thiserror::Error;

/// Bytes of a bad field an error quotes.
pub const QUOTED_BYTES: usize = 64;

/// A text field that does not hold what it should.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad {what} {quoted}: {error}")]
pub struct FieldError {
    /// What the field should hold (`position`, `player`, …).
    pub what: &'static str,
    /// The text, quoted (see [`quote`]).
    pub quoted: String,
    /// Why it does not parse.
    pub error: String,
}

/// `text` read as a `T`; the error names `what` it should be.
pub fn parse_field<T>(what: &'static str, text: &str) -> Result<T, FieldError>
where
    T: FromStr,
    T::Err: Display,
{
    text.parse().map_err(|error: T::Err| FieldError {
        what,
        quoted: quote(text),
        error: error.to_string(),
    })
}

/// `text` as an error quotes it: escaped like `{:?}`, at most [`QUOTED_BYTES`] bytes of it
/// (cut at a character boundary), and its whole length when cut.
#[must_use]
pub fn quote(text: &str) -> String {
    let mut end = text.len().min(QUOTED_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let prefix = &text[..end];
    if end == text.len() {
        format!("{prefix:?}")
    } else {
        format!("{prefix:?}… ({} bytes in all)", text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_field_is_named_and_quoted_bounded() {
        assert_eq!(parse_field::<u32>("count", "12"), Ok(12));
        let error = parse_field::<u32>("count", "x\n").unwrap_err();
        assert_eq!((error.what, error.quoted.as_str()), ("count", "\"x\\n\""));
        assert!(
            error.to_string().starts_with("bad count \"x\\n\": "),
            "{error}"
        );
        let long = "é".repeat(1_000);
        let error = parse_field::<u32>("count", &long).unwrap_err();
        assert_eq!(
            error.quoted,
            format!("{:?}… (2000 bytes in all)", "é".repeat(QUOTED_BYTES / 2))
        );
    }
}
