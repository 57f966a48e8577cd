//! The one check of what a backup holds, shared by `verify-backup` and `restore`, so that both
//! give the same answer: a backup whose checksums hold can still carry records a database
//! must never hold (crafted, or written by a faulty program), and restoring them would leave
//! a database that reuses ids, miscounts, or does not start.
//!
//! Rules, checked record by record as the backup streams past (nothing is kept but a few
//! counters, so a backup of any size is checked in constant memory):
//! - each tree's records come in one run, keys strictly increasing (as a backup writes them:
//!   in sled's key order), so no key appears twice;
//! - keys have their tree's length; ids (jobs, quarantine, games, matches, builds, build
//!   positions and deep solves, claims, tuning runs) are below the header's next id, which
//!   leaves at least [`ID_HEADROOM`] ids to hand out;
//! - a tuning run's record and its steps read back, and every step follows its run's record
//!   (a step of no run would never be shown or removed);
//! - move tables read back, every move is legal in its position, wins and draws together are
//!   at most the games, and the games of a table add up without passing 2^64 − 1; proven
//!   tables and leaf values read back;
//! - workers' contributions, sign tallies and key digests are keyed by a worker id (1 to
//!   [`MAX_WORKER_ID_BYTES`] bytes, no zero byte) and read back;
//! - `meta` holds only keys this coordinator writes, each readable, and its totals equal what
//!   the trees hold (positions with tables, stored games, applied results), with the playouts
//!   kept (merged less purged) at most the playouts the tables hold.

use std::collections::{BTreeMap, BTreeSet};

use pentago::{Position, PositionKey};
use prost::Message;

use super::super::integrity::{GENERATION, IDENTITY};
use super::super::records::Totals;
use super::super::{TOTALS, book, contributions, table, tallies};
use super::ID_BASE;
use super::format::{BackupError, BackupHeader};
use pentagrid_model::limits::MAX_WORKER_ID_BYTES;

/// A restored database must still be able to hand out this many ids.
pub const ID_HEADROOM: u64 = 1 << 62;

/// The checker; feed it every record in order, then [`Validator::finish`].
pub(super) struct Validator {
    next_id: u64,
    /// Trees whose run has ended.
    done: BTreeSet<String>,
    /// The tree being read, and its last key.
    current: Option<(String, Vec<u8>)>,
    /// Games through every playout table's moves (a u128 cannot overflow on 2^64 rows).
    playout_games: u128,
    totals: Option<Totals>,
    /// The last tuning run whose record was read.
    last_tune: Option<u64>,
}

fn invalid(why: impl Into<String>) -> BackupError {
    BackupError::Invalid(why.into())
}

impl Validator {
    /// Checks the header's next id.
    pub(super) fn new(header: &BackupHeader) -> Result<Validator, BackupError> {
        if header.next_id == 0 || header.next_id > u64::MAX - ID_HEADROOM {
            return Err(invalid(format!(
                "its next id {} leaves fewer than 2^62 ids to hand out (or is 0)",
                header.next_id
            )));
        }
        Ok(Validator {
            next_id: header.next_id,
            done: BTreeSet::new(),
            current: None,
            playout_games: 0,
            totals: None,
            last_tune: None,
        })
    }

