//! The opening book's own records: exact values of late positions (`proven`), book builds
//! (`builds`) and the positions each build has queued (`build_nodes`), plus paging through all
//! stored tables for export and merging imported rows.
//!
//! Stable formats. `proven`: key = canonical position key (8 bytes, big-endian); value = one
//! version byte, then rows sorted by move. Version 2 (written since exact values name their
//! source): 4-byte rows — the move's packed index in the canonical frame (u16, big-endian), its
//! exact value for the mover as an i8 (1 win, 0 draw, -1 loss), and the value's source as one
//! byte ([`ExactSource::code`]: 1 table, 2 solver, 3 propagated, 4 imported, 5 unrecorded).
//! Version 1 (older databases, still read): 3-byte rows, the same without the source, read as
//! [`ExactSource::Unrecorded`]; a row written again is written as version 2.
//! `build_nodes`: key = build id ‖ canonical position key (16 bytes), empty value.
//! `imports`: key = the SHA-256 digest of an imported book's rows (32 bytes); value = how
//! many times it was imported (u64, big-endian), so that importing the same book twice
//! (which would add its counts twice) is noticed; while an import of it is under way (some of
//! its calls applied, not the last) also the next part expected and the number of parts (two
//! u32, big-endian: 16 bytes in all), so that a retry after a failure skips the parts already
//! applied instead of adding them twice. Records of 8 bytes (older databases) have no import
//! under way.
//! `meta` key `table_walk`: the stone counts (one byte each, ascending) of the tablebase slices
//! with which a walk over the whole stored book last gave every position its table values;
//! absent when no walk finished since the coordinator last ran without that tablebase.

use std::collections::BTreeMap;

use pentago::{Move, Value};
use pentagrid_model::ExactSource;
use prost::Message;
use sled::Transactional;

use super::records::StoredBuild;
use super::table::Table;
use super::{
    Store, StoreError, TOTALS, add_count, all_records, corrupt, get_record, id_of, pair_key,
    put_record, totals_in,
};
use crate::build_record::Build;

/// Which book an import's rows come from, and which of its calls this is, so that a book
/// imported twice is noticed and an import retried after a failure adds no part twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportMark {
    /// The SHA-256 digest of the whole book's rows.
    pub digest: [u8; 32],
    /// Which call of the book this is, from 0.
    pub part: u32,
    /// How many calls carry the book (above `part`).
    pub parts: u32,
    /// Import it even if it was imported before.
    pub again: bool,
}

/// What an import did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportOutcome {
    /// The rows were added.
    Imported,
    /// Nothing was added: an earlier, interrupted import of the same book applied this part
    /// already (a retry goes on from where that one stopped).
    AlreadyApplied,
    /// Nothing was added: the book was imported before (its digest is recorded) and
    /// [`ImportMark::again`] was not set.
    SeenBefore,
    /// Nothing was added: the import of this book under way expects another part next, or
    /// was cut into another number of parts.
    OutOfOrder {
        /// The part expected next.
        expected: u32,
        /// The parts of the import under way.
        parts: u32,
    },
}

/// A digest's record in the `imports` tree: completed imports, and the import under way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ImportRecord {
    /// Completed imports of the book.
    times: u64,
    /// The import under way: (next part expected, parts), none when no part is applied.
    under_way: Option<(u32, u32)>,
}

impl ImportRecord {
    fn decode(bytes: &[u8]) -> Option<ImportRecord> {
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        let times = u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
        match bytes.len() {
            8 => Some(ImportRecord {
                times,
                under_way: None,
            }),
            16 => Some(ImportRecord {
                times,
                under_way: Some((word(8)?, word(12)?)),
            }),
            _ => None,
        }
    }

    fn encode(self) -> Vec<u8> {
        let mut bytes = self.times.to_be_bytes().to_vec();
        if let Some((next, parts)) = self.under_way {
            bytes.extend(next.to_be_bytes());
            bytes.extend(parts.to_be_bytes());
        }
        bytes
    }

    /// What a call marked `mark` does to a book with this record, and the record after it
    /// (when its rows are added).
    fn admit(self, mark: &ImportMark) -> Result<ImportRecord, ImportOutcome> {
        let next = match self.under_way {
            Some((next, parts)) if parts != mark.parts => {
                return Err(ImportOutcome::OutOfOrder {
                    expected: next,
                    parts,
                });
            }
            Some((next, _)) if mark.part < next => return Err(ImportOutcome::AlreadyApplied),
            Some((next, _)) => next,
            None if mark.part == 0 && self.times > 0 && !mark.again => {
                return Err(ImportOutcome::SeenBefore);
            }
            None => 0,
        };
        if mark.part != next {
            return Err(ImportOutcome::OutOfOrder {
                expected: next,
                parts: mark.parts,
            });
        }
        Ok(if mark.part + 1 >= mark.parts {
            ImportRecord {
                times: self.times.saturating_add(1),
                under_way: None,
            }
        } else {
            ImportRecord {
                times: self.times,
                under_way: Some((mark.part + 1, mark.parts)),
            }
        })
    }
}

