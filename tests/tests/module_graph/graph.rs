//! A crate root's module tree read through its `mod` declarations, the graph of its top-level
//! modules, and the cycles of such a graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::facts::{FileFacts, file_facts};

/// Edges between the top-level modules of one crate root (every module is a key).
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// One crate root's module tree, read through `read` (a path to its text).
pub struct CrateSources {
    /// Each file's module path and facts.
    files: Vec<(Vec<String>, FileFacts)>,
}

impl CrateSources {
    /// Follows the `mod` declarations from the root file `root`.
    pub fn read(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> CrateSources {
        let mut files = Vec::new();
        let mut pending = vec![(root.to_path_buf(), Vec::<String>::new(), true)];
        while let Some((path, module, owns_directory)) = pending.pop() {
            let Some(source) = read(&path) else {
                continue;
            };
            let facts = file_facts(&source, &module);
            let directory = if owns_directory {
                path.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                path.with_extension("")
            };
            for name in &facts.declared {
                let mut child = module.clone();
                child.push(name.clone());
                let flat = directory.join(format!("{name}.rs"));
                if read(&flat).is_some() {
                    pending.push((flat, child, false));
                } else {
                    pending.push((directory.join(name).join("mod.rs"), child, true));
                }
            }
            files.push((module, facts));
        }
        CrateSources { files }
    }

    /// The edges between top-level modules.
    pub fn graph(&self) -> Graph {
        let mut graph = Graph::new();
        let mut reexports: BTreeMap<String, String> = BTreeMap::new();
        for (module, facts) in &self.files {
            match module.first() {
                Some(top) => {
                    graph.entry(top.clone()).or_default();
                }
                None => {
                    for (name, path) in &facts.imported {
                        if let Some(first) = path.first() {
                            reexports.insert(name.clone(), first.clone());
                        }
                    }
                }
            }
        }
        for (module, facts) in &self.files {
            let Some(from) = module.first() else {
                continue;
            };
            for path in &facts.named {
                let Some(first) = path.first() else {
                    continue;
                };
                let to = if graph.contains_key(first) {
                    first
                } else if let Some(module) = reexports.get(first) {
                    module
                } else {
                    continue;
                };
                if to != from && graph.contains_key(to) {
                    let to = to.clone();
                    graph
                        .get_mut(from)
                        .expect("every module is a key")
                        .insert(to);
                }
            }
        }
        graph
    }
}

/// A group of modules that reach each other, with one closed walk through some of them.
#[derive(Debug, PartialEq, Eq)]
pub struct Cycle {
    /// Every module of the group.
    pub group: BTreeSet<String>,
    /// A shortest walk from the group's first module back to itself (repeated at the end).
    pub walk: Vec<String>,
}

/// Every cycle of `graph`: one per strongly connected group of more than one module (or a
/// module that names itself).
pub fn cycles(graph: &Graph) -> Vec<Cycle> {
    let mut found = Vec::new();
    let mut seen_groups: BTreeSet<String> = BTreeSet::new();
    for start in graph.keys() {
        if seen_groups.contains(start) {
            continue;
        }
        let reach = reachable(graph, start);
        let group: BTreeSet<String> = reach
            .into_iter()
            .filter(|m| reachable(graph, m).contains(start))
            .collect();
        if group.len() < 2 && !graph[start].contains(start) {
            continue;
        }
        seen_groups.extend(group.iter().cloned());
        let walk = walk_back(graph, start, &group);
        found.push(Cycle { group, walk });
    }
    found
}

/// The modules reachable from `start` by one edge or more.
fn reachable(graph: &Graph, start: &str) -> BTreeSet<String> {
    let mut reached = BTreeSet::new();
    let mut stack: Vec<&String> = graph[start].iter().collect();
    while let Some(module) = stack.pop() {
        if reached.insert(module.clone()) {
            stack.extend(graph.get(module).into_iter().flatten());
        }
    }
    reached
}

/// A shortest path from `start` back to itself inside `group`.
fn walk_back(graph: &Graph, start: &str, group: &BTreeSet<String>) -> Vec<String> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut frontier = vec![start];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for module in frontier {
            for to in &graph[module] {
                if !group.contains(to) || came_from.contains_key(to.as_str()) {
                    continue;
                }
                came_from.insert(to, module);
                if to == start {
                    let mut path = vec![start.to_owned()];
                    let mut at = came_from[start];
                    while at != start {
                        path.push(at.to_owned());
                        at = came_from[at];
                    }
                    path.push(start.to_owned());
                    path.reverse();
                    return path;
                }
                next.push(to.as_str());
            }
        }
        frontier = next;
    }
    vec![start.to_owned()]
}
