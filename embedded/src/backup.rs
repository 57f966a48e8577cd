//! Backups: fetching a consistent backup of a running coordinator into a file, reading a
//! backup file through to check it, and restoring one into a new database directory. The
//! format and the restore itself live in the coordinator's store
//! ([`pentagrid_store::backup`]); this module moves the files.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use pentagrid_client::{Client, ClientError};
use pentagrid_proto::v2;
use pentagrid_store::backup::{restore_backup, verify_backup};

pub use pentagrid_store::backup::{BackupError, BackupHeader, BackupSummary, TREES};

use crate::error::{EmbeddedError, Result};

fn backup_error(path: &Path) -> impl FnOnce(BackupError) -> EmbeddedError + '_ {
    move |source| EmbeddedError::Backup {
        path: path.display().to_string(),
        source,
    }
}

/// Takes a backup of the coordinator into `out`. The stream is written to a temporary file
/// beside `out`, read through and checked, and only then renamed to `out`: `out` is either a
/// whole, checked backup or untouched.
pub async fn fetch(client: &Client, out: &Path) -> Result<BackupSummary> {
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = out
        .file_name()
        .ok_or_else(|| ClientError::Invalid(format!("--out {} names no file", out.display())))?;
    let partial = tempfile::Builder::new()
        .prefix(&format!(".{}.partial-", name.to_string_lossy()))
        .tempfile_in(parent)
        .map_err(EmbeddedError::io(format!(
            "creating a temporary file in {}",
            parent.display()
        )))?;
    let mut writer = BufWriter::new(partial.as_file());
    let mut stream = client
        .clone()
        .backup(v2::BackupRequest {})
        .await?
        .into_inner();
    while let Some(chunk) = stream.message().await? {
        writer
            .write_all(&chunk.data)
            .map_err(EmbeddedError::io(format!(
                "writing {}",
                partial.path().display()
            )))?;
    }
    writer.flush().map_err(EmbeddedError::io(format!(
        "writing {}",
        partial.path().display()
    )))?;
    drop(writer);
    partial
        .as_file()
        .sync_all()
        .map_err(EmbeddedError::io(format!(
            "syncing {}",
            partial.path().display()
        )))?;
    let summary = verify(partial.path()).map_err(|error| match error {
        // What arrived is not a whole backup: name the stream, not the temporary file.
        EmbeddedError::Backup { source, .. } => EmbeddedError::Client(ClientError::Unreadable(
            format!("a backup that does not check out ({source})"),
        )),
        other => other,
    })?;
    partial.persist(out).map_err(|e| ClientError::Io {
        context: format!("renaming the backup to {}", out.display()),
        source: e.error,
    })?;
    Ok(summary)
}

/// Reads the backup file at `path` through and checks everything; returns what it holds.
pub fn verify(path: &Path) -> Result<BackupSummary> {
    let file =
        File::open(path).map_err(EmbeddedError::io(format!("opening {}", path.display())))?;
    verify_backup(file).map_err(backup_error(path))
}

/// Restores the backup file at `path` into the new database directory `dir` (absent or
/// empty), checking the backup as it goes; a failed restore leaves no directory behind.
pub fn restore(path: &Path, dir: &Path) -> Result<BackupSummary> {
    let file =
        File::open(path).map_err(EmbeddedError::io(format!("opening {}", path.display())))?;
    restore_backup(file, dir).map_err(backup_error(path))
}
