//! Every API route over HTTP, with good and bad input: bad input is a 400 JSON error naming the
//! parameter, unknown things are 404s, and nothing writes.

use pentago::Position;
use serde_json::Value;

use crate::support::{FIRST_MOVE, MATCH_ACCURACY_STONES, api, assert_bad, fixture, get};

fn rows(book: &Value, source: &str) -> Vec<Value> {
    book["sources"][source]["moves"]
        .as_array()
        .expect("moves")
        .clone()
}

#[tokio::test]
async fn book_shows_both_sources_with_intervals_in_the_askers_frame() {
    let answer = api("book?position=start").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let book = answer.json();
    assert_eq!(book["side_to_move"], "black");
    assert_eq!(book["status"], "ongoing");
    for source in ["playouts", "games"] {
        let moves = rows(&book, source);
        assert!(!moves.is_empty(), "{source} rows at the start");
        let total: u64 = moves.iter().map(|m| m["games"].as_u64().unwrap()).sum();
        assert_eq!(book["sources"][source]["total"].as_u64(), Some(total));
        for row in &moves {
            let games = row["games"].as_u64().unwrap();
            let (wins, draws, losses) = (
                row["wins"].as_u64().unwrap(),
                row["draws"].as_u64().unwrap(),
                row["losses"].as_u64().unwrap(),
            );
            assert_eq!(wins + draws + losses, games);
            let rate = &row["win_rate"];
            let (low, mid, high) = (
                rate["low"].as_f64().unwrap(),
                rate["rate"].as_f64().unwrap(),
                rate["high"].as_f64().unwrap(),
            );
            assert!(low <= mid && mid <= high, "{row}");
            assert!((mid - (wins as f64 + draws as f64 / 2.0) / games as f64).abs() < 1e-9);
        }
    }
    // At the start all moves on a quadrant's corners are one by symmetry: rows merge them.
    assert!(
        rows(&book, "playouts")
            .iter()
            .any(|row| !row["also"].as_array().unwrap().is_empty())
    );
    // The same table seen from a turned board: every move is legal there and leads where it says.
    let first = Position::START
        .play(
            Position::START
                .resolve(FIRST_MOVE.parse().unwrap())
                .unwrap(),
        )
        .unwrap();
    let turned = pentago::Symmetry::ALL[1].apply(&first);
    let book = api(&format!("book?position={turned}")).await.json();
    assert_eq!(book["position"], turned.to_string());
    let moves = rows(&book, "playouts");
    assert!(!moves.is_empty(), "{FIRST_MOVE} was analysed");
    for row in moves {
        let mv = turned
            .resolve(row["move"].as_str().unwrap().parse().unwrap())
            .unwrap();
        assert_eq!(row["after"], turned.play(mv).unwrap().to_string());
    }
}

#[tokio::test]
async fn book_shows_proven_values_that_agree_with_the_reference() {
    let (position, value) = fixture().solved;
    let book = api(&format!("book?position={position}")).await.json();
    let proven: Vec<&str> = rows(&book, "playouts")
        .iter()
        .filter_map(|row| row["proven"].as_str().map(str::to_owned))
        .map(|v| match v.as_str() {
            "win" => "win",
            "draw" => "draw",
            "loss" => "loss",
            other => panic!("bad proven value {other}"),
        })
        .collect();
    assert!(!proven.is_empty(), "the solve job settled moves");
    let best = if proven.contains(&"win") {
        1
    } else if proven.contains(&"draw") {
        0
    } else {
        -1
    };
    // Settled moves can only show the position's value or less.
    assert!(best <= value, "best proven {best}, exact {value}");
}

#[tokio::test]
async fn bad_positions_are_400s_that_say_what_is_wrong() {
    for bad in [
        "xx",
        "....../....../....../....../....../.....",
        "....../....../....../....../....../.....z",
        "xx..../....../....../....../....../......",
        "%zz",
    ] {
        let message = assert_bad(&api(&format!("book?position={bad}")).await, "position");
        assert!(message.contains("bad position"), "{message}");
    }
}

