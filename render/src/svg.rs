//! SVG pictures for printed reports: Pentago boards (with a move marked when asked) and bar
//! charts of win rates with their 95% intervals.

use std::fmt::Write;

use pentago::{Color, Direction, Move, Position, Square, Value};

const CELL: u32 = 40;
const MARGIN: u32 = 24;

/// Escapes text for HTML and SVG.
#[must_use]
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The board as SVG: quadrant borders, stones, file and rank labels. With `mark`, the move's
/// square is ringed (class `placed`) and its quadrant outlined with the turn's direction shown
/// (class `turned`); the stones are drawn as in `position`, before the move.
#[must_use]
pub fn board(position: &Position, mark: Option<Move>) -> String {
    let size = 6 * CELL + 2 * MARGIN;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\">\n"
    );
    let turned = mark.map(|mv| mv.twist().quadrant().index());
    for quadrant in 0..4u32 {
        let (x, y) = quadrant_corner(quadrant);
        let (stroke, width, class) = if turned == Some(quadrant as usize) {
            ("#f2c14e", 5, " class=\"turned\"")
        } else {
            ("#3b1d14", 2, "")
        };
        let _ = writeln!(
            svg,
            "<rect{class} x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{w}\" rx=\"6\" fill=\"#b5523b\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
            w = 3 * CELL
        );
    }
    for rank in 0..6u8 {
        for file in 0..6u8 {
            let square = Square::from_coords(file, rank).expect("coordinates below 6");
            let (cx, cy) = centre(square);
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
    if let Some(mv) = mark {
        mark_move(&mut svg, position, mv);
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

/// Top-left corner of quadrant `q` (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
fn quadrant_corner(q: u32) -> (u32, u32) {
    (MARGIN + (q % 2) * 3 * CELL, MARGIN + (q / 2) * 3 * CELL)
}

fn centre(square: Square) -> (u32, u32) {
    let (file, rank) = (u32::from(square.file()), u32::from(square.rank()));
    (
        MARGIN + file * CELL + CELL / 2,
        MARGIN + (5 - rank) * CELL + CELL / 2,
    )
}

/// The placed stone (in the mover's colour, ringed) and the turn's arrow on its quadrant.
fn mark_move(svg: &mut String, position: &Position, mv: Move) {
    let (cx, cy) = centre(mv.square());
    let fill = match position.side_to_move() {
        Color::Black => "#111",
        Color::White => "#f4f4f4",
    };
    let _ = writeln!(
        svg,
        "<circle class=\"placed\" cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{fill}\" stroke=\"#f2c14e\" stroke-width=\"4\"/>",
        CELL * 2 / 5
    );
    let (x, y) = quadrant_corner(mv.twist().quadrant().index() as u32);
    let arrow = match mv.twist().direction() {
        Direction::Right => "\u{21bb}",
        Direction::Left => "\u{21ba}",
    };
    let _ = writeln!(
        svg,
        "<text class=\"turn\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"44\" fill=\"#f2c14e\" opacity=\"0.85\">{arrow}</text>",
        x + 3 * CELL / 2,
        y + 3 * CELL / 2 + 15
    );
}

/// One bar of a win-rate chart.
#[derive(Clone, Debug)]
pub struct RateBar {
    /// The label (a move).
    pub label: String,
    /// The win rate, 0 to 1.
    pub rate: f64,
    /// Its 95% interval.
    pub interval: (f64, f64),
    /// The sample size.
    pub samples: u64,
    /// The exact value when solved.
    pub exact: Option<Value>,
    /// Whether the samples set it apart from the best bar (drawn paler when not).
    pub separable: bool,
}

/// A horizontal bar chart: one bar per row with its interval as a whisker, the sample size and
/// the exact value when known. `class="rates"`, one `<g class="bar">` per row.
#[must_use]
pub fn rate_bars(bars: &[RateBar]) -> String {
    const LABEL: u32 = 70;
    const WIDTH: u32 = 300;
    const ROW: u32 = 24;
    let height = ROW * bars.len() as u32 + 24;
    let total = LABEL + WIDTH + 190;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"rates\" width=\"{total}\" height=\"{height}\" viewBox=\"0 0 {total} {height}\">\n"
    );
    let x_of = |rate: f64| f64::from(LABEL) + rate.clamp(0.0, 1.0) * f64::from(WIDTH);
    let _ = writeln!(
        svg,
        "<line x1=\"{half}\" y1=\"0\" x2=\"{half}\" y2=\"{height}\" stroke=\"#999\" stroke-dasharray=\"3 3\"/>",
        half = x_of(0.5)
    );
    for (row, bar) in bars.iter().enumerate() {
        let y = ROW * row as u32 + 4;
        let colour = if bar.separable { "#9bb7d4" } else { "#2f6da3" };
        let exact = bar
            .exact
            .map(|v| format!(", exact {v}"))
            .unwrap_or_default();
        let _ = writeln!(
            svg,
            "<g class=\"bar\"><text x=\"0\" y=\"{ty}\" font-size=\"13\">{label}</text>\
             <rect x=\"{LABEL}\" y=\"{y}\" width=\"{w:.1}\" height=\"16\" fill=\"{colour}\"/>\
             <line class=\"interval\" x1=\"{lo:.1}\" y1=\"{my}\" x2=\"{hi:.1}\" y2=\"{my}\" stroke=\"#000\" stroke-width=\"2\"/>\
             <text x=\"{tx}\" y=\"{ty}\" font-size=\"12\">{pct:.1}% [{l:.1}, {h:.1}] n={n}{exact}</text></g>",
            label = escape(&bar.label),
            w = x_of(bar.rate) - f64::from(LABEL),
            lo = x_of(bar.interval.0),
            hi = x_of(bar.interval.1),
            my = y + 8,
            ty = y + 13,
            tx = LABEL + WIDTH + 8,
            pct = 100.0 * bar.rate,
            l = 100.0 * bar.interval.0,
            h = 100.0 * bar.interval.1,
            n = bar.samples,
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_board_rings_the_square_and_outlines_the_quadrant() {
        let mv: Move = "c4-1R".parse().unwrap();
        let svg = board(&Position::START, Some(mv));
        assert_eq!(svg.matches("<circle").count(), 37);
        assert_eq!(svg.matches("class=\"placed\"").count(), 1);
        assert_eq!(svg.matches("class=\"turned\"").count(), 1);
        assert!(svg.contains('\u{21bb}'));
        // c4 is the third file, third rank from the top.
        assert!(
            svg.contains("class=\"placed\" cx=\"124\" cy=\"124\""),
            "{svg}"
        );
        assert_eq!(board(&Position::START, None).matches("<circle").count(), 36);
    }

    #[test]
    fn bars_show_rate_interval_and_sample_size() {
        let svg = rate_bars(&[RateBar {
            label: "b5-1R".into(),
            rate: 0.625,
            interval: (0.5, 0.75),
            samples: 64,
            exact: Some(Value::Win),
            separable: false,
        }]);
        assert_eq!(svg.matches("class=\"bar\"").count(), 1);
        assert!(svg.contains("62.5% [50.0, 75.0] n=64, exact win"), "{svg}");
        // The whisker spans the interval: from 50% to 75% of the 300-pixel axis.
        assert!(
            svg.contains("x1=\"220.0\"") && svg.contains("x2=\"295.0\""),
            "{svg}"
        );
    }
}
