//! The crate graph at the bottom of the stack: the games, their statistics and the shared
//! vocabulary are pure, so Cargo keeps them apart from the I/O above. Each pure crate may name
//! only the workspace crates listed for it (a one-way stack: `gamekit` ← `rating` ← `pentago`,
//! `calculation` ← `model`) and none of the crates that do I/O. Above them, the store is the
//! only crate that names sled, and it names no network crate and no wire type; the coordinator's
//! services name neither sled nor gRPC nor the wire: only its edge does.

use std::path::Path;

/// The pure crates (folder, package) and the workspace crates each may depend on.
const PURE: [(&str, &[&str]); 5] = [
    ("gamekit", &[]),
    ("rating", &["pentagrid-gamekit"]),
    ("engine", &["pentagrid-gamekit", "pentagrid-rating"]),
    ("calculation", &["pentagrid-gamekit", "pentagrid-rating"]),
    (
        "model",
        &[
            "pentago",
            "pentagrid-calculation",
            "pentagrid-gamekit",
            "pentagrid-rating",
        ],
    ),
];

/// Crates that reach the disk, the network or a runtime: none of them below the store.
const IO: [&str; 14] = [
    "axum",
    "hyper",
    "hyper-util",
    "libc",
    "prost",
    "sled",
    "socket2",
    "tempfile",
    "tokio",
    "tokio-stream",
    "tonic",
    "tonic-health",
    "tracing",
    "tracing-subscriber",
];

/// The names of the dependencies in a manifest's `[dependencies]` table.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['.', '=', ' ']).next().unwrap_or_default();
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn the_pure_crates_name_only_the_crates_below_them() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut failures = String::new();
    for (folder, allowed) in PURE {
        let manifest = std::fs::read_to_string(workspace.join(folder).join("Cargo.toml"))
            .unwrap_or_else(|error| panic!("{folder}/Cargo.toml: {error}"));
        let names = dependencies(&manifest);
        assert!(!names.is_empty(), "{folder}: no dependencies read");
        for name in names {
            let workspace_crate = name == "pentago" || name.starts_with("pentagrid-");
            if workspace_crate && !allowed.contains(&name.as_str()) {
                failures.push_str(&format!("{folder} depends on {name}, above it\n"));
            }
            if IO.contains(&name.as_str()) {
                failures.push_str(&format!("{folder} is pure but depends on {name}\n"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// Every dependency of a manifest, whatever its table (normal, dev, build).
fn all_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line.ends_with("dependencies]");
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            names.push(
                line.split(['.', '=', ' '])
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
    }
    names
}

#[test]
fn only_the_store_touches_sled_and_only_the_edge_puts_the_services_on_the_wire() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let members = root[root.find("members").unwrap()..]
        .split(']')
        .next()
        .unwrap()
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect::<Vec<_>>();
    assert!(
        members.len() > 10 && members.iter().any(|m| m == "store"),
        "{members:?}"
    );
    let mut failures = String::new();
    for member in &members {
        let manifest = std::fs::read_to_string(workspace.join(member).join("Cargo.toml")).unwrap();
        let names = all_dependencies(&manifest);
        if member != "store" && names.iter().any(|n| n == "sled") {
            failures.push_str(&format!("{member} depends on sled: only the store may\n"));
        }
        if member == "store" {
            for network in [
                "tonic",
                "axum",
                "hyper",
                "pentagrid-proto",
                "pentagrid-coordinator",
            ] {
                if dependencies(&manifest).iter().any(|n| n == network) {
                    failures.push_str(&format!("the store depends on {network}\n"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn dependencies_are_read_from_their_table_only() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\n# a comment\npentago.workspace = true\n\
                    rand = \"0.10\"\nserde = { version = \"1\" }\n\n[dev-dependencies]\ntokio = \"1\"\n";
    assert_eq!(dependencies(manifest), ["pentago", "rand", "serde"]);
}