#[tokio::test]
async fn lines_check_every_move() {
    let line = api("book/line?position=start&moves=c4-1R,d3-2L")
        .await
        .json();
    let steps = line["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[0]["move"], Value::Null);
    assert_eq!(steps[1]["move"], "c4-1R");
    assert_eq!(steps[2]["side_to_move"], "black");
    assert_eq!(steps[2]["stones"], 2);
    let only_start = api("book/line").await.json();
    assert_eq!(only_start["steps"].as_array().unwrap().len(), 1);
    for bad in [
        "a1-2R,a1-2L",
        "z9-1R",
        "c4-5R",
        "c4",
        &vec!["a1-1R"; 37].join(","),
    ] {
        let message = assert_bad(&api(&format!("book/line?moves={bad}")).await, "moves");
        assert!(message.contains("move"), "{message}");
    }
    assert_bad(&api("book/line?position=nonsense").await, "position");
}

#[tokio::test]
async fn puzzles_are_filtered_and_paged() {
    let all = api("puzzles?per_page=100").await.json();
    let total = all["total"].as_u64().unwrap();
    assert_eq!(total as usize, fixture().puzzles.len());
    assert_eq!(all["pages"], 1);
    let lengths: Vec<u64> = all["puzzles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["mate_in"].as_u64().unwrap())
        .collect();
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
    for length in 1..=3 {
        let page = api(&format!("puzzles?length={length}&per_page=100"))
            .await
            .json();
        let expected = lengths.iter().filter(|&&n| n == length).count();
        assert_eq!(page["total"].as_u64(), Some(expected as u64));
    }
    let mut by_theme = 0;
    for theme in ["placement-finale", "twist-finale"] {
        let page = api(&format!("puzzles?theme={theme}&per_page=100"))
            .await
            .json();
        for puzzle in page["puzzles"].as_array().unwrap() {
            assert!(puzzle["themes"].as_array().unwrap().contains(&theme.into()));
        }
        by_theme += page["total"].as_u64().unwrap();
    }
    assert_eq!(
        by_theme, total,
        "every puzzle finishes one way or the other"
    );
    let mut by_level = 0;
    for level in ["easy", "medium", "hard", "expert"] {
        let page = api(&format!("puzzles?difficulty={level}&per_page=100"))
            .await
            .json();
        assert!(
            page["puzzles"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["level"] == level)
        );
        by_level += page["total"].as_u64().unwrap();
    }
    assert_eq!(by_level, total);
    // One per page: page k holds the k-th puzzle.
    let second = api("puzzles?per_page=1&page=1").await.json();
    assert_eq!(second["puzzles"][0], all["puzzles"][0]);
    assert_eq!(second["pages"].as_u64(), Some(total));
    for (query, parameter) in [
        ("page=0", "page"),
        ("page=-1", "page"),
        ("page=two", "page"),
        (&format!("page={}", total + 1) as &str, "page"),
        ("per_page=0", "per_page"),
        ("per_page=101", "per_page"),
        ("length=0", "length"),
        ("length=8", "length"),
        ("theme=pretty", "theme"),
        ("difficulty=impossible", "difficulty"),
    ] {
        assert_bad(&api(&format!("puzzles?{query}")).await, parameter);
    }
}

#[tokio::test]
async fn one_puzzle_comes_with_its_playable_proof() {
    let puzzle = fixture().longest_puzzle();
    let id = format!("{:016x}", puzzle.position.key().bits());
    let detail = api(&format!("puzzles/{id}")).await.json();
    assert_eq!(detail["id"], id);
    assert_eq!(detail["first_move"], puzzle.first_move.to_string());
    assert_eq!(detail["solution"]["move"], puzzle.first_move.to_string());
    assert_eq!(detail["solution"]["depth"], puzzle.mate_in);
    let line: Vec<String> = puzzle
        .proof
        .main_line()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(detail["main_line"], serde_json::json!(line));
    // Every `after` is the position the move really reaches.
    fn walk(position: &Position, node: &Value) {
        let mv = position
            .resolve(node["move"].as_str().unwrap().parse().unwrap())
            .unwrap();
        let after = position.play(mv).unwrap();
        assert_eq!(node["after"], after.to_string());
        for alternative in node["same"].as_array().unwrap() {
            let other = position
                .resolve(alternative.as_str().unwrap().parse().unwrap())
                .unwrap();
            assert_eq!(position.play(other).unwrap(), after);
        }
        for reply in node["replies"].as_array().unwrap() {
            let first = after
                .resolve(reply["moves"][0].as_str().unwrap().parse().unwrap())
                .unwrap();
            let reached = after.play(first).unwrap();
            assert_eq!(reply["after"], reached.to_string());
            if !reply["then"].is_null() {
                walk(&reached, &reply["then"]);
            }
        }
    }
    walk(&puzzle.position, &detail["solution"]);
    assert_bad(&api("puzzles/xyz").await, "id");
    assert_bad(&api("puzzles/zzzzzzzzzzzzzzzz").await, "id");
    let missing = api("puzzles/0000000000000001").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"]["code"], "not_found");
}

#[tokio::test]
async fn a_match_shows_counts_elo_and_llr_history() {
    let fixture = fixture();
    let detail = api(&format!("matches/{}", fixture.match_id)).await.json();
    let done = detail["pairs_done"].as_u64().unwrap();
    assert!(done >= 1 && done <= fixture.match_pairs, "{detail}");
    let pentanomial: u64 = detail["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(pentanomial, done);
    let games = &detail["games"];
    let played: u64 = ["wins", "draws", "losses"]
        .iter()
        .map(|k| games[k].as_u64().unwrap())
        .sum();
    assert_eq!(played, 2 * done);
    let history = detail["history"].as_array().unwrap();
    assert_eq!(history.len() as u64, done);
    assert_eq!(history.last().unwrap()["llr"], detail["llr"]);
    assert_eq!(history.last().unwrap()["elo"], detail["elo"]);
    assert!(detail["sprt"]["lower"].as_f64().unwrap() < 0.0);
    assert!(detail["sprt"]["upper"].as_f64().unwrap() > 0.0);
    let accuracy = &detail["accuracy"];
    assert_eq!(accuracy["min_stones"], MATCH_ACCURACY_STONES, "{detail}");
    let mut judged = 0;
    for side in [&accuracy["a"], &accuracy["b"]] {
        let (moves, drops) = (
            side["moves"].as_u64().unwrap(),
            side["drops"].as_u64().unwrap(),
        );
        assert!(drops <= moves, "{side}");
        if moves == 0 {
            assert!(side["share"].is_null(), "nothing judged, no share: {side}");
        } else {
            let share = 1.0 - drops as f64 / moves as f64;
            assert!(
                (side["share"].as_f64().unwrap() - share).abs() < 1e-12,
                "{side}"
            );
        }
        judged += moves;
    }
    assert!(
        judged > 0,
        "random games reach {MATCH_ACCURACY_STONES} stones: {accuracy}"
    );
    for bad in ["x", "0", "-3", "1.5"] {
        assert_bad(&api(&format!("matches/{bad}")).await, "id");
    }
    let missing = api("matches/987654321").await;
    assert_eq!(missing.status, 404, "{}", missing.body);
}

#[tokio::test]
async fn matches_are_listed_newest_first() {
    let fixture = fixture();
    let list = api("matches").await.json();
    let matches = list["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1);
    let detail = api(&format!("matches/{}", fixture.match_id)).await.json();
    let listed = &matches[0];
    assert_eq!(listed["id"], fixture.match_id);
    for field in ["a", "b", "pairs", "pairs_done", "state", "elo"] {
        assert_eq!(listed[field], detail[field], "{field}");
    }
}

#[tokio::test]
async fn the_fixture_tournament_is_listed_shown_and_rated() {
    let fixture = fixture();
    let id = fixture.match_id;
    let list = api("tournaments").await.json();
    let tournaments = list["tournaments"].as_array().unwrap();
    assert_eq!(tournaments.len(), 1, "{list}");
    let listed = &tournaments[0];
    assert_eq!(listed["id"], id);
    assert_eq!(listed["kind"], "round-robin");
    assert_eq!(listed["players"], serde_json::json!(["random"]));
    assert_eq!(listed["match_count"], 1);
    let detail = api(&format!("tournaments/{id}")).await.json();
    let one = api(&format!("matches/{id}")).await.json();
    assert_eq!(detail["pairs_done"], one["pairs_done"]);
    assert_eq!(detail["matches"][0]["id"], id);
    // A match of a player against itself rates nothing: the player is listed without games.
    let ratings = &detail["ratings"];
    assert_eq!(ratings["anchor"], "random");
    assert_eq!(ratings["players"][0]["games"], 0, "{ratings}");
    assert_eq!(ratings["pairs"], serde_json::json!([]));
    let overall = api("ratings?anchor=random&anchor_rating=1500").await.json();
    assert_eq!(overall["players"][0]["rating"]["elo"], 1500.0, "{overall}");
    assert_eq!(
        api(&format!("ratings?tournament={id}")).await.json()["anchor"],
        "random"
    );
    for bad in ["x", "0", "-3"] {
        assert_bad(&api(&format!("tournaments/{bad}")).await, "id");
    }
    for (query, parameter) in [
        ("anchor=nobody", "anchor"),
        ("anchor_rating=x", "anchor_rating"),
        ("anchor_rating=2e6", "anchor_rating"),
        ("prior_draws=0", "prior_draws"),
        ("prior_draws=1e9", "prior_draws"),
        ("tournament=0", "tournament"),
    ] {
        assert_bad(&api(&format!("ratings?{query}")).await, parameter);
    }
    for missing in ["tournaments/987654321", "ratings?tournament=987654321"] {
        let answer = api(missing).await;
        assert_eq!(answer.status, 404, "{missing}: {}", answer.body);
    }
}

#[tokio::test]
async fn cluster_status_lists_jobs_workers_and_throughput() {
    let cluster = api("cluster").await.json();
    assert!(cluster["jobs"]["done"].as_u64().unwrap() > 0);
    assert!(
        cluster["workers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["name"] == "web-test-worker"
                && w["flags"] == 0
                && w["quarantined"] == false)
    );
    assert!(cluster["stored"]["games"].as_u64().unwrap() >= 12);
    assert!(cluster["throughput"].is_array());
    assert_eq!(cluster["window_seconds"], 600);
}

/// The fixture's one solitaire job (deals 0..30, standard, random, seed 1) as `/solitaire`
/// shows it: the same figures the engine's bench gives for those deals.
#[tokio::test]
async fn solitaire_lists_each_player_with_its_intervals() {
    use pentagrid_calculation::{Player, Variant, bench};
    let answer = api("solitaire").await.json();
    let totals = answer["totals"].as_array().expect("totals");
    assert_eq!(totals.len(), 1, "{answer}");
    let row = &totals[0];
    assert_eq!(
        (&row["variant"], &row["player"]),
        (&"standard".into(), &"random".into())
    );
    let expected = bench(Variant::Standard, &Player::Random, 0..30, 1).unwrap();
    assert_eq!(row["deals"], 30);
    assert_eq!(row["wins"], expected.wins);
    // Through JSON text and back: equal to the last bit or two.
    for (field, exact) in [
        ("success", serde_json::to_value(expected.success).unwrap()),
        (
            "foundation_cards",
            serde_json::to_value(expected.foundation_cards).unwrap(),
        ),
    ] {
        for (name, want) in exact.as_object().unwrap() {
            let got = &row[field][name];
            let close = (got.as_f64().unwrap() - want.as_f64().unwrap()).abs() < 1e-9;
            assert!(close, "{field}.{name}: {got} against {want}");
        }
    }
}

/// A schema with its `$ref` followed (to any depth).
fn resolve<'a>(spec: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(name) => resolve(
            spec,
            &spec["components"]["schemas"][name.trim_start_matches("#/components/schemas/")],
        ),
        None => schema,
    }
}

/// The properties an object schema names, through `$ref`s and every part of an `allOf`; `None`
/// when the schema lists none (a free-form object, or not an object).
fn properties(spec: &Value, schema: &Value) -> Option<serde_json::Map<String, Value>> {
    let schema = resolve(spec, schema);
    if let Some(parts) = schema["allOf"].as_array() {
        let mut all = serde_json::Map::new();
        for part in parts {
            all.extend(properties(spec, part)?);
        }
        all.extend(
            schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        return Some(all);
    }
    schema["properties"].as_object().cloned()
}

/// Checks `value` against its documented schema: an object's fields are exactly those the
/// schema names (through `$ref`s and `allOf`), each checked in turn, and every item of an array
/// against the array's `items`. Disagreements are collected, with where they are.
fn check_documented(
    spec: &Value,
    schema: &Value,
    value: &Value,
    at: &str,
    errors: &mut Vec<String>,
) {
    if value.is_null() {
        return;
    }
    let schema = resolve(spec, schema);
    if let Some(items) = schema.get("items") {
        match value.as_array() {
            Some(values) => {
                for (index, item) in values.iter().enumerate() {
                    check_documented(spec, items, item, &format!("{at}[{index}]"), errors);
                }
            }
            None => errors.push(format!("{at}: documented as an array, is {value}")),
        }
        return;
    }
    let Some(documented) = properties(spec, schema) else {
        return;
    };
    let Some(given) = value.as_object() else {
        errors.push(format!("{at}: documented as an object, is {value}"));
        return;
    };
    let mut names: Vec<&String> = documented.keys().collect();
    let mut present: Vec<&String> = given.keys().collect();
    names.sort();
    present.sort();
    if names != present {
        errors.push(format!("{at}: fields {present:?}, documented {names:?}"));
    }
    for (name, field) in given {
        if let Some(field_schema) = documented.get(name) {
            check_documented(spec, field_schema, field, &format!("{at}.{name}"), errors);
        }
    }
}

/// The answer agrees with its documented schema, all the way down.
fn assert_documented(spec: &Value, operation: &Value, answer: &Value, path: &str) {
    let schema = &operation["responses"]["200"]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "{path}: no documented schema");
    let mut errors = Vec::new();
    check_documented(spec, schema, answer, path, &mut errors);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn the_schema_check_follows_refs_all_of_and_arrays() {
    let spec = serde_json::json!({"components": {"schemas": {
        "Base": {"type": "object", "properties": {"a": {"type": "integer"}}},
        "Row": {"allOf": [{"$ref": "#/components/schemas/Base"},
                          {"type": "object", "properties": {"b": {"type": "string"}}}]},
        "Page": {"type": "object", "properties": {"rows": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}}}}
    }}});
    let page = serde_json::json!({"$ref": "#/components/schemas/Page"});
    let check = |value: Value| {
        let mut errors = Vec::new();
        check_documented(&spec, &page, &value, "page", &mut errors);
        errors
    };
    assert!(check(serde_json::json!({"rows": [{"a": 1, "b": "x"}]})).is_empty());
    let errors = check(serde_json::json!({"rows": [{"a": 1, "b": "x"}, {"a": 1, "c": 2}]}));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("page[1]") || errors[0].starts_with("page.rows[1]"),
        "{errors:?}"
    );
    assert_eq!(check(serde_json::json!({"rows": {"a": 1}})).len(), 1);
}

