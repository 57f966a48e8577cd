//! `pentagrid-client`: everything a program does with a pentagrid cluster, as a library —
//! connecting (token, TLS), submitting jobs and waiting for them, the workflows (the default
//! campaign of `pentagrid run`, opening studies, puzzle rounds, engine matches on the cluster
//! or in process, the opening book's row formats) and the one embedded cluster that runs a
//! whole cluster in this process. The `pentagrid` binary only parses arguments and prints.
//!
//! Workflows report progress through callbacks and return plain reports; refusals by the
//! coordinator keep their typed reason ([`ClientError::reason`]).

pub mod backup;
pub mod book;
pub mod campaign;
pub mod collection;
mod collection_html;
mod connect;
mod embedded;
mod error;
pub mod health;
pub mod jobs;
pub mod matches;
pub mod puzzles;
pub mod study;
mod study_html;
pub mod svg;
pub mod tournaments;

pub use collection_html::collection_html;
pub use connect::{connect, read_token};
pub use embedded::{EmbeddedCluster, WorkerTask};
pub use error::{ClientError, Result};
pub use pentagrid_proto::Client;
pub use study_html::study_html;
