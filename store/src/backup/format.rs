//! The backup file format, version 1: stable, versioned, and checked so that a truncation or
//! any flipped byte is refused before anything is trusted.
//!
//! All integers are big-endian; a `name` is a length byte and that many UTF-8 bytes.
//!
//! ```text
//! file    := header chunk* trailer
//! header  := "PGBACKUP"                      8 bytes, the magic
//!            version          u32            1
//!            created_unix_ms  u64            when the backup's point was taken
//!            next_id          u64            ids below this were handed out by the source
//!            coordinator      name           the version of the coordinator that wrote it
//!            header_crc       u32            CRC-32 of every header byte before it
//! chunk   := 'C'                             1 byte
//!            tree             name           the sled tree the records belong to
//!            records          u32            how many records follow
//!            payload_len      u32            bytes of the records (at most 64 MiB)
//!            record*          := key_len u32, key, value_len u32, value
//!            chunk_crc        u32            CRC-32 of the chunk from 'C' through the payload
//! trailer := 'T'                             1 byte
//!            trees            u32            entries that follow
//!            (tree name, records u64)*       every tree of the backup, with its record count
//!            total_records    u64
//!            chunks           u64
//!            file_crc         u32            CRC-32 of every byte of the file before it
//!            "PGBKEND\n"                     8 bytes; nothing may follow
//! ```
//!
//! A reader checks the header's CRC before it believes the header, each chunk's CRC before it
//! hands out the chunk's records, and at the end the trailer's counts against what it read and
//! the whole file's CRC, then that the file ends there. Sizes are checked against bounds before
//! anything is allocated, so a damaged length cannot ask for gigabytes. A later version changes
//! the version number; this reader refuses versions it does not know.

use std::collections::BTreeMap;
use std::io;

use thiserror::Error;

/// The first 8 bytes of every backup file.
pub const MAGIC: &[u8; 8] = b"PGBACKUP";
/// The last 8 bytes of every backup file.
pub const END_MAGIC: &[u8; 8] = b"PGBKEND\n";
/// The format version this code writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// A chunk's payload is cut once it reaches this many bytes (one record may go past it).
pub const CHUNK_TARGET_BYTES: usize = 1 << 20;
/// The largest chunk payload a reader accepts (a record is never near this).
pub const MAX_CHUNK_BYTES: u32 = 64 << 20;

/// The first byte of a chunk.
pub(super) const CHUNK_TAG: u8 = b'C';
/// The first byte of the trailer.
pub(super) const TRAILER_TAG: u8 = b'T';

/// Why a backup could not be written, read, or restored.
#[derive(Debug, Error)]
pub enum BackupError {
    /// Reading or writing a file failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The failure.
        source: io::Error,
    },
    /// The file does not start as a backup does.
    #[error(
        "not a pentagrid backup (it does not start with {:?})",
        String::from_utf8_lossy(MAGIC)
    )]
    NotABackup,
    /// The file is a backup of a format version this build cannot read.
    #[error(
        "backup format version {0} is not supported (this build reads version {FORMAT_VERSION})"
    )]
    UnsupportedVersion(u32),
    /// The file ends before the backup does.
    #[error("the backup is truncated: it ends at byte {0}, inside {1}")]
    Truncated(u64, &'static str),
    /// A checksum, a count or a structure does not match: the file was damaged.
    #[error("the backup is damaged at byte {offset}: {why}")]
    Damaged {
        /// Where the damage was detected.
        offset: u64,
        /// What does not match.
        why: String,
    },
    /// The backup holds a tree this build does not know (a backup of a newer coordinator?).
    #[error("the backup holds records of a tree {0:?} this coordinator does not know")]
    UnknownTree(String),
    /// The backup's checksums hold but its records do not: restoring it would leave a
    /// database that reuses ids, miscounts, or holds tables that do not read (see
    /// [`super::validate`]).
    #[error("the backup's records are not a valid database: {0}")]
    Invalid(String),
    /// The restore target exists and is not an empty directory.
    #[error("{0} already exists and is not an empty directory: restore into a new directory")]
    TargetNotEmpty(String),
    /// The store failed while being dumped or loaded.
    #[error(transparent)]
    Store(#[from] super::super::StoreError),
}

impl BackupError {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> BackupError {
        let context = context.into();
        move |source| BackupError::Io { context, source }
    }
}

impl From<sled::Error> for BackupError {
    fn from(error: sled::Error) -> BackupError {
        BackupError::Store(error.into())
    }
}

/// What a backup's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupHeader {
    /// When the backup's point was taken, in milliseconds since the Unix epoch.
    pub created_unix_ms: u64,
    /// Every id the source handed out before the backup is below this.
    pub next_id: u64,
    /// The version of the coordinator that wrote it.
    pub coordinator_version: String,
}

/// What a whole backup holds, as its trailer records and a reader checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupSummary {
    /// The header.
    pub header: BackupHeader,
    /// Records per tree, for every tree of the backup (empty ones included).
    pub trees: BTreeMap<String, u64>,
    /// Records in all.
    pub records: u64,
    /// Chunks in all.
    pub chunks: u64,
    /// Bytes of the whole file.
    pub bytes: u64,
}

/// The length byte of a name, refused past 255 bytes.
pub(super) fn name_bytes(name: &str) -> Result<u8, BackupError> {
    u8::try_from(name.len()).map_err(|_| BackupError::Damaged {
        offset: 0,
        why: format!("name of {} bytes is too long to write", name.len()),
    })
}

/// A damage found at `offset`.
pub(super) fn damaged(offset: u64, why: impl Into<String>) -> BackupError {
    BackupError::Damaged {
        offset,
        why: why.into(),
    }
}
