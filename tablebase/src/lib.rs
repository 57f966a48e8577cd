//! `pentagrid-tablebase`: reads Geoffrey Irving's published strong solution of Pentago and
//! hands exact values to the engine through [`pentago::ExactOracle`].
//!
//! Irving's data give the value of every position of 0 to 18 stones, one file per stone count
//! ("slice"). The components:
//! - `quadrant`: his quadrant encoding (base-3 states, rotation-minimal quadrants in his order)
//!   and the board geometry that maps pentagrid's squares onto it;
//! - `slice`: one slice file: headers, block indexes, compressed blocks, all checked;
//! - `cache`: the bounded cache of decompressed blocks;
//! - [`Tablebase`]: the loaded slices (the shipped 0–6, embedded in the binary, plus a user's
//!   folder), probing a position and, through the engine's trait, every move;
//! - `counts` and `verify`: recounting a slice against `counts-N.npy` and its SHA-1.
//!
//! A damaged, truncated or foreign file, or one of the wrong slice, gives a
//! [`TablebaseError`] naming the file; nothing here panics on bad data or guesses a value.

mod cache;
mod counts;
mod error;
mod quadrant;
mod shipped;
mod slice;
mod tablebase;
mod verify;

pub use counts::{CountsTable, SectionCounts, parse_npy};
pub use error::TablebaseError;
pub use tablebase::{DEFAULT_CACHE_BYTES, MAX_SLICE, SliceInfo, Tablebase};
pub use verify::{SliceCheck, Verdict};
