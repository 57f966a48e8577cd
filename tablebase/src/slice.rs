//! One slice file (`slice-N.pentago`): its headers, block indexes and compressed blocks.
//!
//! The format (Irving's "supertensor", version 3, all little-endian):
//! - at 0, `"pentago sections   \n"`, then u32 version (3), u32 section count, u32 header
//!   size (85); then one 85-byte section header after another. (A file holding one section may
//!   instead start with the section header itself, magic `"pentago supertensor\n"`.)
//! - a section header: 20-byte magic `"pentago supertensor\n"`, u32 version, u8 valid, u32
//!   stones, 8 bytes of counts (black, white per quadrant 0..4), 4 × u16 shape (the number of
//!   rotation-minimal quadrants of each quadrant's counts), u32 block size, 4 × u16 blocks per
//!   axis (shape rounded up), u32 filter (1: interleaved), then the block index's blob:
//!   u64 uncompressed size, u64 compressed size, u64 offset.
//! - the block index decompresses to one blob per block (the 4-D block array in row-major
//!   order); each block decompresses to its entries in row-major order, 64 bytes each: for
//!   each of the 256 quadrant rotations `r = r0 + 4·r1 + 16·r2 + 64·r3`, bit `2r` says black
//!   wins and bit `2r + 1` white wins (filter 1 interleaves Irving's two 256-bit sets so).
//! - compressed data are xz (lzma) streams, or zlib where a stream lacks the xz magic.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

use crate::error::TablebaseError;
use crate::quadrant::{Geometry, Tables};

const SECTIONS_MAGIC: &[u8; 20] = b"pentago sections   \n";
const SECTION_MAGIC: &[u8; 20] = b"pentago supertensor\n";
const XZ_MAGIC: &[u8; 6] = &[0xfd, b'7', b'z', b'X', b'Z', 0];
/// Size of a section header.
const HEADER_SIZE: u64 = 85;
/// Bytes per entry: two 256-bit sets.
pub(crate) const ENTRY_BYTES: usize = 64;
/// Bytes per index blob.
const BLOB_BYTES: usize = 24;
/// Irving's reader refuses more sections than this (a slice has at most a few thousand).
const MAX_SECTIONS: u32 = 8239;
/// The largest decompressed block or index accepted (Irving's bound too).
const MAX_UNCOMPRESSED: u64 = 1 << 31;

/// Where a slice's bytes live: in the binary (the shipped slices) or in a file.
pub(crate) enum Source {
    /// Bytes embedded at compile time.
    Embedded(&'static [u8]),
    /// An open file and its length (behind a lock: reads seek).
    File(Mutex<File>, u64),
}

impl Source {
    /// The length in bytes.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Source::Embedded(bytes) => bytes.len() as u64,
            Source::File(_, len) => *len,
        }
    }

    /// Bytes `start..start + len`, checked against the file's length.
    pub(crate) fn read(
        &self,
        path: &str,
        what: &str,
        start: u64,
        len: u64,
    ) -> Result<Vec<u8>, TablebaseError> {
        let end = start.saturating_add(len);
        if end > self.len() {
            return Err(TablebaseError::Truncated {
                path: path.to_owned(),
                what: what.to_owned(),
                start,
                end,
                len: self.len(),
            });
        }
        match self {
            Source::Embedded(bytes) => Ok(bytes[start as usize..end as usize].to_vec()),
            Source::File(file, _) => {
                let mut file = file
                    .lock()
                    .map_err(|_| TablebaseError::damaged(path, "a reader panicked"))?;
                let mut buf = vec![0; len as usize];
                file.seek(SeekFrom::Start(start))
                    .and_then(|_| file.read_exact(&mut buf))
                    .map_err(|e| TablebaseError::io(path, e))?;
                Ok(buf)
            }
        }
    }
}

/// Where one compressed block (or index) lies and how large it is decompressed.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Blob {
    uncompressed: u64,
    compressed: u64,
    offset: u64,
}

impl Blob {
    fn parse(bytes: &[u8]) -> Blob {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
            u64::from_le_bytes(w)
        };
        Blob {
            uncompressed: word(0),
            compressed: word(1),
            offset: word(2),
        }
    }
}

/// One section: the positions with given stone counts per quadrant.
pub(crate) struct Section {
    /// Irving's signature: quadrant `q`'s black count in byte `2q`, white in byte `2q + 1`.
    pub sig: u64,
    /// Rotation-minimal quadrants per axis.
    pub shape: [usize; 4],
    /// Entries per block along each axis (the last block of an axis may be shorter).
    pub block_size: usize,
    /// Blocks per axis.
    pub blocks: [usize; 4],
    /// One blob per block, row-major.
    index: Vec<Blob>,
}