/// Exact values of a position's moves (canonical frame).
pub type ProvenTable = BTreeMap<Move, Value>;

/// One stored exact move value and where it came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Proven {
    /// The value for the mover.
    pub value: Value,
    /// Its source.
    pub source: ExactSource,
}

/// A position's stored exact move values with their sources (canonical frame): the `proven`
/// tree's records.
pub type ProvenRows = BTreeMap<Move, Proven>;

/// The `meta` key of the last finished walk that gave the book its table values.
pub(super) const TABLE_WALK: &[u8] = b"table_walk";

/// The version of [`encode_proven`]'s bytes (a claim's values; the `proven` tree's version 1).
const PROVEN_VERSION: u8 = 1;
/// The version of [`encode_rows`]'s bytes.
const ROWS_VERSION: u8 = 2;

/// The values of `rows`, without their sources.
#[must_use]
pub fn values_of(rows: &ProvenRows) -> ProvenTable {
    rows.iter().map(|(mv, p)| (*mv, p.value)).collect()
}

/// Adds `table`'s values to `rows` as coming from `source`, where `rows` has no value for the
/// move yet: exact values never change, so a stored one stays (one that disagrees is logged,
/// as a wrong claim that got through somewhere). Returns whether anything was added.
pub fn add_values(rows: &mut ProvenRows, table: &ProvenTable, source: ExactSource) -> bool {
    let mut added = false;
    for (&mv, &value) in table {
        match rows.get(&mv) {
            Some(stored) if stored.value != value => tracing::error!(
                mv = %mv,
                stored = stored.value.as_i8(),
                stored_source = %stored.source,
                new = value.as_i8(),
                new_source = %source,
                "a stored exact value contradicts a new one; kept"
            ),
            Some(_) => {}
            None => {
                rows.insert(mv, Proven { value, source });
                added = true;
            }
        }
    }
    added
}

/// `table`'s values, all from `source`.
#[must_use]
pub fn rows_of(table: &ProvenTable, source: ExactSource) -> ProvenRows {
    table
        .iter()
        .map(|(mv, value)| {
            let value = *value;
            (*mv, Proven { value, source })
        })
        .collect()
}

/// The stored bytes of a position's proven rows (version 2).
#[must_use]
pub fn encode_rows(rows: &ProvenRows) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 4 * rows.len());
    out.push(ROWS_VERSION);
    for (mv, proven) in rows {
        out.extend_from_slice(&mv.index().to_be_bytes());
        out.push(proven.value.as_i8() as u8);
        out.push(proven.source.code());
    }
    out
}

/// A position's proven rows from their stored bytes (version 1 or 2); `None` if they are not
/// any.
#[must_use]
pub fn decode_rows(bytes: &[u8]) -> Option<ProvenRows> {
    match *bytes.first()? {
        PROVEN_VERSION => Some(
            decode_proven(bytes)?
                .into_iter()
                .map(|(mv, value)| {
                    let source = ExactSource::Unrecorded;
                    (mv, Proven { value, source })
                })
                .collect(),
        ),
        ROWS_VERSION => {
            let rows = &bytes[1..];
            if !rows.len().is_multiple_of(4) {
                return None;
            }
            rows.chunks_exact(4)
                .map(|row| {
                    let mv = Move::from_index(u16::from_be_bytes([row[0], row[1]]))?;
                    let value = Value::try_from(row[2] as i8).ok()?;
                    let source = ExactSource::of_code(row[3])?;
                    Some((mv, Proven { value, source }))
                })
                .collect()
        }
        _ => None,
    }
}

/// The stored bytes of a proven table in version 1 (a cross-check claim's values).
#[must_use]
pub fn encode_proven(table: &ProvenTable) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 3 * table.len());
    out.push(PROVEN_VERSION);
    for (mv, value) in table {
        out.extend_from_slice(&mv.index().to_be_bytes());
        out.push(value.as_i8() as u8);
    }
    out
}

