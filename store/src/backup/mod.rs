//! Online backups and restores of the store, in the format of [`format`].
//!
//! Consistency: sled 0.34 has no snapshot across trees, so the store has a write gate: every
//! write (a result's transaction, a job record, an import...) holds it shared for the time of
//! the write, and a backup holds it exclusively while it copies every tree into a temporary
//! file beside the database. The copy is then a single point in time across all trees: no
//! result is half in it. Reads never wait; writes wait for the copy (about the time to read
//! the database and write it once), and the file is streamed after the gate is open again.
//! The gate is writer-preferring, so a backup is not starved by a stream of writes.
//!
//! Ids: a restored database must never hand out an id its source had already handed out (a
//! job id names results, games and pairs). The backup records the next id of its source;
//! restore stores it in `meta` as `id_base`, and [`Store::generate_id`] adds it to sled's own
//! counter, which starts again from zero in a new database.

pub mod format;
mod reader;
pub mod validate;
mod writer;

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;
use std::sync::{PoisonError, RwLockReadGuard};
use std::time::{Duration, Instant};

pub use format::{BackupError, BackupHeader, BackupSummary};
pub use reader::{BackupReader, Chunk};
pub use writer::BackupWriter;

use validate::Validator;

use super::{Store, StoreError};

/// Every tree of the store, in the order a backup writes them.
pub const TREES: [&str; 26] = [
    "jobs",
    "results",
    "playouts",
    "game_tables",
    "games",
    "matches",
    "puzzles",
    "candidates",
    "proven",
    "builds",
    "build_nodes",
    "meta",
    "quarantine",
    "claims",
    "flagged_workers",
    "deep_solves",
    "deep_leaves",
    "solitaire",
    "build_deep",
    "imports",
    "on_word",
    "contributions",
    "game_contributions",
    "sign_tallies",
    "worker_keys",
    "tunes",
];

/// The `meta` key of the id every id this database hands out is above (see the module
/// documentation); absent in a database that was never restored.
pub(super) const ID_BASE: &[u8] = b"id_base";

/// The id base stored in `meta` (0 when none).
pub(super) fn read_id_base(meta: &sled::Tree) -> Result<u64, StoreError> {
    super::read_u64(meta, ID_BASE, "id base")
}

/// A backup written to a temporary file, ready to be streamed.
#[derive(Debug)]
pub struct BackupSnapshot {
    /// The backup, rewound to its start; it has no name and vanishes when closed.
    pub file: File,
    /// What it holds.
    pub summary: BackupSummary,
    /// How long writes waited for the copy.
    pub writes_paused: Duration,
}

impl Store {
    /// Holds the write gate shared for the time of one write (see the module documentation).
    /// Never taken twice by one thread: a waiting backup would block the second.
    pub(super) fn writing(&self) -> RwLockReadGuard<'_, ()> {
        // The gate guards no data: a panic while it was held leaves nothing to repair.
        self.write_gate
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn tree(&self, name: &str) -> Option<&sled::Tree> {
        Some(match name {
            "jobs" => &self.jobs,
            "results" => &self.results,
            "playouts" => &self.playouts,
            "game_tables" => &self.game_tables,
            "games" => &self.games,
            "matches" => &self.matches,
            "puzzles" => &self.puzzles,
            "candidates" => &self.candidates,
            "proven" => &self.proven,
            "builds" => &self.builds,
            "build_nodes" => &self.build_nodes,
            "meta" => &self.meta,
            "quarantine" => &self.quarantine,
            "claims" => &self.claims,
            "flagged_workers" => &self.flagged_workers,
            "deep_solves" => &self.deep_solves,
            "deep_leaves" => &self.deep_leaves,
            "solitaire" => &self.solitaire,
            "build_deep" => &self.build_deep,
            "imports" => &self.imports,
            "on_word" => &self.on_word,
            "contributions" => &self.contributions,
            "game_contributions" => &self.game_contributions,
            "sign_tallies" => &self.sign_tallies,
            "worker_keys" => &self.worker_keys,
            "tunes" => &self.tunes,
            _ => return None,
        })
    }

    /// Writes a consistent backup of every tree to `out`, blocking writes for the time of the
    /// copy. `created_unix_ms` and `coordinator_version` go into its header.
    pub fn write_backup<W: Write>(
        &self,
        out: W,
        created_unix_ms: u64,
        coordinator_version: &str,
    ) -> Result<(W, BackupSummary), BackupError> {
        let _paused = self
            .write_gate
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let header = BackupHeader {
            created_unix_ms,
            next_id: self.generate_id()?,
            coordinator_version: coordinator_version.to_owned(),
        };
        let mut writer = BackupWriter::start(out, &header)?;
        for name in TREES {
            let tree = self.tree(name).expect("every listed tree exists");
            writer.begin_tree(name)?;
            for entry in tree.iter() {
                let (key, value) = entry?;
                writer.record(&key, &value)?;
            }
        }
        writer.finish(header)
    }

