//! `pentagrid-coordinator`: the gRPC coordinator of a pentagrid cluster — job queue with leases,
//! result validation, exactly-once aggregation of move tables into sled, and the read API.

mod auth;
mod book;
mod builder;
mod coordinator;
mod flusher;
mod health;
mod matches;
mod metrics;
mod puzzles;
mod scheduler;
mod server;
mod service;
pub mod store;
mod validate;

pub use auth::Auth;
pub use book::MAX_BOOK_ROWS;
pub use builder::BUILD_WINDOW;
pub use coordinator::{Coordinator, Settings, job_seed};
pub use health::{Gate, Health};
pub use matches::MAX_MATCH_PAIRS;
pub use metrics::{LeaseEvent, Metrics, RefusedReason, RpcLatencyLayer};
pub use puzzles::MAX_PUZZLE_CANDIDATES;
pub use server::{ServeError, TlsFiles, serve, serve_opening};
