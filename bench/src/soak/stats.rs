//! Latency samples and their summaries: percentiles over a whole run and per one-second window.

/// One timed call: when it was sent (seconds since the soak began) and how long it took (ms).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Timed {
    /// Seconds since the soak began, at sending.
    pub at: f64,
    /// Milliseconds to the answer.
    pub ms: f64,
}

/// Percentiles of a set of latencies, in milliseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Latency {
    /// Calls measured.
    pub count: usize,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Slowest.
    pub max: f64,
}

impl Latency {
    /// The percentiles of `samples` (zeros when there are none).
    #[must_use]
    pub fn of(samples: &[Timed]) -> Latency {
        let mut ms: Vec<f64> = samples.iter().map(|s| s.ms).collect();
        ms.sort_by(f64::total_cmp);
        Latency {
            count: ms.len(),
            p50: percentile(&ms, 0.5),
            p99: percentile(&ms, 0.99),
            max: ms.last().copied().unwrap_or(0.0),
        }
    }
}

/// The `q` quantile of sorted values (nearest rank; 0 for none).
#[must_use]
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The `q` quantile of the samples sent in each whole second `0..seconds`, as (second's end,
/// ms) points; seconds without samples are left out.
#[must_use]
pub fn per_second(samples: &[Timed], seconds: usize, q: f64) -> Vec<(f64, f64)> {
    let mut windows: Vec<Vec<f64>> = vec![Vec::new(); seconds];
    for sample in samples {
        if let Some(window) = windows.get_mut(sample.at as usize) {
            window.push(sample.ms);
        }
    }
    windows
        .into_iter()
        .enumerate()
        .filter(|(_, w)| !w.is_empty())
        .map(|(second, mut w)| {
            w.sort_by(f64::total_cmp);
            ((second + 1) as f64, percentile(&w, q))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(at: f64, ms: f64) -> Timed {
        Timed { at, ms }
    }

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let samples: Vec<Timed> = (1..=100).map(|i| timed(0.0, f64::from(i))).collect();
        let latency = Latency::of(&samples);
        assert_eq!((latency.count, latency.p50, latency.p99), (100, 50.0, 99.0));
        assert_eq!(latency.max, 100.0);
        assert_eq!(Latency::of(&[]), Latency::default());
        assert_eq!(percentile(&[7.0], 0.99), 7.0);
    }

    #[test]
    fn windows_are_whole_seconds_and_empty_ones_are_left_out() {
        let samples = [
            timed(0.1, 1.0),
            timed(0.9, 3.0),
            timed(2.5, 8.0),
            timed(9.0, 1.0),
        ];
        let p99 = per_second(&samples, 3, 0.99);
        assert_eq!(p99, vec![(1.0, 3.0), (3.0, 8.0)]);
    }
}
