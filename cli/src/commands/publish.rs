//! Puzzle collections as published documents: a text problem book, JSON lines, and one
//! self-contained printable HTML page with an SVG board per puzzle.

use std::fmt::Write;

use pentago::{Color, Position, Puzzle, Square, difficulty_label};

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

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const CELL: u32 = 40;
const MARGIN: u32 = 24;

/// The board as SVG: quadrant borders, stones, file and rank labels.
fn svg_board(position: &Position) -> String {
    let size = 6 * CELL + 2 * MARGIN;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\">\n"
    );
    for quadrant in 0..4 {
        let x = MARGIN + (quadrant % 2) * 3 * CELL;
        let y = MARGIN + (quadrant / 2) * 3 * CELL;
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{w}\" rx=\"6\" fill=\"#b5523b\" stroke=\"#3b1d14\" stroke-width=\"2\"/>",
            w = 3 * CELL
        );
    }
    for rank in 0..6u8 {
        for file in 0..6u8 {
            let square = Square::from_coords(file, rank).expect("coordinates below 6");
            let cx = MARGIN + u32::from(file) * CELL + CELL / 2;
            let cy = MARGIN + u32::from(5 - rank) * CELL + CELL / 2;
            let fill = match position.stone_at(square) {
                Some(Color::Black) => "#111",
                Some(Color::White) => "#f4f4f4",
                None => "#7a3324",
            };
            let _ = writeln!(
                svg,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{fill}\" stroke=\"#222\" stroke-width=\"1\"/>",
                CELL * 2 / 5
            );
        }
    }
    for index in 0..6u32 {
        let file = char::from(b'a' + index as u8);
        let along = MARGIN + index * CELL + CELL / 2;
        let _ = writeln!(
            svg,
            "<text x=\"{along}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">{file}</text>",
            size - 6
        );
        let _ = writeln!(
            svg,
            "<text x=\"10\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
            MARGIN + (5 - index) * CELL + CELL / 2 + 5,
            index + 1
        );
    }
    svg.push_str("</svg>");
    svg
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
            svg_board(&puzzle.position),
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