/// A proven table from its bytes; `None` if they are not one.
#[must_use]
pub fn decode_proven(bytes: &[u8]) -> Option<ProvenTable> {
    let (&version, rows) = bytes.split_first()?;
    if version != PROVEN_VERSION || rows.len() % 3 != 0 {
        return None;
    }
    rows.chunks_exact(3)
        .map(|row| {
            let mv = Move::from_index(u16::from_be_bytes([row[0], row[1]]))?;
            let value = Value::try_from(row[2] as i8).ok()?;
            Some((mv, value))
        })
        .collect()
}

/// Every stored fact about one canonical position, as exported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BookEntry {
    /// Playout table.
    pub playouts: Table,
    /// Game table.
    pub games: Table,
    /// Exact values, with their sources (an imported row's is [`ExactSource::Imported`],
    /// whatever the file says, unless the importer's own tablebase gives the value).
    pub proven: ProvenRows,
}

impl Store {
    /// The proven table of a canonical position (empty if none).
    pub fn proven_table(&self, key: u64) -> Result<ProvenTable, StoreError> {
        Ok(values_of(&self.proven_rows(key)?))
    }

    /// The proven rows of a canonical position, with their sources (empty if none).
    pub fn proven_rows(&self, key: u64) -> Result<ProvenRows, StoreError> {
        match self.proven.get(key.to_be_bytes())? {
            Some(bytes) => {
                decode_rows(&bytes).ok_or_else(|| corrupt("proven table", "bad encoding"))
            }
            None => Ok(ProvenRows::new()),
        }
    }

    /// The slices (their stone counts) with which a walk over the whole book last gave every
    /// stored position its table values, if one finished since the book last grew without
    /// them.
    pub fn table_walk(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.meta.get(TABLE_WALK)?.map(|bytes| bytes.to_vec()))
    }

    /// Records that a walk with the slices `stones` finished, or (`None`) that the book may
    /// hold positions without their table values. Not yet durable.
    pub fn set_table_walk(&self, stones: Option<&[u8]>) -> Result<(), StoreError> {
        let _writing = self.writing();
        match stones {
            Some(stones) => self.meta.insert(TABLE_WALK, stones).map(drop)?,
            None => self.meta.remove(TABLE_WALK).map(drop)?,
        }
        Ok(())
    }

    /// Writes a build record (durable at the next flush).
    pub fn put_build(&self, id: u64, build: &Build) -> Result<(), StoreError> {
        let _writing = self.writing();
        put_record(&self.builds, id, &StoredBuild::from(build))
    }

    /// A build record.
    pub fn build(&self, id: u64) -> Result<Option<Build>, StoreError> {
        Ok(get_record::<StoredBuild>(&self.builds, id, "build")?.map(Build::from))
    }

    /// Every build, by id.
    pub fn builds(&self) -> Result<Vec<(u64, Build)>, StoreError> {
        all_records::<StoredBuild>(&self.builds, "build")
            .map(|entry| entry.map(|(id, stored)| (id, Build::from(stored))))
            .collect()
    }

    /// Whether build `build` has queued the canonical position `key`.
    pub fn build_has(&self, build: u64, key: u64) -> Result<bool, StoreError> {
        Ok(self.build_nodes.contains_key(pair_key(build, key))?)
    }

    /// Records that build `build` queued these positions, with its updated record.
    pub fn add_build_nodes(
        &self,
        build: u64,
        keys: &[u64],
        record: &Build,
    ) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        for &key in keys {
            batch.insert(&pair_key(build, key), &[]);
        }
        let _writing = self.writing();
        self.build_nodes.apply_batch(batch)?;
        put_record(&self.builds, build, &StoredBuild::from(record))
    }

    /// The keys of up to `limit` positions with any stored table, in key order from `from` on
    /// (inclusive).
    pub fn book_keys(&self, from: u64, limit: usize) -> Result<Vec<u64>, StoreError> {
        let start = from.to_be_bytes();
        let mut keys = Vec::new();
        for tree in [&self.playouts, &self.game_tables, &self.proven] {
            for entry in tree.range(start..).keys().take(limit) {
                keys.push(id_of(&entry?, "position key")?);
            }
        }
        keys.sort_unstable();
        keys.dedup();
        keys.truncate(limit);
        Ok(keys)
    }

    /// Up to `limit` positions with any stored table, in key order from `from` on (inclusive).
    pub fn book_entries(
        &self,
        from: u64,
        limit: usize,
    ) -> Result<Vec<(u64, BookEntry)>, StoreError> {
        self.book_keys(from, limit)?
            .into_iter()
            .map(|key| {
                Ok((
                    key,
                    BookEntry {
                        playouts: self.playout_table(key)?,
                        games: self.game_table(key)?,
                        proven: self.proven_rows(key)?,
                    },
                ))
            })
            .collect()
    }

    /// Adds imported rows: counts add to the stored tables, proven values replace stored ones.
    /// One transaction; not yet durable. Imported exact values are stored as given and not
    /// propagated (an exported book already carries the values propagation gave it; see
    /// the `propagate` module).
    /// With a `mark`, a book whose digest is recorded is refused at its first call unless
    /// asked again, each applied part is recorded with its rows (a retry skips it), and the
    /// digest's count grows with the last.
    pub fn import(
        &self,
        entries: &BTreeMap<u64, BookEntry>,
        mark: Option<&ImportMark>,
    ) -> Result<ImportOutcome, StoreError> {
        let _writing = self.writing();
        let trees = (
            &self.playouts,
            &self.game_tables,
            &self.proven,
            &self.meta,
            &self.imports,
        );
        let outcome = trees.transaction(|(playouts, game_tables, proven, meta, imports)| {
            if let Some(mark) = mark {
                let record = match imports.get(mark.digest)? {
                    Some(bytes) => ImportRecord::decode(&bytes).ok_or_else(|| {
                        super::abort("import record")(format!("{} bytes", bytes.len()))
                    })?,
                    None => ImportRecord::default(),
                };
                let after = match record.admit(mark) {
                    Ok(after) => after,
                    Err(outcome) => return Ok(outcome),
                };
                imports.insert(&mark.digest, after.encode())?;
            }
            let mut totals = totals_in(meta)?;
            let playout_deltas: BTreeMap<u64, Table> = entries
                .iter()
                .filter(|(_, e)| !e.playouts.is_empty())
                .map(|(k, e)| (*k, e.playouts.clone()))
                .collect();
            let game_deltas: BTreeMap<u64, Table> = entries
                .iter()
                .filter(|(_, e)| !e.games.is_empty())
                .map(|(k, e)| (*k, e.games.clone()))
                .collect();
            let new_positions = super::merge_tables(playouts, &playout_deltas)?;
            add_count(
                &mut totals.playout_positions,
                new_positions,
                "playout positions",
            )?;
            let new_positions = super::merge_tables(game_tables, &game_deltas)?;
            add_count(&mut totals.game_positions, new_positions, "game positions")?;
            for counts in playout_deltas.values().flat_map(|t| t.values()) {
                add_count(&mut totals.playouts, counts.games, "playout total")?;
            }
            for (key, entry) in entries.iter().filter(|(_, e)| !e.proven.is_empty()) {
                let key = key.to_be_bytes();
                let mut current = match proven.get(key)? {
                    Some(bytes) => decode_rows(&bytes).unwrap_or_default(),
                    None => ProvenRows::new(),
                };
                current.extend(entry.proven.iter().map(|(m, p)| (*m, *p)));
                proven.insert(&key, encode_rows(&current))?;
            }
            meta.insert(TOTALS, totals.encode_to_vec())?;
            Ok(ImportOutcome::Imported)
        });
        Ok(outcome?)
    }
}

