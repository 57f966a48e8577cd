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
//! many times it was imported (8 bytes, big-endian), so that importing the same book twice
//! (which would add its counts twice) is noticed.

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

/// Which book an import's rows come from, so that a book imported twice is noticed: one
/// import may take several calls, all with the same digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportMark {
    /// The SHA-256 digest of the whole book's rows.
    pub digest: [u8; 32],
    /// This call carries the book's first rows: a recorded digest is refused here.
    pub first: bool,
    /// This call carries its last rows: the digest is recorded with them.
    pub last: bool,
    /// Import it even if it was imported before.
    pub again: bool,
}

/// What an import did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportOutcome {
    /// The rows were added.
    Imported,
    /// Nothing was added: the book was imported before (its digest is recorded) and
    /// [`ImportMark::again`] was not set.
    SeenBefore,
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

    /// The exact value of the canonical position `key` for the side to move, with a move (in
    /// its canonical frame) that achieves it, when its stored proven values and the rules prove
    /// one (see [`super::position_value`]).
    pub fn position_value(&self, key: u64) -> Result<Option<(Value, Move)>, StoreError> {
        let Ok(position) = pentago::Position::from_key(pentago::PositionKey(key)) else {
            return Ok(None);
        };
        Ok(super::position_value(&position, &self.proven_table(key)?))
    }

    /// Adds exact move values from the tablebase (source [`ExactSource::Table`]) to the
    /// proven tables of canonical positions, and carries what they prove up the stored book,
    /// in one transaction (not yet durable). Values already stored stay.
    pub fn add_table_values(
        &self,
        tables: &[(u64, ProvenTable)],
    ) -> Result<super::propagate::Propagated, StoreError> {
        let _writing = self.writing();
        let trees = (&self.proven, &self.playouts, &self.game_tables);
        let done = trees.transaction(|(proven, playouts, game_tables)| {
            let book = super::propagate::BookTrees {
                proven,
                playouts,
                game_tables,
            };
            let mut seeds = Vec::with_capacity(tables.len());
            for (key, table) in tables {
                let mut rows = book.proven_rows(*key)?;
                if add_values(&mut rows, table, ExactSource::Table) {
                    proven.insert(&key.to_be_bytes(), encode_rows(&rows))?;
                    seeds.push(super::propagate::Seed::Table(*key));
                }
            }
            book.propagate(&seeds)
        })?;
        Ok(done)
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
    /// [`super::propagate`]).
    /// With a `mark`, a book whose digest is recorded is refused at its first call unless
    /// asked again, and the digest is recorded with its last call.
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
                let times = match imports.get(mark.digest)? {
                    Some(bytes) => <[u8; 8]>::try_from(bytes.as_ref())
                        .map(u64::from_be_bytes)
                        .map_err(super::abort("import record"))?,
                    None => 0,
                };
                if mark.first && times > 0 && !mark.again {
                    return Ok(ImportOutcome::SeenBefore);
                }
                if mark.last {
                    imports.insert(&mark.digest, &times.saturating_add(1).to_be_bytes())?;
                }
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

/// Test set-up shared by the book's, the builder's and the deep solves' tests.
#[cfg(test)]
impl Store {
    /// Imports `entry` as the tables of `position` (its key as given: callers pass canonical
    /// positions).
    pub(crate) fn import_one(&self, position: &pentago::Position, entry: BookEntry) {
        self.import(&BTreeMap::from([(position.key().bits(), entry)]), None)
            .expect("import");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
