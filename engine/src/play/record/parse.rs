//! The parser: any text in, records or the first problem out (its line and a typed reason),
//! never a panic. It checks the form (tags, move numbers, moves, comments, the result word);
//! [`super::Record::replay`] checks the rules.

use std::str::FromStr;

use thiserror::Error;

use super::{MAX_TAGS, MAX_VALUE_BYTES, MoveNote, Record, RecordPlayer, RecordedMove, Termination};
use crate::board::moves::{Move, ParseMoveError};
use crate::board::position::Position;
use crate::board::status::Status;
use crate::excerpt;
use crate::search::value::Value;

/// Why a record text does not read: the line (counted from 1) and the reason.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct ParseRecordError {
    /// The line where the problem is (counted from 1).
    pub line: usize,
    /// What is wrong there.
    pub kind: RecordErrorKind,
}

/// What is wrong in a record text (every quoted input is cut to a bounded excerpt).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordErrorKind {
    /// A line among the tags that is not `[Name "value"]`.
    #[error("expected a tag line [Name \"value\"], found {0:?}")]
    BadTagLine(String),
    /// A tag value with a bad escape, a control character or too many bytes.
    #[error("bad tag value: {0}")]
    BadValue(String),
    /// The same tag twice in a record.
    #[error("tag {0} appears twice")]
    DuplicateTag(String),
    /// More tags than [`MAX_TAGS`].
    #[error("more than {MAX_TAGS} tags in one record")]
    TooManyTags,
    /// A tag every record needs is missing.
    #[error("the record has no {0} tag")]
    MissingTag(&'static str),
    /// A standard tag whose value does not read.
    #[error("bad {tag} tag {value:?}: {why}")]
    BadTag {
        /// The tag's name.
        tag: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        why: String,
    },
    /// Moves before any tag.
    #[error("moves before any tag: a record starts with its tags")]
    NoTags,
    /// A token in the move text that is not a move.
    #[error("bad move {token:?}: {error}")]
    BadMove {
        /// The token.
        token: String,
        /// Why it is no move.
        error: ParseMoveError,
    },
    /// A move number that is not the one due.
    #[error("move number {found:?} where {expected:?} is due")]
    BadMoveNumber {
        /// The number found.
        found: String,
        /// The number due there.
        expected: String,
    },
    /// A `{` without its `}` on the same line.
    #[error("a comment that does not end on its line")]
    UnterminatedComment,
    /// A comment that does not read.
    #[error("bad comment {text:?}: {why}")]
    BadComment {
        /// The comment.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// More moves than the opening has empty squares.
    #[error("more moves than the opening's {0} empty squares")]
    TooManyMoves(u32),
    /// The result word after the moves is not the `Result` tag.
    #[error("the moves end with {found} but the Result tag says {tag}")]
    ResultMismatch {
        /// The word after the moves.
        found: Status,
        /// The tag.
        tag: Status,
    },
    /// The record ends without its result word.
    #[error("the record ends without its result word (ongoing, black, white or draw)")]
    MissingResult,
    /// Text after the result word on its line.
    #[error("text after the result word: {0:?}")]
    AfterResult(String),
}

/// Every record in `text`, in order (none for a text of blank lines).
///
/// # Errors
/// The first problem, with its line: see [`RecordErrorKind`].
pub fn parse_records(text: &str) -> Result<Vec<Record>, ParseRecordError> {
    Ok(parse_records_at(text)?
        .into_iter()
        .map(|(_, record)| record)
        .collect())
}

/// [`parse_records`] with the line each record starts on (counted from 1).
///
/// # Errors
/// The first problem, with its line: see [`RecordErrorKind`].
pub fn parse_records_at(text: &str) -> Result<Vec<(usize, Record)>, ParseRecordError> {
    let mut records = Vec::new();
    let mut builder: Option<Builder> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let at = |kind| ParseRecordError { line: number, kind };
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            match &mut builder {
                Some(b) if b.in_moves => return Err(at(RecordErrorKind::MissingResult)),
                Some(b) => b.tag(trimmed, number).map_err(at)?,
                None => {
                    let mut b = Builder::new(number);
                    b.tag(trimmed, number).map_err(at)?;
                    builder = Some(b);
                }
            }
        } else if !trimmed.is_empty() {
            let Some(b) = &mut builder else {
                return Err(at(RecordErrorKind::NoTags));
            };
            if !b.in_moves {
                b.start_moves(number)?;
            }
            if b.moves_line(trimmed).map_err(at)? {
                records.push((b.first_line, b.finish().map_err(at)?));
                builder = None;
            }
        }
    }
    match builder {
        None => Ok(records),
        Some(b) => {
            // The record ran to the end of the text without its result word: point at its
            // last line.
            let line = text.lines().count().max(b.first_line);
            Err(ParseRecordError {
                line,
                kind: RecordErrorKind::MissingResult,
            })
        }
    }
}

