//! Puzzle generation and publishing through the real binary on an embedded cluster: every
//! published puzzle passes the solver tests' independent proof checker and has exactly one
//! winning first move by the exact solver; the HTML page is well-formed with one board each.

use crate::support;

use crate::common;

use common::{ok, pentagrid};

use pentago::{Position, SolveLimits, Solver, Value};
use quick_xml::events::Event;

#[test]
fn generated_puzzles_are_sound_unique_and_published() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // A fresh database has no stored games: the candidates come from random games.
    let summary = ok(&[
        "puzzles", "generate", "--local", "--db", db, "--count", "4", "--seed", "3",
    ]);
    let found: u64 = summary
        .split(" new puzzles")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(found >= 4, "{summary}");
    // Stored games only, and there are none: it says so and fails.
    let out = pentagrid(&[
        "puzzles",
        "generate",
        "--local",
        "--db",
        db,
        "--count",
        "2",
        "--stored-only",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    // The round is printed (as JSON) before the failure says why.
    let round: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&round["found"], &round["ran_dry"]),
        (&serde_json::json!(0), &serde_json::json!(true)),
        "{round}"
    );
    assert!(
        stderr.contains("only 0 of the 2 puzzles") && stderr.contains("no fresh candidates"),
        "{stderr}"
    );

    let lines = ok(&[
        "puzzles", "export", "--local", "--db", db, "--format", "jsonl",
    ]);
    let puzzles: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(puzzles.len() >= 4, "{summary}");
    let mut solver = Solver::new(20);
    for puzzle in &puzzles {
        support::check_proof(&puzzle["proof"]).unwrap_or_else(|e| panic!("{puzzle}: {e}"));
        let position: Position = puzzle["position"].as_str().unwrap().parse().unwrap();
        let first = position
            .play(puzzle["first_move"].as_str().unwrap().parse().unwrap())
            .unwrap()
            .canonical_key();
        for (mv, value) in solver.solve_moves(&position, SolveLimits::default()) {
            let same = position.play_unchecked(mv).canonical_key() == first;
            assert_eq!(
                value == Some(Value::Win),
                same,
                "{position}: {mv} {value:?}"
            );
        }
    }
    // Harder by length: every mate in 1 rates below every longer mate.
    let rating = |n: u64| {
        puzzles
            .iter()
            .filter(move |p| p["mate_in"] == n)
            .map(|p| p["difficulty"].as_f64().unwrap())
    };
    let easiest_long = (2..=5).flat_map(rating).fold(f64::MAX, f64::min);
    assert!(rating(1).all(|d| d < easiest_long));

    let text = ok(&["puzzles", "export", "--local", "--db", db]);
    assert!(text.contains("No. 1 ") && text.contains("to play and win in"));
    assert!(text.find("SOLUTIONS").unwrap() > text.rfind("+-------+").unwrap());

    let page = dir.path().join("puzzles.html");
    ok(&[
        "puzzles",
        "export",
        "--local",
        "--db",
        db,
        "--format",
        "html",
        "--out",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    let mut reader = quick_xml::Reader::from_str(&html);
    let (mut boards, mut circles) = (0, 0);
    loop {
        match reader.read_event().expect("well-formed page") {
            Event::Start(tag) if tag.name().0 == "svg" => boards += 1,
            Event::Empty(tag) if tag.name().0 == "circle" => circles += 1,
            Event::Eof => break,
            _ => {}
        }
    }
    // A board per puzzle and a diagram per solution, which rings the first move's stone.
    assert_eq!(boards, 2 * puzzles.len());
    assert_eq!(circles, 2 * 36 * puzzles.len() + puzzles.len());
    assert!(html.contains("@media print") && html.contains("break-before: page"));
    let chapters: Vec<usize> = (1..=5)
        .filter_map(|n| html.find(&format!("id=\"mate-in-{n}\"")))
        .collect();
    assert!(!chapters.is_empty() && chapters.is_sorted(), "{chapters:?}");
    assert!(chapters.last() < html.find("class=\"solutions\"").as_ref());

    // Filters: only the mates in 2 or more, at most two of them.
    let longer = ok(&[
        "puzzles",
        "export",
        "--local",
        "--db",
        db,
        "--format",
        "jsonl",
        "--min-moves",
        "2",
        "--count",
        "2",
    ]);
    let expected = puzzles
        .iter()
        .filter(|p| p["mate_in"].as_u64() >= Some(2))
        .count()
        .min(2);
    assert_eq!(longer.lines().count(), expected, "{longer}");

    for bad in [
        &[
            "puzzles",
            "generate",
            "--local",
            "--db",
            db,
            "--count",
            "1",
            "--max-moves",
            "9",
        ][..],
        &["puzzles", "generate", "--local", "--db", db, "--count", "0"],
        &[
            "puzzles", "export", "--local", "--db", db, "--format", "pdf",
        ],
        &[
            "puzzles",
            "export",
            "--local",
            "--db",
            db,
            "--difficulty",
            "impossible",
        ],
        &[
            "puzzles", "export", "--local", "--db", db, "--theme", "nope",
        ],
        &[
            "puzzles",
            "export",
            "--local",
            "--db",
            db,
            "--min-moves",
            "3",
            "--max-moves",
            "2",
        ],
    ] {
        let out = pentagrid(bad);
        assert!(!out.status.success(), "{bad:?}");
    }
}
