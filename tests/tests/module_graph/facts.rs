//! What one source file says about modules: the module paths it names (resolved from the scope
//! they are written in), the modules it declares, and the names its `use` declarations import.
//! Test-only items (`#[cfg(test)]`) are skipped.

use super::lex::{code_only, tokens};

/// What one file says: the module paths it names (resolved to absolute paths from the crate
/// root) and the files of the modules it declares (`mod name;`, test-only ones left out).
#[derive(Debug, Default)]
pub struct FileFacts {
    /// Module paths named, absolute from the crate root.
    pub named: Vec<Vec<String>>,
    /// Modules declared with `mod name;` (their files are read next).
    pub declared: Vec<String>,
    /// Names brought into scope by `use` (the root's re-exports), with the path they name.
    pub imported: Vec<(String, Vec<String>)>,
}

/// Reads the facts of a file whose module path is `module` (empty for a crate root).
pub fn file_facts(source: &str, module: &[String]) -> FileFacts {
    let tokens = tokens(&code_only(source));
    let mut facts = FileFacts::default();
    // Inline modules open at a brace depth: (depth, name).
    let mut scopes: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i].as_str();
        let scope = || {
            let mut path = module.to_vec();
            path.extend(scopes.iter().map(|(_, name)| name.clone()));
            path
        };
        match token {
            "#" if is_cfg_test(&tokens, i) => {
                i = skip_item(&tokens, skip_attribute(&tokens, i));
                continue;
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t == "{") => {
                depth += 1;
                scopes.push((depth, tokens[i + 1].clone()));
                i += 3;
                continue;
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t == ";") && scopes.is_empty() => {
                facts.declared.push(tokens[i + 1].clone());
                i += 3;
                continue;
            }
            "{" => depth += 1,
            "}" => {
                if scopes.last().is_some_and(|(at, _)| *at == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "use" => {
                let end = tokens[i..]
                    .iter()
                    .position(|t| t == ";")
                    .map_or(tokens.len(), |n| i + n);
                let base = scope();
                let mut paths = Vec::new();
                use_tree(&tokens[i + 1..end], &base, Vec::new(), &mut paths);
                for (path, name) in paths {
                    if let Some(name) = name {
                        facts.imported.push((name, path.clone()));
                    }
                    facts.named.push(path);
                }
                i = end + 1;
                continue;
            }
            "crate" | "super" | "self" if tokens.get(i + 1).is_some_and(|t| t == "::") => {
                let previous = i.checked_sub(1).map(|p| tokens[p].as_str());
                if previous != Some("::") {
                    let mut segments = vec![token.to_owned()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|t| t == "::")
                        && tokens.get(j + 1).is_some_and(|t| is_identifier(t))
                    {
                        segments.push(tokens[j + 1].clone());
                        j += 2;
                    }
                    if let Some(path) = resolve(&scope(), &segments) {
                        facts.named.push(path);
                    }
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    facts
}

pub fn is_identifier(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Whether the attribute starting at `at` (`#`) is `#[cfg(test)]`.
fn is_cfg_test(tokens: &[String], at: usize) -> bool {
    let want = ["#", "[", "cfg", "(", "test", ")", "]"];
    tokens.len() >= at + want.len()
        && tokens[at..at + want.len()]
            .iter()
            .zip(want)
            .all(|(t, w)| t == w)
}

/// The index after the attribute starting at `at` (`#[…]`).
fn skip_attribute(tokens: &[String], at: usize) -> usize {
    let mut depth = 0usize;
    for (n, token) in tokens.iter().enumerate().skip(at + 1) {
        match token.as_str() {
            "[" => depth += 1,
            "]" => {
                depth -= 1;
                if depth == 0 {
                    return n + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The index after the item starting at `at` (its further attributes, then up to its `;` or
/// its closing brace).
fn skip_item(tokens: &[String], mut at: usize) -> usize {
    while tokens.get(at).is_some_and(|t| t == "#") {
        at = skip_attribute(tokens, at);
    }
    let mut nesting = 0usize;
    while at < tokens.len() {
        match tokens[at].as_str() {
            "(" | "[" => nesting += 1,
            ")" | "]" => nesting = nesting.saturating_sub(1),
            ";" if nesting == 0 => return at + 1,
            "{" if nesting == 0 => {
                let mut depth = 0usize;
                for (n, token) in tokens.iter().enumerate().skip(at) {
                    match token.as_str() {
                        "{" => depth += 1,
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                return n + 1;
                            }
                        }
                        _ => {}
                    }
                }
                return tokens.len();
            }
            _ => {}
        }
        at += 1;
    }
    tokens.len()
}

/// `segments` (starting with `crate`, `super` or `self`) as an absolute path, seen from the
/// module `scope`; `None` for a path that does not start there or climbs above the root.
fn resolve(scope: &[String], segments: &[String]) -> Option<Vec<String>> {
    let mut path: Vec<String> = match segments.first()?.as_str() {
        "crate" => Vec::new(),
        "self" | "super" => scope.to_vec(),
        _ => return None,
    };
    for segment in segments {
        match segment.as_str() {
            "crate" | "self" => {}
            "super" => {
                path.pop()?;
            }
            name => path.push(name.to_owned()),
        }
    }
    Some(path)
}

/// The paths a `use` tree names (with the name each brings into scope, for single paths),
/// for trees that start at `crate`, `super` or `self` (or continue one in a group).
fn use_tree(
    tree: &[String],
    scope: &[String],
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut segments = prefix;
    let mut i = 0;
    while i < tree.len() {
        match tree[i].as_str() {
            "::" => i += 1,
            "{" => {
                // The group's members, split at the commas of this level.
                let mut depth = 0usize;
                let mut start = i + 1;
                for n in i..tree.len() {
                    match tree[n].as_str() {
                        "{" => depth += 1,
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                use_tree(&tree[start..n], scope, segments.clone(), out);
                                return;
                            }
                        }
                        "," if depth == 1 => {
                            use_tree(&tree[start..n], scope, segments.clone(), out);
                            start = n + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            "as" => {
                let alias = tree.get(i + 1).cloned();
                push_use(scope, &segments, alias, out);
                return;
            }
            "*" => {
                push_use(scope, &segments, None, out);
                return;
            }
            token if is_identifier(token) => {
                segments.push(token.to_owned());
                i += 1;
            }
            _ => i += 1,
        }
    }
    let name = segments.last().filter(|s| *s != "self").cloned();
    push_use(scope, &segments, name, out);
}

fn push_use(
    scope: &[String],
    segments: &[String],
    name: Option<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    // At a crate root, `use a::b` names module `a` of this crate (or an external crate).
    let rooted = match segments.first().map(String::as_str) {
        Some("crate" | "super" | "self") => resolve(scope, segments),
        Some(_) if scope.is_empty() => Some(segments.to_vec()),
        _ => None,
    };
    if let Some(path) = rooted {
        out.push((path, name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_from_the_scope_they_are_written_in() {
        let scope = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let path = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            resolve(
                &scope(&["jobs", "queue"]),
                &path(&["super", "super", "store"])
            ),
            Some(path(&["store"]))
        );
        assert_eq!(resolve(&scope(&["a"]), &path(&["super", "super"])), None);
        assert_eq!(
            resolve(&scope(&["a"]), &path(&["self", "b"])),
            Some(path(&["a", "b"]))
        );
        assert_eq!(resolve(&scope(&["a"]), &path(&["std", "b"])), None);
    }
}
