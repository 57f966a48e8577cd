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
use std::io::{self, Read, Write};

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

const CHUNK_TAG: u8 = b'C';
const TRAILER_TAG: u8 = b'T';

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

fn name_bytes(name: &str) -> Result<u8, BackupError> {
    u8::try_from(name.len()).map_err(|_| BackupError::Damaged {
        offset: 0,
        why: format!("name of {} bytes is too long to write", name.len()),
    })
}

/// Writes a backup: the header, then chunks of records, then the trailer. Every byte goes
/// through the whole-file checksum.
pub struct BackupWriter<W: Write> {
    out: W,
    crc: crc32fast::Hasher,
    written: u64,
    trees: BTreeMap<String, u64>,
    order: Vec<String>,
    records: u64,
    chunks: u64,
    pending: Vec<u8>,
    pending_tree: String,
    pending_records: u32,
}

impl<W: Write> BackupWriter<W> {
    /// Starts a backup on `out` with its header.
    pub fn start(out: W, header: &BackupHeader) -> Result<BackupWriter<W>, BackupError> {
        let mut writer = BackupWriter {
            out,
            crc: crc32fast::Hasher::new(),
            written: 0,
            trees: BTreeMap::new(),
            order: Vec::new(),
            records: 0,
            chunks: 0,
            pending: Vec::new(),
            pending_tree: String::new(),
            pending_records: 0,
        };
        let mut bytes = Vec::with_capacity(64);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        bytes.extend_from_slice(&header.created_unix_ms.to_be_bytes());
        bytes.extend_from_slice(&header.next_id.to_be_bytes());
        bytes.push(name_bytes(&header.coordinator_version)?);
        bytes.extend_from_slice(header.coordinator_version.as_bytes());
        let header_crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&header_crc.to_be_bytes());
        writer.emit(&bytes)?;
        Ok(writer)
    }

    /// Begins the records of `tree` (a tree appears once, even with no records).
    pub fn begin_tree(&mut self, tree: &str) -> Result<(), BackupError> {
        self.cut()?;
        name_bytes(tree)?;
        if self.trees.insert(tree.to_owned(), 0).is_some() {
            return Err(BackupError::Damaged {
                offset: self.written,
                why: format!("tree {tree:?} written twice"),
            });
        }
        self.order.push(tree.to_owned());
        self.pending_tree = tree.to_owned();
        Ok(())
    }

    /// Adds one record of the current tree.
    pub fn record(&mut self, key: &[u8], value: &[u8]) -> Result<(), BackupError> {
        let too_big = |len: usize| len > (MAX_CHUNK_BYTES as usize) / 4;
        if too_big(key.len()) || too_big(value.len()) {
            return Err(BackupError::Damaged {
                offset: self.written,
                why: format!("a record of {} bytes is too large", key.len() + value.len()),
            });
        }
        self.pending
            .extend_from_slice(&(key.len() as u32).to_be_bytes());
        self.pending.extend_from_slice(key);
        self.pending
            .extend_from_slice(&(value.len() as u32).to_be_bytes());
        self.pending.extend_from_slice(value);
        self.pending_records += 1;
        *self.trees.get_mut(&self.pending_tree).expect("begun") += 1;
        self.records += 1;
        if self.pending.len() >= CHUNK_TARGET_BYTES {
            self.cut()?;
        }
        Ok(())
    }

    /// Writes the trailer and hands back the output with what was written.
    pub fn finish(mut self, header: BackupHeader) -> Result<(W, BackupSummary), BackupError> {
        self.cut()?;
        let mut bytes = vec![TRAILER_TAG];
        bytes.extend_from_slice(&(self.order.len() as u32).to_be_bytes());
        for tree in &self.order {
            bytes.push(name_bytes(tree)?);
            bytes.extend_from_slice(tree.as_bytes());
            bytes.extend_from_slice(&self.trees[tree].to_be_bytes());
        }
        bytes.extend_from_slice(&self.records.to_be_bytes());
        bytes.extend_from_slice(&self.chunks.to_be_bytes());
        self.emit(&bytes)?;
        let file_crc = self.crc.clone().finalize();
        let mut end = file_crc.to_be_bytes().to_vec();
        end.extend_from_slice(END_MAGIC);
        self.emit(&end)?;
        self.out
            .flush()
            .map_err(BackupError::io("writing the backup"))?;
        let summary = BackupSummary {
            header,
            trees: self.trees,
            records: self.records,
            chunks: self.chunks,
            bytes: self.written,
        };
        Ok((self.out, summary))
    }

    /// Writes the pending records as one chunk, if there are any.
    fn cut(&mut self) -> Result<(), BackupError> {
        if self.pending_records == 0 {
            return Ok(());
        }
        let mut head = vec![CHUNK_TAG, name_bytes(&self.pending_tree)?];
        head.extend_from_slice(self.pending_tree.as_bytes());
        head.extend_from_slice(&self.pending_records.to_be_bytes());
        head.extend_from_slice(&(self.pending.len() as u32).to_be_bytes());
        let mut chunk_crc = crc32fast::Hasher::new();
        chunk_crc.update(&head);
        chunk_crc.update(&self.pending);
        let payload = std::mem::take(&mut self.pending);
        self.emit(&head)?;
        self.emit(&payload)?;
        self.emit(&chunk_crc.finalize().to_be_bytes())?;
        self.pending = payload;
        self.pending.clear();
        self.pending_records = 0;
        self.chunks += 1;
        Ok(())
    }

    fn emit(&mut self, bytes: &[u8]) -> Result<(), BackupError> {
        self.out
            .write_all(bytes)
            .map_err(BackupError::io("writing the backup"))?;
        self.crc.update(bytes);
        self.written += bytes.len() as u64;
        Ok(())
    }
}

