//! Puzzle collections for publishing: the stored puzzles a selection admits, sorted by
//! difficulty and grouped into chapters by mate length ("mate in 2", "mate in 3", …), with a
//! collection-level summary; rendered as a text problem book or as JSON lines (the printable
//! HTML page is in `collection_html`).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::error::{ClientError, Result};
use crate::parameter::{Parameter, ParameterError, Problem};
use crate::puzzles::PuzzleFilter;
use pentago::{Color, DIFFICULTY_LABELS, Puzzle, Theme, difficulty_label};

/// Which stored puzzles go into a collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    /// Only mates at least this long (0: no bound).
    pub min_moves: u32,
    /// Only mates at most this long (0: no bound).
    pub max_moves: u32,
    /// Only puzzles at least this difficult (0: no bound).
    pub min_difficulty: f64,
    /// Only puzzles at most this difficult (0: no bound).
    pub max_difficulty: f64,
    /// Only puzzles with one of these difficulty labels (empty: any).
    pub labels: Vec<String>,
    /// Only puzzles with every one of these themes (empty: any).
    pub themes: Vec<Theme>,
    /// At most this many puzzles, spread evenly over the selection's difficulties (0: all).
    pub count: usize,
}

/// A range given upside down: `low` above `high`.
fn above(low: (Parameter, String), high: (Parameter, String)) -> ClientError {
    let problem = Problem::Above {
        value: low.1,
        other: high.0,
        other_value: high.1,
    };
    ParameterError::new(low.0, problem).into()
}

impl Selection {
    /// Checks the bounds and the labels.
    pub fn validate(&self) -> Result<()> {
        if self.max_moves != 0 && self.min_moves > self.max_moves {
            return Err(above(
                (Parameter::MinMoves, self.min_moves.to_string()),
                (Parameter::MaxMoves, self.max_moves.to_string()),
            ));
        }
        if self.min_difficulty < 0.0 || self.max_difficulty < 0.0 {
            return Err(ClientError::Invalid(
                "difficulty bounds must not be negative".into(),
            ));
        }
        if self.max_difficulty != 0.0 && self.min_difficulty > self.max_difficulty {
            return Err(above(
                (Parameter::MinDifficulty, self.min_difficulty.to_string()),
                (Parameter::MaxDifficulty, self.max_difficulty.to_string()),
            ));
        }
        if let Some(label) = self
            .labels
            .iter()
            .find(|l| !DIFFICULTY_LABELS.contains(&l.as_str()))
        {
            return Err(ClientError::Invalid(format!(
                "unknown difficulty {label:?}: expected one of {}",
                DIFFICULTY_LABELS.join(", ")
            )));
        }
        Ok(())
    }

    /// The coordinator-side part of the selection (lengths and difficulty bounds); labels,
    /// themes and the count are applied by [`Collection::new`].
    #[must_use]
    pub fn filter(&self) -> PuzzleFilter {
        PuzzleFilter {
            min_moves: self.min_moves,
            max_moves: self.max_moves,
            min_difficulty: self.min_difficulty,
            max_difficulty: self.max_difficulty,
            ..PuzzleFilter::default()
        }
    }

    fn admits(&self, puzzle: &Puzzle) -> bool {
        let within =
            |low: f64, high: f64, value: f64| value >= low && (high == 0.0 || value <= high);
        within(
            f64::from(self.min_moves),
            f64::from(self.max_moves),
            f64::from(puzzle.mate_in),
        ) && within(self.min_difficulty, self.max_difficulty, puzzle.difficulty)
            && (self.labels.is_empty()
                || self
                    .labels
                    .iter()
                    .any(|l| l == difficulty_label(puzzle.difficulty)))
            && self.themes.iter().all(|t| puzzle.themes.contains(t))
    }
}

/// One chapter: the mates of one length, easiest first.
#[derive(Clone, Debug)]
pub struct Chapter {
    /// The mate length of every puzzle in the chapter.
    pub mate_in: u32,
    /// Its puzzles with their numbers in the collection (numbers run on across chapters).
    pub puzzles: Vec<(usize, Puzzle)>,
}

impl Chapter {
    /// The chapter's heading, e.g. "Mate in 2".
    #[must_use]
    pub fn title(&self) -> String {
        format!("Mate in {}", self.mate_in)
    }
}

/// The smallest, middle and largest difficulty of a collection.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Spread {
    /// The easiest puzzle's difficulty.
    pub min: f64,
    /// The median difficulty.
    pub median: f64,
    /// The hardest puzzle's difficulty.
    pub max: f64,
}

