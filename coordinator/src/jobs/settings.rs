//! The tunables of a coordinator's job queue: leases, heartbeats, attempts, pruning, and the
//! services' shared metrics, cross-check settings and background priority.

use std::time::Duration;

use crate::crosscheck::CrossCheckSettings;
use crate::metrics::Metrics;
use crate::offload::BackgroundPriority;
use crate::store::OpenCheck;

/// Tunables of a coordinator.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How long a lease lasts without a heartbeat.
    pub lease_duration: Duration,
    /// How often workers should heartbeat.
    pub heartbeat_interval: Duration,
    /// Leases a job may use up before it is marked failed.
    pub max_attempts: u32,
    /// Most jobs one lease call may take.
    pub max_jobs_per_lease: u32,
    /// Workers silent for longer than this many lease durations (and holding no lease) are
    /// forgotten.
    pub prune_after_leases: u32,
    /// Most workers known at once (see [`super::registry`]); at least 1.
    pub max_workers: usize,
    /// Where the coordinator counts what it does.
    pub metrics: Metrics,
    /// How exact claims are cross-checked.
    pub crosscheck: CrossCheckSettings,
    /// Where puzzle mining and book build rounds run.
    pub background: BackgroundPriority,
    /// How the database is checked against its integrity manifest at open.
    pub open_check: OpenCheck,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            lease_duration: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(10),
            max_attempts: 5,
            max_jobs_per_lease: 64,
            prune_after_leases: 10,
            max_workers: super::registry::DEFAULT_MAX_WORKERS,
            metrics: Metrics::new(),
            crosscheck: CrossCheckSettings::default(),
            background: BackgroundPriority::Normal,
            open_check: OpenCheck::Verify,
        }
    }
}