impl FromStr for Record {
    type Err = ParseRecordError;

    /// Exactly one record.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut records = parse_records(text)?;
        match (records.pop(), records.is_empty()) {
            (Some(record), true) => Ok(record),
            (None, _) => Err(ParseRecordError {
                line: 1,
                kind: RecordErrorKind::MissingTag("Result"),
            }),
            (Some(_), false) => Err(ParseRecordError {
                line: 1,
                kind: RecordErrorKind::BadTagLine("a second record".into()),
            }),
        }
    }
}

/// A record being read: its tags, then its moves.
struct Builder {
    first_line: usize,
    /// Name, value and line of each tag.
    tags: Vec<(String, String, usize)>,
    in_moves: bool,
    /// Read from the tags when the moves start.
    record: Option<Record>,
    stones: u32,
}

type Step<T = ()> = Result<T, RecordErrorKind>;

impl Builder {
    fn new(first_line: usize) -> Builder {
        Builder {
            first_line,
            tags: Vec::new(),
            in_moves: false,
            record: None,
            stones: 0,
        }
    }

    /// One `[Name "value"]` line.
    fn tag(&mut self, line: &str, number: usize) -> Step {
        let bad = || RecordErrorKind::BadTagLine(excerpt(line));
        let inner = line
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            .ok_or_else(bad)?;
        let (name, rest) = inner.split_once(' ').ok_or_else(bad)?;
        let name_ok = (1..=32).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !name_ok {
            return Err(bad());
        }
        let value = unquote(rest)?;
        if self.tags.iter().any(|(n, _, _)| n == name) {
            return Err(RecordErrorKind::DuplicateTag(name.to_owned()));
        }
        if self.tags.len() == MAX_TAGS {
            return Err(RecordErrorKind::TooManyTags);
        }
        self.tags.push((name.to_owned(), value, number));
        Ok(())
    }

