//! The soak's figures: gathered from the workers', the probe's, the sampler's and the admin
//! side's logs, printed as a Markdown table beside the soak's targets, and plotted.

use std::time::Duration;

use pentagrid_proto::v2;

use super::SoakOptions;
use super::admin::AdminLog;
use super::sampler::{Sample, Snapshot};
use super::stats::{Latency, Timed, per_second};
use super::svg::{Line, Panel, plot};
use super::worker::WorkerLog;

/// Target: heartbeat p99 in ms.
pub const HEARTBEAT_P99_TARGET_MS: f64 = 50.0;
/// Target: build selection per queued job in ms.
pub const SELECTION_TARGET_MS: f64 = 1.0;
/// Target: positions in the book by the end.
pub const BOOK_TARGET: f64 = 1_000_000.0;

/// Everything the soak measured.
#[derive(Clone, Debug, Default)]
pub struct SoakReport {
    /// Simulated workers.
    pub workers: usize,
    /// Positions imported before the coordinator started.
    pub prefilled: usize,
    /// Seconds the import took.
    pub fill_seconds: f64,
    /// Seconds from the first hello to the last returned lease.
    pub seconds: f64,
    /// The simulated workers' heartbeats.
    pub heartbeat: Latency,
    /// The probe's heartbeats.
    pub probe: Latency,
    /// The simulated workers' lease calls.
    pub lease: Latency,
    /// Leases that held a job.
    pub granted: u64,
    /// Results applied.
    pub results: u64,
    /// Leases lost although the worker kept in contact (must be 0).
    pub spurious: u64,
    /// Leases lost after the load generator itself was late.
    pub late: u64,
    /// Leases the coordinator counted as expired during the soak.
    pub expired: f64,
    /// Leases given back at the end.
    pub returned: u64,
    /// Jobs of a kind the soak does not simulate.
    pub unsupported: u64,
    /// Failed calls (workers and admin).
    pub errors: u64,
    /// The first few failures.
    pub error_texts: Vec<String>,
    /// Move rows ingested per second (the coordinator's counter).
    pub rows_per_second: f64,
    /// Seconds the build's frontier took to walk the pre-filled book before the soak began.
    pub warmup_seconds: f64,
    /// Build selection wall time per queued job over the soak, in ms (it includes the time
    /// the round's thread waited for a CPU); `None` when the build queued nothing.
    pub selection_ms: Option<f64>,
    /// Build selection CPU time per queued job over the soak, in ms: the cost the target is
    /// about; `None` when the build queued nothing or the platform does not measure it.
    pub selection_cpu_ms: Option<f64>,
    /// The part of `selection_cpu_ms` spent popping the frontier (the rest took in finished
    /// jobs), in ms per queued job.
    pub choosing_cpu_ms: Option<f64>,
    /// Stored positions the build's frontier walked through (popped with a table or value
    /// already stored) per queued job.
    pub walked_per_job: Option<f64>,
    /// Build rounds and the jobs they queued.
    pub build_rounds: f64,
    /// Jobs queued by the build.
    pub build_jobs: f64,
    /// The build's status near the end.
    pub build: Option<v2::BuildStatusResponse>,
    /// The admin side's log.
    pub admin: AdminLog,
    /// Pairs the match was asked for.
    pub match_pairs: u64,
    /// The coordinator once a second.
    pub samples: Vec<Sample>,
    /// Heartbeat samples of the workers and the probe, and lease samples.
    series: [Vec<Timed>; 3],
    /// The coordinator's last log lines (warnings and errors).
    pub coordinator_warnings: Vec<String>,
}