/// What a collection holds, for its first page.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Puzzles in the collection.
    pub total: usize,
    /// Puzzles per mate length, shortest first.
    pub by_length: Vec<(u32, usize)>,
    /// Puzzles per difficulty label, in [`pentago::DIFFICULTY_LABELS`] order (labels with none left out).
    pub by_label: Vec<(&'static str, usize)>,
    /// Puzzles per theme, in [`Theme::ALL`] order (themes with none left out).
    pub by_theme: Vec<(Theme, usize)>,
    /// The difficulty spread (`None` for an empty collection).
    pub difficulty: Option<Spread>,
}

/// A collection ready to print: chapters by mate length, shortest first.
#[derive(Clone, Debug)]
pub struct Collection {
    /// The chapters.
    pub chapters: Vec<Chapter>,
    /// The summary.
    pub summary: Summary,
}

impl Collection {
    /// The puzzles `selection` admits, at most `selection.count` of them spread evenly over
    /// their difficulties, grouped into chapters and numbered.
    #[must_use]
    pub fn new(puzzles: Vec<Puzzle>, selection: &Selection) -> Collection {
        let mut chosen: Vec<Puzzle> = puzzles
            .into_iter()
            .filter(|p| selection.admits(p))
            .collect();
        chosen.sort_by(|a, b| {
            a.difficulty
                .total_cmp(&b.difficulty)
                .then_with(|| a.position.key().bits().cmp(&b.position.key().bits()))
        });
        if selection.count > 0 && chosen.len() > selection.count {
            let len = chosen.len();
            let keep: Vec<usize> = (0..selection.count)
                .map(|i| i * len / selection.count)
                .collect();
            chosen = keep.into_iter().map(|i| chosen[i].clone()).collect();
        }
        let summary = summarize(&chosen);
        let mut by_length: BTreeMap<u32, Vec<Puzzle>> = BTreeMap::new();
        for puzzle in chosen {
            by_length.entry(puzzle.mate_in).or_default().push(puzzle);
        }
        let mut number = 0;
        let chapters = by_length
            .into_iter()
            .map(|(mate_in, puzzles)| Chapter {
                mate_in,
                puzzles: puzzles
                    .into_iter()
                    .map(|p| {
                        number += 1;
                        (number, p)
                    })
                    .collect(),
            })
            .collect();
        Collection { chapters, summary }
    }

    /// Every puzzle with its number, in print order.
    pub fn numbered(&self) -> impl Iterator<Item = &(usize, Puzzle)> {
        self.chapters.iter().flat_map(|c| c.puzzles.iter())
    }
}

fn summarize(puzzles: &[Puzzle]) -> Summary {
    let mut lengths: BTreeMap<u32, usize> = BTreeMap::new();
    for p in puzzles {
        *lengths.entry(p.mate_in).or_default() += 1;
    }
    let count = |keep: &dyn Fn(&Puzzle) -> bool| puzzles.iter().filter(|p| keep(p)).count();
    let by_label = DIFFICULTY_LABELS
        .into_iter()
        .map(|label| (label, count(&|p| difficulty_label(p.difficulty) == label)))
        .filter(|&(_, n)| n > 0)
        .collect();
    let by_theme = Theme::ALL
        .into_iter()
        .map(|theme| (theme, count(&|p| p.themes.contains(&theme))))
        .filter(|&(_, n)| n > 0)
        .collect();
    let mut difficulties: Vec<f64> = puzzles.iter().map(|p| p.difficulty).collect();
    difficulties.sort_by(f64::total_cmp);
    let difficulty = (!difficulties.is_empty()).then(|| Spread {
        min: difficulties[0],
        median: difficulties[difficulties.len() / 2],
        max: difficulties[difficulties.len() - 1],
    });
    Summary {
        total: puzzles.len(),
        by_length: lengths.into_iter().collect(),
        by_label,
        by_theme,
        difficulty,
    }
}

/// Where a puzzle came from, for people: `game 17 ply 22` reads "self-play game 17, move 23"
/// (the puzzle's first move is that game's 23rd), `random 5 ply 20` "random game 5, move 21";
/// a quiet continuation `game 17 ply 22 instead c4-1R` reads "self-play game 17, with c4-1R as
/// move 23", and `book POSITION [instead MOVE]` "the book's position POSITION[, then MOVE]".
#[must_use]
pub fn source_for_people(source: &str) -> String {
    let (origin, instead) = match source.split_once(" instead ") {
        Some((origin, mv)) => (origin, Some(mv)),
        None => (source, None),
    };
    let mut words = origin.split_whitespace();
    let described = match (words.next(), words.next(), words.next(), words.next()) {
        (Some(kind @ ("game" | "random")), Some(id), Some("ply"), Some(ply)) => {
            ply.parse::<u32>().ok().map(|ply| {
                let kind = if kind == "game" {
                    "self-play"
                } else {
                    "random"
                };
                match instead {
                    None => format!("{kind} game {id}, move {}", ply + 1),
                    Some(mv) => format!("{kind} game {id}, with {mv} as move {}", ply + 1),
                }
            })
        }
        (Some("book"), Some(position), None, None) => Some(match instead {
            None => format!("the book's position {position}"),
            Some(mv) => format!("the book's position {position}, then {mv}"),
        }),
        _ => None,
    };
    described.unwrap_or_else(|| source.to_owned())
}

