//! `pentagrid-coordinator`: the coordinator of a pentagrid cluster as domain services, over the
//! store (crate `pentagrid-store`) and behind the gRPC edge (crate `pentagrid-edge`, which alone
//! names wire types). This crate names neither sled nor gRPC.
//!
//! - [`jobs`]: workers, the job queue and leases (how a lease is granted, renewed, expires);
//! - [`ingest`]: results checked against their lease and job ([`validate`]) and applied once;
//! - [`crosscheck`]: exact claims held back until a second party confirms them, disputes
//!   settled by a third, wrong workers flagged and quarantined;
//! - [`matches`]: engine matches and how they stop ([`pentago::sprt_stop`]);
//! - [`tunes`]: SPSA tuning runs, whose iterations are matches, and their follow-up SPRT;
//! - [`book`] and [`builder`]: reading, moving and growing the opening book;
//! - [`puzzles`]: mining candidates and listing puzzles;
//! - [`deep`]: deep solves, whose leaves go out as jobs and come back as stored values;
//! - [`table_values`]: exact values from Irving's tablebase written into the stored book;
//! - the store (crate `pentagrid-store`): the only crate that touches sled, with the records
//!   it keeps (jobs, claims, games, matches, tuning runs, builds, deep solves);
//! - [`metrics`]: what operators see (it renders plain snapshots and knows no service);
//! - [`identity`]: worker and result ids, which the edge parses once into typed values;
//! - [`settings`]: one [`CoordinatorSettings`] composed of each component's own settings;
//! - [`seed`] and [`flags`]: a job's seed and the workers cross-checks flagged, below both the job
//!   queue and the cross-checks;
//! - [`offload`]: running store walks and engine play on the blocking pool, off the runtime, and
//!   long background work (mining, build rounds) at a lower priority where asked.
//!
//! Services call each other with domain types and return their own error enums. The modules
//! form a one-way stack (no cycle; `tests/tests/module_graph/` checks it for every crate).

mod abandoned;
pub mod book;
pub mod builder;
pub mod clock;
pub mod coordinator;
pub mod crosscheck;
pub mod deep;
pub mod flags;
mod flusher;
pub mod identity;
pub mod ingest;
pub mod jobs;
pub mod match_openings;
pub mod matches;
pub mod metrics;
pub mod offload;
pub mod paging;
pub mod puzzles;
pub mod seed;
pub mod settings;
pub mod table_values;
mod tune_matches;
pub mod tunes;
pub mod validate;

pub use book::{MAX_BOOK_ROWS, MAX_IMPORT_ROWS};
pub use builder::{MAX_BUILD_WINDOW, MIN_BUILD_WINDOW};
pub use clock::{Clock, ManualClock, SystemClock};
pub use coordinator::{Coordinator, StatusReport};
pub use crosscheck::{CrossCheckSettings, CrossCheckSettingsError, MAX_JUDGE_STONES};
pub use flags::QUARANTINE_FLAGS;
pub use identity::{BadResultId, BadWorkerId, LabelError, ResultId, WorkerId};
pub use jobs::{
    JobSettings, JobSettingsError, MAX_JOBS_PER_SUBMISSION, MAX_LEASE, MAX_PRUNE_AFTER_LEASES,
    MAX_WORKERS,
};
pub use matches::MAX_MATCH_PAIRS;
pub use metrics::{Metrics, MetricsSnapshot, SizeGauges};
pub use offload::BackgroundPriority;
pub use pentagrid_store::job::{Job, JobState};
pub use puzzles::MAX_PUZZLE_CANDIDATES;
pub use seed::job_seed;
pub use settings::{CoordinatorSettings, SettingsError};
pub use table_values::TableValues;