    /// Checks one record of `tree`.
    pub(super) fn record(
        &mut self,
        tree: &str,
        key: &[u8],
        value: &[u8],
    ) -> Result<(), BackupError> {
        self.order(tree, key)?;
        let at = || format!("tree {tree:?}, key {}", hex(key));
        let length = |lengths: &[usize]| -> Result<(), BackupError> {
            if lengths.contains(&key.len()) {
                Ok(())
            } else {
                Err(invalid(format!(
                    "{}: a key of {} bytes, the tree's keys have {lengths:?}",
                    at(),
                    key.len()
                )))
            }
        };
        match tree {
            "jobs" | "quarantine" | "games" | "builds" | "deep_solves" | "claims" => {
                length(&[8])?;
                self.id(key, &at)?;
            }
            "matches" => {
                length(&[8, 16])?;
                self.id(key, &at)?;
            }
            "build_nodes" => {
                length(&[16])?;
                self.id(key, &at)?;
            }
            "build_deep" => {
                length(&[17])?;
                self.id(key, &at)?;
            }
            "playouts" | "game_tables" => {
                length(&[8])?;
                let games =
                    table_games(key, value).map_err(|why| invalid(format!("{}: {why}", at())))?;
                if tree == "playouts" {
                    self.playout_games += games;
                }
            }
            "proven" => {
                length(&[8])?;
                book::decode_rows(value).ok_or_else(|| {
                    invalid(format!("{}: a proven table that does not read", at()))
                })?;
            }
            "deep_leaves" => {
                length(&[8])?;
                if !matches!(value, [0 | 1 | 0xff]) {
                    return Err(invalid(format!(
                        "{}: a leaf value that is not -1, 0 or 1",
                        at()
                    )));
                }
            }
            "tunes" => {
                length(&[8, 16])?;
                self.id(key, &at)?;
                self.tune(key, value, &at)?;
            }
            "imports" => length(&[32])?,
            "on_word" => {
                // A worker id (1 to 200 bytes, no zero byte), a zero byte, a job id.
                let zero = key.len().checked_sub(9).filter(|&z| z > 0 && key[z] == 0);
                let Some(zero) = zero.filter(|&z| !key[..z].contains(&0)) else {
                    return Err(invalid(format!(
                        "{}: not a worker id, a zero byte and a job id",
                        at()
                    )));
                };
                self.id(&key[zero + 1..], &at)?;
                super::super::word::StoredWord::decode(value).map_err(|_| {
                    invalid(format!("{}: an on-word record that does not read", at()))
                })?;
            }
            "contributions" | "game_contributions" => {
                contributions::check_record(key, value, MAX_WORKER_ID_BYTES)
                    .map_err(|why| invalid(format!("{}: {why}", at())))?
            }
            "sign_tallies" | "worker_keys" => {
                if key.is_empty() || key.len() > MAX_WORKER_ID_BYTES {
                    return Err(invalid(format!("{}: not a worker id", at())));
                }
                let readable = match tree {
                    "sign_tallies" => tallies::decode(value).is_some(),
                    _ => value.len() == 32,
                };
                if !readable {
                    return Err(invalid(format!("{}: a record that does not read", at())));
                }
            }
            "meta" => self.meta(key, value)?,
            _ => {}
        }
        Ok(())
    }

    /// A tuning run's record (8-byte key) or step (16 bytes: run id ‖ iteration) reads back,
    /// and a step comes after its run's record (keys sort a run's steps right after it).
    fn tune(
        &mut self,
        key: &[u8],
        value: &[u8],
        at: &dyn Fn() -> String,
    ) -> Result<(), BackupError> {
        use super::super::tunes::{StoredTune, StoredTuneStep};
        let run = u64::from_be_bytes(key[..8].try_into().expect("keys of 8 bytes or more"));
        if key.len() == 8 {
            StoredTune::decode(value)
                .map_err(|_| invalid(format!("{}: a tuning run that does not read", at())))?;
            self.last_tune = Some(run);
            return Ok(());
        }
        StoredTuneStep::decode(value)
            .map_err(|_| invalid(format!("{}: a tuning step that does not read", at())))?;
        if self.last_tune != Some(run) {
            return Err(invalid(format!(
                "{}: a step of tuning run {run}, which the backup does not hold",
                at()
            )));
        }
        Ok(())
    }

    /// Each tree in one run, keys strictly increasing.
    fn order(&mut self, tree: &str, key: &[u8]) -> Result<(), BackupError> {
        match &mut self.current {
            Some((name, last)) if name == tree => {
                if key <= last.as_slice() {
                    let what = if key == last.as_slice() {
                        "twice"
                    } else {
                        "out of order"
                    };
                    return Err(invalid(format!(
                        "tree {tree:?} holds key {} {what}",
                        hex(key)
                    )));
                }
                key.clone_into(last);
                return Ok(());
            }
            Some((name, _)) => {
                self.done.insert(std::mem::take(name));
            }
            None => {}
        }
        if self.done.contains(tree) {
            return Err(invalid(format!(
                "the records of tree {tree:?} come in two separate runs"
            )));
        }
        self.current = Some((tree.to_owned(), key.to_vec()));
        Ok(())
    }

