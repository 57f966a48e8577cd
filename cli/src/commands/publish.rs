//! Puzzle collections as published documents: a text problem book, JSON lines, and one
//! self-contained printable HTML page with an SVG board per puzzle.

use std::fmt::Write;

use pentago::{Color, Puzzle, difficulty_label};
use pentagrid_client::svg::{self, escape};

use super::show::board;

fn side(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

fn task(puzzle: &Puzzle) -> String {
    format!(
        "{} to play and win in {}",
        side(puzzle.side_to_move),
        puzzle.mate_in
    )
}

fn rating(puzzle: &Puzzle) -> String {
    let source = if puzzle.source.is_empty() {
        String::new()
    } else {
        format!("; from {}", puzzle.source)
    };
    format!(
        "difficulty {:.1}, {}{source}",
        puzzle.difficulty,
        difficulty_label(puzzle.difficulty)
    )
}

fn main_line(puzzle: &Puzzle) -> String {
    let moves: Vec<String> = puzzle
        .proof
        .main_line()
        .iter()
        .map(ToString::to_string)
        .collect();
    moves.join(" ")
}

/// Numbered diagrams, then the solutions at the back.
#[must_use]
pub fn text(puzzles: &[Puzzle]) -> String {
    let mut out = format!(
        "PENTAGRID CHECKMATE PUZZLES\n{} problems. Every attacking move must threaten an immediate win;\n\
         the solution's first move is the only winning move.\n",
        puzzles.len()
    );
    for (number, puzzle) in puzzles.iter().enumerate() {
        let _ = write!(
            out,
            "\n\nNo. {}   {}\n({})\n\n{}\n",
            number + 1,
            task(puzzle),
            rating(puzzle),
            board(&puzzle.position)
        );
    }
    out.push_str("\n\nSOLUTIONS\n");
    for (number, puzzle) in puzzles.iter().enumerate() {
        let _ = writeln!(
            out,
            "\nNo. {}   {}!   main line: {}   ({} defender reply groups in the proof)",
            number + 1,
            puzzle.first_move,
            main_line(puzzle),
            puzzle.reply_groups
        );
    }
    out
}

/// One puzzle per line in the stable JSON form, proof tree included.
#[must_use]
pub fn jsonl(puzzles: &[Puzzle]) -> String {
    puzzles
        .iter()
        .map(|p| serde_json::to_string(p).expect("puzzles serialize") + "\n")
        .collect()
}

/// A single printable page: one board per puzzle, the solutions at the end.
#[must_use]
pub fn html(puzzles: &[Puzzle]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Pentago checkmate puzzles</title>\n<style>\n\
         body { font-family: Georgia, serif; margin: 2em; }\n\
         .puzzle { display: inline-block; width: 320px; margin: 1em; vertical-align: top; break-inside: avoid; }\n\
         .solutions { break-before: page; }\n\
         </style>\n</head>\n<body>\n",
    );
    let _ = writeln!(
        out,
        "<h1>Pentago checkmate puzzles</h1>\n<p>{} problems. Every attacking move must threaten an immediate win; the first move of each solution is the only winning move.</p>",
        puzzles.len()
    );
    for (number, puzzle) in puzzles.iter().enumerate() {
        let _ = writeln!(
            out,
            "<div class=\"puzzle\" id=\"p{n}\">\n<h2>No. {n}</h2>\n<p><strong>{}</strong><br/>{}</p>\n{}\n</div>",
            escape(&task(puzzle)),
            escape(&rating(puzzle)),
            svg::board(&puzzle.position, None),
            n = number + 1,
        );
    }
    out.push_str("<div class=\"solutions\">\n<h2>Solutions</h2>\n<ol>\n");
    for puzzle in puzzles {
        let _ = writeln!(
            out,
            "<li><strong>{}!</strong> main line: {}</li>",
            puzzle.first_move,
            escape(&main_line(puzzle))
        );
    }
    out.push_str("</ol>\n</div>\n</body>\n</html>\n");
    out
}
