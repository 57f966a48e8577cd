//! The worker's Prometheus metrics: jobs run by kind and how they ended, playouts, and job
//! seconds as a histogram. Metric names are documented in the README and are stable.

use std::sync::{Arc, Mutex};

use pentagrid_proto::Outcome;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

/// Job duration buckets, in seconds: from a tiny analysis to a long solve.
const JOB_BUCKETS: [f64; 12] = [
    0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
];

/// How a job the worker ran ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobEnd {
    /// Its result was acknowledged (applied or duplicate).
    Acknowledged,
    /// Its result was refused.
    Refused,
    /// It was stopped before it finished (lease lost, shutdown).
    Abandoned,
    /// It panicked; the failure was reported to the coordinator.
    Panicked,
}

/// The worker's metrics; cheap to clone (one shared registry).
#[derive(Clone, Debug)]
pub struct WorkerMetrics(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    registry: Mutex<Registry>,
    jobs: Family<[(&'static str, &'static str); 2], Counter>,
    playouts: Counter,
    job_seconds: Family<[(&'static str, &'static str); 1], Histogram>,
}

impl Default for WorkerMetrics {
    fn default() -> Self {
        WorkerMetrics::new()
    }
}

impl WorkerMetrics {
    /// A fresh set of metrics with its own registry.
    #[must_use]
    pub fn new() -> WorkerMetrics {
        let inner = Inner {
            registry: Mutex::new(Registry::with_prefix("pentagrid_worker")),
            jobs: Family::default(),
            playouts: Counter::default(),
            job_seconds: Family::new_with_constructor(|| Histogram::new(JOB_BUCKETS)),
        };
        {
            let mut registry = inner.registry.lock().expect("a fresh lock");
            registry.register(
                "jobs",
                "Jobs run, by kind and end (acknowledged, refused, abandoned)",
                inner.jobs.clone(),
            );
            registry.register(
                "playouts",
                "Playouts run for analyses (rate() gives playouts per second)",
                inner.playouts.clone(),
            );
            registry.register_with_unit(
                "job",
                "Time spent computing each job, by kind",
                Unit::Seconds,
                inner.job_seconds.clone(),
            );
        }
        WorkerMetrics(Arc::new(inner))
    }

    /// Records a job's computation (`kind` as [`pentagrid_proto::Task::kind`] names it): its time, and its playouts when it produced an outcome.
    pub fn computed(&self, kind: &'static str, seconds: f64, outcome: Option<&Outcome>) {
        self.0
            .job_seconds
            .get_or_create(&[("kind", kind)])
            .observe(seconds);
        if let Some(Outcome::Analyse { simulations, .. }) = outcome {
            self.0.playouts.inc_by(*simulations);
        }
    }

    /// Counts a job that ended.
    pub fn ended(&self, kind: &'static str, end: JobEnd) {
        let end = match end {
            JobEnd::Acknowledged => "acknowledged",
            JobEnd::Refused => "refused",
            JobEnd::Abandoned => "abandoned",
            JobEnd::Panicked => "panicked",
        };
        self.0
            .jobs
            .get_or_create(&[("kind", kind), ("end", end)])
            .inc();
    }

    /// The metrics as Prometheus text (OpenMetrics).
    #[must_use]
    pub fn render(&self) -> String {
        let registry = self
            .0
            .registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_shows_in_counts_playouts_and_buckets() {
        let metrics = WorkerMetrics::new();
        let outcome = Outcome::Analyse {
            rows: Vec::new(),
            simulations: 500,
            seconds: 0.2,
        };
        metrics.computed("analyse", 0.2, Some(&outcome));
        metrics.ended("analyse", JobEnd::Acknowledged);
        let text = metrics.render();
        assert!(
            text.contains("pentagrid_worker_playouts_total 500\n"),
            "{text}"
        );
        assert!(
            text.contains("pentagrid_worker_jobs_total{kind=\"analyse\",end=\"acknowledged\"} 1\n")
        );
        assert!(text.contains("pentagrid_worker_job_seconds_count{kind=\"analyse\"} 1\n"));
    }
}
