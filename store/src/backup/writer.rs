//! Writing a backup file (the format is documented in [`super::format`]).

use std::collections::BTreeMap;
use std::io::Write;

use super::format::{
    BackupError, BackupHeader, BackupSummary, CHUNK_TAG, CHUNK_TARGET_BYTES, END_MAGIC,
    FORMAT_VERSION, MAGIC, MAX_CHUNK_BYTES, TRAILER_TAG, name_bytes,
};

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