impl Section {
    /// The shape of block `b` (per-axis block coordinates).
    pub(crate) fn block_shape(&self, b: [usize; 4]) -> [usize; 4] {
        std::array::from_fn(|k| {
            if b[k] + 1 < self.blocks[k] {
                self.block_size
            } else {
                self.shape[k] - self.block_size * (self.blocks[k] - 1)
            }
        })
    }

    /// Number of blocks.
    pub(crate) fn block_count(&self) -> usize {
        self.index.len()
    }

    /// The per-axis coordinates of block number `flat`.
    pub(crate) fn block_coords(&self, mut flat: usize) -> [usize; 4] {
        let mut b = [0; 4];
        for k in (0..4).rev() {
            b[k] = flat % self.blocks[k];
            flat /= self.blocks[k];
        }
        b
    }

    /// The stone counts `(black, white)` of each quadrant.
    pub(crate) fn counts(&self) -> [(u8, u8); 4] {
        counts_of(self.sig)
    }
}

/// The per-quadrant counts of a signature.
pub(crate) fn counts_of(sig: u64) -> [(u8, u8); 4] {
    std::array::from_fn(|q| ((sig >> (16 * q)) as u8, (sig >> (16 * q + 8)) as u8))
}

/// The signature of per-quadrant counts.
pub(crate) fn sig_of(counts: [(u8, u8); 4]) -> u64 {
    counts
        .iter()
        .enumerate()
        .map(|(q, &(b, w))| u64::from(b) << (16 * q) | u64::from(w) << (16 * q + 8))
        .sum()
}

/// An opened slice file: every section's header and block index, read and checked.
pub(crate) struct SliceFile {
    /// Stones of every position in it.
    pub stones: u32,
    /// The file's path (or `embedded slice-N.pentago`), for messages.
    pub path: String,
    pub source: Source,
    pub sections: Vec<Section>,
    /// Section number by signature.
    by_sig: HashMap<u64, usize>,
}

impl SliceFile {
    /// Opens `source` as slice `stones`, checking every header and block index, and that the
    /// file covers every section of `stones` stones (up to the board's symmetry).
    pub(crate) fn open(
        path: &str,
        source: Source,
        stones: u32,
    ) -> Result<SliceFile, TablebaseError> {
        let head = source.read(path, "file header", 0, 32.min(source.len()))?;
        let header_offsets: Vec<u64> = if head.starts_with(SECTIONS_MAGIC) {
            if head.len() < 32 {
                return Err(TablebaseError::Truncated {
                    path: path.to_owned(),
                    what: "file header".into(),
                    start: 0,
                    end: 32,
                    len: source.len(),
                });
            }
            let word =
                |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
            let (version, count, size) = (word(20), word(24), word(28));
            if version != 3 {
                return Err(TablebaseError::Version {
                    path: path.to_owned(),
                    version,
                });
            }
            if count == 0 || count >= MAX_SECTIONS {
                return Err(TablebaseError::damaged(path, format!("{count} sections")));
            }
            if u64::from(size) != HEADER_SIZE {
                return Err(TablebaseError::damaged(
                    path,
                    format!("section header size {size}, not 85"),
                ));
            }
            (0..u64::from(count))
                .map(|s| 32 + HEADER_SIZE * s)
                .collect()
        } else if head.starts_with(SECTION_MAGIC) {
            vec![0]
        } else {
            return Err(TablebaseError::Magic {
                path: path.to_owned(),
            });
        };
        let mut sections = Vec::with_capacity(header_offsets.len());
        let mut by_sig = HashMap::new();
        for (number, offset) in header_offsets.into_iter().enumerate() {
            let section = read_section(path, &source, offset, stones, number)?;
            if by_sig.insert(section.sig, number).is_some() {
                return Err(TablebaseError::damaged(
                    path,
                    format!("section {number} repeats an earlier section"),
                ));
            }
            sections.push(section);
        }
        let slice = SliceFile {
            stones,
            path: path.to_owned(),
            source,
            sections,
            by_sig,
        };
        slice.check_complete()?;
        Ok(slice)
    }

    /// The section number of signature `sig`, if the file stores it.
    #[inline]
    pub(crate) fn section_of(&self, sig: u64) -> Option<usize> {
        self.by_sig.get(&sig).copied()
    }

