//! One vocabulary: no public type name is defined both on the coordinator's side (the
//! coordinator, its store and its edge) and in the client.
//! A domain value both sides speak is defined once, in `pentagrid-model`, and each side
//! re-exports or uses it; a name that two different concepts share is a rename away.
//!
//! Definitions are read from the code (comments and literals left out): `pub struct`,
//! `pub enum`, `pub type`, `pub trait` and `pub union` followed by a name, `pub(crate)` and
//! narrower items excepted (they are no part of either crate's vocabulary).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::lex::{code_only, tokens};

/// Names that must stay defined on both sides for now, each with why.
const ALLOWED: &[(&str, &str)] = &[(
    "MatchRecord",
    "the coordinator's is the stored record of a match's settings and progress (with its \
     control, tuning run and suite positions), the client's the match as a status reports it \
     (with its id, state, wait, pair points and games); one type for both waits for the v3 \
     match message of issue 40",
)];

/// Every `.rs` file under `dir`, recursively, in path order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|entry| entry.ok().map(|e| e.path())) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The public type names `source` defines.
fn defined_types(source: &str) -> BTreeSet<String> {
    let tokens = tokens(&code_only(source));
    tokens
        .windows(3)
        .filter(|w| {
            w[0] == "pub" && ["struct", "enum", "type", "trait", "union"].contains(&w[1].as_str())
        })
        .map(|w| w[2].clone())
        .collect()
}

/// Each public type name defined under `dir`, with the files that define it.
fn definitions(dir: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut names: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for file in rust_files(dir) {
        let source = std::fs::read_to_string(&file).expect("a readable source file");
        for name in defined_types(&source) {
            names.entry(name).or_default().push(file.clone());
        }
    }
    names
}

#[test]
fn no_type_name_is_defined_in_both_the_coordinator_and_the_client() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut coordinator = definitions(&workspace.join("coordinator/src"));
    for side in ["store/src", "edge/src"] {
        for (name, files) in definitions(&workspace.join(side)) {
            coordinator.entry(name).or_default().extend(files);
        }
    }
    let client = definitions(&workspace.join("client/src"));
    assert!(
        coordinator.contains_key("Coordinator") && client.contains_key("ClientError"),
        "both crates' sources are read"
    );
    let allowed: BTreeSet<&str> = ALLOWED.iter().map(|(name, _)| *name).collect();
    let mut twice = String::new();
    for (name, files) in &coordinator {
        if let Some(theirs) = client.get(name)
            && !allowed.contains(name.as_str())
        {
            twice.push_str(&format!(
                "  {name}: {} and {}\n",
                files[0].display(),
                theirs[0].display()
            ));
        }
    }
    assert!(
        twice.is_empty(),
        "defined in both the coordinator and the client (define it once in pentagrid-model, or \
         rename the one that is another concept):\n{twice}"
    );
    for name in allowed {
        assert!(
            coordinator.contains_key(name) && client.contains_key(name),
            "{name} is allowed twice but no longer is: take it off the list"
        );
    }
}

#[test]
fn public_types_are_found_and_narrower_ones_are_not() {
    let found = defined_types(
        "pub struct A;\npub(crate) struct B;\n// pub struct C;\npub enum D {}\n\
         pub type E = u8;\nstruct F;\nlet s = \"pub struct G\";\npub trait H {}\n",
    );
    assert_eq!(found, ["A", "D", "E", "H"].map(String::from).into());
}