    /// A consistent backup in a new unnamed file in the database's directory (the one place
    /// known to be writable and sized for the data), rewound to its start. Writes wait only
    /// while the file is written; reading it back costs them nothing.
    pub fn backup_to_temp_file(
        &self,
        created_unix_ms: u64,
        coordinator_version: &str,
    ) -> Result<BackupSnapshot, BackupError> {
        let file = tempfile::tempfile_in(&self.path).map_err(BackupError::io(format!(
            "creating a temporary backup file in {}",
            self.path.display()
        )))?;
        let started = Instant::now();
        let (out, summary) = self.write_backup(
            BufWriter::with_capacity(1 << 20, file),
            created_unix_ms,
            coordinator_version,
        )?;
        let writes_paused = started.elapsed();
        let mut file = out
            .into_inner()
            .map_err(|e| BackupError::io("writing the backup")(e.into_error()))?;
        file.rewind()
            .map_err(BackupError::io("rewinding the backup"))?;
        Ok(BackupSnapshot {
            file,
            summary,
            writes_paused,
        })
    }
}

/// Reads a backup through and checks everything (see [`format`]), including that every tree
/// it holds is one this store knows and that its records hold together (see [`validate`]: the
/// same check a restore makes, so both answer alike); returns what it holds.
pub fn verify_backup<R: Read>(input: R) -> Result<BackupSummary, BackupError> {
    let mut reader = BackupReader::open(BufReader::with_capacity(1 << 20, input))?;
    let mut validator = Validator::new(reader.header())?;
    while let Some(chunk) = reader.next_chunk()? {
        known_tree(&chunk.tree)?;
        for (key, value) in &chunk.records {
            validator.record(&chunk.tree, key, value)?;
        }
    }
    let summary = reader.summary().expect("read through").clone();
    for tree in summary.trees.keys() {
        known_tree(tree)?;
    }
    validator.finish(&summary.trees)?;
    Ok(summary)
}

fn known_tree(name: &str) -> Result<(), BackupError> {
    if TREES.contains(&name) {
        Ok(())
    } else {
        Err(BackupError::UnknownTree(name.to_owned()))
    }
}

/// Restores a backup into the new directory `dir` (which must not exist, or be empty),
/// checking the backup as it goes, records included (see [`validate`]), before anything is
/// in `dir`. Everything is written into a sibling `DIR.tmp-XXXX` first,
/// made durable, opened as a store, and only then renamed to `dir`: a restore that fails
/// leaves no directory behind.
pub fn restore_backup<R: Read>(input: R, dir: &Path) -> Result<BackupSummary, BackupError> {
    let not_empty = || BackupError::TargetNotEmpty(dir.display().to_string());
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(not_empty());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return Err(not_empty()),
        Err(e) => return Err(BackupError::io(format!("reading {}", dir.display()))(e)),
    }
    let name = dir.file_name().ok_or_else(not_empty)?.to_string_lossy();
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let staging = tempfile::Builder::new()
        .prefix(&format!("{name}.tmp-"))
        .tempdir_in(parent)
        .map_err(BackupError::io(format!(
            "creating a staging directory in {}",
            parent.display()
        )))?;
    let db = sled::Config::new().path(staging.path()).open()?;
    let summary = load(input, &db)?;
    {
        // A restored directory has no manifest yet: what was just verified is the truth.
        let store = Store::adopt_open(staging.path(), db)?;
        store.flush_blocking()?;
    }
    std::fs::rename(staging.path(), dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists => not_empty(),
        _ => BackupError::io(format!(
            "renaming the restored database to {}",
            dir.display()
        ))(e),
    })?;
    // Renamed away: nothing is left for the staging guard to remove.
    let _ = staging.keep();
    Ok(summary)
}

/// Loads a backup into `db`, a new sled database, checking it as it goes and then that each
/// tree holds exactly the records the trailer counts, and makes it durable.
fn load<R: Read>(input: R, db: &sled::Db) -> Result<BackupSummary, BackupError> {
    let mut reader = BackupReader::open(BufReader::with_capacity(1 << 20, input))?;
    let mut validator = Validator::new(reader.header())?;
    while let Some(chunk) = reader.next_chunk()? {
        known_tree(&chunk.tree)?;
        let mut batch = sled::Batch::default();
        for (key, value) in chunk.records {
            validator.record(&chunk.tree, &key, &value)?;
            batch.insert(key, value);
        }
        db.open_tree(&chunk.tree)?.apply_batch(batch)?;
    }
    let summary = reader.summary().expect("read through").clone();
    validator.finish(&summary.trees)?;
    for (name, &count) in &summary.trees {
        known_tree(name)?;
        let held = db.open_tree(name)?.len() as u64;
        if held != count {
            return Err(BackupError::Damaged {
                offset: summary.bytes,
                why: format!(
                    "tree {name:?} holds {held} distinct records, the trailer says {count}"
                ),
            });
        }
    }
    db.open_tree("meta")?
        .insert(ID_BASE, &summary.header.next_id.to_be_bytes())?;
    db.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests;
