//! The explorer's axis ticks (`web/assets/chart.js`, the one place charts get them) pass their
//! property tests (`web/tests/js/ticks.test.js`) under Node's test runner: ticks cover the
//! range, step by 1, 2 or 5 times a power of ten, number at most the limit, and read as rounded
//! labels. Skipped, with the reason printed, only where Node is not installed (a failure under
//! CI).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The first program of `names` found on the PATH.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

#[test]
fn chart_ticks_pass_their_property_tests_under_node() {
    let Some(node) = find_program(&["node", "nodejs"]) else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(
            !ci,
            "the chart tick tests cannot run under CI: node is not on the PATH"
        );
        eprintln!(
            "SKIPPED chart_ticks_pass_their_property_tests_under_node: node is not on the PATH (apt-get install nodejs)"
        );
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/ticks.test.js");
    let output = Command::new(&node)
        .arg("--test")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", node.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "the tick tests failed:\n{text}");
    // The runner's summary: every test ran and passed (none skipped as unsupported).
    assert!(text.contains("# fail 0"), "{text}");
    assert!(!text.contains("# pass 0"), "no tick test ran:\n{text}");
}
