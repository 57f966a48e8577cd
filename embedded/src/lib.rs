//! `pentagrid-embedded`: the parts of a pentagrid client that run coordinator code in this
//! process, kept out of the thin client library (`pentagrid-client`) so that it links neither
//! the coordinator nor sled nor the worker:
//!
//! - [`EmbeddedCluster`]: a whole cluster here — a coordinator on a loopback port with its sled
//!   database and in-process workers. `pentagrid run`, every `--local` command and the tests
//!   use it; everything else about it is the client library's, through
//!   [`EmbeddedCluster::client`];
//! - [`backup`]: fetching, checking and restoring backups, whose format the coordinator's
//!   store owns.

pub mod backup;
mod cluster;
mod error;

pub use cluster::{EmbeddedCluster, WorkerTask};
pub use error::{EmbeddedError, Result};
