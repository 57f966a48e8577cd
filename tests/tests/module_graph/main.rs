//! The module graph of every crate in the workspace is a one-way stack: no top-level module
//! reaches, directly or through others, back to itself.
//!
//! For each crate root (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs` of every workspace member)
//! the module tree is followed through its `mod` declarations. Each top-level module's files
//! are read for the paths that name another module of the same crate — `crate::a::…`,
//! `super::…`, `self::…`, in `use` declarations (groups included) and in expressions — and
//! each becomes an edge from that module to the one named (`crate::Name` follows the root's
//! `use` to the module `Name` comes from). Test-only code (`#[cfg(test)]` items and modules)
//! is left out: a module's tests may drive it through the whole crate. A cycle fails the test
//! with its modules printed in order.
//!
//! One level up, `crates` checks the manifests of the pure crates at the bottom of the stack
//! (the games, the rating statistics, the shared vocabulary): only the crates below them, no I/O.
//!
//! Beside it, [`vocabulary`] checks that the coordinator and the client define no public type
//! under the same name: the shared vocabulary lives once, in `pentagrid-model`.

mod crates;
mod facts;
mod graph;
mod lex;
mod vocabulary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use graph::{CrateSources, Graph, cycles};

/// The workspace's member crates, from the root manifest.
fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("the root manifest");
    let start = manifest.find("members").expect("a members list");
    let list = &manifest[start..];
    let list = &list[list.find('[').expect("[")..=list.find(']').expect("]")];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(|member| root.join(member))
        .collect()
}

/// The crate roots of a member: its library, its binary and its `src/bin` binaries.
fn crate_roots(member: &Path) -> Vec<PathBuf> {
    let src = member.join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|file| src.join(file))
        .filter(|path| path.is_file())
        .collect();
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "rs"))
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    roots
}

/// The graph as text, one module a line with the modules it names.
fn show(graph: &Graph) -> String {
    graph
        .iter()
        .map(|(module, to)| {
            let to: Vec<&str> = to.iter().map(String::as_str).collect();
            format!("  {module} -> {}\n", to.join(", "))
        })
        .collect()
}

#[test]
fn no_crate_has_a_module_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    let mut failures = String::new();
    let mut roots = 0;
    for member in members(&workspace) {
        for root in crate_roots(&member) {
            roots += 1;
            let graph = CrateSources::read(&root, &read).graph();
            for cycle in cycles(&graph) {
                let group: Vec<&str> = cycle.group.iter().map(String::as_str).collect();
                failures.push_str(&format!(
                    "module cycle in {}: {}\n  (modules that reach each other: {})\n{}",
                    root.display(),
                    cycle.walk.join(" -> "),
                    group.join(", "),
                    show(&graph)
                ));
            }
        }
    }
    assert!(roots >= 9, "every member has a crate root ({roots} found)");
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn the_coordinator_graph_is_read_in_full() {
    // The check sees the real graph, not an empty one: known one-way edges are there.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../coordinator/src/lib.rs");
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    let graph = CrateSources::read(&root, &read).graph();
    for (from, to) in [
        ("coordinator", "jobs"),
        ("ingest", "crosscheck"),
        ("jobs", "offload"),
        ("tunes", "tune_matches"),
    ] {
        assert!(
            graph[from].contains(to),
            "{from} -> {to} in\n{}",
            show(&graph)
        );
    }
    assert!(
        graph["metrics"].is_empty(),
        "metrics is a leaf:\n{}",
        show(&graph)
    );
}

/// A crate held in memory: file path to text.
fn in_memory(files: &[(&str, &str)]) -> Graph {
    let files: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(path, text)| (PathBuf::from(path), (*text).to_owned()))
        .collect();
    let read = |path: &Path| files.get(path).cloned();
    CrateSources::read(Path::new("src/lib.rs"), &read).graph()
}

#[test]
fn a_cycle_through_three_modules_is_found_and_printed_in_order() {
    let graph: Graph = [
        ("a", &["b"][..]),
        ("b", &["c"]),
        ("c", &["a", "d"]),
        ("d", &[]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_owned(), to.iter().map(|t| (*t).to_owned()).collect()))
    .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].walk, ["a", "b", "c", "a"]);
    assert_eq!(found[0].group, ["a", "b", "c"].map(String::from).into());
    let mut acyclic = graph.clone();
    acyclic.get_mut("c").unwrap().remove("a");
    assert!(cycles(&acyclic).is_empty());
}

#[test]
fn edges_come_from_use_groups_expressions_super_and_root_reexports() {
    let graph = in_memory(&[
        (
            "src/lib.rs",
            "mod metrics;\nmod jobs;\nmod coordinator;\nmod store;\n\
             pub use coordinator::Coordinator;\n",
        ),
        (
            "src/metrics.rs",
            "// use crate::jobs::X; in a comment is no edge\n\
             const S: &str = \"crate::store::Y\";\n\
             pub fn render(c: &crate::Coordinator) {}\n",
        ),
        (
            "src/jobs/mod.rs",
            "mod queue;\nuse crate::{metrics::Metrics, store::{self, Store}};\n",
        ),
        (
            "src/jobs/queue.rs",
            "use super::super::store::Store;\nuse super::Thing;\n",
        ),
        ("src/coordinator.rs", "use crate::jobs::JobQueue;\n"),
        (
            "src/store.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::jobs::JobQueue;\n}\n\
             #[cfg(test)]\nfn helper() { crate::coordinator::open(); }\n",
        ),
    ]);
    let edges = |m: &str| graph[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(
        edges("metrics"),
        ["coordinator"],
        "via the root's re-export"
    );
    assert_eq!(edges("jobs"), ["metrics", "store"]);
    assert_eq!(edges("coordinator"), ["jobs"]);
    assert!(edges("store").is_empty(), "test-only code is left out");
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].walk,
        ["coordinator", "jobs", "metrics", "coordinator"]
    );
}
