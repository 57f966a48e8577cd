//! The printable HTML form of an opening study: SVG boards of the key positions, bar charts of
//! the moves' win rates with their 95% intervals, white's defences with black's plan, and the
//! self-play results.

use std::fmt::Write;

use crate::book::{BookRow, BookTables, win_rate, win_rate_interval};
use crate::study::{StudyReport, separable_from_best};
use crate::svg::{RateBar, board, escape, rate_bars};

/// Most moves charted per key position.
const CHARTED_MOVES: usize = 12;

const STYLE: &str = "body { font-family: Georgia, serif; margin: 2em; max-width: 60em; }\n\
    .key { display: flex; gap: 2em; align-items: flex-start; break-inside: avoid; margin: 1em 0; }\n\
    table { border-collapse: collapse; } td, th { padding: 0.2em 0.6em; text-align: left; }\n\
    .close { color: #555; font-style: italic; }\n\
    @media print { .key { break-inside: avoid; } h2 { break-after: avoid; } }\n";

/// The study as a self-contained HTML page.
#[must_use]
pub fn study_html(report: &StudyReport) -> String {
    let b = &report.build;
    let title = format!("{} — pentagrid opening study", report.opening.title());
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(report.opening.title())
    );
    let _ = writeln!(
        out,
        "<p class=\"summary\">{} start positions; {} positions analysed ({} solved exactly) with {} playouts, to depth {}. \
         Win rates are for the player making the move, (wins + draws/2) / playouts, with 95% intervals; \
         a move whose interval overlaps the best move's cannot be told apart from it on these samples.</p>",
        b.roots.len(),
        b.positions,
        b.solved,
        b.playouts,
        b.depth
    );
    for (index, table) in report.key_positions.iter().enumerate() {
        key_position(&mut out, index + 1, table);
    }
    defences(&mut out, report);
    let _ = writeln!(
        out,
        "<h2>Self-play</h2>\n<p class=\"games\">{} games from the start positions: black won {}, white {}, drawn {}. \
         {} of black's wins ended with five on the line the opening aims at.</p>",
        report.games, report.black_wins, report.white_wins, report.draws, report.aim_completed
    );
    out.push_str("</body>\n</html>\n");
    out
}

fn key_position(out: &mut String, number: usize, table: &BookTables) {
    let picture = board(&table.position, None);
    let rows: Vec<&BookRow> = table.playouts.iter().filter(|r| r.games > 0).collect();
    let rates: Vec<(f64, (f64, f64))> = rows
        .iter()
        .map(|row| (win_rate(row), win_rate_interval(row).unwrap_or((0.0, 1.0))))
        .collect();
    let bars: Vec<RateBar> = rows
        .iter()
        .zip(&rates)
        .zip(separable_from_best(&rates))
        .take(CHARTED_MOVES)
        .map(|((row, &(rate, interval)), separable)| RateBar {
            label: row.mv.to_string(),
            rate,
            interval,
            samples: row.games,
            exact: row.proven,
            separable,
        })
        .collect();
    let chart = if bars.is_empty() {
        "<p>No analyses stored.</p>".to_owned()
    } else {
        rate_bars(&bars)
    };
    let _ = writeln!(
        out,
        "<h2>Key position {number}</h2>\n<div class=\"key\" id=\"key{number}\">\n{picture}\n<div>\n<p><code>{}</code></p>\n{chart}\n</div>\n</div>",
        escape(&table.position.to_string())
    );
}

fn defences(out: &mut String, report: &StudyReport) {
    if report.defences.is_empty() {
        return;
    }
    out.push_str(
        "<h2>White's strongest defences</h2>\n<p>At key position 1, with black's best plan after each from the book.</p>\n\
         <table class=\"defences\">\n<tr><th>defence</th><th>white scores</th><th>95% interval</th><th>playouts</th><th>exact</th><th>black's plan</th></tr>\n",
    );
    for defence in &report.defences {
        let class = if defence.separable {
            ""
        } else {
            " class=\"close\""
        };
        let _ = writeln!(
            out,
            "<tr{class}><td>{}</td><td>{:.1}%</td><td>{:.1}–{:.1}%</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&defence.mv),
            100.0 * defence.win_rate,
            100.0 * defence.interval.0,
            100.0 * defence.interval.1,
            defence.playouts,
            defence.exact.map(|v| v.to_string()).unwrap_or_default(),
            escape(&defence.line.join(" "))
        );
    }
    out.push_str("</table>\n");
}
