//! Reading Rust source for paths: comments and literals blanked out, then split into tokens.

/// Source text with comments, string and character literals blanked out, so that paths are
/// only found in code.
pub fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            let mut depth = 0usize;
            while i < bytes.len() {
                if source[i..].starts_with("/*") {
                    depth += 1;
                    i += 2;
                } else if source[i..].starts_with("*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if let Some(length) = raw_string_length(source, i) {
            i += length;
            out.push_str("\"\"");
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if let Some(length) = char_literal_length(rest) {
            i += length;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) starting at `at`.
fn raw_string_length(source: &str, at: usize) -> Option<usize> {
    let previous = source[..at].chars().next_back();
    if previous.is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let rest = &source[at..];
    let rest_after_b = rest.strip_prefix('b').unwrap_or(rest);
    let prefix = rest.len() - rest_after_b.len();
    let after_r = rest_after_b.strip_prefix('r')?;
    let hashes = after_r.len() - after_r.trim_start_matches('#').len();
    let body = after_r[hashes..].strip_prefix('"')?;
    let end = format!("\"{}", "#".repeat(hashes));
    let close = body.find(&end)?;
    Some(prefix + 1 + hashes + 1 + close + end.len())
}

/// The length of a character literal at the start of `rest` (not a lifetime).
fn char_literal_length(rest: &str) -> Option<usize> {
    let body = rest.strip_prefix('\'')?;
    if let Some(escaped) = body.strip_prefix('\\') {
        // The escaped character may be the quote itself (`'\''`).
        let first = escaped.chars().next()?;
        let close = escaped[first.len_utf8()..].find('\'')?;
        return Some(2 + first.len_utf8() + close + 1);
    }
    let c = body.chars().next()?;
    body[c.len_utf8()..]
        .starts_with('\'')
        .then_some(1 + c.len_utf8() + 1)
}

/// A token of code: an identifier or keyword, `::`, or one punctuation character.
pub fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(at, next)) = chars.peek() {
                if !(next.is_alphanumeric() || next == '_') {
                    break;
                }
                end = at + next.len_utf8();
                chars.next();
            }
            out.push(code[start..end].to_owned());
        } else if c == ':' && chars.peek().is_some_and(|&(_, next)| next == ':') {
            chars.next();
            out.push("::".to_owned());
        } else if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_comments_hide_no_code_and_show_none() {
        let code = code_only(
            "let a = 'x'; let q = '\\''; /* crate::a /* nested */ */ let s = r#\"crate::b\"#; 'l: loop {}",
        );
        assert!(code.contains("let q = ' ';"), "{code}");
        assert!(!code.contains("crate"), "{code}");
        assert!(code.contains("'l: loop"), "{code}");
    }
}
