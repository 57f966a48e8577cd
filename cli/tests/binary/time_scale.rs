//! Speed scaling through the real binary: `pentagrid worker --measure-speed` prints this
//! machine's speed; a coordinator process with `--reference-speed` and a worker process pinned
//! with `--speed` at half of it play a refereed match whose games `match show --games` (text
//! and JSON) and `games export` show under time scale 2; bad flags are refused.

use std::path::Path;

use crate::common;

use common::{ok, pentagrid};

#[test]
fn measure_speed_prints_simulations_per_second() {
    let out = ok(&["worker", "--measure-speed"]);
    let speed: u64 = out
        .split_whitespace()
        .next()
        .and_then(|word| word.parse().ok())
        .unwrap_or_else(|| panic!("a number first: {out:?}"));
    assert!(speed >= 1_000, "{out}");
    assert!(out.contains("simulations per second"), "{out}");
    for bad in [
        &["worker", "--measure-speed", "--speed", "5"][..],
        &["worker", "--speed=-1"],
        &["worker", "--speed", "fast"],
        &["coordinator", "--reference-speed=-5"],
    ] {
        let out = pentagrid(bad);
        assert!(!out.status.success(), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("speed"), "{bad:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_worker_at_half_the_reference_speed_plays_with_twice_the_time() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "time-scale-token\n").unwrap();
    let (_coordinator, url) = common::coordinator_with(
        &dir.path().join("db"),
        &token,
        &["--reference-speed", "100000"],
    );
    let state = dir.path().join("worker-state");
    let _worker = common::worker(&url, &token, &state, &["--speed", "50000"]);
    let token = token.to_str().unwrap();
    let remote = ["--coordinator", url.as_str(), "--token-file", token];
    let mut start = vec![
        "match",
        "--a",
        "random",
        "--b",
        "random",
        "--pairs",
        "1",
        "--time",
        "move:0.05",
        "--json",
    ];
    start.extend(remote);
    let out = ok(&start);
    let id = out
        .lines()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["match_id"].as_u64())
        .unwrap_or_else(|| panic!("a match id: {out}"))
        .to_string();
    let mut show = vec!["match", "show", id.as_str(), "--games"];
    show.extend(remote);
    let text = ok(&show);
    assert_eq!(text.matches("  time scale 2:").count(), 2, "{text}");
    show.push("--json");
    let json: serde_json::Value = serde_json::from_str(ok(&show).lines().last().unwrap()).unwrap();
    let games = json["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{json}");
    for game in games {
        assert_eq!(game["time_scale"], 2.0, "{game}");
    }
    let records = dir.path().join("games.pgr");
    let mut export = vec!["games", "export", id.as_str(), "--out"];
    export.push(records.to_str().unwrap());
    export.extend(remote);
    ok(&export);
    let text = std::fs::read_to_string(Path::new(&records)).unwrap();
    assert_eq!(text.matches("[TimeScale \"2\"]").count(), 2, "{text}");
}
