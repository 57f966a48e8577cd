//! The writer: a [`Record`] in the stable text form, standard tags first in a fixed order,
//! then the moves with their numbers and comments, wrapped at 80 columns, then the result.

use std::fmt::{self, Write as _};

use super::{MoveNote, Record};

/// Columns the move text is wrapped at.
const WIDTH: usize = 80;

/// `value` as a quoted tag value: `"` and `\` escaped, and every control character written
/// as an escape (`\n`, `\t`, `\u{1b}`), so that a record is always one line per tag.
pub(super) fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A note's comment text, without the braces.
fn comment(note: &MoveNote) -> String {
    let mut parts = Vec::new();
    if let Some(time) = note.time {
        parts.push(format!("time={time}"));
    }
    if let Some(clock) = note.clock {
        parts.push(format!("clock={clock}"));
    }
    if let Some(score) = note.score {
        parts.push(format!("score={score}"));
    }
    if let Some(exact) = note.exact {
        parts.push(format!("exact={exact}"));
    }
    if !note.text.is_empty() {
        parts.push(note.text.clone());
    }
    parts.join(" ")
}

/// The move text's tokens (a move with its number, a comment, the result last), each kept
/// whole on a line.
fn tokens(record: &Record) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut numbered = false;
    let first = record.opening.stone_count() as usize;
    for (stones, recorded) in (first..).zip(&record.moves) {
        let number = stones / 2 + 1;
        let black = stones.is_multiple_of(2);
        // A number and its move stay on one line.
        tokens.push(if black {
            format!("{number}. {}", recorded.mv)
        } else if !numbered {
            format!("{number}... {}", recorded.mv)
        } else {
            recorded.mv.to_string()
        });
        // A comment breaks the pair: the next white move is numbered again.
        numbered = black && recorded.note.is_empty();
        if !recorded.note.is_empty() {
            tokens.push(format!("{{{}}}", comment(&recorded.note)));
        }
    }
    tokens.push(record.result.to_string());
    tokens
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let standard = [
            ("Event", self.event.clone()),
            ("Round", self.round.clone()),
            ("Date", self.date.clone()),
            ("Black", self.black.name.clone()),
            ("BlackSpec", self.black.spec.clone()),
            ("White", self.white.name.clone()),
            ("WhiteSpec", self.white.spec.clone()),
            ("Opening", self.opening.to_string()),
            ("TimeControl", self.time_control.clone()),
            ("Result", self.result.to_string()),
            ("Termination", self.termination.to_string()),
        ];
        let others = self.other_tags.iter().map(|(n, v)| (n.as_str(), v.clone()));
        for (name, value) in standard.into_iter().chain(others) {
            writeln!(f, "[{name} {}]", quoted(&value))?;
        }
        writeln!(f)?;
        let mut line = String::new();
        for token in tokens(self) {
            if !line.is_empty() && line.len() + 1 + token.len() > WIDTH {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&token);
        }
        writeln!(f, "{line}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RecordPlayer, RecordedMove, Termination};
    use super::*;
    use crate::board::position::Position;
    use crate::board::status::Status;
    use crate::search::value::Value;

    #[test]
    fn a_record_is_written_in_the_documented_layout() {
        let opening: Position = "....../....../..x.../....../....../......".parse().unwrap();
        let mut moves: Vec<RecordedMove> = ["d3-2L", "c4-1R", "a1-4R"]
            .iter()
            .map(|m| RecordedMove::from(m.parse::<crate::Move>().unwrap()))
            .collect();
        moves[1].note = MoveNote {
            time: Some(0.25),
            score: Some(0.5),
            exact: Some(Value::Draw),
            text: "book".into(),
            ..MoveNote::default()
        };
        let mut record = Record::new(
            RecordPlayer {
                name: "fast \"one\"".into(),
                spec: "uct:playouts=300".into(),
            },
            RecordPlayer {
                name: "slow".into(),
                spec: "uct:playouts=600".into(),
            },
            opening,
            moves,
            Status::Ongoing,
        );
        record.termination = Termination::Unfinished;
        let text = record.to_string();
        let expected = "[Event \"?\"]\n[Round \"-\"]\n[Date \"????.??.??\"]\n\
             [Black \"fast \\\"one\\\"\"]\n[BlackSpec \"uct:playouts=300\"]\n[White \"slow\"]\n\
             [WhiteSpec \"uct:playouts=600\"]\n\
             [Opening \"....../....../..x.../....../....../......\"]\n\
             [TimeControl \"-\"]\n[Result \"ongoing\"]\n[Termination \"unfinished\"]\n\n\
             1... d3-2L 2. c4-1R {time=0.25 score=0.5 exact=draw book} 2... a1-4R ongoing\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(quoted("a\nb\u{1b}c\\"), "\"a\\nb\\u{1b}c\\\\\"");
    }
}
