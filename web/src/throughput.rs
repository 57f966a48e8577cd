//! The cluster's recent throughput: samples of the coordinator's running totals, kept for a
//! few minutes, turned into rates between consecutive samples. Time is passed in, never read.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde::Serialize;

/// How far back samples are kept.
pub const WINDOW: Duration = Duration::from_secs(600);

/// The coordinator's running totals at one moment.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sample {
    /// When it was taken.
    pub at: Instant,
    /// Jobs finished so far (done, failed or cancelled).
    pub finished: u64,
    /// Playouts merged so far.
    pub playouts: u64,
    /// Games stored so far.
    pub games: u64,
}

/// Rates over one interval between samples.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Rate {
    /// Seconds before now at which the interval ends.
    pub seconds_ago: f64,
    /// Seconds the interval lasts.
    pub seconds: f64,
    /// Jobs finished per second.
    pub jobs_per_second: f64,
    /// Playouts merged per second.
    pub playouts_per_second: f64,
    /// Games stored per second.
    pub games_per_second: f64,
}

/// Recent samples, oldest first.
#[derive(Debug, Default)]
pub struct Throughput {
    samples: VecDeque<Sample>,
}

impl Throughput {
    /// Adds a sample and forgets those older than [`WINDOW`]. A sample whose totals went down
    /// (the coordinator restarted on another database) starts the history afresh.
    pub fn record(&mut self, sample: Sample) {
        if let Some(last) = self.samples.back()
            && (sample.finished < last.finished
                || sample.playouts < last.playouts
                || sample.games < last.games
                || sample.at < last.at)
        {
            self.samples.clear();
        }
        self.samples.push_back(sample);
        while self
            .samples
            .front()
            .is_some_and(|s| sample.at.duration_since(s.at) > WINDOW)
        {
            self.samples.pop_front();
        }
    }

    /// The rate over each interval between samples, oldest first, as seen at `now`.
    #[must_use]
    pub fn rates(&self, now: Instant) -> Vec<Rate> {
        self.samples
            .iter()
            .zip(self.samples.iter().skip(1))
            .filter_map(|(from, to)| {
                let seconds = to.at.duration_since(from.at).as_secs_f64();
                (seconds > 0.0).then(|| Rate {
                    seconds_ago: now.saturating_duration_since(to.at).as_secs_f64(),
                    seconds,
                    jobs_per_second: (to.finished - from.finished) as f64 / seconds,
                    playouts_per_second: (to.playouts - from.playouts) as f64 / seconds,
                    games_per_second: (to.games - from.games) as f64 / seconds,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at: Instant, finished: u64, playouts: u64) -> Sample {
        Sample {
            at,
            finished,
            playouts,
            games: finished / 2,
        }
    }

    #[test]
    fn rates_between_consecutive_samples() {
        let t0 = Instant::now();
        let mut throughput = Throughput::default();
        assert!(throughput.rates(t0).is_empty());
        throughput.record(sample(t0, 0, 0));
        throughput.record(sample(t0 + Duration::from_secs(5), 10, 5_000));
        throughput.record(sample(t0 + Duration::from_secs(15), 30, 5_000));
        let rates = throughput.rates(t0 + Duration::from_secs(20));
        assert_eq!(rates.len(), 2);
        assert_eq!(rates[0].jobs_per_second, 2.0);
        assert_eq!(rates[0].playouts_per_second, 1_000.0);
        assert_eq!(rates[0].seconds_ago, 15.0);
        assert_eq!(rates[1].jobs_per_second, 2.0);
        assert_eq!(rates[1].playouts_per_second, 0.0);
        assert_eq!(rates[1].seconds, 10.0);
    }

    #[test]
    fn old_samples_leave_the_window() {
        let t0 = Instant::now();
        let mut throughput = Throughput::default();
        for minute in 0..20u64 {
            throughput.record(sample(
                t0 + Duration::from_secs(60 * minute),
                minute,
                minute,
            ));
        }
        let rates = throughput.rates(t0 + Duration::from_secs(60 * 19));
        assert_eq!(rates.len(), 10);
        assert!(rates.iter().all(|r| r.seconds_ago <= WINDOW.as_secs_f64()));
    }

    #[test]
    fn falling_totals_restart_the_history() {
        let t0 = Instant::now();
        let mut throughput = Throughput::default();
        throughput.record(sample(t0, 100, 100));
        throughput.record(sample(t0 + Duration::from_secs(1), 5, 5));
        throughput.record(sample(t0 + Duration::from_secs(2), 6, 6));
        let rates = throughput.rates(t0 + Duration::from_secs(2));
        assert_eq!(rates.len(), 1);
        assert_eq!(rates[0].jobs_per_second, 1.0);
    }
}
