//! `pentagrid-proto`: the gRPC API of the cluster (package `pentagrid.v1`) and the
//! conversions between its wire messages and engine types, in one place.

mod client;
mod convert;

/// The generated messages, client and server of `pentagrid.v1`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod v1 {
    tonic::include_proto!("pentagrid.v1");
}

pub use client::{Client, ClientAuth, ConnectError, connect};
pub use convert::{
    ConversionError, MAX_JOB_PLAYOUTS, MAX_VERIFY_CANDIDATES, Outcome, RejectionKind, Row, Task,
    Verdict,
};

/// Version of the wire protocol. Both sides send it in the `x-pentagrid-protocol` header and
/// refuse a peer that speaks another one.
pub const PROTOCOL_VERSION: u32 = 1;

/// Metadata key carrying [`PROTOCOL_VERSION`].
pub const PROTOCOL_HEADER: &str = "x-pentagrid-protocol";

/// Largest message either side accepts, in bytes: ample for any real job or result (a full move
/// table is about 12 KB), small enough to refuse absurd ones.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
