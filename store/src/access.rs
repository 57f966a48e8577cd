//! Reading and writing the store's records: ids and counts as stored bytes, protobuf records by
//! id, move tables merged inside transactions, the running totals.

use std::collections::BTreeMap;

use prost::Message;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::error::{StoreError, abort, corrupt};
use super::table::{self, Table};
use super::{TOTALS, Totals};

/// The 8-byte big-endian number under `key` in `tree` (0 when absent); `what` names it when it
/// is not 8 bytes.
pub(crate) fn read_u64(
    tree: &sled::Tree,
    key: &[u8],
    what: &'static str,
) -> Result<u64, StoreError> {
    match tree.get(key)? {
        None => Ok(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes.as_ref())
            .map(u64::from_be_bytes)
            .map_err(|_| corrupt(what, "not 8 bytes")),
    }
}

/// Adds `deltas` into the tables of `tree`; returns how many positions were new.
pub(crate) fn merge_tables(
    tree: &TransactionalTree,
    deltas: &BTreeMap<u64, Table>,
) -> Result<u64, ConflictableTransactionError<StoreError>> {
    let mut new_positions = 0;
    for (key, delta) in deltas {
        let key = key.to_be_bytes();
        let mut current = match tree.get(key)? {
            Some(bytes) => table::decode(&bytes).ok_or_else(|| {
                ConflictableTransactionError::Abort(corrupt("move table", "bad encoding"))
            })?,
            None => {
                new_positions += 1;
                Table::new()
            }
        };
        table::merge(&mut current, delta).map_err(|table::Overflow| {
            ConflictableTransactionError::Abort(StoreError::Overflow {
                what: "move counts",
            })
        })?;
        tree.insert(&key, table::encode(&current))?;
    }
    Ok(new_positions)
}

/// Adds `n` to a stored count inside a transaction; overflow aborts the whole transaction.
pub(crate) fn add_count(
    total: &mut u64,
    n: u64,
    what: &'static str,
) -> Result<(), ConflictableTransactionError<StoreError>> {
    *total = total
        .checked_add(n)
        .ok_or(ConflictableTransactionError::Abort(StoreError::Overflow {
            what,
        }))?;
    Ok(())
}

/// The key of an entry under a parent (a match's pair, a build's position): both ids as 8
/// big-endian bytes, so a parent's entries are one key range.
pub(crate) fn pair_key(parent: u64, child: u64) -> [u8; 16] {
    let mut key = [0; 16];
    key[..8].copy_from_slice(&parent.to_be_bytes());
    key[8..].copy_from_slice(&child.to_be_bytes());
    key
}

/// An id or position key from its 8 stored bytes.
pub(crate) fn id_of(bytes: &[u8], what: &'static str) -> Result<u64, StoreError> {
    bytes
        .try_into()
        .map(u64::from_be_bytes)
        .map_err(|_| corrupt(what, "key is not 8 bytes"))
}

/// Writes a protobuf record under an id (durable at the next flush).
pub(crate) fn put_record<T: Message>(
    tree: &sled::Tree,
    id: u64,
    record: &T,
) -> Result<(), StoreError> {
    tree.insert(id.to_be_bytes(), record.encode_to_vec())?;
    Ok(())
}

/// The protobuf record under an id, if any.
pub(crate) fn get_record<T: Message + Default>(
    tree: &sled::Tree,
    id: u64,
    what: &'static str,
) -> Result<Option<T>, StoreError> {
    tree.get(id.to_be_bytes())?
        .map(|v| T::decode(v.as_ref()).map_err(|e| corrupt(what, e)))
        .transpose()
}

/// Every protobuf record of a tree keyed by id, in id order.
pub(crate) fn all_records<'a, T: Message + Default>(
    tree: &'a sled::Tree,
    what: &'static str,
) -> impl Iterator<Item = Result<(u64, T), StoreError>> + 'a {
    tree.iter().map(move |entry| {
        let (key, value) = entry?;
        let record = T::decode(value.as_ref()).map_err(|e| corrupt(what, e))?;
        Ok((id_of(&key, what)?, record))
    })
}

/// The running totals inside a transaction.
pub(crate) fn totals_in(
    meta: &TransactionalTree,
) -> Result<Totals, ConflictableTransactionError<StoreError>> {
    match meta.get(TOTALS)? {
        Some(bytes) => Totals::decode(bytes.as_ref()).map_err(abort("totals")),
        None => Ok(Totals::default()),
    }
}

/// The move table of a canonical position in `tree` (empty if none).
pub(crate) fn read_table(tree: &sled::Tree, key: u64) -> Result<Table, StoreError> {
    match tree.get(key.to_be_bytes())? {
        Some(bytes) => table::decode(&bytes).ok_or_else(|| corrupt("move table", "bad encoding")),
        None => Ok(Table::new()),
    }
}
