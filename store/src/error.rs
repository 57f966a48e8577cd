//! The store's one error type, and the small constructors every tree's code uses for it.

use std::path::PathBuf;

use sled::transaction::{ConflictableTransactionError, TransactionError};
use thiserror::Error;

use super::manifest::{self, ManifestError, ManifestWriteError, Shortfall};

/// A storage failure.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database reported an error (disk, corruption, lock held by another process).
    // sled's error is in the message (wire statuses carry only this text), so it is not also
    // this error's source: a chain printer would say it twice.
    #[error("database error: {0}")]
    Sled(sled::Error),
    /// Flushing to disk failed, so nothing since the last flush is known to be durable.
    #[error("could not make the database durable: {0}")]
    Durability(String),
    /// A stored value could not be read.
    #[error("corrupt {what} in the database: {why}")]
    Corrupt {
        /// Which record.
        what: &'static str,
        /// What was wrong.
        why: String,
    },
    /// sled recovered less than the manifest says was acknowledged.
    #[error(
        "the database in {} has lost data it acknowledged: {}. Restore a backup, or open it \
         accepting the loss to go on with what is left (the rest is lost for good)",
        dir.display(),
        manifest::list(shortfalls)
    )]
    DataLoss {
        /// The database directory.
        dir: PathBuf,
        /// Every fact that fell short.
        shortfalls: Vec<Shortfall>,
    },
    /// The integrity manifest cannot be read, so what was acknowledged is unknown.
    #[error(
        "the integrity manifest {} is damaged: {error}. Restore a backup, or open it \
         accepting the loss to adopt the database as it is",
        path.display()
    )]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong with it.
        error: ManifestError,
    },
    /// The manifest belongs to another database, or to an older state of this one (see
    /// [`manifest::Identity`]).
    #[error(
        "the integrity manifest {} is not this database's: {why}. It cannot vouch for what the \
         database holds. Restore a backup, or open it accepting the loss to adopt the database \
         as it is",
        path.display()
    )]
    ForeignManifest {
        /// The manifest file.
        path: PathBuf,
        /// How it differs.
        why: String,
    },
    /// sled recovered an older write generation than the manifest recorded: writes it
    /// acknowledged (of any kind: cancellations and imports change no count) are gone.
    #[error(
        "the database in {} has lost writes it acknowledged: the manifest records write \
         generation {recorded}, the database holds generation {found}. Restore a backup, or \
         open it accepting the loss to go on with what is left (the rest is lost for good)",
        dir.display()
    )]
    LostWrites {
        /// The database directory.
        dir: PathBuf,
        /// The manifest's generation.
        recorded: u64,
        /// The database's.
        found: u64,
    },
    /// The database is more than one generation past its manifest: the manifest is an older
    /// one (copied over it) and cannot vouch for what the database holds.
    #[error(
        "the integrity manifest {} is older than the database: it records write generation \
         {recorded}, the database is at generation {found}, so it cannot say what was \
         acknowledged (an older manifest copied over it?). Restore a backup, or open \
         it accepting the loss to adopt the database as it is",
        path.display()
    )]
    StaleManifest {
        /// The manifest file.
        path: PathBuf,
        /// The manifest's generation.
        recorded: u64,
        /// The database's.
        found: u64,
    },
    /// The manifest is gone, though the database has kept one (it has an identity and has
    /// committed since): whatever it vouched for cannot be checked.
    #[error(
        "the integrity manifest {} is missing, but database {identity} has kept one (it is at \
         write generation {generation}): it was deleted, so what the database acknowledged \
         cannot be checked. Restore a backup, or open it accepting the loss to adopt the \
         database as it is",
        path.display()
    )]
    MissingManifest {
        /// Where the manifest should be.
        path: PathBuf,
        /// The database's identity.
        identity: manifest::Identity,
        /// The database's write generation.
        generation: u64,
    },
    /// sled could not open its files (it reported corruption, or panicked on them).
    #[error(
        "the database files in {} are damaged and cannot be opened: {why}. Restore a backup \
         (`pentagrid restore`)",
        dir.display()
    )]
    Damaged {
        /// The database directory.
        dir: PathBuf,
        /// What sled said.
        why: String,
    },
    /// A stored count would pass 2^64 − 1: the whole request is refused and nothing stored.
    #[error("the stored {what} would pass 2^64 - 1, so nothing was stored")]
    Overflow {
        /// Which count.
        what: &'static str,
    },
}

impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> StoreError {
        StoreError::Sled(error)
    }
}

/// A transaction's failure: the error it aborted with, or the database's.
impl From<TransactionError<StoreError>> for StoreError {
    fn from(error: TransactionError<StoreError>) -> StoreError {
        match error {
            TransactionError::Abort(error) => error,
            TransactionError::Storage(error) => error.into(),
        }
    }
}

impl StoreError {
    /// Whether opening the database with the loss accepted would go on (a shortfall against
    /// the manifest, or a manifest that cannot vouch for the database): a front end says how
    /// to accept it.
    #[must_use]
    pub fn can_be_accepted(&self) -> bool {
        matches!(
            self,
            StoreError::DataLoss { .. }
                | StoreError::Manifest { .. }
                | StoreError::ForeignManifest { .. }
                | StoreError::LostWrites { .. }
                | StoreError::StaleManifest { .. }
                | StoreError::MissingManifest { .. }
        )
    }
}

impl From<ManifestWriteError> for StoreError {
    fn from(error: ManifestWriteError) -> StoreError {
        StoreError::Durability(error.to_string())
    }
}

/// A record of kind `what` that does not read, and why.
pub fn corrupt(what: &'static str, why: impl ToString) -> StoreError {
    StoreError::Corrupt {
        what,
        why: why.to_string(),
    }
}

/// Aborts a transaction over a record of kind `what` that does not read.
pub(crate) fn abort<E: ToString>(
    what: &'static str,
) -> impl Fn(E) -> ConflictableTransactionError<StoreError> {
    move |e| ConflictableTransactionError::Abort(corrupt(what, e))
}
