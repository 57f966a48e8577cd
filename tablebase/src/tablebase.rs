//! The tablebase: the loaded slices, the block cache, and probing a position.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pentago::{Color, ExactOracle, Position, Square, Value};

use crate::cache::BlockCache;
use crate::error::TablebaseError;
use crate::quadrant::{Geometry, Tables};
use crate::shipped::SHIPPED;
use crate::slice::{ENTRY_BYTES, SliceFile, Source, sig_of};

/// The block cache's default budget: 64 MiB (slices 0–6 decompressed are about 8 MB, so the
/// shipped slices stay wholly cached; a block of a large slice is at most 256 KiB).
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

/// The largest slice Irving published (positions of 18 stones).
pub const MAX_SLICE: u32 = 18;

/// Where a counts file lives, for `verify`.
enum CountsSource {
    Embedded(&'static [u8]),
    File(PathBuf),
}

/// One loaded slice with what `verify` can check it against.
struct Slice {
    file: SliceFile,
    shipped: bool,
    counts: Option<(String, CountsSource)>,
    /// The SHA-1 its publisher gives for the file, when known.
    known_sha1: Option<String>,
}

/// A summary of one loaded slice (for `pentagrid tablebase info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceInfo {
    /// Stones of its positions.
    pub stones: u32,
    /// Its file (or `embedded slice-N.pentago`).
    pub path: String,
    /// Whether it is one of the slices shipped inside pentagrid.
    pub shipped: bool,
    /// Sections stored (one per class of the board's symmetry).
    pub sections: usize,
    /// Compressed blocks.
    pub blocks: usize,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The counts file `verify` compares with, if any.
    pub counts: Option<String>,
}

/// Irving's strong solution of Pentago, as far as its slices are loaded: the exact value of
/// every position whose stone count has a slice. Cheap to share between threads (`&self`
/// probes; the cache has its own lock).
pub struct Tablebase {
    slices: BTreeMap<u32, Slice>,
    cache: Mutex<BlockCache>,
}

impl Tablebase {
    /// The slices shipped with pentagrid (0–6 stones), embedded in the binary.
    ///
    /// Embedded rather than found through the source tree at run time: 0.55 MB makes every
    /// installed binary self-contained (no data folder to lose or point at), and the data
    /// never change (Irving's published files, checked by SHA-1 in the tests).
    pub fn shipped() -> Result<Tablebase, TablebaseError> {
        let mut tablebase = Tablebase::empty();
        for (stones, &(slice, counts)) in SHIPPED.slices.iter().enumerate() {
            let stones = stones as u32;
            let name = format!("slice-{stones}.pentago");
            let path = format!("embedded {name}");
            let file = SliceFile::open(&path, Source::Embedded(slice), stones)?;
            tablebase.slices.insert(
                stones,
                Slice {
                    file,
                    shipped: true,
                    counts: Some((
                        format!("embedded counts-{stones}.npy"),
                        CountsSource::Embedded(counts),
                    )),
                    known_sha1: SHIPPED.sha1(&name),
                },
            );
        }
        Ok(tablebase)
    }

    /// A tablebase without slices (covers nothing).
    #[must_use]
    pub fn empty() -> Tablebase {
        Tablebase {
            slices: BTreeMap::new(),
            cache: Mutex::new(BlockCache::new(DEFAULT_CACHE_BYTES)),
        }
    }

    /// The same tablebase with a block cache of `bytes` (emptied).
    #[must_use]
    pub fn with_cache_budget(self, bytes: u64) -> Tablebase {
        Tablebase {
            slices: self.slices,
            cache: Mutex::new(BlockCache::new(bytes)),
        }
    }

    /// Adds every `slice-N.pentago` (N 0–18) of `folder`, each replacing a loaded slice of the
    /// same N; `counts-N.npy` and `sha1s` beside them are used by [`Tablebase::verify_slice`].
    /// Returns the slices added. Errs on a folder that cannot be read or holds no slice file,
    /// and on any slice file that is damaged, truncated, foreign or of another slice.
    pub fn add_folder(&mut self, folder: &Path) -> Result<Vec<u32>, TablebaseError> {
        let shown = folder.display().to_string();
        let entries = std::fs::read_dir(folder).map_err(|e| TablebaseError::io(&shown, e))?;
        let mut found = BTreeMap::new();
        for entry in entries {
            let entry = entry.map_err(|e| TablebaseError::io(&shown, e))?;
            let name = entry.file_name();
            if let Some(stones) = name.to_str().and_then(slice_number) {
                found.insert(stones, entry.path());
            }
        }
        if found.is_empty() {
            return Err(TablebaseError::NoSlices { path: shown });
        }
        let sha1s = match std::fs::read_to_string(folder.join("sha1s")) {
            Ok(text) => crate::counts::parse_sha1s(&text),
            Err(_) => BTreeMap::new(),
        };
        let mut added = Vec::new();
        for (stones, path) in found {
            let name = format!("slice-{stones}.pentago");
            let known = sha1s.get(&name).cloned().or_else(|| SHIPPED.sha1(&name));
            self.add_file(&path, stones, known)?;
            added.push(stones);
        }
        Ok(added)
    }