/// One chunk as read back: its tree and its records, checked against the chunk's CRC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The tree.
    pub tree: String,
    /// Key and value of each record.
    pub records: Vec<(Vec<u8>, Vec<u8>)>,
}

/// Reads a backup through, checking everything; see the module documentation.
pub struct BackupReader<R: Read> {
    input: R,
    crc: crc32fast::Hasher,
    offset: u64,
    header: BackupHeader,
    trees: BTreeMap<String, u64>,
    records: u64,
    chunks: u64,
    summary: Option<BackupSummary>,
}

impl<R: Read> BackupReader<R> {
    /// Reads and checks the header.
    pub fn open(input: R) -> Result<BackupReader<R>, BackupError> {
        let mut reader = BackupReader {
            input,
            crc: crc32fast::Hasher::new(),
            offset: 0,
            header: BackupHeader {
                created_unix_ms: 0,
                next_id: 0,
                coordinator_version: String::new(),
            },
            trees: BTreeMap::new(),
            records: 0,
            chunks: 0,
            summary: None,
        };
        let mut header_crc = crc32fast::Hasher::new();
        let magic = reader.take(8, "the header")?;
        if magic != MAGIC {
            return Err(BackupError::NotABackup);
        }
        header_crc.update(&magic);
        let version = reader.take(4, "the header")?;
        header_crc.update(&version);
        let version = u32::from_be_bytes(version.try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(BackupError::UnsupportedVersion(version));
        }
        let numbers = reader.take(16, "the header")?;
        header_crc.update(&numbers);
        let len = reader.take(1, "the header")?;
        header_crc.update(&len);
        let name = reader.take(usize::from(len[0]), "the header")?;
        header_crc.update(&name);
        let at = reader.offset;
        let stored = reader.stored_crc("the header")?;
        if stored != header_crc.finalize() {
            return Err(damaged(at, "the header's checksum does not match"));
        }
        reader.header = BackupHeader {
            created_unix_ms: u64::from_be_bytes(numbers[..8].try_into().expect("8 bytes")),
            next_id: u64::from_be_bytes(numbers[8..].try_into().expect("8 bytes")),
            coordinator_version: String::from_utf8(name)
                .map_err(|_| damaged(at, "the coordinator version is not UTF-8"))?,
        };
        Ok(reader)
    }

    /// The header (checked).
    #[must_use]
    pub fn header(&self) -> &BackupHeader {
        &self.header
    }

    /// The next chunk, checked against its CRC; `None` once the trailer was read and checked
    /// (see [`BackupReader::summary`]).
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, BackupError> {
        if self.summary.is_some() {
            return Ok(None);
        }
        let at = self.offset;
        let tag = self.take(1, "a chunk")?[0];
        match tag {
            CHUNK_TAG => self.chunk(at).map(Some),
            TRAILER_TAG => {
                self.trailer(at)?;
                Ok(None)
            }
            other => Err(damaged(
                at,
                format!("expected a chunk or the trailer, found byte {other:#04x}"),
            )),
        }
    }

    /// What the backup holds, once [`BackupReader::next_chunk`] returned `None`.
    #[must_use]
    pub fn summary(&self) -> Option<&BackupSummary> {
        self.summary.as_ref()
    }