/// "Black to play and win in 3".
#[must_use]
pub fn task(puzzle: &Puzzle) -> String {
    let side = match puzzle.side_to_move {
        Color::Black => "Black",
        Color::White => "White",
    };
    format!("{side} to play and win in {}", puzzle.mate_in)
}

/// The main line of the solution, moves separated by spaces.
#[must_use]
pub fn main_line(puzzle: &Puzzle) -> String {
    let moves: Vec<String> = puzzle
        .proof
        .main_line()
        .iter()
        .map(ToString::to_string)
        .collect();
    moves.join(" ")
}

/// "difficulty 23.4 (medium); quiet-first-move, twist-finale; from self-play game 17, move 23".
#[must_use]
pub fn description(puzzle: &Puzzle) -> String {
    let mut out = format!(
        "difficulty {:.1} ({})",
        puzzle.difficulty,
        difficulty_label(puzzle.difficulty)
    );
    if !puzzle.themes.is_empty() {
        let themes: Vec<&str> = puzzle.themes.iter().map(|t| t.name()).collect();
        let _ = write!(out, "; {}", themes.join(", "));
    }
    if !puzzle.source.is_empty() {
        let _ = write!(out, "; from {}", source_for_people(&puzzle.source));
    }
    out
}

/// One line per count: "mate in 2: 7, mate in 3: 2".
#[must_use]
pub fn summary_line(summary: &Summary) -> String {
    let lengths: Vec<String> = summary
        .by_length
        .iter()
        .map(|(m, n)| format!("mate in {m}: {n}"))
        .collect();
    let labels: Vec<String> = summary
        .by_label
        .iter()
        .map(|(l, n)| format!("{l}: {n}"))
        .collect();
    let themes: Vec<String> = summary
        .by_theme
        .iter()
        .map(|(t, n)| format!("{t}: {n}"))
        .collect();
    let spread = summary.difficulty.map_or(String::new(), |s| {
        format!(
            "difficulty {:.1} to {:.1} (median {:.1}); ",
            s.min, s.max, s.median
        )
    });
    format!(
        "{} puzzles. {}. {spread}{}. Themes: {}.",
        summary.total,
        lengths.join(", "),
        labels.join(", "),
        if themes.is_empty() {
            "none".to_owned()
        } else {
            themes.join(", ")
        }
    )
}

/// A text problem book: the summary, chapters of diagrams ([`pentago::Position::diagram`]),
/// then the solutions at the back.
#[must_use]
pub fn text(collection: &Collection) -> String {
    let mut out = format!(
        "PENTAGRID CHECKMATE PUZZLES\n{}\nEvery attacking move must threaten an immediate win; the first move \
         of each solution is the only winning move.\n",
        summary_line(&collection.summary)
    );
    for chapter in &collection.chapters {
        let _ = write!(out, "\n\n{}\n", chapter.title().to_uppercase());
        for (number, puzzle) in &chapter.puzzles {
            let _ = write!(
                out,
                "\nNo. {number}   {}\n({})\n\n{}\n",
                task(puzzle),
                description(puzzle),
                puzzle.position.diagram()
            );
        }
    }
    out.push_str("\n\nSOLUTIONS\n");
    for (number, puzzle) in collection.numbered() {
        let _ = writeln!(
            out,
            "\nNo. {number}   {}!   main line: {}   ({} defender reply groups in the proof)",
            puzzle.first_move,
            main_line(puzzle),
            puzzle.reply_groups
        );
    }
    out
}

