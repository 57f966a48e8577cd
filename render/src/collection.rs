//! The printable HTML form of a puzzle collection: a summary, one chapter per mate length with
//! an SVG board per puzzle, and the solutions at the back with a diagram of each first move
//! (the placed stone ringed, the turned quadrant outlined) and the main line. Prints on A4 or
//! Letter: chapters and the solutions start on a new page, and no puzzle is split.

use std::fmt::Write;

use pentago::Theme;

use crate::svg::{board, escape};
use pentagrid_client::collection::{Collection, Summary, description, main_line, task};

const STYLE: &str = "body { font-family: Georgia, serif; margin: 2em; max-width: 62em; }\n\
    .puzzle, .solution { display: inline-block; width: 300px; margin: 0.8em; vertical-align: top; break-inside: avoid; }\n\
    .puzzle svg, .solution svg { width: 100%; height: auto; }\n\
    .themes { color: #555; font-size: 0.9em; }\n\
    table.summary { border-collapse: collapse; margin: 1em 0; }\n\
    table.summary td, table.summary th { padding: 0.15em 0.8em; text-align: left; border-bottom: 1px solid #ddd; }\n\
    dl.themes dt { font-weight: bold; }\n\
    @page { margin: 14mm; }\n\
    @media print {\n\
      body { margin: 0; max-width: none; }\n\
      .chapter, .solutions { break-before: page; }\n\
      h2, h3 { break-after: avoid; }\n\
      .puzzle, .solution { width: 46%; margin: 0.6em 1%; }\n\
    }\n";

/// The collection as one self-contained HTML page.
#[must_use]
pub fn collection_html(collection: &Collection) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Pentago checkmate puzzles</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <h1>Pentago checkmate puzzles</h1>\n\
         <p>Every attacking move must threaten an immediate win; the first move of each solution is the only winning move.</p>\n"
    );
    summary(&mut out, &collection.summary);
    for chapter in &collection.chapters {
        let _ = writeln!(
            out,
            "<section class=\"chapter\" id=\"mate-in-{}\">\n<h2>{}</h2>",
            chapter.mate_in,
            escape(&chapter.title())
        );
        for (number, puzzle) in &chapter.puzzles {
            let _ = writeln!(
                out,
                "<div class=\"puzzle\" id=\"p{number}\">\n<h3>No. {number}</h3>\n<p><strong>{}</strong><br/><span class=\"themes\">{}</span></p>\n{}\n</div>",
                escape(&task(puzzle)),
                escape(&description(puzzle)),
                board(&puzzle.position, None),
            );
        }
        out.push_str("</section>\n");
    }
    out.push_str("<section class=\"solutions\">\n<h2>Solutions</h2>\n");
    for (number, puzzle) in collection.numbered() {
        let _ = writeln!(
            out,
            "<div class=\"solution\" id=\"s{number}\">\n<h3>No. {number}: {}!</h3>\n{}\n<p>Main line: {}<br/><span class=\"themes\">{} defender reply groups in the proof</span></p>\n</div>",
            puzzle.first_move,
            board(&puzzle.position, Some(puzzle.first_move)),
            escape(&main_line(puzzle)),
            puzzle.reply_groups,
        );
    }
    out.push_str("</section>\n</body>\n</html>\n");
    out
}

fn summary(out: &mut String, summary: &Summary) {
    let _ = writeln!(
        out,
        "<section class=\"overview\">\n<p>{} puzzles, easiest first in each chapter.</p>\n<table class=\"summary\">",
        summary.total
    );
    for (mate_in, n) in &summary.by_length {
        let _ = writeln!(
            out,
            "<tr><th><a href=\"#mate-in-{mate_in}\">Mate in {mate_in}</a></th><td>{n}</td></tr>"
        );
    }
    for (label, n) in &summary.by_label {
        let _ = writeln!(out, "<tr><th>{label}</th><td>{n}</td></tr>");
    }
    if let Some(s) = summary.difficulty {
        let _ = writeln!(
            out,
            "<tr><th>difficulty</th><td>{:.1} to {:.1}, median {:.1}</td></tr>",
            s.min, s.max, s.median
        );
    }
    out.push_str("</table>\n");
    if !summary.by_theme.is_empty() {
        out.push_str("<dl class=\"themes\">\n");
        for (theme, n) in &summary.by_theme {
            let _ = writeln!(
                out,
                "<dt>{theme} ({n})</dt><dd>{}</dd>",
                escape(theme_definition(*theme))
            );
        }
        out.push_str("</dl>\n");
    }
    out.push_str("</section>\n");
}

