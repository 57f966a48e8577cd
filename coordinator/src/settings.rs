//! A coordinator's settings: one value composed of each component's own settings (the job
//! queue's, the cross-checks', where background work runs, how the database is checked at
//! open, where exact values of the book's top come from), each validated where it is defined, and the metrics the services count into.

use thiserror::Error;

use crate::crosscheck::{CrossCheckSettings, CrossCheckSettingsError};
use crate::jobs::{JobSettings, JobSettingsError};
use crate::metrics::Metrics;
use crate::offload::BackgroundPriority;
use crate::table_values::TableValues;
use pentagrid_store::OpenCheck;

/// Everything a coordinator is opened with.
#[derive(Clone, Debug, Default)]
pub struct CoordinatorSettings {
    /// Leases, heartbeats, attempts, pruning and the worker registry.
    pub jobs: JobSettings,
    /// How exact claims are cross-checked.
    pub crosscheck: CrossCheckSettings,
    /// Where puzzle mining and book build rounds run.
    pub background: BackgroundPriority,
    /// How the database is checked against its integrity manifest at open.
    pub open_check: OpenCheck,
    /// Where the services count what they do; handed to each service that counts.
    pub metrics: Metrics,
    /// Where the book's table values come from (none by default; the command line opens the
    /// shipped slices, and a user's, unless told not to).
    pub table: TableValues,
}

/// Why coordinator settings were refused: the component whose settings are out of range.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SettingsError {
    /// The job queue's.
    #[error(transparent)]
    Jobs(#[from] JobSettingsError),
    /// The cross-checks'.
    #[error(transparent)]
    CrossCheck(#[from] CrossCheckSettingsError),
}

impl CoordinatorSettings {
    /// Checks each component's settings.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.jobs.validate()?;
        self.crosscheck.validate()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_components_refusal_comes_through() {
        assert_eq!(CoordinatorSettings::default().validate(), Ok(()));
        let settings = CoordinatorSettings {
            jobs: JobSettings {
                max_attempts: 0,
                ..JobSettings::default()
            },
            ..CoordinatorSettings::default()
        };
        assert_eq!(
            settings.validate(),
            Err(SettingsError::Jobs(JobSettingsError::MaxAttempts))
        );
        let settings = CoordinatorSettings {
            crosscheck: CrossCheckSettings {
                judge_stones: 17,
                ..CrossCheckSettings::default()
            },
            ..CoordinatorSettings::default()
        };
        assert_eq!(
            settings.validate(),
            Err(SettingsError::CrossCheck(
                CrossCheckSettingsError::JudgeStones(17)
            ))
        );
    }
}