    fn chunk(&mut self, at: u64) -> Result<Chunk, BackupError> {
        let mut chunk_crc = crc32fast::Hasher::new();
        chunk_crc.update(&[CHUNK_TAG]);
        let len = self.take(1, "a chunk")?;
        chunk_crc.update(&len);
        let name = self.take(usize::from(len[0]), "a chunk")?;
        chunk_crc.update(&name);
        let counts = self.take(8, "a chunk")?;
        chunk_crc.update(&counts);
        let records = u32::from_be_bytes(counts[..4].try_into().expect("4 bytes"));
        let payload_len = u32::from_be_bytes(counts[4..].try_into().expect("4 bytes"));
        if payload_len > MAX_CHUNK_BYTES || u64::from(records) * 8 > u64::from(payload_len) {
            return Err(damaged(
                at,
                format!("a chunk of {records} records in {payload_len} bytes is impossible"),
            ));
        }
        let payload = self.take(payload_len as usize, "a chunk")?;
        chunk_crc.update(&payload);
        let crc_at = self.offset;
        if self.stored_crc("a chunk")? != chunk_crc.finalize() {
            return Err(damaged(crc_at, "a chunk's checksum does not match"));
        }
        let tree = String::from_utf8(name).map_err(|_| damaged(at, "a tree name is not UTF-8"))?;
        let records = split_records(&payload, records)
            .ok_or_else(|| damaged(at, "a chunk's records do not fill it exactly"))?;
        *self.trees.entry(tree.clone()).or_default() += records.len() as u64;
        self.records += records.len() as u64;
        self.chunks += 1;
        Ok(Chunk { tree, records })
    }

    fn trailer(&mut self, at: u64) -> Result<(), BackupError> {
        let entries = self.u32("the trailer")?;
        let mut listed = BTreeMap::new();
        for _ in 0..entries {
            let len = self.take(1, "the trailer")?[0];
            let name = self.take(usize::from(len), "the trailer")?;
            let name =
                String::from_utf8(name).map_err(|_| damaged(at, "a tree name is not UTF-8"))?;
            let count = self.u64("the trailer")?;
            if listed.insert(name.clone(), count).is_some() {
                return Err(damaged(
                    at,
                    format!("the trailer lists tree {name:?} twice"),
                ));
            }
        }
        let records = self.u64("the trailer")?;
        let chunks = self.u64("the trailer")?;
        let crc_at = self.offset;
        let expected = self.crc.clone().finalize();
        if u32::from_be_bytes(
            self.take_plain(4, "the trailer")?
                .try_into()
                .expect("4 bytes"),
        ) != expected
        {
            return Err(damaged(crc_at, "the whole file's checksum does not match"));
        }
        let end = self.take_plain(8, "the trailer")?;
        if end != END_MAGIC {
            return Err(damaged(crc_at + 4, "the end mark is wrong"));
        }
        let mut extra = [0u8; 1];
        match self.input.read(&mut extra) {
            Ok(0) => {}
            Ok(_) => return Err(damaged(self.offset, "bytes follow the end of the backup")),
            Err(e) => return Err(BackupError::io("reading the backup")(e)),
        }
        for (tree, count) in &self.trees {
            if listed.get(tree) != Some(count) {
                return Err(damaged(
                    at,
                    format!(
                        "tree {tree:?} holds {count} records, the trailer says {:?}",
                        listed.get(tree)
                    ),
                ));
            }
        }
        if let Some((tree, count)) = listed
            .iter()
            .find(|(tree, count)| **count != 0 && !self.trees.contains_key(*tree))
        {
            return Err(damaged(
                at,
                format!("the trailer counts {count} records of tree {tree:?}, none were read"),
            ));
        }
        if (records, chunks) != (self.records, self.chunks) {
            return Err(damaged(
                at,
                format!(
                    "the trailer counts {records} records in {chunks} chunks, {} in {} were read",
                    self.records, self.chunks
                ),
            ));
        }
        self.summary = Some(BackupSummary {
            header: self.header.clone(),
            trees: listed,
            records,
            chunks,
            bytes: self.offset,
        });
        Ok(())
    }

    /// `len` bytes, counted into the whole-file checksum.
    fn take(&mut self, len: usize, inside: &'static str) -> Result<Vec<u8>, BackupError> {
        let bytes = self.take_plain(len, inside)?;
        self.crc.update(&bytes);
        Ok(bytes)
    }

    /// `len` bytes, not counted into the whole-file checksum (the checksums themselves).
    fn take_plain(&mut self, len: usize, inside: &'static str) -> Result<Vec<u8>, BackupError> {
        let mut bytes = Vec::new();
        let read = (&mut self.input)
            .take(len as u64)
            .read_to_end(&mut bytes)
            .map_err(BackupError::io("reading the backup"))?;
        self.offset += read as u64;
        if read < len {
            return Err(BackupError::Truncated(self.offset, inside));
        }
        Ok(bytes)
    }