    /// The id in a key's first 8 bytes is below the next id.
    fn id(&self, key: &[u8], at: &dyn Fn() -> String) -> Result<(), BackupError> {
        let id = u64::from_be_bytes(key[..8].try_into().expect("keys of 8 bytes or more"));
        if id >= self.next_id {
            return Err(invalid(format!(
                "{}: id {id} is not below the backup's next id {}, so a restored database would \
                 hand it out again",
                at(),
                self.next_id
            )));
        }
        Ok(())
    }

    fn meta(&mut self, key: &[u8], value: &[u8]) -> Result<(), BackupError> {
        let readable = if key == TOTALS {
            match Totals::decode(value) {
                Ok(totals) => {
                    self.totals = Some(totals);
                    true
                }
                Err(_) => false,
            }
        } else if key == ID_BASE || key == GENERATION {
            value.len() == 8
        } else if key == IDENTITY {
            value.len() == 16
        } else if key == book::TABLE_WALK {
            value.len() <= 37
                && value.windows(2).all(|w| w[0] < w[1])
                && value.iter().all(|s| *s <= 36)
        } else {
            return Err(invalid(format!(
                "meta holds key {}, which no pentagrid writes",
                hex(key)
            )));
        };
        if readable {
            Ok(())
        } else {
            Err(invalid(format!(
                "meta key {:?} does not read",
                String::from_utf8_lossy(key)
            )))
        }
    }

    /// The checks that need every record: the totals against the trees, whose records the
    /// reader counted (`trees`, checked against the backup's trailer).
    pub(super) fn finish(&self, trees: &BTreeMap<String, u64>) -> Result<(), BackupError> {
        let totals = self.totals.unwrap_or_default();
        let count = |tree: &str| trees.get(tree).copied().unwrap_or(0);
        let equal = [
            (
                "positions with a playout table",
                totals.playout_positions,
                count("playouts"),
            ),
            (
                "positions with a game table",
                totals.game_positions,
                count("game_tables"),
            ),
            ("stored games", totals.games, count("games")),
            ("applied results", totals.results, count("results")),
        ];
        for (what, total, held) in equal {
            if total != held {
                return Err(invalid(format!(
                    "its totals count {total} {what}, its trees hold {held}"
                )));
            }
        }
        if totals.purged_playouts > totals.playouts {
            return Err(invalid(format!(
                "its totals count {} playouts purged of {} merged",
                totals.purged_playouts, totals.playouts
            )));
        }
        if u128::from(totals.kept_playouts()) > self.playout_games {
            return Err(invalid(format!(
                "its totals count {} playouts kept, its playout tables hold {}",
                totals.kept_playouts(),
                self.playout_games
            )));
        }
        Ok(())
    }
}

/// The games through a stored move table's moves, once it is checked: it reads back, its
/// key is a position, each move is legal there, wins and draws fit in the games, and the
/// games add up without passing 2^64 − 1.
fn table_games(key: &[u8], value: &[u8]) -> Result<u128, String> {
    let table = table::decode(value).ok_or("a move table that does not read")?;
    let bits = u64::from_be_bytes(key.try_into().map_err(|_| "a key that is not 8 bytes")?);
    let position = Position::from_key(PositionKey(bits))
        .map_err(|e| format!("a key that is no position ({e})"))?;
    let mut games: u64 = 0;
    for (mv, counts) in &table {
        position
            .play(*mv)
            .map_err(|e| format!("move {mv} is not legal in {position} ({e})"))?;
        if counts
            .wins
            .checked_add(counts.draws)
            .is_none_or(|sum| sum > counts.games)
        {
            return Err(format!(
                "move {mv}: {} wins and {} draws in {} games",
                counts.wins, counts.draws, counts.games
            ));
        }
        games = games
            .checked_add(counts.games)
            .ok_or("the games of its moves add up past 2^64 - 1")?;
    }
    Ok(u128::from(games))
}

/// Bytes in hex, for messages.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
