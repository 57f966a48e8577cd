//! The client commands against a real coordinator process: `submit`, `cancel` and `health`
//! print JSON on request, `cancel` says for each id whether it was cancelled or why not, and
//! an unreachable coordinator's error names the URL tried.

use crate::common;

use std::time::{Duration, Instant};

use common::{coordinator, pentagrid, worker};

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn cancel_answers_per_id_and_client_commands_print_json() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "cancel-test-token\n").unwrap();
    let (_coordinator, url) = coordinator(&dir.path().join("db"), &token);
    let token = token.to_str().unwrap();
    let client = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--coordinator", &url, "--token-file", token]);
        pentagrid(&all)
    };

    // One job done by a worker, then stopped, so the next jobs stay queued.
    let submitted = json(&client(&[
        "submit", "selfplay", "--games", "1", "--config", "random", "--json",
    ]));
    assert_eq!(submitted["queued"], 1);
    let done = submitted["job_ids"][0].as_u64().unwrap();
    let state = dir.path().join("state");
    let running = worker(&url, token.as_ref(), &state, &[]);
    let started = Instant::now();
    while json(&client(&["status", "--json"]))["done"] != 1 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the job never finished"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(running);

    let queued = json(&client(&[
        "submit", "selfplay", "--games", "2", "--config", "random", "--json",
    ]));
    let ids: Vec<u64> = queued["job_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_u64().unwrap())
        .collect();
    assert_eq!((queued["queued"].as_u64(), ids.len()), (Some(2), 2));

    let out = client(&["cancel", &ids[0].to_string()]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("cancelled 1 of 1 jobs\n  job {}: cancelled\n", ids[0])
    );

    let asked = [done, ids[0], ids[1], ids[1], 99_999];
    let asked: Vec<String> = asked.iter().map(ToString::to_string).collect();
    let mut args = vec!["cancel"];
    args.extend(asked.iter().map(String::as_str));
    args.push("--json");
    let answer = json(&client(&args));
    assert_eq!(answer["cancelled"], 1);
    let outcomes: Vec<(u64, &str)> = answer["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["job_id"].as_u64().unwrap(),
                j["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            (done, "already_done"),
            (ids[0], "already_cancelled"),
            (ids[1], "cancelled"),
            (ids[1], "already_cancelled"),
            (99_999, "not_found"),
        ]
    );

    // The same as text: a line per id saying why it was not cancelled.
    args.pop();
    let out = client(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("cancelled 0 of 5 jobs\n"), "{text}");
    assert!(
        text.contains(&format!("  job {done}: not cancelled: already done\n"))
            && text.contains("  job 99999: not cancelled: no such job\n"),
        "{text}"
    );

    let health = json(&pentagrid(&["health", "--coordinator", &url, "--json"]));
    assert_eq!(health["status"], "SERVING");
    assert_eq!(health["coordinator"], url.as_str());
}

#[test]
fn an_unreachable_coordinator_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "t\n").unwrap();
    // Nobody listens on port 1.
    let url = "http://127.0.0.1:1";
    for args in [
        vec![
            "status",
            "--coordinator",
            url,
            "--token-file",
            token.to_str().unwrap(),
        ],
        vec![
            "cancel",
            "5",
            "--coordinator",
            url,
            "--token-file",
            token.to_str().unwrap(),
        ],
        vec!["health", "--coordinator", url, "--timeout", "2"],
    ] {
        let out = pentagrid(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("unreachable") && stderr.contains(url),
            "{args:?}: {stderr}"
        );
    }
}
