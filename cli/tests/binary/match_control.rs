//! `pentagrid match --detach --weight`, `match list` and `match stop` through the real binary
//! against a real coordinator process (no workers, so queued matches stay running): listings
//! by state with progress and weight, a stop, and clear refusals of bad stops and weights.

use crate::common;

use common::{Remote, json};

#[test]
fn matches_are_listed_by_state_and_stopped() {
    let remote = Remote::start("match-control-token");
    let run = |args: &[&str]| remote.ok(args);
    let fail = |args: &[&str]| remote.fails(args);
    let create = |name: &str, weight: &str| {
        let a = format!("{name}=random");
        let out = run(&[
            "match", "--a", &a, "--b", "random", "--pairs", "5", "--weight", weight, "--detach",
            "--json",
        ]);
        json(&out)["match_id"].as_u64().expect("a match id")
    };
    let heavy = create("heavy", "3");
    let light = create("light", "1");

    let text = run(&["match", "list", "--state", "running"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains("weight"), "{text}");
    // Newest first: id, state, pairs done of total, leased, weight, players.
    for (line, (id, weight, name)) in lines[1..]
        .iter()
        .zip([(light, 1, "light"), (heavy, 3, "heavy")])
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            fields[..7],
            [
                id.to_string().as_str(),
                "running",
                "0",
                "of",
                "5",
                "0",
                &weight.to_string()
            ],
            "{line}"
        );
        assert!(line.ends_with(&format!("{name} vs random")), "{line}");
    }

    let stopped = run(&["match", "stop", &light.to_string()]);
    assert_eq!(
        stopped.trim(),
        format!("match {light} stopped: 5 unplayed pairs cancelled, 0 of 5 pairs played and kept")
    );
    let listed = json(&run(&["match", "list", "--state", "stopped", "--json"]));
    let matches = listed["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1, "{listed}");
    assert_eq!(
        (
            &matches[0]["match_id"],
            &matches[0]["state"],
            &matches[0]["weight"]
        ),
        (&light.into(), &"stopped".into(), &1.into())
    );
    let finished = json(&run(&["match", "list", "--state", "finished", "--json"]));
    assert_eq!(finished, listed, "a stopped match is finished");
    let running = json(&run(&["match", "list", "--state", "running", "--json"]));
    assert_eq!(running["matches"][0]["match_id"], heavy);
    assert_eq!(running["matches"][0]["a_name"], "heavy");
    let all = json(&run(&["match", "list", "--json"]));
    assert_eq!(all["matches"].as_array().unwrap().len(), 2);
    assert_eq!(
        run(&["match", "list", "--state", "complete"]).trim(),
        "no matches"
    );
    let shown = run(&["match", "show", &heavy.to_string()]);
    assert!(
        shown.contains("state     running (0 of 5 pairs stored, 0 leased now; weight 3)"),
        "{shown}"
    );

    // Refusals name what was wrong and change nothing.
    let again = fail(&["match", "stop", &light.to_string()]);
    assert!(
        again.contains(&format!("match {light} is stopped, not running")),
        "{again}"
    );
    let unknown = fail(&["match", "stop", "987654"]);
    assert!(unknown.contains("no match 987654"), "{unknown}");
    let weight = fail(&[
        "match", "--a", "random", "--b", "random", "--weight", "0", "--detach",
    ]);
    assert!(
        weight.contains("--weight must be from 1 to 1000, not 0"),
        "{weight}"
    );
    let state = fail(&["match", "list", "--state", "paused"]);
    assert!(state.contains("paused"), "{state}");
    let all_again = json(&run(&["match", "list", "--json"]));
    assert_eq!(all_again, all);
}
