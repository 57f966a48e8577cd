//! Bounded quotes of bad input for error messages: a 10 MB line must not become a 10 MB error.

/// Most characters of bad input an error message quotes.
pub const EXCERPT_CHARS: usize = 64;

/// `text` as an error message quotes it: whole when it has at most [`EXCERPT_CHARS`]
/// characters, otherwise its first [`EXCERPT_CHARS`] characters (cut at a character
/// boundary), `…` and its length in bytes.
#[must_use]
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}… ({} bytes)", &text[..end], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_at_a_character_boundary_with_its_length() {
        assert_eq!(excerpt("c4-1R"), "c4-1R");
        let exact = "é".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let long = "é".repeat(5_000_000);
        let quoted = excerpt(&long);
        assert_eq!(
            quoted,
            format!("{}… (10000000 bytes)", "é".repeat(EXCERPT_CHARS))
        );
    }
}
