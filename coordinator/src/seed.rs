//! The seed a job runs with, shared by the job queue (which queues jobs) and the cross-checks
//! (which queue check jobs), so that neither has to reach into the other for it.

use pentago::splitmix64;

/// The seed a job runs with: fixed by its id, so a retried job repeats the same computation.
#[must_use]
pub fn job_seed(job_id: u64) -> u64 {
    splitmix64(job_id ^ 0x5EED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_seed_depends_on_the_id_only() {
        assert_eq!(job_seed(7), job_seed(7));
        assert_ne!(job_seed(7), job_seed(8));
    }
}