    /// Adds one slice file, whose name must be `slice-N.pentago`. Returns N.
    pub fn add_slice_file(&mut self, path: &Path) -> Result<u32, TablebaseError> {
        let shown = path.display().to_string();
        let stones = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(slice_number)
            .ok_or_else(|| {
                TablebaseError::damaged(&shown, "not named slice-N.pentago with N from 0 to 18")
            })?;
        let known = SHIPPED.sha1(&format!("slice-{stones}.pentago"));
        self.add_file(path, stones, known)?;
        Ok(stones)
    }

    fn add_file(
        &mut self,
        path: &Path,
        stones: u32,
        known_sha1: Option<String>,
    ) -> Result<(), TablebaseError> {
        let shown = path.display().to_string();
        let file = File::open(path).map_err(|e| TablebaseError::io(&shown, e))?;
        let len = file
            .metadata()
            .map_err(|e| TablebaseError::io(&shown, e))?
            .len();
        let slice = SliceFile::open(&shown, Source::File(Mutex::new(file), len), stones)?;
        let counts_path = path.with_file_name(format!("counts-{stones}.npy"));
        let counts = counts_path.is_file().then(|| {
            (
                counts_path.display().to_string(),
                CountsSource::File(counts_path),
            )
        });
        self.slices.insert(
            stones,
            Slice {
                file: slice,
                shipped: false,
                counts,
                known_sha1,
            },
        );
        // Blocks cached from a replaced slice must not answer for the new one.
        self.cache = Mutex::new(BlockCache::new(self.cache_budget()));
        Ok(())
    }

    /// The block cache's budget in bytes.
    #[must_use]
    pub fn cache_budget(&self) -> u64 {
        self.cache.lock().map_or(0, |c| c.budget())
    }

    /// Bytes of decompressed blocks cached now.
    #[must_use]
    pub fn cache_used(&self) -> u64 {
        self.cache.lock().map_or(0, |c| c.used())
    }

    /// The loaded slices, by stone count.
    #[must_use]
    pub fn slices(&self) -> Vec<SliceInfo> {
        self.slices
            .iter()
            .map(|(&stones, s)| SliceInfo {
                stones,
                path: s.file.path.clone(),
                shipped: s.shipped,
                sections: s.file.sections.len(),
                blocks: s.file.sections.iter().map(|x| x.block_count()).sum(),
                bytes: s.file.source.len(),
                counts: s.counts.as_ref().map(|(name, _)| name.clone()),
            })
            .collect()
    }

    /// Whether positions of `stones` stones are covered.
    #[must_use]
    pub fn covers(&self, stones: u32) -> bool {
        self.slices.contains_key(&stones)
    }

    /// The exact value of `position` for the side to move: `None` when no slice of its stone
    /// count is loaded. A finished game is valued by the rules.
    pub fn value(&self, position: &Position) -> Result<Option<Value>, TablebaseError> {
        if let Some(value) = Value::of_status(position.status(), position.side_to_move()) {
            return Ok(Some(value));
        }
        let stones = position.stone_count();
        let Some(slice) = self.slices.get(&stones) else {
            return Ok(None);
        };
        let Some((number, states)) = locate(&slice.file, position) else {
            // Opening checked that every section has a stored image.
            return Err(TablebaseError::damaged(
                &slice.file.path,
                "no section for a position it should hold",
            ));
        };
        let section = &slice.file.sections[number];
        let tables = Tables::get();
        let mut index = [0usize; 4];
        let mut rotation = 0usize;
        for q in 0..4 {
            let place = tables.place(states[q]);
            index[q] = usize::from(place.index);
            rotation |= usize::from(place.turns) << (2 * q);
        }
        let bs = section.block_size;
        let block = index.map(|i| i / bs);
        let local = index.map(|i| i % bs);
        let shape = section.block_shape(block);
        let flat_block = ((block[0] * section.blocks[1] + block[1]) * section.blocks[2] + block[2])
            * section.blocks[3]
            + block[3];
        let entry = ((local[0] * shape[1] + local[1]) * shape[2] + local[2]) * shape[3] + local[3];
        let data = self.block(stones, &slice.file, number, flat_block)?;
        let pair = data[entry * ENTRY_BYTES + rotation / 4] >> (2 * (rotation % 4)) & 3;
        let (mover_wins, other_wins) = match position.side_to_move() {
            Color::Black => (pair & 1, pair >> 1),
            Color::White => (pair >> 1, pair & 1),
        };
        match (mover_wins, other_wins) {
            (1, 1) => Err(TablebaseError::damaged(
                &slice.file.path,
                format!(
                    "section {number} block {flat_block} entry {entry}: both colours win at rotation {rotation}"
                ),
            )),
            (1, _) => Ok(Some(Value::Win)),
            (_, 1) => Ok(Some(Value::Loss)),
            _ => Ok(Some(Value::Draw)),
        }
    }

