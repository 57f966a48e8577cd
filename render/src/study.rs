//! The printable HTML form of an opening study: SVG boards of the key positions, bar charts of
//! the moves' win rates with their 95% intervals, each key position's exact value with its
//! source (and, at the first, the truth beside the statistics where they disagree), the
//! strongest moves there with the plan after each, and the self-play results.

use std::fmt::Write;

use crate::svg::{RateBar, board, escape, rate_bars};
use pentagrid_client::book::{BookRow, BookTables, win_rate, win_rate_interval};
use pentagrid_client::study::{KeyValue, StudyReport, separable_from_best};

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
        let value = report
            .key_values
            .get(index)
            .copied()
            .unwrap_or(KeyValue::Unknown);
        key_position(&mut out, index + 1, table, value);
        if index == 0
            && let Some(truth) = &report.truth
        {
            let class = if truth.disagrees() {
                "truth disagree"
            } else {
                "truth"
            };
            let _ = writeln!(
                out,
                "<p class=\"{class}\">Truth beside the statistics: {}.</p>",
                escape(&truth.note())
            );
        }
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

fn key_position(out: &mut String, number: usize, table: &BookTables, value: KeyValue) {
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
        "<h2>Key position {number}</h2>\n<div class=\"key\" id=\"key{number}\">\n{picture}\n<div>\n<p><code>{}</code></p>\n{}\n{chart}\n</div>\n</div>",
        escape(&table.position.to_string()),
        exact_value(table, value)
    );
}

/// The key position's exact value, and its proven line where the book proves it.
fn exact_value(table: &BookTables, value: KeyValue) -> String {
    let mut out = format!(
        "<p class=\"exact\">Exact value: {}</p>",
        escape(&value.to_string())
    );
    if matches!(value, KeyValue::Proven(_)) && !table.proven_line.is_empty() {
        let line: Vec<String> = table.proven_line.iter().map(ToString::to_string).collect();
        let _ = write!(
            out,
            "\n<p class=\"proven-line\">Proven line: <code>{}</code></p>",
            escape(&line.join(" "))
        );
    }
    out
}

fn defences(out: &mut String, report: &StudyReport) {
    let Some(main) = report.key_positions.first() else {
        return;
    };
    if report.defences.is_empty() {
        return;
    }
    let mover = main.position.side_to_move();
    let _ = writeln!(
        out,
        "<h2>{mover}'s strongest moves</h2>\n<p>At key position 1: the moves that hold the exact value first, then by playouts; the book's best plan after each.</p>\n\
         <table class=\"defences\">\n<tr><th>move</th><th>exact for {mover}</th><th>{mover} scores</th><th>95% interval</th><th>playouts</th><th>plan after it</th></tr>",
    );
    for defence in &report.defences {
        let class = if defence.separable {
            ""
        } else {
            " class=\"close\""
        };
        let _ = writeln!(
            out,
            "<tr{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&defence.mv),
            defence
                .exact
                .map_or_else(|| "unknown".to_owned(), |v| v.to_string()),
            if defence.playouts == 0 {
                "–".to_owned()
            } else {
                format!("{:.1}%", 100.0 * defence.win_rate)
            },
            if defence.playouts == 0 {
                "–".to_owned()
            } else {
                format!(
                    "{:.1}–{:.1}%",
                    100.0 * defence.interval.0,
                    100.0 * defence.interval.1
                )
            },
            defence.playouts,
            escape(&defence.line.join(" "))
        );
    }
    out.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Opening, Position, Status, Value};
    use pentagrid_client::study::BuildSummary;

    fn tables(position: Position, proven: Option<Value>, line: Vec<pentago::Move>) -> BookTables {
        BookTables {
            position,
            canonical: position.canonical().position,
            playouts: Vec::new(),
            games: Vec::new(),
            proven,
            proven_by: None,
            proven_line: line,
        }
    }

    #[test]
    fn the_page_shows_the_books_proven_value_and_line_and_unknown_elsewhere() {
        // The side to move completes a five at once.
        let won: Position = "oo.oo./....../....../....../....../.xxxx.".parse().unwrap();
        let mover = won.side_to_move();
        let winning = won
            .legal_moves()
            .iter()
            .copied()
            .find(|&mv| won.play(mv).unwrap().status() == Status::Won(mover))
            .unwrap();
        let open = Opening::MonicasFive.start_positions()[0];
        let report = StudyReport {
            opening: Opening::MonicasFive,
            build: BuildSummary {
                id: 1,
                roots: vec![open],
                depth: 1,
                positions: 2,
                solved: 0,
                playouts: 10,
                deep_started: 0,
                deep_finished: 0,
            },
            key_positions: vec![
                tables(won, Some(Value::Win), vec![winning]),
                tables(open, None, Vec::new()),
            ],
            key_values: vec![KeyValue::Proven(Value::Win), KeyValue::Unknown],
            truth: None,
            defences: Vec::new(),
            games: 0,
            black_wins: 0,
            aim_completed: 0,
            white_wins: 0,
            draws: 0,
        };
        let page = study_html(&report);
        let key1 = &page[page.find("id=\"key1\"").unwrap()..page.find("id=\"key2\"").unwrap()];
        assert!(
            key1.contains("Exact value: win for the side to move (proven in the book)"),
            "{key1}"
        );
        assert!(
            key1.contains(&format!("Proven line: <code>{winning}</code>")),
            "{key1}"
        );
        let key2 = &page[page.find("id=\"key2\"").unwrap()..];
        assert!(key2.contains("Exact value: unknown"), "{key2}");
        assert!(!key2.contains("Proven line"), "{key2}");

        // The truth beside the statistics, under key position 1, flagged where they disagree.
        let mut report = report;
        let top = open.legal_moves()[0];
        report.truth = Some(pentagrid_client::study::KeyTruth {
            mover: open.side_to_move(),
            value: Value::Loss,
            moves: open.legal_moves().len(),
            holding: open.legal_moves().iter().copied().collect(),
            top: Some((top, 0.43)),
        });
        let page = study_html(&report);
        let key1 = &page[page.find("id=\"key1\"").unwrap()..page.find("id=\"key2\"").unwrap()];
        assert!(
            key1.contains("<p class=\"truth disagree\">Truth beside the statistics: statistics and truth disagree: lost for white whatever it plays; the playouts give white 43%"),
            "{key1}"
        );
    }
}
