//! External engines and who may play them: the engines a worker says (in its hello) it runs,
//! checked; whether a worker can take a task (a game pair with `engine:NAME` players goes only
//! to a worker that runs each of them); and which of a task's engines no known worker runs.

use std::collections::BTreeMap;

use pentago::valid_engine_name;
use pentagrid_model::Task;
use thiserror::Error;

use crate::identity::{LabelError, worker_name};

/// The external engines a worker runs: name → the version string the program reported.
pub type WorkerEngines = BTreeMap<String, String>;

/// Most engines one worker may announce.
pub const MAX_WORKER_ENGINES: usize = 64;

/// A worker's engine list that cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BadEngines {
    /// More engines than [`MAX_WORKER_ENGINES`].
    #[error("at most {MAX_WORKER_ENGINES} engines per worker, not {0}")]
    TooMany(usize),
    /// A name that is not an engine name.
    #[error("bad engine name {0:?}: 1 to 64 letters, digits, _, - or .")]
    Name(String),
    /// The same name twice.
    #[error("engine {0:?} is announced twice")]
    Twice(String),
    /// A version string that is too long or unprintable.
    #[error("bad version of engine {name:?}: it {error}")]
    Version {
        /// The engine.
        name: String,
        /// What is wrong with its version.
        error: LabelError,
    },
}

/// Checks the engines a worker announces: (name, version) pairs.
pub fn check_engines<'a>(
    announced: impl ExactSizeIterator<Item = (&'a str, &'a str)>,
) -> Result<WorkerEngines, BadEngines> {
    if announced.len() > MAX_WORKER_ENGINES {
        return Err(BadEngines::TooMany(announced.len()));
    }
    let mut engines = WorkerEngines::new();
    for (name, version) in announced {
        if !valid_engine_name(name) {
            return Err(BadEngines::Name(pentago::excerpt(name)));
        }
        let version = worker_name(version).map_err(|error| BadEngines::Version {
            name: name.to_owned(),
            error,
        })?;
        if engines
            .insert(name.to_owned(), version.to_owned())
            .is_some()
        {
            return Err(BadEngines::Twice(name.to_owned()));
        }
    }
    Ok(engines)
}

/// Whether a worker running `engines` can take `task`.
#[must_use]
pub fn can_run(task: &Task, engines: &WorkerEngines) -> bool {
    runs_all(&task.engines(), engines)
}

/// Whether `engines` has each of `names`.
#[must_use]
pub fn runs_all(names: &[&str], engines: &WorkerEngines) -> bool {
    names.iter().all(|name| engines.contains_key(*name))
}

/// Whether some worker among `workers` runs each of the engines `names` (always, for none).
#[must_use]
pub fn someone_runs<'a>(
    names: &[&str],
    mut workers: impl Iterator<Item = &'a WorkerEngines>,
) -> bool {
    names.is_empty() || workers.any(|engines| runs_all(names, engines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Position;

    fn pair(a: &str, b: &str) -> Task {
        Task::Pair {
            match_id: 1,
            pair: 0,
            opening: Position::START,
            a: a.parse().unwrap(),
            b: b.parse().unwrap(),
            accuracy_stones: None,
            time: Some("move:1".parse().unwrap()),
            adjudicate: None,
        }
    }

    #[test]
    fn a_pair_needs_a_worker_with_each_of_its_engines() {
        let both =
            check_engines([("pg", "pentagrid 1"), ("morat", "morat 2")].into_iter()).unwrap();
        let one = check_engines([("pg", "pentagrid 1")].into_iter()).unwrap();
        let none = WorkerEngines::new();
        let mixed = pair("engine:pg", "engine:morat");
        assert!(can_run(&mixed, &both));
        assert!(!can_run(&mixed, &one));
        assert!(can_run(&pair("engine:pg", "random"), &one));
        assert!(can_run(&pair("random", "uct"), &none));
        let names = mixed.engines();
        assert_eq!(names, ["pg", "morat"]);
        assert!(!someone_runs(&names, [&one, &none].into_iter()));
        assert!(someone_runs(&names, [&one, &both].into_iter()));
        assert!(someone_runs(&[], std::iter::empty()));
    }

    #[test]
    fn bad_engine_lists_are_refused() {
        assert_eq!(
            check_engines([("a b", "1")].into_iter()),
            Err(BadEngines::Name("a b".into()))
        );
        assert_eq!(
            check_engines([("pg", "1"), ("pg", "2")].into_iter()),
            Err(BadEngines::Twice("pg".into()))
        );
        assert!(matches!(
            check_engines([("pg", "a\u{1b}")].into_iter()),
            Err(BadEngines::Version { .. })
        ));
        let many: Vec<(String, String)> = (0..=MAX_WORKER_ENGINES)
            .map(|i| (format!("e{i}"), "1".into()))
            .collect();
        assert_eq!(
            check_engines(many.iter().map(|(n, v)| (n.as_str(), v.as_str()))),
            Err(BadEngines::TooMany(MAX_WORKER_ENGINES + 1))
        );
    }
}
