//! `pentagrid solve --proof` through the real binary: it reports the statistics of the solve
//! (nodes, time, the deep solver's leaves), the same as without `--proof`, not those of the
//! cheap pass that builds the proof afterwards from what the solve learnt.

use crate::common;

use common::ok;

/// 16 stones (the deep solver): a black win decided by 38 leaves by alpha-beta, no midsolve,
/// in a fraction of a second (BENCHMARKS.md).
const DEEP: &str = "....../xxx.o./.o..../.o.ox./xxx.o./oox.o.";
/// 30 stones (alpha-beta and the midsolver): a win.
const EXACT: &str = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

/// The text line without its time (`time 0.123s`), which differs from run to run.
fn without_time(line: &str) -> String {
    line.split(' ')
        .filter(|word| !(word.ends_with('s') && word[..word.len() - 1].parse::<f64>().is_ok()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_proof_run_reports_the_work_of_the_solve() {
    let dir = tempfile::tempdir().unwrap();
    for (index, position) in [DEEP, EXACT].into_iter().enumerate() {
        let file = dir.path().join(format!("proof-{index}.txt"));
        let proof = file.to_str().unwrap();
        let plain = json(&ok(&["solve", position, "--json"]));
        let proved = json(&ok(&["solve", position, "--json", "--proof", proof]));
        assert!(
            ok(&["check-proof", proof]).starts_with("valid: "),
            "{position}"
        );
        let (a, b) = (&plain["solution"], &proved["solution"]);
        assert_eq!(a["value"], b["value"], "{position}");
        assert!(a["nodes"].as_u64().unwrap() > 1, "{plain}");
        assert_eq!(a["nodes"], b["nodes"], "{plain}\n{proved}");
        for solution in [a, b] {
            assert!(solution["seconds"].as_f64().unwrap() > 0.0, "{solution}");
        }
        // The deep solver's leaves: the same counts with and without a proof.
        assert_eq!(plain["deep"], proved["deep"], "{plain}\n{proved}");
        let method = a["method"].as_str().unwrap().to_owned();
        assert_eq!(b["method"], method.as_str(), "{proved}");
        if position == DEEP {
            assert_eq!(method, "deep", "{plain}");
            assert!(
                plain["deep"]["leaves_quick"].as_u64().unwrap() > 0,
                "{plain}"
            );
        }

        // The text line agrees too (but for the time).
        let plain = ok(&["solve", position]);
        let proved = ok(&["solve", position, "--proof", proof]);
        assert!(plain.contains(&format!(" by {method} nodes ")), "{plain}");
        assert_eq!(without_time(&plain), without_time(&proved));
    }
}