/// Test set-up shared by the book's, the builder's and the deep solves' tests (the
/// coordinator's tests reach it through the `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
impl Store {
    /// Imports `entry` as the tables of `position` (its key as given: callers pass canonical
    /// positions).
    ///
    /// # Panics
    ///
    /// When the import fails: for tests only.
    pub fn import_one(&self, position: &pentago::Position, entry: BookEntry) {
        self.import(&BTreeMap::from([(position.key().bits(), entry)]), None)
            .expect("import");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Counts;

    #[test]
    fn proven_tables_round_trip() {
        let table = ProvenTable::from([
            (Move::from_index(3).unwrap(), Value::Win),
            (Move::from_index(9).unwrap(), Value::Loss),
        ]);
        let bytes = encode_proven(&table);
        assert_eq!(bytes.len(), 7);
        assert_eq!(decode_proven(&bytes), Some(table));
        assert_eq!(decode_proven(&[1, 0, 3, 5]), None);
        assert_eq!(decode_proven(&[2]), None);
    }

    #[test]
    fn proven_rows_keep_their_sources_and_old_records_still_read() {
        let (a, b) = (Move::from_index(3).unwrap(), Move::from_index(9).unwrap());
        let old = ProvenTable::from([(a, Value::Win), (b, Value::Loss)]);
        // A version-1 record (an older database) reads with its sources unrecorded.
        let read = decode_rows(&encode_proven(&old)).unwrap();
        assert_eq!(values_of(&read), old);
        assert!(read.values().all(|p| p.source == ExactSource::Unrecorded));
        // New values join with their source; stored ones stay, even when they disagree.
        let mut rows = read;
        let c = Move::from_index(20).unwrap();
        let new = ProvenTable::from([(a, Value::Loss), (c, Value::Draw)]);
        assert!(add_values(&mut rows, &new, ExactSource::Table));
        assert!(!add_values(&mut rows, &new, ExactSource::Table));
        assert_eq!(rows[&a].value, Value::Win);
        let draw = Proven {
            value: Value::Draw,
            source: ExactSource::Table,
        };
        assert_eq!(rows[&c], draw);
        let bytes = encode_rows(&rows);
        assert_eq!((bytes[0], bytes.len()), (2, 13));
        assert_eq!(decode_rows(&bytes), Some(rows));
        // A bad source code, a short row or an unknown version do not read.
        assert_eq!(decode_rows(&[2, 0, 3, 1, 9]), None);
        assert_eq!(decode_rows(&[2, 0, 3, 1]), None);
        assert_eq!(decode_rows(&[3]), None);
        assert_eq!(decode_rows(&[]), None);
    }

    fn mark(part: u32, parts: u32, again: bool) -> ImportMark {
        ImportMark {
            digest: [7; 32],
            part,
            parts,
            again,
        }
    }

    #[test]
    fn import_records_admit_parts_in_order_once() {
        let fresh = ImportRecord::default();
        let half = fresh.admit(&mark(0, 3, false)).unwrap();
        assert_eq!(half.under_way, Some((1, 3)));
        // A retry from the start skips what was applied; a gap or other cut is refused.
        assert_eq!(
            half.admit(&mark(0, 3, false)),
            Err(ImportOutcome::AlreadyApplied)
        );
        let out_of_order = ImportOutcome::OutOfOrder {
            expected: 1,
            parts: 3,
        };
        assert_eq!(half.admit(&mark(2, 3, false)), Err(out_of_order));
        assert_eq!(half.admit(&mark(1, 2, false)), Err(out_of_order));
        let done = half
            .admit(&mark(1, 3, false))
            .and_then(|r| r.admit(&mark(2, 3, false)))
            .unwrap();
        assert_eq!(
            done,
            ImportRecord {
                times: 1,
                under_way: None
            }
        );
        assert_eq!(
            done.admit(&mark(0, 3, false)),
            Err(ImportOutcome::SeenBefore)
        );
        assert_eq!(done.admit(&mark(0, 1, true)).unwrap().times, 2);
        // A book's first call must be part 0.
        let expected = ImportOutcome::OutOfOrder {
            expected: 0,
            parts: 3,
        };
        assert_eq!(fresh.admit(&mark(1, 3, false)), Err(expected));
        // Both record sizes round-trip; an 8-byte record (older databases) has nothing under
        // way; other sizes do not read.
        for record in [half, done] {
            assert_eq!(ImportRecord::decode(&record.encode()), Some(record));
        }
        assert_eq!(done.encode().len(), 8);
        assert_eq!(ImportRecord::decode(&[0; 12]), None);
    }

    #[test]
    fn an_interrupted_import_retried_from_the_start_adds_each_part_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let parts: Vec<BTreeMap<u64, BookEntry>> = (1..=3u64)
            .map(|key| {
                let mut playouts = Table::new();
                playouts.insert(
                    Move::from_index(0).unwrap(),
                    Counts {
                        games: 10 * key,
                        wins: key,
                        draws: 0,
                    },
                );
                BTreeMap::from([(
                    key,
                    BookEntry {
                        playouts,
                        ..BookEntry::default()
                    },
                )])
            })
            .collect();
        let import = |part: u32| store.import(&parts[part as usize], Some(&mark(part, 3, false)));
        // The first attempt stops after two parts; the retry sends all three.
        assert_eq!(import(0).unwrap(), ImportOutcome::Imported);
        assert_eq!(import(1).unwrap(), ImportOutcome::Imported);
        let retry: Vec<_> = (0..3).map(|part| import(part).unwrap()).collect();
        assert_eq!(
            retry,
            [
                ImportOutcome::AlreadyApplied,
                ImportOutcome::AlreadyApplied,
                ImportOutcome::Imported
            ]
        );
        for key in 1..=3u64 {
            let games: u64 = store
                .playout_table(key)
                .unwrap()
                .values()
                .map(|c| c.games)
                .sum();
            assert_eq!(games, 10 * key, "position {key}");
        }
        assert_eq!(import(0).unwrap(), ImportOutcome::SeenBefore);
    }
}
