//! The errors of the embedded cluster and of backups: the client library's own errors, plus
//! the coordinator's (its database, its server, the backup format) that only this crate meets.

use pentagrid_client::ClientError;
use pentagrid_edge::ServeError;
use pentagrid_store::StoreError;
use pentagrid_store::backup::BackupError;
use thiserror::Error;

/// Why starting or stopping an embedded cluster, or a backup, failed.
#[derive(Debug, Error)]
pub enum EmbeddedError {
    /// A client call failed (refusals keep their typed reason, [`ClientError::reason`]).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The embedded cluster's database could not be opened.
    #[error("opening the database in {path}")]
    Database {
        /// The database directory.
        path: String,
        /// The failure.
        source: StoreError,
    },
    /// A backup file could not be read, is damaged, or could not be restored.
    #[error("{path}: {source}")]
    Backup {
        /// The backup file.
        path: String,
        /// What went wrong.
        source: BackupError,
    },
    /// The embedded coordinator failed.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// An external engine of the workers does not work.
    #[error(transparent)]
    Engine(Box<pentagrid_worker::engines::EngineStartError>),
}

impl From<tonic::Status> for EmbeddedError {
    fn from(status: tonic::Status) -> EmbeddedError {
        EmbeddedError::Client(ClientError::Rpc(status))
    }
}

impl EmbeddedError {
    /// The client library's error inside, when this is one.
    #[must_use]
    pub fn client_error(&self) -> Option<&ClientError> {
        match self {
            EmbeddedError::Client(error) => Some(error),
            _ => None,
        }
    }

    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> EmbeddedError {
        let context = context.into();
        move |source| EmbeddedError::Client(ClientError::Io { context, source })
    }
}

/// Results of this crate.
pub type Result<T, E = EmbeddedError> = std::result::Result<T, E>;