    /// A decompressed block, from the cache or the file.
    fn block(
        &self,
        stones: u32,
        file: &SliceFile,
        section: usize,
        block: usize,
    ) -> Result<Arc<[u8]>, TablebaseError> {
        let key = (stones, section as u32, block as u32);
        if let Some(data) = self.cache.lock().ok().and_then(|mut c| c.get(key)) {
            return Ok(data);
        }
        // Decompress without holding the lock, so other threads keep probing cached blocks.
        let data: Arc<[u8]> = file.read_block(section, block)?.into();
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(key, Arc::clone(&data));
        }
        Ok(data)
    }

    /// The slice file of `stones` stones, for checks.
    pub(crate) fn slice_parts(&self, stones: u32) -> Option<SliceParts<'_>> {
        self.slices.get(&stones).map(|s| SliceParts {
            file: &s.file,
            counts: s.counts.as_ref().map(|(name, source)| {
                let bytes = match source {
                    CountsSource::Embedded(bytes) => Ok(bytes.to_vec()),
                    CountsSource::File(path) => {
                        std::fs::read(path).map_err(|e| TablebaseError::io(name, e))
                    }
                };
                (name.as_str(), bytes)
            }),
            known_sha1: s.known_sha1.as_deref(),
        })
    }
}

/// What `verify` needs of one slice.
pub(crate) struct SliceParts<'a> {
    pub file: &'a SliceFile,
    pub counts: Option<(&'a str, Result<Vec<u8>, TablebaseError>)>,
    pub known_sha1: Option<&'a str>,
}

impl ExactOracle for Tablebase {
    type Error = TablebaseError;

    fn probe(&self, position: &Position) -> Result<Option<Value>, TablebaseError> {
        self.value(position)
    }
}

/// N of a file named `slice-N.pentago`, N from 0 to 18.
fn slice_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("slice-")?.strip_suffix(".pentago")?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&n| n <= MAX_SLICE)
}

/// Finds an image of `position` under the board's symmetry whose section the file stores:
/// the section's number and the image's four quadrant states.
fn locate(file: &SliceFile, position: &Position) -> Option<(usize, [u16; 4])> {
    let mut stones = [(0usize, 0u16); 36];
    let mut n = 0;
    for square in (0..36u8).filter_map(Square::new) {
        let digit = match position.stone_at(square) {
            Some(Color::Black) => 1,
            Some(Color::White) => 2,
            None => continue,
        };
        stones[n] = (square.index(), digit);
        n += 1;
    }
    let geometry = Geometry::get();
    for g in 0..8 {
        let mut states = [0u16; 4];
        let mut counts = [(0u8, 0u8); 4];
        for &(square, digit) in &stones[..n] {
            let (q, weight) = geometry.cell(g, square);
            let q = usize::from(q);
            states[q] += digit * weight;
            if digit == 1 {
                counts[q].0 += 1;
            } else {
                counts[q].1 += 1;
            }
        }
        if let Some(number) = file.section_of(sig_of(counts)) {
            return Some((number, states));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_names() {
        assert_eq!(slice_number("slice-0.pentago"), Some(0));
        assert_eq!(slice_number("slice-18.pentago"), Some(18));
        assert_eq!(slice_number("slice-19.pentago"), None);
        assert_eq!(slice_number("slice-.pentago"), None);
        assert_eq!(slice_number("slice-3.pentago.index"), None);
        assert_eq!(slice_number("slice-+3.pentago"), None);
    }

    #[test]
    fn empty_covers_nothing() {
        let t = Tablebase::empty();
        assert_eq!(t.value(&Position::START).unwrap(), None);
        assert!(!t.covers(0));
    }
}
