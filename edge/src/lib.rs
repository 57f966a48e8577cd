//! `pentagrid-edge`: the coordinator's gRPC edge, the only crate that puts the coordinator's
//! services on the wire. It alone names wire types on the coordinator's side and builds gRPC
//! statuses:
//!
//! - `api`: the `Coordinator` service, conversions between wire messages and domain values,
//!   the one mapping from domain errors to statuses (`api/errors.rs`), authentication and
//!   roles, the checks on untrusted bytes, job watches and their caps;
//! - `server`: serving with optional TLS and bounded connections, per-call tracing spans,
//!   the periodic tick (lease expiry, book builds), and graceful shutdown (stop leasing,
//!   flush, exit);
//! - `health`: the `grpc.health.v1` service and the gate that answers it while the
//!   coordinator starts and stops.

mod api;
mod health;
mod server;

pub use api::auth::{CredentialError, Credentials, MAX_USER_NAME, User};
pub use api::roles::{Grant, REQUIRED_ROLES, Role};
pub use api::untrusted::{check_book_import, check_result};
pub use api::watches::{MAX_WATCHES, MAX_WATCHES_PER_GRANT};
pub use pentagrid_connections::{ConnectionLimits, LimitsError};
pub use server::{ServeError, TICK, TlsFiles, serve, serve_opening, serve_with};
