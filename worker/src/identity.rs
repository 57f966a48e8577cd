//! Who a worker is to the coordinator: an id kept in a state file, so that a restarted worker
//! comes back as the same worker instead of a new one (the coordinator forgets silent ones).

use std::path::{Path, PathBuf};

use pentago::splitmix64;

/// How a worker picks the id it says hello with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum WorkerIdentity {
    /// A fresh random id for this process (in-process and test workers).
    #[default]
    Fresh,
    /// The id kept in `worker-<name>.id` in this directory, created on first start (names
    /// with characters other than letters, digits, `-` and `_` get a hash in the file name).
    /// When the file can be neither read nor written (a read-only container), an id derived
    /// from the name and the host name, so it is still stable across restarts of that
    /// container, and replicas that share a name (`--scale`) still differ.
    Persisted(PathBuf),
}

impl WorkerIdentity {
    /// The worker id for a worker named `name` and the key it says hello with: kept beside
    /// a persisted id (so a restarted worker takes its id back at once), fresh otherwise
    /// (then a restarted worker waits until its last session has gone silent).
    #[must_use]
    pub fn credentials(&self, name: &str, entropy: u64) -> (String, String) {
        let id = self.worker_id(name, entropy);
        let key = match self {
            WorkerIdentity::Persisted(dir) => persisted_key(&id_file(dir, name)).ok(),
            WorkerIdentity::Fresh => None,
        };
        (id, key.unwrap_or_else(crate::standing::fresh_key))
    }

    /// The worker id for a worker named `name`; `entropy` seeds a fresh id.
    #[must_use]
    pub fn worker_id(&self, name: &str, entropy: u64) -> String {
        match self {
            WorkerIdentity::Fresh => random_id(name, entropy),
            WorkerIdentity::Persisted(dir) => match persisted_id(dir, name, entropy) {
                Ok(id) => id,
                Err(error) => {
                    tracing::warn!(
                        dir = %dir.display(),
                        %error,
                        "cannot keep the worker id in the state directory; deriving it from the name and host"
                    );
                    name_derived_id(name, &host_name())
                }
            },
        }
    }
}

fn random_id(name: &str, entropy: u64) -> String {
    format!("{name}-{:016x}", splitmix64(entropy))
}

/// FNV-1a of the name, mixed: the same on every start.
fn name_hash(name: &str) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    splitmix64(hash)
}

/// The same id for the same name on the same host on every start.
fn name_derived_id(name: &str, host: &str) -> String {
    format!("{name}-n{:015x}", name_hash(&format!("{name}@{host}")) >> 4)
}

/// This machine's (or container's) host name; empty when unknown.
fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
}

/// The state file of the worker named `name` in `dir`.
fn id_file(dir: &Path, name: &str) -> PathBuf {
    // The file name keeps only characters safe in paths; the id itself carries the name.
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // Names that differ only in replaced characters get different files.
    let file = if safe == name {
        format!("worker-{safe}.id")
    } else {
        format!("worker-{safe}-{:08x}.id", name_hash(name) >> 32)
    };
    dir.join(file)
}

/// The key kept beside the id file (readable by its owner only), written first if there is
/// none or it is malformed.
fn persisted_key(id_file: &Path) -> std::io::Result<String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = id_file.with_extension("key");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let key = text.trim();
        if key.len() == 32 && key.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Ok(key.to_owned());
        }
    }
    let key = crate::standing::fresh_key();
    let partial = path.with_extension("key.partial");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&partial)?;
    writeln!(file, "{key}")?;
    drop(file);
    std::fs::rename(&partial, &path)?;
    Ok(key)
}

/// The id in the state file, written first if there is none (or it is unreadable).
fn persisted_id(dir: &Path, name: &str, entropy: u64) -> std::io::Result<String> {
    let path = id_file(dir, name);
    if let Ok(text) = std::fs::read_to_string(&path) {
        let id = text.trim();
        if !id.is_empty() && id.len() <= 200 {
            return Ok(id.to_owned());
        }
    }
    std::fs::create_dir_all(dir)?;
    let id = random_id(name, entropy);
    // Write then rename, so that a crash never leaves half an id behind.
    let partial = path.with_extension("id.partial");
    std::fs::write(&partial, format!("{id}\n"))?;
    std::fs::rename(&partial, &path)?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persisted_id_survives_restarts_and_differs_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let identity = WorkerIdentity::Persisted(dir.path().join("state"));
        let first = identity.worker_id("gpu-box", 1);
        assert_eq!(
            identity.worker_id("gpu-box", 2),
            first,
            "same id after a restart"
        );
        assert!(first.starts_with("gpu-box-"), "{first}");
        assert_ne!(identity.worker_id("other", 1), first);
        assert_ne!(identity.worker_id("a/b", 3), identity.worker_id("a_b", 4));
    }

    #[test]
    fn an_unwritable_state_directory_falls_back_to_a_name_derived_id() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the directory should be: nothing can be created under it.
        let blocked = dir.path().join("blocked");
        std::fs::write(&blocked, "").unwrap();
        let identity = WorkerIdentity::Persisted(blocked);
        let id = identity.worker_id("box", 1);
        assert_eq!(id, identity.worker_id("box", 2));
        assert_eq!(id, name_derived_id("box", &host_name()));
        assert!(id.starts_with("box-n"), "{id}");
        assert_ne!(id, identity.worker_id("box2", 1));
        // Replicas sharing a name on different hosts differ.
        assert_ne!(name_derived_id("box", "a1"), name_derived_id("box", "b2"));
    }

    #[test]
    fn a_persisted_key_comes_back_with_its_id_and_only_its_owner_reads_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let identity = WorkerIdentity::Persisted(dir.path().to_path_buf());
        let (id, key) = identity.credentials("box", 1);
        assert_eq!(identity.credentials("box", 2), (id.clone(), key.clone()));
        assert_ne!(identity.credentials("other", 1).1, key);
        let file = dir.path().join("worker-box.key");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::write(&file, "garbage\n").unwrap();
        let (again, new_key) = identity.credentials("box", 3);
        assert_eq!(again, id, "the id stays");
        assert_ne!(new_key, key, "a malformed key is replaced");
        let fresh = WorkerIdentity::Fresh;
        assert_ne!(fresh.credentials("w", 1).1, fresh.credentials("w", 1).1);
    }

    #[test]
    fn fresh_ids_differ_per_process() {
        let fresh = WorkerIdentity::Fresh;
        assert_ne!(fresh.worker_id("w", 1), fresh.worker_id("w", 2));
    }
}