    /// The tags are complete (the moves start on line `number`): reads the standard ones. A
    /// bad tag is reported at its own line, a missing one where the moves start.
    fn start_moves(&mut self, number: usize) -> Result<(), ParseRecordError> {
        self.in_moves = true;
        let tags = &mut self.tags;
        let mut lines = Vec::new();
        let mut take = |name: &'static str| {
            tags.iter().position(|(n, _, _)| n == name).map(|i| {
                let (_, value, line) = tags.remove(i);
                lines.push((name, line));
                value
            })
        };
        let missing = |tag| ParseRecordError {
            line: number,
            kind: RecordErrorKind::MissingTag(tag),
        };
        let black = take("Black").ok_or_else(|| missing("Black"))?;
        let white = take("White").ok_or_else(|| missing("White"))?;
        let result_text = take("Result").ok_or_else(|| missing("Result"))?;
        let opening_text = take("Opening");
        let termination_text = take("Termination");
        let date = take("Date").unwrap_or_else(|| super::UNKNOWN_DATE.into());
        let event = take("Event").unwrap_or_else(|| "?".into());
        let round = take("Round").unwrap_or_else(|| "-".into());
        let black_spec = take("BlackSpec").unwrap_or_default();
        let white_spec = take("WhiteSpec").unwrap_or_default();
        let time_control = take("TimeControl").unwrap_or_else(|| "-".into());
        let at = |tag: &'static str, kind| ParseRecordError {
            line: lines
                .iter()
                .find(|(n, _)| *n == tag)
                .map_or(number, |(_, line)| *line),
            kind,
        };
        let result = standard::<Status>("Result", &result_text).map_err(|k| at("Result", k))?;
        let opening = match opening_text {
            None => Position::START,
            Some(text) => standard::<Position>("Opening", &text).map_err(|k| at("Opening", k))?,
        };
        let termination = match termination_text {
            None if result.is_over() => Termination::Normal,
            None => Termination::Unfinished,
            Some(text) => {
                standard::<Termination>("Termination", &text).map_err(|k| at("Termination", k))?
            }
        };
        if !valid_date(&date) {
            let kind = RecordErrorKind::BadTag {
                tag: "Date",
                value: excerpt(&date),
                why: "expected YYYY.MM.DD (? for unknown digits)".into(),
            };
            return Err(at("Date", kind));
        }
        let record = Record {
            event,
            round,
            date,
            black: RecordPlayer {
                name: black,
                spec: black_spec,
            },
            white: RecordPlayer {
                name: white,
                spec: white_spec,
            },
            opening,
            time_control,
            result,
            termination,
            other_tags: self.tags.drain(..).map(|(n, v, _)| (n, v)).collect(),
            moves: Vec::new(),
        };
        self.stones = record.opening.stone_count();
        self.record = Some(record);
        Ok(())
    }

    /// One line of move text; `true` once the result word ended the record.
    fn moves_line(&mut self, line: &str) -> Step<bool> {
        let mut rest = line;
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                return Ok(false);
            }
            if let Some(after) = rest.strip_prefix('{') {
                let (text, tail) = after
                    .split_once('}')
                    .ok_or(RecordErrorKind::UnterminatedComment)?;
                self.comment(text)?;
                rest = tail;
                continue;
            }
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '{')
                .unwrap_or(rest.len());
            let (token, tail) = rest.split_at(end);
            rest = tail;
            if let Ok(found) = token.parse::<Status>() {
                let record = self.record.as_ref().ok_or(RecordErrorKind::NoTags)?;
                if found != record.result {
                    return Err(RecordErrorKind::ResultMismatch {
                        found,
                        tag: record.result,
                    });
                }
                let tail = rest.trim();
                if !tail.is_empty() {
                    return Err(RecordErrorKind::AfterResult(excerpt(tail)));
                }
                return Ok(true);
            }
            self.token(token)?;
        }
    }

    /// A move number or a move.
    fn token(&mut self, token: &str) -> Step {
        let number = self.stones / 2 + 1;
        let black = self.stones.is_multiple_of(2);
        if token.starts_with(|c: char| c.is_ascii_digit()) {
            let expected = if black {
                format!("{number}.")
            } else {
                format!("{number}...")
            };
            if token != expected {
                return Err(RecordErrorKind::BadMoveNumber {
                    found: excerpt(token),
                    expected,
                });
            }
            return Ok(());
        }
        let mv = token
            .parse::<Move>()
            .map_err(|error| RecordErrorKind::BadMove {
                token: excerpt(token),
                error,
            })?;
        let record = self.record.as_mut().ok_or(RecordErrorKind::NoTags)?;
        let empty = 36 - record.opening.stone_count();
        if record.moves.len() as u32 >= empty {
            return Err(RecordErrorKind::TooManyMoves(empty));
        }
        record.moves.push(RecordedMove::from(mv));
        self.stones += 1;
        Ok(())
    }

    /// A comment after the last move.
    fn comment(&mut self, text: &str) -> Step {
        let bad = |why: &str| RecordErrorKind::BadComment {
            text: excerpt(text),
            why: why.to_owned(),
        };
        if text.len() > MAX_VALUE_BYTES {
            return Err(bad("too long"));
        }
        let record = self.record.as_mut().ok_or(RecordErrorKind::NoTags)?;
        let Some(last) = record.moves.last_mut() else {
            return Err(bad("a comment belongs after a move"));
        };
        if !last.note.is_empty() {
            return Err(bad("a move has at most one comment"));
        }
        last.note = parse_note(text).map_err(|why| bad(&why))?;
        if last.note.is_empty() {
            return Err(bad("empty"));
        }
        Ok(())
    }

    fn finish(&mut self) -> Step<Record> {
        self.record.take().ok_or(RecordErrorKind::NoTags)
    }
}

/// A standard tag's value read as a `T`.
fn standard<T: FromStr>(tag: &'static str, value: &str) -> Step<T>
where
    T::Err: std::fmt::Display,
{
    value.parse().map_err(|e: T::Err| RecordErrorKind::BadTag {
        tag,
        value: excerpt(value),
        why: e.to_string(),
    })
}

/// Whether `date` is `YYYY.MM.DD` with digits or `?`.
fn valid_date(date: &str) -> bool {
    date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'.',
            _ => b.is_ascii_digit() || b == b'?',
        })
}