#[tokio::test]
async fn every_documented_route_answers_and_nothing_writes() {
    let fixture = fixture();
    let before = api("cluster").await.json();
    let spec = api("openapi.json").await.json();
    assert_eq!(
        spec,
        serde_json::from_str::<Value>(pentagrid_web::OPENAPI).unwrap()
    );
    let puzzle_id = format!("{:016x}", fixture.puzzles[0].position.key().bits());
    for (path, route) in spec["paths"].as_object().unwrap() {
        let path = path
            .trim_start_matches('/')
            .replace(
                "{id}",
                &if path.starts_with("/puzzles") {
                    puzzle_id.clone()
                } else if path.starts_with("/tunes") {
                    fixture.tune_id.to_string()
                } else {
                    fixture.match_id.to_string()
                },
            )
            .replace("{pair}", &fixture.match_games[0].pair.to_string())
            .replace("{game}", "1");
        let answer = api(&path).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        assert!(
            answer.content_type.starts_with("application/json"),
            "{path}"
        );
        assert_documented(&spec, &route["get"], &answer.json(), &path);
    }
    let unknown = api("nothing/here").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["code"], "no_route");
    let after = api("cluster").await.json();
    for total in ["games", "playouts", "playout_positions", "game_positions"] {
        assert_eq!(before["stored"][total], after["stored"][total], "{total}");
    }
    assert_eq!(before["jobs"], after["jobs"]);
}

#[tokio::test]
async fn pages_and_assets_are_served_from_the_binary() {
    let base = &fixture().base;
    for page in [
        "/",
        "/puzzles",
        "/matches",
        "/tunes",
        "/game",
        "/ratings",
        "/cluster",
        "/solitaire",
    ] {
        let answer = get(&format!("{base}{page}")).await;
        assert_eq!(answer.status, 200, "{page}");
        assert!(answer.content_type.starts_with("text/html"), "{page}");
        assert!(
            answer.body.contains("<svg") || answer.body.contains("<table"),
            "{page}"
        );
    }
    let script = get(&format!("{base}/assets/board.js")).await;
    assert!(script.content_type.starts_with("text/javascript"));
    assert!(script.body.contains("class Board"));
    assert_eq!(get(&format!("{base}/assets/missing.js")).await.status, 404);
}