    /// Errs unless every section of this many stones has an image under the board's symmetry
    /// that the file stores (Irving stores one per symmetry class).
    fn check_complete(&self) -> Result<(), TablebaseError> {
        let geometry = Geometry::get();
        let black = self.stones.div_ceil(2) as u8;
        let white = (self.stones / 2) as u8;
        let (mut total, mut missing) = (0, 0);
        let mut seen = std::collections::HashSet::new();
        for blacks in distributions(black) {
            for whites in distributions(white) {
                if (0..4).any(|q| blacks[q] + whites[q] > 9) {
                    continue;
                }
                let counts: [(u8, u8); 4] = std::array::from_fn(|q| (blacks[q], whites[q]));
                let images: Vec<u64> = (0..8)
                    .map(|g| {
                        let mut image = [(0, 0); 4];
                        for (q, &c) in counts.iter().enumerate() {
                            image[geometry.quadrant_image(g, q)] = c;
                        }
                        sig_of(image)
                    })
                    .collect();
                let class = *images.iter().min().unwrap_or(&0);
                if !seen.insert(class) {
                    continue;
                }
                total += 1;
                if !images.iter().any(|s| self.by_sig.contains_key(s)) {
                    missing += 1;
                }
            }
        }
        if missing > 0 {
            return Err(TablebaseError::MissingSections {
                path: self.path.clone(),
                stones: self.stones,
                missing,
                total,
            });
        }
        Ok(())
    }

    /// The decompressed entries of block `block` of section `section`, checked for size.
    pub(crate) fn read_block(
        &self,
        section: usize,
        block: usize,
    ) -> Result<Vec<u8>, TablebaseError> {
        let s = &self.sections[section];
        let blob = s.index[block];
        let what = format!("block {block} of section {section}");
        let compressed = self
            .source
            .read(&self.path, &what, blob.offset, blob.compressed)?;
        decompress(&self.path, &what, &compressed, blob.uncompressed)
    }
}

/// Every way to put `n` stones into four quadrants (at most 9 each).
fn distributions(n: u8) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    for a in 0..=n.min(9) {
        for b in 0..=(n - a).min(9) {
            for c in 0..=(n - a - b).min(9) {
                let d = n - a - b - c;
                if d <= 9 {
                    out.push([a, b, c, d]);
                }
            }
        }
    }
    out
}

/// Reads and checks the section header at `offset` and decompresses its block index.
fn read_section(
    path: &str,
    source: &Source,
    offset: u64,
    stones: u32,
    number: usize,
) -> Result<Section, TablebaseError> {
    let h = source.read(
        path,
        &format!("header of section {number}"),
        offset,
        HEADER_SIZE,
    )?;
    let damaged = |what: String| TablebaseError::damaged(path, format!("section {number}: {what}"));
    if &h[..20] != SECTION_MAGIC {
        return Err(damaged("bad section magic".into()));
    }
    let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
    let u16_at = |i: usize| usize::from(u16::from_le_bytes([h[i], h[i + 1]]));
    let version = u32_at(20);
    if version != 3 {
        return Err(TablebaseError::Version {
            path: path.to_owned(),
            version,
        });
    }
    if h[24] != 1 {
        return Err(damaged("marked unfinished (valid flag not set)".into()));
    }
    let header_stones = u32_at(25);
    let counts: [(u8, u8); 4] = std::array::from_fn(|q| (h[29 + 2 * q], h[30 + 2 * q]));
    let sum: u32 = counts
        .iter()
        .map(|&(b, w)| u32::from(b) + u32::from(w))
        .sum();
    if header_stones != sum {
        return Err(damaged(format!(
            "{header_stones} stones but counts summing to {sum}"
        )));
    }
    if header_stones != stones {
        return Err(TablebaseError::WrongSlice {
            path: path.to_owned(),
            expected: stones,
            found: header_stones,
        });
    }
    let (black, white): (u32, u32) = counts.iter().fold((0, 0), |(b, w), &(qb, qw)| {
        (b + u32::from(qb), w + u32::from(qw))
    });
    if black != stones.div_ceil(2) || white != stones / 2 || counts.iter().any(|&(b, w)| b + w > 9)
    {
        return Err(damaged(format!("impossible stone counts {counts:?}")));
    }
    let tables = Tables::get();
    let shape: [usize; 4] = std::array::from_fn(|q| u16_at(37 + 2 * q));
    let expected_shape: [usize; 4] =
        std::array::from_fn(|q| tables.class(counts[q].0, counts[q].1).len());
    if shape != expected_shape {
        return Err(damaged(format!(
            "shape {shape:?}, expected {expected_shape:?}"
        )));
    }
    let block_size = u32_at(45) as usize;
    if !(2..=27).contains(&block_size) || !block_size.is_multiple_of(2) {
        return Err(damaged(format!("block size {block_size}")));
    }
    let blocks: [usize; 4] = std::array::from_fn(|q| u16_at(49 + 2 * q));
    if blocks != shape.map(|n| n.div_ceil(block_size)) {
        return Err(damaged(format!(
            "block counts {blocks:?} do not fit shape {shape:?}"
        )));
    }
    let filter = u32_at(57);
    if filter != 1 {
        return Err(damaged(format!(
            "filter {filter} (this reader knows filter 1, interleaving)"
        )));
    }
    let index_blob = Blob::parse(&h[61..85]);
    let block_count: usize = blocks.iter().product();
    if index_blob.uncompressed != (BLOB_BYTES * block_count) as u64 {
        return Err(damaged(format!(
            "block index of {} bytes for {block_count} blocks",
            index_blob.uncompressed
        )));
    }
    if index_blob.compressed >= MAX_UNCOMPRESSED {
        return Err(damaged(format!(
            "block index of {} compressed bytes",
            index_blob.compressed
        )));
    }
    let what = format!("block index of section {number}");
    let compressed = source.read(path, &what, index_blob.offset, index_blob.compressed)?;
    let raw = decompress(path, &what, &compressed, index_blob.uncompressed)?;
    let section = Section {
        sig: sig_of(counts),
        shape,
        block_size,
        blocks,
        index: raw.chunks_exact(BLOB_BYTES).map(Blob::parse).collect(),
    };
    for flat in 0..block_count {
        let blob = section.index[flat];
        let entries: usize = section
            .block_shape(section.block_coords(flat))
            .iter()
            .product();
        if blob.uncompressed != (entries * ENTRY_BYTES) as u64 {
            return Err(damaged(format!(
                "block {flat} of {} bytes for {entries} entries",
                blob.uncompressed
            )));
        }
        // Checked before any read allocates a buffer of this size.
        if blob.compressed >= MAX_UNCOMPRESSED {
            return Err(damaged(format!(
                "block {flat} of {} compressed bytes",
                blob.compressed
            )));
        }
        let end = blob.offset.saturating_add(blob.compressed);
        if blob.offset == 0 || end > source.len() {
            return Err(TablebaseError::Truncated {
                path: path.to_owned(),
                what: format!("block {flat} of section {number}"),
                start: blob.offset,
                end,
                len: source.len(),
            });
        }
    }
    Ok(section)
}

