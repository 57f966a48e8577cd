//! Quoting peer-supplied text in error messages: at most a bounded prefix, escaped, with the
//! whole length, so a 20 KB position makes a short error (one that fits the callers' header
//! limits) and a control character cannot reach a terminal or a log line.

use std::fmt;

/// Bytes of bad input an error message quotes by default.
pub(crate) const QUOTED_BYTES: usize = 64;

/// Longest message a status carries, in bytes: far below the 8 KB that HTTP/2 peers commonly
/// allow for a whole header block.
pub(crate) const MAX_STATUS_MESSAGE_BYTES: usize = 1_024;

/// `text` as an error quotes it: escaped like `{:?}`, at most `max` bytes of it (cut at a
/// character boundary), and its whole length when cut.
pub(crate) fn bounded(text: &str, max: usize) -> Bounded<'_> {
    Bounded { text, max }
}

/// A bounded, escaped quotation (see [`bounded`]).
pub(crate) struct Bounded<'a> {
    text: &'a str,
    max: usize,
}

impl fmt::Display for Bounded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = prefix(self.text, self.max);
        if prefix.len() == self.text.len() {
            write!(f, "{prefix:?}")
        } else {
            write!(f, "{prefix:?}… ({} bytes in all)", self.text.len())
        }
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
pub(crate) fn prefix(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `message` cut to [`MAX_STATUS_MESSAGE_BYTES`], saying so when cut.
pub(crate) fn capped(message: String) -> String {
    if message.len() <= MAX_STATUS_MESSAGE_BYTES {
        return message;
    }
    let cut = prefix(&message, MAX_STATUS_MESSAGE_BYTES);
    format!("{cut}… (message cut at {MAX_STATUS_MESSAGE_BYTES} bytes)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_long_input_is_quoted_by_its_head_and_its_length() {
        assert_eq!(bounded("short", 64).to_string(), "\"short\"");
        let long = "x".repeat(20_000);
        let quoted = bounded(&long, 64).to_string();
        assert_eq!(
            quoted,
            format!("\"{}\"… (20000 bytes in all)", "x".repeat(64))
        );
        assert_eq!(bounded("héllo", 2).to_string(), "\"h\"… (6 bytes in all)");
        assert_eq!(
            bounded("a\u{1b}[2J\n", 64).to_string(),
            "\"a\\u{1b}[2J\\n\""
        );
    }

    proptest! {
        #[test]
        fn quotations_and_messages_stay_bounded_and_escaped(text in any::<String>(), max in 0usize..100) {
            let quoted = bounded(&text, max).to_string();
            // Each byte quoted escapes to at most 10 (`\u{10ffff}`), plus the length note.
            prop_assert!(quoted.len() <= 10 * max + 40, "{}", quoted.len());
            prop_assert!(!quoted.chars().any(char::is_control));
            prop_assert!(capped(text.repeat(50)).len() <= MAX_STATUS_MESSAGE_BYTES + 40);
        }
    }
}