impl SoakReport {
    /// Gathers the logs.
    #[must_use]
    pub fn new(
        options: &SoakOptions,
        elapsed: Duration,
        logs: &[WorkerLog],
        probe: Vec<Timed>,
        samples: Vec<Sample>,
        admin: AdminLog,
        build: Option<v2::BuildStatusResponse>,
    ) -> SoakReport {
        let heartbeats: Vec<Timed> = logs.iter().flat_map(|l| l.heartbeats.clone()).collect();
        let leases: Vec<Timed> = logs.iter().flat_map(|l| l.leases.clone()).collect();
        let sum = |f: fn(&WorkerLog) -> u64| logs.iter().map(f).sum::<u64>();
        let first = samples.first().map(|s| s.metrics).unwrap_or_default();
        let last = samples.last().map(|s| s.metrics).unwrap_or_default();
        let span = match (samples.first(), samples.last()) {
            (Some(a), Some(b)) if b.at > a.at => b.at - a.at,
            _ => 1.0,
        };
        let mut error_texts: Vec<String> = logs
            .iter()
            .flat_map(|l| l.error_texts.clone())
            .take(5)
            .collect();
        error_texts.extend(admin.errors.iter().take(5).cloned());
        SoakReport {
            workers: options.workers,
            prefilled: options.book,
            fill_seconds: 0.0,
            seconds: elapsed.as_secs_f64(),
            heartbeat: Latency::of(&heartbeats),
            probe: Latency::of(&probe),
            lease: Latency::of(&leases),
            granted: sum(|l| l.granted),
            results: sum(|l| l.results),
            spurious: sum(|l| l.spurious),
            late: sum(|l| l.late),
            expired: last.expired - first.expired,
            returned: sum(|l| l.returned),
            unsupported: sum(|l| l.unsupported),
            errors: sum(|l| l.errors) + admin.errors.len() as u64,
            error_texts,
            rows_per_second: (last.rows - first.rows) / span,
            warmup_seconds: 0.0,
            selection_ms: per_job_ms(&first, &last, |s| s.selection_seconds),
            selection_cpu_ms: per_job_ms(&first, &last, |s| s.selection_cpu_seconds)
                .filter(|&ms| ms > 0.0),
            choosing_cpu_ms: per_job_ms(&first, &last, |s| s.choosing_cpu_seconds)
                .filter(|&ms| ms > 0.0),
            walked_per_job: per_job(&first, &last, |s| s.walked),
            build_rounds: last.rounds - first.rounds,
            build_jobs: last.build_jobs - first.build_jobs,
            build,
            admin,
            match_pairs: options.match_pairs,
            samples,
            series: [heartbeats, probe, leases],
            coordinator_warnings: Vec::new(),
        }
    }

    /// Positions in the book at the start and at the end.
    #[must_use]
    pub fn book(&self) -> (f64, f64) {
        let at = |s: Option<&Sample>| s.map_or(0.0, |s| s.metrics.positions);
        (at(self.samples.first()), at(self.samples.last()))
    }

    /// What a queued job cost the build's selection, in ms: CPU time where measured, else
    /// wall time.
    #[must_use]
    pub fn selection_cost_ms(&self) -> Option<f64> {
        self.selection_cpu_ms.or(self.selection_ms)
    }

