//! The tunables of a coordinator's job queue: leases, heartbeats, attempts, pruning and the
//! worker registry's bound, each checked here against the range it may take.

use std::time::Duration;

use thiserror::Error;

/// Longest lease (a day): a lease is renewed by heartbeats, so longer gains nothing.
pub const MAX_LEASE: Duration = Duration::from_secs(86_400);

/// Most lease durations a silent worker may be remembered for.
pub const MAX_PRUNE_AFTER_LEASES: u32 = 10_000;

/// Most workers a registry may be bounded to.
pub const MAX_WORKERS: usize = 10_000_000;

/// Tunables of the job queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSettings {
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
    /// The speed the match time controls are meant for, in simulations per second of one
    /// thread of the default player (what `pentagrid worker --measure-speed` prints): each
    /// worker multiplies a refereed pair's time limit by this over its own speed. 0 (the
    /// default): no scaling.
    pub reference_speed: u64,
}

impl Default for JobSettings {
    fn default() -> Self {
        JobSettings {
            lease_duration: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(10),
            max_attempts: 5,
            max_jobs_per_lease: 64,
            prune_after_leases: 10,
            max_workers: super::registry::DEFAULT_MAX_WORKERS,
            reference_speed: 0,
        }
    }
}

/// Why job-queue settings were refused.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum JobSettingsError {
    /// The lease is not from 1 second to [`MAX_LEASE`].
    #[error("a lease must last from 1 s to {max} s, not {0:?}", max = MAX_LEASE.as_secs())]
    LeaseDuration(Duration),
    /// The heartbeat interval is zero or not shorter than a lease.
    #[error(
        "heartbeats must come more often than a lease lasts and not constantly, not every {0:?}"
    )]
    HeartbeatInterval(Duration),
    /// No attempt at all.
    #[error("a job needs at least 1 attempt")]
    MaxAttempts,
    /// A lease call could take no job.
    #[error("a lease call must be able to take at least 1 job")]
    MaxJobsPerLease,
    /// The pruning horizon is not from 1 to [`MAX_PRUNE_AFTER_LEASES`] leases.
    #[error("silent workers are forgotten after 1 to {MAX_PRUNE_AFTER_LEASES} leases, not {0}")]
    PruneAfterLeases(u32),
    /// The registry bound is not from 1 to [`MAX_WORKERS`].
    #[error("the worker registry holds 1 to {MAX_WORKERS} workers, not {0}")]
    MaxWorkers(usize),
}

impl JobSettings {
    /// Checks every tunable against its range.
    pub fn validate(&self) -> Result<(), JobSettingsError> {
        let lease = self.lease_duration;
        if lease < Duration::from_secs(1) || lease > MAX_LEASE {
            return Err(JobSettingsError::LeaseDuration(lease));
        }
        let heartbeat = self.heartbeat_interval;
        if heartbeat.is_zero() || heartbeat >= lease {
            return Err(JobSettingsError::HeartbeatInterval(heartbeat));
        }
        if self.max_attempts == 0 {
            return Err(JobSettingsError::MaxAttempts);
        }
        if self.max_jobs_per_lease == 0 {
            return Err(JobSettingsError::MaxJobsPerLease);
        }
        if !(1..=MAX_PRUNE_AFTER_LEASES).contains(&self.prune_after_leases) {
            return Err(JobSettingsError::PruneAfterLeases(self.prune_after_leases));
        }
        if !(1..=MAX_WORKERS).contains(&self.max_workers) {
            return Err(JobSettingsError::MaxWorkers(self.max_workers));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_each_range_is_checked() {
        let ok = JobSettings::default();
        assert_eq!(ok.validate(), Ok(()));
        let secs = Duration::from_secs;
        let cases: [(JobSettings, JobSettingsError); 7] = [
            (
                JobSettings {
                    lease_duration: Duration::from_millis(999),
                    heartbeat_interval: Duration::from_millis(100),
                    ..ok.clone()
                },
                JobSettingsError::LeaseDuration(Duration::from_millis(999)),
            ),
            (
                JobSettings {
                    lease_duration: secs(86_401),
                    ..ok.clone()
                },
                JobSettingsError::LeaseDuration(secs(86_401)),
            ),
            (
                JobSettings {
                    heartbeat_interval: secs(60),
                    ..ok.clone()
                },
                JobSettingsError::HeartbeatInterval(secs(60)),
            ),
            (
                JobSettings {
                    max_attempts: 0,
                    ..ok.clone()
                },
                JobSettingsError::MaxAttempts,
            ),
            (
                JobSettings {
                    max_jobs_per_lease: 0,
                    ..ok.clone()
                },
                JobSettingsError::MaxJobsPerLease,
            ),
            (
                JobSettings {
                    prune_after_leases: 10_001,
                    ..ok.clone()
                },
                JobSettingsError::PruneAfterLeases(10_001),
            ),
            (
                JobSettings {
                    max_workers: 0,
                    ..ok.clone()
                },
                JobSettingsError::MaxWorkers(0),
            ),
        ];
        for (settings, error) in cases {
            assert_eq!(settings.validate(), Err(error));
        }
        let edges = JobSettings {
            lease_duration: secs(86_400),
            heartbeat_interval: secs(1),
            max_attempts: 1,
            max_jobs_per_lease: 1,
            prune_after_leases: 10_000,
            max_workers: 10_000_000,
            reference_speed: u64::MAX,
        };
        assert_eq!(edges.validate(), Ok(()));
    }
}
