//! Simulated workers: the real worker's protocol with sleeping jobs. Each says hello, leases one
//! job at a time (waiting 100–300 ms after an empty lease, as the real worker does), heartbeats
//! its lease every `heartbeat_seconds` while the job "runs" (a sleep of the configured job
//! time), submits a valid result ([`super::outcome`]) and, when the soak stops, returns the
//! lease it holds. Each worker has its own connection, as separate worker processes would.
//!
//! A lease the coordinator reports lost (in a heartbeat's answer, or a submit refused because
//! the lease is not held) counts as *spurious* when the worker never went a whole lease
//! duration without contacting the coordinator about it: the worker did its part, so the loss
//! is the coordinator's. Otherwise the load generator itself fell behind, and it counts as late.

use std::time::{Duration, Instant};

use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{Client, Task, reason_of, v2};
use rand::RngExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::outcome::simulate;
use super::stats::Timed;
use super::{SoakError, SoakOptions};

/// Errors kept per worker (the rest are only counted).
const ERRORS_KEPT: usize = 3;

/// What one simulated worker saw.
#[derive(Clone, Debug, Default)]
pub struct WorkerLog {
    /// Every heartbeat call.
    pub heartbeats: Vec<Timed>,
    /// Every lease call.
    pub leases: Vec<Timed>,
    /// Leases that held a job.
    pub granted: u64,
    /// Results applied (or acknowledged as duplicates).
    pub results: u64,
    /// Move rows in the applied analysis results.
    pub rows: u64,
    /// Leases lost although the worker kept in contact.
    pub spurious: u64,
    /// Leases lost after the worker itself was late by a lease duration.
    pub late: u64,
    /// Leases given back when the soak stopped.
    pub returned: u64,
    /// Jobs of a kind the soak does not simulate (given back).
    pub unsupported: u64,
    /// Calls that failed otherwise.
    pub errors: u64,
    /// The first few of those errors.
    pub error_texts: Vec<String>,
}

impl WorkerLog {
    /// The log of a worker task that panicked: one error.
    #[must_use]
    pub fn panicked(error: tokio::task::JoinError) -> WorkerLog {
        let mut log = WorkerLog::default();
        log.error(format!("worker task: {error}"));
        log
    }

    fn error(&mut self, text: String) {
        self.errors += 1;
        if self.error_texts.len() < ERRORS_KEPT {
            self.error_texts.push(text);
        }
    }
}

/// The simulated workers, ready to start.
pub struct Fleet {
    clients: Vec<Client>,
    job_time: (Duration, Duration),
    lease: Duration,
    origin: Instant,
}

impl Fleet {
    /// One connection per worker to `url` with the worker `token`.
    pub fn new(
        options: &SoakOptions,
        url: &str,
        token: &str,
        origin: Instant,
    ) -> Result<Fleet, SoakError> {
        let clients = (0..options.workers)
            .map(|_| pentagrid_proto::connect(url, token, None))
            .collect::<Result<_, _>>()
            .map_err(|e| SoakError::Coordinator(format!("connecting a worker: {e}")))?;
        Ok(Fleet {
            clients,
            job_time: options.job_time,
            lease: Duration::from_secs(options.lease_seconds),
            origin,
        })
    }

    /// Starts every worker; each runs until `stop` turns true.
    pub fn spawn(self, stop: watch::Receiver<bool>) -> Vec<JoinHandle<WorkerLog>> {
        self.clients
            .into_iter()
            .enumerate()
            .map(|(index, client)| {
                let worker = Worker {
                    id: format!("soak-{index}"),
                    session: String::new(),
                    client,
                    job_time: self.job_time,
                    lease: self.lease,
                    origin: self.origin,
                    heartbeat_every: self.lease / 4,
                    rng: pentago::seeded_rng(index as u64, 0x50a4),
                    log: WorkerLog::default(),
                    stop: stop.clone(),
                };
                tokio::spawn(worker.run())
            })
            .collect()
    }
}

/// How a job ended.
enum Ended {
    /// Handed in (or lost, or given back): lease the next one.
    Next,
    /// The soak stopped.
    Stopped,
}

struct Worker {
    id: String,
    /// The session of its latest hello.
    session: String,
    client: Client,
    job_time: (Duration, Duration),
    lease: Duration,
    origin: Instant,
    heartbeat_every: Duration,
    rng: pentago::EngineRng,
    log: WorkerLog,
    stop: watch::Receiver<bool>,
}