/// A writer that refuses to grow past a limit (a damaged stream cannot blow memory up).
struct Limited {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for Limited {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > self.limit {
            return Err(io::Error::other("more data than the header promises"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Decompresses an xz or zlib stream that must give exactly `expected` bytes.
pub(crate) fn decompress(
    path: &str,
    what: &str,
    compressed: &[u8],
    expected: u64,
) -> Result<Vec<u8>, TablebaseError> {
    let fail = |reason: String| TablebaseError::Decompress {
        path: path.to_owned(),
        what: what.to_owned(),
        reason,
    };
    if expected >= MAX_UNCOMPRESSED {
        return Err(fail(format!("claims {expected} bytes")));
    }
    let expected = expected as usize;
    let mut out = Limited {
        buf: Vec::with_capacity(expected),
        limit: expected,
    };
    if compressed.starts_with(XZ_MAGIC) {
        lzma_rs::xz_decompress(&mut io::Cursor::new(compressed), &mut out)
            .map_err(|e| fail(format!("xz: {e}")))?;
    } else {
        let mut decoder = flate2::read::ZlibDecoder::new(compressed);
        io::copy(&mut decoder, &mut out).map_err(|e| fail(format!("zlib: {e}")))?;
    }
    if out.buf.len() != expected {
        return Err(fail(format!(
            "{} bytes, expected {expected}",
            out.buf.len()
        )));
    }
    Ok(out.buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zlib_and_size_checks() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&data).unwrap();
        let z = enc.finish().unwrap();
        assert_eq!(decompress("f", "b", &z, 1000).unwrap(), data);
        assert!(matches!(
            decompress("f", "b", &z, 999),
            Err(TablebaseError::Decompress { .. })
        ));
        assert!(matches!(
            decompress("f", "b", &z, 1001),
            Err(TablebaseError::Decompress { .. })
        ));
        assert!(decompress("f", "b", &z[..z.len() / 2], 1000).is_err());
        assert!(decompress("f", "b", &z, 1 << 40).is_err());
    }

    #[test]
    fn signatures_round_trip() {
        let counts = [(1, 2), (0, 0), (3, 1), (9, 0)];
        assert_eq!(counts_of(sig_of(counts)), counts);
        assert_eq!(sig_of([(1, 0), (0, 0), (0, 0), (0, 0)]), 1);
        assert_eq!(distributions(2).len(), 10);
    }

    #[test]
    fn foreign_bytes_are_refused() {
        let err = SliceFile::open(
            "junk",
            Source::Embedded(b"hello, this is not a slice file!!"),
            0,
        );
        assert!(matches!(err, Err(TablebaseError::Magic { .. })));
        let err = SliceFile::open("empty", Source::Embedded(b""), 0);
        assert!(matches!(err, Err(TablebaseError::Magic { .. })));
    }
}