    fn u32(&mut self, inside: &'static str) -> Result<u32, BackupError> {
        Ok(u32::from_be_bytes(
            self.take(4, inside)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, inside: &'static str) -> Result<u64, BackupError> {
        Ok(u64::from_be_bytes(
            self.take(8, inside)?.try_into().expect("8 bytes"),
        ))
    }

    /// A header's or chunk's stored checksum (inside the whole file's).
    fn stored_crc(&mut self, inside: &'static str) -> Result<u32, BackupError> {
        self.u32(inside)
    }
}

fn damaged(offset: u64, why: impl Into<String>) -> BackupError {
    BackupError::Damaged {
        offset,
        why: why.into(),
    }
}

/// The records of a payload, if it holds exactly `count` of them.
fn split_records(payload: &[u8], count: u32) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut records = Vec::with_capacity(count as usize);
    let mut rest = payload;
    let field = |rest: &mut &[u8]| -> Option<Vec<u8>> {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_be_bytes(*len) as usize;
        if tail.len() < len {
            return None;
        }
        let (bytes, tail) = tail.split_at(len);
        *rest = tail;
        Some(bytes.to_vec())
    };
    for _ in 0..count {
        let key = field(&mut rest)?;
        let value = field(&mut rest)?;
        records.push((key, value));
    }
    rest.is_empty().then_some(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> BackupHeader {
        BackupHeader {
            created_unix_ms: 1_700_000_000_000,
            next_id: 77,
            coordinator_version: "0.1.0".into(),
        }
    }

    /// A backup of two trees, one spread over several chunks, and an empty one.
    fn sample() -> (Vec<u8>, BackupSummary) {
        let mut writer = BackupWriter::start(Vec::new(), &header()).unwrap();
        writer.begin_tree("jobs").unwrap();
        for id in 0u64..3 {
            writer.record(&id.to_be_bytes(), b"job").unwrap();
        }
        writer.begin_tree("empty").unwrap();
        writer.begin_tree("big").unwrap();
        let value = vec![7u8; 300_000];
        for id in 0u64..5 {
            writer.record(&id.to_be_bytes(), &value).unwrap();
        }
        writer.finish(header()).unwrap()
    }

    fn read_all(bytes: &[u8]) -> Result<(Vec<Chunk>, BackupSummary), BackupError> {
        let mut reader = BackupReader::open(bytes)?;
        let mut chunks = Vec::new();
        while let Some(chunk) = reader.next_chunk()? {
            chunks.push(chunk);
        }
        Ok((chunks, reader.summary().unwrap().clone()))
    }

    #[test]
    fn a_backup_reads_back_as_written_with_its_counts() {
        let (bytes, written) = sample();
        let (chunks, read) = read_all(&bytes).unwrap();
        assert_eq!(read, written);
        assert_eq!(read.bytes, bytes.len() as u64);
        assert_eq!(read.header, header());
        assert_eq!(read.records, 8);
        assert_eq!(read.trees["empty"], 0);
        assert_eq!(read.trees["big"], 5);
        // 1.5 MB of "big" records are cut into two chunks near the target size.
        assert_eq!(read.chunks, 3);
        assert_eq!(chunks[0].tree, "jobs");
        assert_eq!(
            chunks[0].records[2],
            (2u64.to_be_bytes().to_vec(), b"job".to_vec())
        );
    }

    #[test]
    fn every_flipped_byte_and_every_truncation_is_refused() {
        let (bytes, _) = sample();
        // Every byte of the small parts, and a stride through the large payloads.
        let offsets =
            (0..bytes.len()).filter(|i| *i < 200 || *i + 200 > bytes.len() || i % 4099 == 0);
        for offset in offsets {
            let mut damaged = bytes.clone();
            damaged[offset] ^= 0x20;
            assert!(read_all(&damaged).is_err(), "a flip at {offset} passed");
        }
        for len in (0..bytes.len()).filter(|i| *i < 200 || *i + 200 > bytes.len() || i % 9973 == 0)
        {
            match read_all(&bytes[..len]) {
                Err(BackupError::Truncated(..) | BackupError::NotABackup) => {}
                other => panic!("a truncation to {len} gave {other:?}"),
            }
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            read_all(&longer),
            Err(BackupError::Damaged { .. })
        ));
    }

    #[test]
    fn other_files_and_versions_are_refused_by_name() {
        assert!(matches!(
            read_all(b"hello world, not a backup"),
            Err(BackupError::NotABackup)
        ));
        let (mut bytes, _) = sample();
        bytes[11] = 2;
        assert!(matches!(
            read_all(&bytes),
            Err(BackupError::UnsupportedVersion(2))
        ));
    }

    #[test]
    fn a_damaged_length_asks_for_no_huge_allocation() {
        let (bytes, _) = sample();
        // The first chunk's payload length sits after the header, tag, name and record count.
        let header_len = 8 + 4 + 16 + 1 + 5 + 4;
        let at = header_len + 1 + 1 + 4 + 4;
        let mut damaged = bytes.clone();
        damaged[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
        let error = read_all(&damaged).unwrap_err();
        assert!(matches!(error, BackupError::Damaged { .. }), "{error}");
        assert!(error.to_string().contains("impossible"), "{error}");
    }
}