/// One puzzle per line in the stable JSON form (proof tree and themes included), in print
/// order.
#[must_use]
pub fn jsonl(collection: &Collection) -> String {
    collection
        .numbered()
        .map(|(_, p)| serde_json::to_string(p).expect("puzzles serialize") + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{MateSearch, Move, Position, ProofTree};

    /// A real mate (from the engine's theme examples) of length 1 or 2, with a chosen
    /// difficulty and source.
    fn puzzle(mate_in: u32, difficulty: f64, source: &str) -> Puzzle {
        let text = match mate_in {
            1 => "....../....../....../....../oooo../xxxx..",
            _ => "oox.o./x.xoxo/.xxooo/ox.x.x/o...../xo.oxx",
        };
        let position: Position = text.parse().expect("a position");
        let proof = MateSearch::new().find(&position, 2).expect("a mate");
        assert_eq!(proof.mate_in, mate_in);
        puzzle_from(proof, difficulty, source)
    }

    fn puzzle_from(proof: ProofTree, difficulty: f64, source: &str) -> Puzzle {
        Puzzle {
            reply_groups: 1,
            uct_playouts: Some(100),
            difficulty,
            source: source.to_owned(),
            ..Puzzle::from_proof(proof)
        }
    }

    #[test]
    fn sources_read_as_games_and_moves() {
        assert_eq!(
            source_for_people("game 17 ply 22"),
            "self-play game 17, move 23"
        );
        assert_eq!(
            source_for_people("game 17 ply 22 instead c4-1R"),
            "self-play game 17, with c4-1R as move 23"
        );
        assert_eq!(
            source_for_people("book ....../....../....../....../oooo../xxxx.. instead a6-1R"),
            "the book's position ....../....../....../....../oooo../xxxx.., then a6-1R"
        );
        assert_eq!(
            source_for_people("random 8565686076404571163 ply 22"),
            "random game 8565686076404571163, move 23"
        );
        assert_eq!(source_for_people("book line x"), "book line x");
        assert_eq!(source_for_people("game 1 ply x"), "game 1 ply x");
    }

    #[test]
    fn selections_are_checked() {
        let bad = [
            Selection {
                min_moves: 3,
                max_moves: 2,
                ..Selection::default()
            },
            Selection {
                min_difficulty: 9.0,
                max_difficulty: 2.0,
                ..Selection::default()
            },
            Selection {
                labels: vec!["impossible".into()],
                ..Selection::default()
            },
        ];
        for selection in bad {
            assert!(selection.validate().is_err(), "{selection:?}");
        }
        assert!(Selection::default().validate().is_ok());
    }

    #[test]
    fn chapters_go_by_length_and_difficulty_and_numbers_run_on() {
        let puzzles = vec![
            puzzle(2, 30.0, "game 1 ply 10"),
            puzzle(1, 5.0, "game 2 ply 11"),
            puzzle(2, 12.0, "random 3 ply 20"),
            puzzle(1, 2.0, ""),
        ];
        let collection = Collection::new(puzzles, &Selection::default());
        let lengths: Vec<u32> = collection.chapters.iter().map(|c| c.mate_in).collect();
        assert_eq!(lengths, [1, 2]);
        let order: Vec<(usize, f64)> = collection
            .numbered()
            .map(|(n, p)| (*n, p.difficulty))
            .collect();
        assert_eq!(order, [(1, 2.0), (2, 5.0), (3, 12.0), (4, 30.0)]);
        let s = &collection.summary;
        assert_eq!(s.total, 4);
        assert_eq!(s.by_length, [(1, 2), (2, 2)]);
        assert_eq!(s.by_label, [("easy", 3), ("medium", 1)]);
        let spread = s.difficulty.expect("a spread");
        assert_eq!((spread.min, spread.median, spread.max), (2.0, 12.0, 30.0));
    }

    #[test]
    fn filters_and_count_choose_an_even_spread() {
        let puzzles: Vec<Puzzle> = (0..10)
            .map(|i| puzzle(2, f64::from(i) * 5.0, ""))
            .chain([puzzle(1, 1.0, "")])
            .collect();
        let selection = Selection {
            min_moves: 2,
            count: 5,
            ..Selection::default()
        };
        let collection = Collection::new(puzzles.clone(), &selection);
        let difficulties: Vec<f64> = collection.numbered().map(|(_, p)| p.difficulty).collect();
        assert_eq!(difficulties, [0.0, 10.0, 20.0, 30.0, 40.0]);
        let hard = Selection {
            labels: vec!["hard".into(), "expert".into()],
            ..Selection::default()
        };
        let collection = Collection::new(puzzles.clone(), &hard);
        assert!(collection.numbered().all(|(_, p)| p.difficulty >= 40.0));
        assert_eq!(collection.summary.total, 2);
        let themed = Selection {
            themes: vec![Theme::LongForcedLine],
            ..Selection::default()
        };
        assert_eq!(Collection::new(puzzles, &themed).summary.total, 0);
    }

    #[test]
    fn the_text_book_has_chapters_then_solutions() {
        let collection = Collection::new(
            vec![puzzle(2, 14.0, "game 4 ply 8"), puzzle(1, 3.0, "")],
            &Selection::default(),
        );
        let book = text(&collection);
        let one = book.find("MATE IN 1").expect("chapter 1");
        let two = book.find("MATE IN 2").expect("chapter 2");
        let solutions = book.find("SOLUTIONS").expect("solutions");
        assert!(one < two && two < solutions, "{book}");
        assert!(book.contains("from self-play game 4, move 9"), "{book}");
        let first: Move = collection.chapters[1].puzzles[0].1.first_move;
        assert!(
            book[solutions..].contains(&format!("No. 2   {first}!")),
            "{book}"
        );
        let lines = jsonl(&collection);
        assert_eq!(lines.lines().count(), 2);
    }
}