/// A quoted tag value (`"..."` with `\"`, `\\`, `\n`, `\t`, `\u{HEX}` escapes) unquoted.
fn unquote(text: &str) -> Step<String> {
    let bad = |why: &str| RecordErrorKind::BadValue(format!("{why} in {}", excerpt(text)));
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|_| text.len() >= 2)
        .ok_or_else(|| bad("expected a value in double quotes"))?;
    if inner.len() > MAX_VALUE_BYTES {
        return Err(bad("too long"));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let rest = chars.as_str();
                    let hex = rest
                        .strip_prefix('{')
                        .and_then(|r| r.split_once('}'))
                        .map(|(hex, _)| hex)
                        .ok_or_else(|| bad("expected \\u{HEX}"))?;
                    let c = u32::from_str_radix(hex, 16)
                        .ok()
                        .filter(|_| (1..=6).contains(&hex.len()))
                        .and_then(char::from_u32)
                        .ok_or_else(|| bad("bad \\u{HEX} escape"))?;
                    out.push(c);
                    chars = rest[hex.len() + 2..].chars();
                }
                _ => return Err(bad("unknown escape")),
            },
            '"' => return Err(bad("an unescaped quote")),
            c if c.is_control() => return Err(bad("a control character")),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A comment's parts: `time=`, `clock=`, `score=`, `exact=` (each at most once, in that
/// order), then free text.
fn parse_note(text: &str) -> Result<MoveNote, String> {
    let mut note = MoveNote::default();
    let mut words = text.split_whitespace().peekable();
    let mut order = 0;
    while let Some((key, value)) = words.peek().and_then(|w| w.split_once('=')) {
        let rank = match key {
            "time" => 1,
            "clock" => 2,
            "score" => 3,
            "exact" => 4,
            _ => break,
        };
        if rank <= order {
            return Err(format!("{key}= out of order or twice"));
        }
        order = rank;
        match key {
            "time" => note.time = Some(seconds(value)?),
            "clock" => note.clock = Some(seconds(value)?),
            "score" => {
                note.score = Some(
                    value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| (0.0..=1.0).contains(s))
                        .ok_or_else(|| format!("score {value:?} is not from 0 to 1"))?,
                );
            }
            _ => note.exact = Some(value.parse::<Value>()?),
        }
        words.next();
    }
    let rest: Vec<&str> = words.collect();
    if rest
        .iter()
        .any(|w| w.contains(['{', '}']) || w.contains(char::is_control))
    {
        return Err("braces or control characters in its text".into());
    }
    note.text = rest.join(" ");
    Ok(note)
}