impl Worker {
    fn timed(&self, sent: Instant) -> Timed {
        Timed {
            at: (sent - self.origin).as_secs_f64(),
            ms: sent.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// Sleeps until `deadline`; false when the soak stopped first.
    async fn sleep_until(&mut self, deadline: Instant) -> bool {
        tokio::select! {
            () = tokio::time::sleep_until(deadline.into()) => true,
            _ = self.stop.wait_for(|stopped| *stopped) => false,
        }
    }

    async fn hello(&mut self) -> bool {
        loop {
            let request = v2::HelloRequest {
                worker_id: self.id.clone(),
                name: self.id.clone(),
                threads: 1,
                engines: Vec::new(),
                worker_key: String::new(),
                speed: 0,
            };
            match self.client.hello(request).await {
                Ok(reply) => {
                    let reply = reply.into_inner();
                    self.session = reply.session;
                    let seconds = reply.heartbeat_seconds.max(1);
                    self.heartbeat_every = Duration::from_secs(u64::from(seconds));
                    return true;
                }
                Err(status) => self.log.error(format!("hello: {status}")),
            }
            if !self
                .sleep_until(Instant::now() + Duration::from_secs(1))
                .await
            {
                return false;
            }
        }
    }

    async fn run(mut self) -> WorkerLog {
        if !self.hello().await {
            return self.log;
        }
        while !*self.stop.borrow() {
            let sent = Instant::now();
            let request = v2::LeaseRequest {
                worker_id: self.id.clone(),
                max_jobs: 1,
                session: self.session.clone(),
            };
            let leased = self.client.lease(request).await;
            let timed = self.timed(sent);
            self.log.leases.push(timed);
            let jobs = match leased {
                Ok(reply) => reply.into_inner().jobs,
                Err(status) => {
                    if reason_of(&status) == ErrorReason::UnknownWorker && !self.hello().await {
                        break;
                    }
                    self.log.error(format!("lease: {status}"));
                    Vec::new()
                }
            };
            if jobs.is_empty() {
                let idle = Duration::from_millis(self.rng.random_range(100..300));
                if !self.sleep_until(Instant::now() + idle).await {
                    break;
                }
                continue;
            }
            for job in jobs {
                self.log.granted += 1;
                if let Ended::Stopped = self.job(job, sent).await {
                    return self.log;
                }
            }
        }
        self.log
    }

    /// Runs one leased job, asked for at `asked`.
    async fn job(&mut self, job: v2::Job, asked: Instant) -> Ended {
        let task = job.spec.as_ref().and_then(|spec| Task::try_from(spec).ok());
        let Some((task, outcome)) = task.and_then(|t| simulate(&t, job.seed).map(|o| (t, o)))
        else {
            self.log.unsupported += 1;
            self.give_back(job.lease_id).await;
            return Ended::Next;
        };
        let (shortest, longest) = self.job_time;
        let done = Instant::now() + self.rng.random_range(shortest..=longest);
        // The coordinator's lease clock started at the latest when the lease was asked for.
        let mut last_contact = asked;
        let mut longest_gap = Duration::ZERO;
        loop {
            let beat = last_contact + self.heartbeat_every;
            if beat >= done {
                break;
            }
            if !self.sleep_until(beat).await {
                self.give_back(job.lease_id).await;
                return Ended::Stopped;
            }
            let sent = Instant::now();
            longest_gap = longest_gap.max(sent - last_contact);
            last_contact = sent;
            let request = v2::HeartbeatRequest {
                worker_id: self.id.clone(),
                lease_ids: vec![job.lease_id],
                session: self.session.clone(),
            };
            let answer = self.client.heartbeat(request).await;
            let timed = self.timed(sent);
            self.log.heartbeats.push(timed);
            match answer {
                Ok(reply) if reply.get_ref().lost_lease_ids.contains(&job.lease_id) => {
                    self.lost(longest_gap);
                    return Ended::Next;
                }
                Ok(_) => {}
                Err(status) => self.log.error(format!("heartbeat: {status}")),
            }
        }
        if !self.sleep_until(done).await {
            self.give_back(job.lease_id).await;
            return Ended::Stopped;
        }
        longest_gap = longest_gap.max(last_contact.elapsed());
        self.submit(&job, &task, &outcome, longest_gap).await;
        Ended::Next
    }

    async fn submit(
        &mut self,
        job: &v2::Job,
        task: &Task,
        outcome: &pentagrid_proto::Outcome,
        longest_gap: Duration,
    ) {
        let request = v2::SubmitRequest {
            worker_id: self.id.clone(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: format!("{}-{}-{}", self.id, job.job_id, job.lease_id),
            result: Some(outcome.into()),
            session: self.session.clone(),
        };
        match self.client.submit(request).await {
            Ok(_) => {
                self.log.results += 1;
                if let (Task::Analyse { .. }, pentagrid_proto::Outcome::Analyse { rows, .. }) =
                    (task, outcome)
                {
                    self.log.rows += rows.len() as u64;
                }
            }
            Err(status) if reason_of(&status) == ErrorReason::LeaseNotHeld => {
                self.lost(longest_gap);
            }
            Err(status) => self.log.error(format!("submit: {status}")),
        }
    }

    fn lost(&mut self, longest_gap: Duration) {
        if longest_gap < self.lease {
            self.log.spurious += 1;
        } else {
            self.log.late += 1;
        }
    }

    async fn give_back(&mut self, lease_id: u64) {
        let request = v2::ReturnLeasesRequest {
            worker_id: self.id.clone(),
            lease_ids: vec![lease_id],
            session: self.session.clone(),
        };
        match self.client.return_leases(request).await {
            Ok(reply) => self.log.returned += u64::from(reply.into_inner().returned),
            Err(status) => self.log.error(format!("return leases: {status}")),
        }
    }
}
