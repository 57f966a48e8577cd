//! What can go wrong reading a tablebase: each error names the file it is about.

use std::io;

use thiserror::Error;

/// Why a tablebase, a slice file or one of its blocks could not be read. Every variant names
/// the file (`source` is its path, or `embedded slice-N.pentago` for the shipped slices).
#[derive(Debug, Error)]
pub enum TablebaseError {
    /// The file or folder could not be opened or read.
    #[error("{path}: {error}")]
    Io {
        /// The file or folder.
        path: String,
        /// What the system said (shown in the message, so not also a `source`).
        error: io::Error,
    },
    /// A folder given as a tablebase holds no `slice-N.pentago` file.
    #[error("{path}: no slice files (slice-N.pentago, N from 0 to 18) in this folder")]
    NoSlices {
        /// The folder.
        path: String,
    },
    /// The file does not start like a slice file.
    #[error("{path}: not a Pentago slice file (bad magic string)")]
    Magic {
        /// The file.
        path: String,
    },
    /// A format version this reader does not know.
    #[error("{path}: unsupported format version {version} (this reader knows version 3)")]
    Version {
        /// The file.
        path: String,
        /// The version found.
        version: u32,
    },
    /// The file ends before something it points to.
    #[error("{path}: truncated ({what} needs bytes {start}..{end}, the file has {len})")]
    Truncated {
        /// The file.
        path: String,
        /// What was being read.
        what: String,
        /// First byte needed.
        start: u64,
        /// One past the last byte needed.
        end: u64,
        /// The file's length.
        len: u64,
    },
    /// A header field or index entry is impossible.
    #[error("{path}: damaged ({what})")]
    Damaged {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
    /// The file's positions have another number of stones than its name says.
    #[error("{path}: holds positions of {found} stones, but its name says slice {expected}")]
    WrongSlice {
        /// The file.
        path: String,
        /// The number of stones of the file's name.
        expected: u32,
        /// The number of stones in its headers.
        found: u32,
    },
    /// The file lacks sections that every slice of its stone count has.
    #[error("{path}: incomplete, {missing} of the {total} sections of {stones} stones are missing")]
    MissingSections {
        /// The file.
        path: String,
        /// The slice's number of stones.
        stones: u32,
        /// Sections (up to symmetry) without data.
        missing: usize,
        /// Sections (up to symmetry) a complete slice has.
        total: usize,
    },
    /// A compressed block (or block index) does not decompress to what the header promises.
    #[error("{path}: damaged {what}: {reason}")]
    Decompress {
        /// The file.
        path: String,
        /// Which block or index.
        what: String,
        /// What the decompressor said.
        reason: String,
    },
    /// A `counts-N.npy` file that cannot be read as the counts of a slice.
    #[error("{path}: not a counts file ({what})")]
    Counts {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
}

impl TablebaseError {
    /// An I/O error about `path`.
    pub(crate) fn io(path: &str, error: io::Error) -> TablebaseError {
        TablebaseError::Io {
            path: path.to_owned(),
            error,
        }
    }

    /// A damaged-file error about `path`.
    pub(crate) fn damaged(path: &str, what: impl Into<String>) -> TablebaseError {
        TablebaseError::Damaged {
            path: path.to_owned(),
            what: what.into(),
        }
    }
}