/// A count of seconds: finite, not negative.
fn seconds(value: &str) -> Result<f64, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| format!("{value:?} is not a number of seconds"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::color::Color;
    use proptest::prelude::*;

    const GAME: &str = "[Event \"match 3\"]\n[Black \"fast\"]\n[White \"slow\"]\n\
                        [Result \"ongoing\"]\n\n1. a1-1R {time=0.5} 1... b1-1R ongoing\n";

    #[test]
    fn a_minimal_record_reads_with_defaults() {
        let record: Record = GAME.parse().unwrap();
        assert_eq!(record.event, "match 3");
        assert_eq!(record.opening, Position::START);
        assert_eq!(record.termination, Termination::Unfinished);
        assert_eq!(record.moves.len(), 2);
        assert_eq!(record.moves[0].note.time, Some(0.5));
        assert_eq!(record.to_string().parse::<Record>(), Ok(record));
    }

    /// Each bad record with the line and reason it is refused for.
    #[test]
    fn bad_records_are_refused_with_line_and_reason() {
        let head = "[Black \"a\"]\n[White \"b\"]\n[Result \"ongoing\"]\n";
        let cases: &[(&str, usize, &str)] = &[
            ("1. a1-1R ongoing\n", 1, "moves before any tag"),
            ("[Black a]\n", 1, "bad tag value"),
            ("[Black \"a\"\n", 1, "expected a tag line"),
            ("[Black \"a\"]\n[Black \"b\"]\n", 2, "appears twice"),
            (
                "[White \"b\"]\n[Result \"draw\"]\n\ndraw\n",
                4,
                "no Black tag",
            ),
            (
                "[Black \"a\"]\n[White \"b\"]\n[Result \"won\"]\n\nwon\n",
                3,
                "bad Result tag",
            ),
            ("\n1. a1-1R z9-1R ongoing\n", 5, "bad move \"z9-1R\""),
            ("\n1. a1-1R 2. b1-1R ongoing\n", 5, "move number \"2.\""),
            (
                "\n1. a1-1R {time=x} ongoing\n",
                5,
                "not a number of seconds",
            ),
            (
                "\n1. a1-1R {time=1\nongoing\n",
                5,
                "does not end on its line",
            ),
            ("\n{time=1} ongoing\n", 5, "after a move"),
            ("\n1. a1-1R black\n", 5, "Result tag says ongoing"),
            ("\n1. a1-1R ongoing extra\n", 5, "text after the result"),
            ("\n1. a1-1R\n", 5, "without its result word"),
            ("\n1. a1-1R\n[Event \"x\"]\n", 6, "without its result word"),
        ];
        for (body, line, reason) in cases {
            let text = if body.starts_with('\n') {
                format!("{head}{body}")
            } else {
                (*body).to_owned()
            };
            let error = parse_records(&text).unwrap_err();
            assert_eq!(error.line, *line, "{text:?}: {error}");
            let message = error.to_string();
            assert!(message.contains(reason), "{text:?}: {message}");
            assert!(message.starts_with(&format!("line {line}: ")), "{message}");
        }
        let full = format!(
            "{head}[Opening \"xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxo.\"]\n\n18. f1-1R f1-1R ongoing\n"
        );
        assert!(parse_records(&full).is_err());
    }

    #[test]
    fn several_records_and_escapes_read() {
        let mut second: Record = GAME.parse().unwrap();
        second.black.name = "quote \" back \\ line\n esc \u{1b}".into();
        second.other_tags.push(("Site".into(), "here".into()));
        second.result = Status::Won(Color::White);
        second.termination = Termination::Forfeit {
            loser: Color::Black,
            reason: "time".into(),
        };
        let text = format!("{GAME}\n{second}");
        let records = parse_records(&text).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1], second);
        assert!(records[1].replay().is_ok());
    }

    fn note() -> impl Strategy<Value = MoveNote> {
        (
            proptest::option::of(0.0..1e6f64),
            proptest::option::of(0.0..1e6f64),
            proptest::option::of(0.0..=1.0f64),
            proptest::option::of(prop_oneof![
                Just(Value::Win),
                Just(Value::Draw),
                Just(Value::Loss)
            ]),
            "([a-z0-9.:]{1,6}( [a-z0-9.:]{1,6}){0,2})?",
        )
            .prop_map(|(time, clock, score, exact, text)| MoveNote {
                time,
                clock,
                score,
                exact,
                text,
            })
    }

    proptest! {
        /// Games played at random from the start with random notes and names: written, read
        /// back to the same record, and replayed.
        #[test]
        fn random_games_round_trip(
            seed in any::<u64>(),
            length in 0usize..36,
            notes in proptest::collection::vec(note(), 36),
            name in "\\PC{0,20}",
            extra in "[A-Za-z][A-Za-z0-9_]{0,10}",
        ) {
            let mut position = Position::START;
            let mut moves = Vec::new();
            let mut rng = seed;
            while moves.len() < length && !position.is_over() {
                let legal = position.legal_moves();
                rng = pentagrid_gamekit::splitmix64(rng);
                let mv = legal[(rng % legal.len() as u64) as usize];
                position = position.play(mv).unwrap();
                moves.push(RecordedMove { mv, note: notes[moves.len()].clone() });
            }
            let mut record = Record::new(
                RecordPlayer { name: name.clone(), spec: "random".into() },
                RecordPlayer { name: "b".into(), spec: String::new() },
                Position::START,
                moves,
                position.status(),
            );
            if !["Event", "Round", "Date", "Black", "BlackSpec", "White", "WhiteSpec",
                 "Opening", "TimeControl", "Result", "Termination"].contains(&extra.as_str()) {
                record.other_tags.push((extra, name));
            }
            let text = record.to_string();
            let read: Record = text.parse().unwrap();
            prop_assert_eq!(&read, &record);
            prop_assert_eq!(read.replay().unwrap(), position);
        }

        /// Any text: an answer, never a panic; what reads writes back to text that reads the
        /// same.
        #[test]
        fn any_text_answers(text in "(\\[[A-Za-z]{0,6} \"[^\"]{0,8}\"\\]\n|[a-f1-6. {}=R\\-]{0,20}\n|black\n)*") {
            if let Ok(records) = parse_records(&text) {
                for record in records {
                    prop_assert_eq!(record.to_string().parse::<Record>(), Ok(record.clone()));
                }
            }
        }
    }
}