/// What a theme means, for readers (the engine's `themes` module has the exact definitions).
fn theme_definition(theme: Theme) -> &'static str {
    match theme {
        Theme::QuietFirstMove => {
            "the first move makes no open four: its threat needs a twist to line up"
        }
        Theme::DoubleThreat => "the first move makes two open fours that no single stone blocks",
        Theme::CounterFive => {
            "a defence threatens a five of the defender's own, which the attacker must meet while checking"
        }
        Theme::LongForcedLine => "a mate in 4 or more",
        Theme::TwistFinale => "the last move makes five only with its twist",
        Theme::PlacementFinale => "the last move makes five by its placement alone",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{MateSearch, Position, Puzzle};
    use pentagrid_client::collection::Selection;

    /// A puzzle of `mate_in` 1 or 2 moves with this difficulty and source.
    fn puzzle(mate_in: u32, difficulty: f64, source: &str) -> Puzzle {
        let text = if mate_in == 1 {
            "....../....../....../....../oooo../xxxx.."
        } else {
            "oox.o./x.xoxo/.xxooo/ox.x.x/o...../xo.oxx"
        };
        let position: Position = text.parse().expect("a position");
        let proof = MateSearch::new().find(&position, 2).expect("a mate");
        assert_eq!(proof.mate_in, mate_in);
        Puzzle {
            reply_groups: 1,
            uct_playouts: Some(100),
            difficulty,
            source: source.to_owned(),
            ..Puzzle::from_proof(proof)
        }
    }

    /// Every opened element is closed in order (void elements aside): the page parses as the
    /// tree it was written as.
    fn assert_balanced(html: &str) {
        const VOID: [&str; 4] = ["meta", "br", "!DOCTYPE", "rect"];
        let mut open: Vec<String> = Vec::new();
        for piece in html.split('<').skip(1) {
            let tag = piece.split(['>', ' ', '\n']).next().unwrap_or_default();
            let self_closing = piece.split('>').next().is_some_and(|t| t.ends_with('/'));
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop().as_deref(), Some(name), "unbalanced </{name}>");
            } else if !self_closing && !VOID.contains(&tag) {
                open.push(tag.to_owned());
            }
        }
        assert!(open.is_empty(), "unclosed: {open:?}");
    }

    #[test]
    fn the_page_has_a_summary_ordered_chapters_solutions_and_print_css() {
        let collection = Collection::new(
            vec![
                puzzle(2, 30.0, "game 1 ply 10"),
                puzzle(1, 4.0, "random 7 ply 20"),
                puzzle(2, 12.0, ""),
            ],
            &Selection::default(),
        );
        let html = collection_html(&collection);
        assert_balanced(&html);
        let one = html.find("id=\"mate-in-1\"").expect("chapter 1");
        let two = html.find("id=\"mate-in-2\"").expect("chapter 2");
        let solutions = html.find("class=\"solutions\"").expect("solutions");
        assert!(html.find("class=\"overview\"").unwrap() < one && one < two && two < solutions);
        assert_eq!(html.matches("class=\"solution\"").count(), 3);
        // Each solution's diagram marks the first move.
        assert_eq!(html[solutions..].matches("class=\"placed\"").count(), 3);
        assert!(html.contains("@media print") && html.contains("break-before: page"));
        assert!(html.contains("from self-play game 1, move 11"));
        assert!(html.contains("double-threat (2)"), "{html}");
    }
}
