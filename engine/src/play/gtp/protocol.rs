//! GTP version 2 framing, stable: a request is `[id] command [arguments…]` on one line; an
//! answer is `=[id] result` or `?[id] reason`, possibly on several lines, ended by an empty
//! line. Control characters are dropped, tabs are spaces, `#` starts a comment, and empty
//! lines are ignored.

use thiserror::Error;

/// Longest request line an engine reads; a longer one is refused without being read whole.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One command as the controller sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The number the controller gave the command, echoed in the answer.
    pub id: Option<u64>,
    /// The command name.
    pub name: String,
    /// Its arguments, split on whitespace.
    pub args: Vec<String>,
}

/// A line that is not a request.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RequestError {
    /// An id without a command.
    #[error("no command after the id")]
    NoCommand {
        /// The id, for the answer.
        id: Option<u64>,
    },
}

impl RequestError {
    /// The id to answer with.
    #[must_use]
    pub fn id(&self) -> Option<u64> {
        match self {
            RequestError::NoCommand { id } => *id,
        }
    }
}

/// Reads one request line; `Ok(None)` for a line with nothing to do (empty or a comment).
pub fn parse_request(line: &str) -> Result<Option<Request>, RequestError> {
    let cleaned: String = line
        .split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let mut words = cleaned.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let (id, name) = match first.parse::<u64>() {
        Ok(id) if first.bytes().all(|b| b.is_ascii_digit()) => match words.next() {
            Some(name) => (Some(id), name),
            None => return Err(RequestError::NoCommand { id: Some(id) }),
        },
        _ => (None, first),
    };
    Ok(Some(Request {
        id,
        name: name.to_owned(),
        args: words.map(str::to_owned).collect(),
    }))
}

/// The whole text of an answer: `=id text` on success, `?id reason` on failure, then an
/// empty line. Empty lines inside the text (which would end the answer early) are dropped.
#[must_use]
pub fn format_response(id: Option<u64>, result: Result<&str, &str>) -> String {
    let (mark, text) = match result {
        Ok(text) => ('=', text),
        Err(reason) => ('?', reason),
    };
    let id = id.map(|id| id.to_string()).unwrap_or_default();
    let body: Vec<&str> = text.split('\n').filter(|l| !l.trim().is_empty()).collect();
    // A result that starts on a new line (a board diagram) keeps that first line break.
    let lead = if text.starts_with('\n') { "\n" } else { "" };
    format!("{mark}{id} {lead}{}\n\n", body.join("\n"))
}

/// An engine's answer as a controller reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The id it echoed.
    pub id: Option<u64>,
    /// `=` (success) or `?` (failure).
    pub success: bool,
    /// The text after the mark and the id, lines joined with `\n`, trimmed.
    pub text: String,
}

/// An answer that does not follow the framing.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MalformedAnswer {
    /// No lines before the empty line.
    #[error("an empty answer")]
    Empty,
    /// The first line does not start with `=` or `?`.
    #[error("an answer must start with = or ?, not {0:?}")]
    Mark(String),
    /// The id is not a number.
    #[error("bad id in answer {0:?}")]
    Id(String),
}

impl Answer {
    /// Reads the lines of one answer (without the empty line that ends it).
    pub fn parse(lines: &[String]) -> Result<Answer, MalformedAnswer> {
        let first = lines.first().ok_or(MalformedAnswer::Empty)?;
        let success = match first.chars().next() {
            Some('=') => true,
            Some('?') => false,
            _ => return Err(MalformedAnswer::Mark(crate::excerpt(first))),
        };
        let rest = &first[1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let id = if digits == 0 {
            None
        } else {
            Some(
                rest[..digits]
                    .parse()
                    .map_err(|_| MalformedAnswer::Id(crate::excerpt(first)))?,
            )
        };
        let after = &rest[digits..];
        if !(after.is_empty() || after.starts_with([' ', '\t'])) {
            return Err(MalformedAnswer::Id(crate::excerpt(first)));
        }
        let mut text = after.trim().to_owned();
        for line in &lines[1..] {
            text.push('\n');
            text.push_str(line);
        }
        Ok(Answer {
            id,
            success,
            text: text.trim().to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(line: &str) -> Request {
        parse_request(line).unwrap().unwrap()
    }

    #[test]
    fn requests_take_an_optional_id_and_drop_comments_and_controls() {
        assert_eq!(
            request("12 play black c4-1R"),
            Request {
                id: Some(12),
                name: "play".into(),
                args: vec!["black".into(), "c4-1R".into()]
            }
        );
        assert_eq!(request("name").id, None);
        assert_eq!(request("\tgenmove\twhite # a comment\r").args, ["white"]);
        assert_eq!(request("na\u{7}me").name, "name");
        assert_eq!(request("-3 name").name, "-3", "a negative number is no id");
        for nothing in ["", "   ", "# only a comment", "\r"] {
            assert_eq!(parse_request(nothing), Ok(None), "{nothing:?}");
        }
        assert_eq!(
            parse_request("7"),
            Err(RequestError::NoCommand { id: Some(7) })
        );
    }

    #[test]
    fn responses_end_with_an_empty_line() {
        assert_eq!(format_response(None, Ok("2")), "= 2\n\n");
        assert_eq!(format_response(Some(3), Ok("")), "=3 \n\n");
        assert_eq!(
            format_response(Some(4), Err("unknown command")),
            "?4 unknown command\n\n"
        );
        assert_eq!(format_response(None, Ok("\na\n\nb\n")), "= \na\nb\n\n");
    }

    #[test]
    fn answers_round_trip_through_the_framing() {
        for (id, result) in [
            (None, Ok("c4-1R")),
            (Some(9), Err("illegal move")),
            (Some(1), Ok("")),
            (None, Ok("\nline one\nline two")),
        ] {
            let text = format_response(id, result);
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let answer = Answer::parse(&lines[..lines.len() - 1]).unwrap();
            assert_eq!(answer.id, id);
            assert_eq!(answer.success, result.is_ok());
            assert_eq!(answer.text, result.unwrap_or_else(|e| e).trim());
        }
        let bad = |s: &str| Answer::parse(&[s.to_owned()]).unwrap_err();
        assert_eq!(Answer::parse(&[]), Err(MalformedAnswer::Empty));
        assert!(matches!(bad("c4-1R"), MalformedAnswer::Mark(_)));
        assert!(matches!(bad("=12x c4"), MalformedAnswer::Id(_)));
        assert!(matches!(
            bad("=99999999999999999999999 c4"),
            MalformedAnswer::Id(_)
        ));
    }
}