    /// Whether the soak met the targets: heartbeat p99, no spurious expiry, selection
    /// per queued job, and a book of 10^6 positions.
    #[must_use]
    pub fn targets_met(&self) -> [(&'static str, bool); 4] {
        [
            (
                "heartbeat p99 ≤ 50 ms",
                self.heartbeat.p99 <= HEARTBEAT_P99_TARGET_MS,
            ),
            (
                "0 spurious lease expiries",
                self.spurious == 0 && self.expired == 0.0,
            ),
            (
                "selection ≤ 1 ms per queued job",
                self.selection_cost_ms()
                    .is_some_and(|ms| ms <= SELECTION_TARGET_MS),
            ),
            ("book ≥ 10^6 positions", self.book().1 >= BOOK_TARGET),
        ]
    }

    /// The summary as a Markdown table.
    #[must_use]
    pub fn table(&self) -> String {
        let met = |ok: bool| if ok { "met" } else { "**missed**" };
        let ms = |ms: Option<f64>| ms.map_or("not measured".into(), |ms| format!("{ms:.3} ms"));
        let targets = self.targets_met();
        let latency = |l: &Latency| {
            format!(
                "p50 {:.2} ms, **p99 {:.2} ms**, max {:.1} ms ({} calls)",
                l.p50, l.p99, l.max, l.count
            )
        };
        let (book_start, book_end) = self.book();
        let rss: Vec<f64> = self.samples.iter().map(|s| s.rss as f64 / 1e6).collect();
        let rss_peak = rss.iter().copied().fold(0.0, f64::max);
        let mb = |s: Option<&Sample>| s.map_or(0.0, |s| s.metrics.database_bytes / 1e6);
        let build_positions = self.build.as_ref().map_or(0, |b| b.positions);
        let mining = &self.admin.mining;
        let longest_round = mining.iter().map(|r| r.seconds).fold(0.0, f64::max);
        let rows = [
            (
                format!("heartbeat latency, {} simulated workers", self.workers),
                latency(&self.heartbeat),
                format!("p99 ≤ 50 ms: {}", met(targets[0].1)),
            ),
            (
                "heartbeat latency, probe (every 20 ms, own thread)".into(),
                latency(&self.probe),
                "—".into(),
            ),
            (
                format!("lease latency ({} of them granted a job)", self.granted),
                latency(&self.lease),
                "—".into(),
            ),
            (
                "spurious lease expiries".into(),
                format!(
                    "**{}** (leases lost although the worker kept heart-beating); coordinator's expired-lease counter {:.0}; lost after the load generator fell behind {}",
                    self.spurious, self.expired, self.late
                ),
                format!("0: {}", met(targets[1].1)),
            ),
            (
                "results applied".into(),
                format!(
                    "{} ({:.0}/s); {} leases returned at the end",
                    self.results,
                    self.results as f64 / self.seconds,
                    self.returned
                ),
                "—".into(),
            ),
            (
                "ingest".into(),
                format!("**{:.0} rows/s**", self.rows_per_second),
                "—".into(),
            ),
            (
                "build selection per queued job".into(),
                format!(
                    "**{} CPU**, {} wall ({:.0} rounds, {:.0} jobs); of the CPU, {} popping the frontier, which walked {} stored positions per job; before the soak, the build's walk down to its first picks took {:.1} s",
                    ms(self.selection_cpu_ms),
                    ms(self.selection_ms),
                    self.build_rounds,
                    self.build_jobs,
                    ms(self.choosing_cpu_ms),
                    self.walked_per_job
                        .map_or_else(|| "—".to_owned(), |n| format!("{n:.0}")),
                    self.warmup_seconds
                ),
                format!("≤ 1 ms: {}", met(targets[2].1)),
            ),
            (
                "book".into(),
                format!(
                    "{book_start:.0} → **{book_end:.0} positions** ({} pre-filled by import in {:.0} s; the build queued {build_positions})",
                    self.prefilled, self.fill_seconds
                ),
                format!("≥ 10^6: {}", met(targets[3].1)),
            ),
            ("machine".into(), self.machine(), "—".into()),
            (
                "coordinator RSS".into(),
                format!(
                    "{:.0} MB at the start, peak **{rss_peak:.0} MB**, {:.0} MB at the end",
                    rss.first().copied().unwrap_or(0.0),
                    rss.last().copied().unwrap_or(0.0)
                ),
                "—".into(),
            ),
            (
                "database on disk".into(),
                format!(
                    "{:.0} MB → {:.0} MB",
                    mb(self.samples.first()),
                    mb(self.samples.last())
                ),
                "—".into(),
            ),
            (
                format!("match of {} pairs", self.match_pairs),
                match self.admin.match_finished_at {
                    Some(at) => format!("all pairs stored after {at:.0} s"),
                    None => format!("{} pairs stored by the end", self.admin.match_pairs_done),
                },
                "—".into(),
            ),
            (
                "puzzle mining".into(),
                format!(
                    "{} rounds, {} candidates queued, longest round {longest_round:.1} s",
                    mining.len(),
                    mining.iter().map(|r| r.queued).sum::<u64>()
                ),
                "—".into(),
            ),
            (
                "analysis campaign".into(),
                format!("{} analyses submitted", self.admin.campaign_jobs),
                "—".into(),
            ),
            (
                "failed calls".into(),
                format!(
                    "{} ({} jobs of a kind not simulated)",
                    self.errors, self.unsupported
                ),
                "—".into(),
            ),
        ];
        let mut text = String::from("| measurement | figure | target |\n| --- | --- | --- |\n");
        for (what, figure, target) in rows {
            text.push_str(&format!("| {what} | {figure} | {target} |\n"));
        }
        text
    }

    /// The machine's load and the coordinator's share of it during the soak.
    fn machine(&self) -> String {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let loads: Vec<f64> = self.samples.iter().map(|s| s.load).collect();
        let mean_load = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
        let max_load = loads.iter().copied().fold(0.0, f64::max);
        let cpu = match (self.samples.first(), self.samples.last()) {
            (Some(a), Some(b)) if b.at > a.at => (b.cpu - a.cpu) / (b.at - a.at),
            _ => 0.0,
        };
        format!(
            "{cores} cores; load average (1 min) {mean_load:.1} on the mean, {max_load:.1} at most; the coordinator used {:.0}% of one core on the mean",
            cpu * 100.0
        )
    }

    /// The plot: heartbeat and lease latency per second (top), the coordinator's RSS and the
    /// database size (bottom), over the soak.
    #[must_use]
    pub fn svg(&self) -> String {
        let seconds = self.seconds.ceil() as usize;
        let [heartbeats, probe, leases] = &self.series;
        let latency = Panel {
            title: "latency per second (ms), client-measured".into(),
            lines: vec![
                Line::new(
                    "heartbeat p99",
                    "#d62728",
                    per_second(heartbeats, seconds, 0.99),
                ),
                Line::new(
                    "heartbeat p50",
                    "#ff9896",
                    per_second(heartbeats, seconds, 0.5),
                ),
                Line::new("lease p99", "#1f77b4", per_second(leases, seconds, 0.99)),
                Line::new(
                    "probe heartbeat p99",
                    "#2ca02c",
                    per_second(probe, seconds, 0.99),
                ),
            ],
            target: Some(("target p99 50 ms", HEARTBEAT_P99_TARGET_MS)),
        };
        let memory = Panel {
            title: "coordinator RSS and database on disk (MB)".into(),
            lines: vec![
                Line::new(
                    "RSS",
                    "#9467bd",
                    self.samples
                        .iter()
                        .map(|s| (s.at, s.rss as f64 / 1e6))
                        .collect(),
                ),
                Line::new(
                    "database",
                    "#7f7f7f",
                    self.samples
                        .iter()
                        .map(|s| (s.at, s.metrics.database_bytes / 1e6))
                        .collect(),
                ),
            ],
            target: None,
        };
        plot(
            &format!(
                "pentagrid soak: {} workers, book {:.0} positions",
                self.workers,
                self.book().1
            ),
            self.seconds,
            &[latency, memory],
        )
    }
}

/// Build selection time (as `seconds` reads it) per queued job between two snapshots, in ms
/// (`None` without jobs).
fn per_job_ms(from: &Snapshot, to: &Snapshot, seconds: fn(&Snapshot) -> f64) -> Option<f64> {
    per_job(from, to, seconds).map(|s| s * 1e3)
}

/// The growth of a counter between two snapshots per job the build queued between them.
fn per_job(from: &Snapshot, to: &Snapshot, counter: fn(&Snapshot) -> f64) -> Option<f64> {
    let jobs = to.build_jobs - from.build_jobs;
    (jobs > 0.0).then(|| (counter(to) - counter(from)) / jobs)
}
