//! Reading a backup file through and checking it (the format is documented in
//! [`super::format`]).

use std::collections::BTreeMap;
use std::io::Read;

use super::format::{
    BackupError, BackupHeader, BackupSummary, CHUNK_TAG, END_MAGIC, FORMAT_VERSION, MAGIC,
    MAX_CHUNK_BYTES, TRAILER_TAG, damaged,
};

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
    use crate::backup::BackupWriter;

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
