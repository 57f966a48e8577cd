//! The soak's users, with the admin credential: a book build from the start through the
//! pre-filled book (its frontier walked before the clock starts), a match, puzzle mining rounds at a fixed interval, and an analysis
//! campaign that tops the queue up to a fixed depth (as another user's `pentagrid run` would),
//! so that the simulated workers are busy for the whole soak.

use std::time::{Duration, Instant};

use pentago::{Position, UctConfig};
use pentagrid_proto::{Client, MAX_JOB_PLAYOUTS, Task, v2};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{SoakError, SoakOptions};
use crate::sample_positions;

/// Analyses the campaign submits per call (the coordinator's cap per submission).
const CAMPAIGN_BATCH: u64 = 1_000;
/// How often the campaign looks at the queue.
const CAMPAIGN_EVERY: Duration = Duration::from_millis(500);

/// One puzzle mining round.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MiningRound {
    /// Seconds since the soak began, at the request.
    pub at: f64,
    /// Seconds until the answer (mining runs inside the call).
    pub seconds: f64,
    /// Candidates queued.
    pub queued: u64,
}

/// What the admin side did.
#[derive(Clone, Debug, Default)]
pub struct AdminLog {
    /// Pairs of the match stored by the end.
    pub match_pairs_done: u64,
    /// Seconds since the soak began when the match's last pair was stored.
    pub match_finished_at: Option<f64>,
    /// The mining rounds.
    pub mining: Vec<MiningRound>,
    /// Analyses the campaign submitted.
    pub campaign_jobs: u64,
    /// Admin calls that failed.
    pub errors: Vec<String>,
}

/// An admin client.
pub struct Admin {
    client: Client,
}

/// The admin side's work in progress.
pub struct Work {
    /// The book build.
    pub build_id: u64,
    matches: JoinHandle<(u64, Option<f64>, Vec<String>)>,
    mining: JoinHandle<(Vec<MiningRound>, Vec<String>)>,
    campaign: JoinHandle<(u64, Vec<String>)>,
}

impl Work {
    /// Waits for the loops (stopped by the soak's stop signal) and gathers their logs.
    pub async fn finish(self) -> AdminLog {
        let mut log = AdminLog::default();
        let panicked = |what: &str, e: tokio::task::JoinError| format!("{what} task: {e}");
        match self.matches.await {
            Ok((done, finished, errors)) => {
                (log.match_pairs_done, log.match_finished_at) = (done, finished);
                log.errors.extend(errors);
            }
            Err(e) => log.errors.push(panicked("match", e)),
        }
        match self.mining.await {
            Ok((rounds, errors)) => {
                log.mining = rounds;
                log.errors.extend(errors);
            }
            Err(e) => log.errors.push(panicked("mining", e)),
        }
        match self.campaign.await {
            Ok((jobs, errors)) => {
                log.campaign_jobs = jobs;
                log.errors.extend(errors);
            }
            Err(e) => log.errors.push(panicked("campaign", e)),
        }
        log
    }
}

impl Admin {
    /// A client for `url` with the admin `token`.
    pub fn connect(url: &str, token: &str) -> Result<Admin, SoakError> {
        let client = pentagrid_proto::connect(url, token, None)
            .map_err(|e| SoakError::Coordinator(format!("connecting the admin: {e}")))?;
        Ok(Admin { client })
    }

    /// Waits until the coordinator answers `Status` (it answers UNAVAILABLE while it opens
    /// the database).
    pub async fn wait_until_open(&self, timeout: Duration) -> Result<(), SoakError> {
        let started = Instant::now();
        loop {
            match self
                .client
                .clone()
                .status(v2::StatusRequest::default())
                .await
            {
                Ok(_) => return Ok(()),
                Err(status) if started.elapsed() > timeout => {
                    return Err(SoakError::Rpc {
                        what: "waiting for the coordinator to open its database",
                        status,
                    });
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// Where the build stands (`None` if the call failed).
    pub async fn build_status(&self, build_id: u64) -> Option<v2::BuildStatusResponse> {
        let request = v2::BuildStatusRequest { build_id };
        let status = self.client.clone().build_status(request).await.ok()?;
        Some(status.into_inner())
    }

    /// Starts the book build from the start position through the pre-filled book, and waits
    /// until its frontier has walked the stored tree down to the first positions without a
    /// table (its first jobs are queued): that walk happens once per build start or
    /// coordinator restart, and the soak measures the steady state after it. Returns the
    /// build id and the seconds the walk took.
    pub async fn start_build(
        &self,
        options: &SoakOptions,
        timeout: Duration,
    ) -> Result<(u64, f64), SoakError> {
        let started = Instant::now();
        let build = v2::StartBuildRequest {
            roots: vec![Position::START.to_string()],
            depth: 36,
            max_positions: 10_000_000,
            budget: MAX_JOB_PLAYOUTS,
            playouts_per_position: options.playouts,
            config: UctConfig::default().to_string(),
            solve_stones: 0,
            deep_from: 0,
            deep_window: 0,
            deep_leaf_stones: 0,
        };
        let build_id = self
            .client
            .clone()
            .start_build(build)
            .await
            .map_err(|status| SoakError::Rpc {
                what: "starting the build",
                status,
            })?
            .into_inner()
            .build_id;
        loop {
            if self
                .build_status(build_id)
                .await
                .is_some_and(|status| status.positions > 0)
            {
                return Ok((build_id, started.elapsed().as_secs_f64()));
            }
            if started.elapsed() > timeout {
                return Err(SoakError::Coordinator(format!(
                    "the build queued nothing in {} s",
                    timeout.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Starts the match, then the loops that watch the match, mine puzzles and feed the
    /// campaign until `stop`.
    pub async fn start(
        &self,
        options: &SoakOptions,
        build_id: u64,
        origin: Instant,
        stop: watch::Receiver<bool>,
    ) -> Result<Work, SoakError> {
        let mut client = self.client.clone();
        let pairs = options.match_pairs;
        let request = v2::CreateMatchRequest {
            a: "uct:playouts=2000".into(),
            b: "uct:playouts=1000".into(),
            pairs,
            sprt: String::new(),
            openings: "random:plies=2".into(),
            seed: 13,
            accuracy_stones: None,
            ..v2::CreateMatchRequest::default()
        };
        let match_id = client
            .create_match(request)
            .await
            .map_err(|status| SoakError::Rpc {
                what: "creating the match",
                status,
            })?
            .into_inner()
            .match_id;
        let mine = (options.mine_every, options.mine_candidates);
        let campaign = (options.campaign_queue, options.playouts);
        Ok(Work {
            build_id,
            matches: tokio::spawn(watch_match(
                client.clone(),
                match_id,
                pairs,
                origin,
                stop.clone(),
            )),
            mining: tokio::spawn(mine_puzzles(client.clone(), mine, origin, stop.clone())),
            campaign: tokio::spawn(feed_campaign(client, campaign, stop)),
        })
    }
}

/// Sleeps `duration`; false when the soak stopped first.
async fn sleep_or_stop(duration: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        () = tokio::time::sleep(duration) => true,
        _ = stop.wait_for(|stopped| *stopped) => false,
    }
}

/// Polls the match every second until its last pair is stored or the soak stops.
async fn watch_match(
    mut client: Client,
    match_id: u64,
    pairs: u64,
    origin: Instant,
    mut stop: watch::Receiver<bool>,
) -> (u64, Option<f64>, Vec<String>) {
    let mut errors = Vec::new();
    let mut done = 0;
    loop {
        let request = v2::MatchStatusRequest {
            match_id,
            ..v2::MatchStatusRequest::default()
        };
        match client.match_status(request).await {
            Ok(status) => done = status.into_inner().pairs_done,
            Err(status) => errors.push(format!("match status: {status}")),
        }
        if done >= pairs {
            return (done, Some(origin.elapsed().as_secs_f64()), errors);
        }
        if !sleep_or_stop(Duration::from_secs(1), &mut stop).await {
            return (done, None, errors);
        }
    }
}

/// A mining round every `every` (or right after the last one, if it took longer).
async fn mine_puzzles(
    mut client: Client,
    (every, candidates): (Duration, u64),
    origin: Instant,
    mut stop: watch::Receiver<bool>,
) -> (Vec<MiningRound>, Vec<String>) {
    let (mut rounds, mut errors) = (Vec::new(), Vec::new());
    for seed in 1.. {
        let sent = Instant::now();
        let request = v2::GeneratePuzzlesRequest {
            candidates,
            max_moves: 3,
            min_stones: 20,
            random_games: true,
            seed,
            min_moves: 0,
        };
        match client.generate_puzzles(request).await {
            Ok(reply) => rounds.push(MiningRound {
                at: (sent - origin).as_secs_f64(),
                seconds: sent.elapsed().as_secs_f64(),
                queued: reply.into_inner().queued,
            }),
            Err(status) => errors.push(format!("generate puzzles: {status}")),
        }
        if !sleep_or_stop(every.saturating_sub(sent.elapsed()), &mut stop).await {
            break;
        }
    }
    (rounds, errors)
}

/// Keeps at least `depth` jobs queued with analyses of `playouts` playouts of positions from
/// random play; returns the analyses submitted.
async fn feed_campaign(
    mut client: Client,
    (depth, playouts): (u64, u64),
    mut stop: watch::Receiver<bool>,
) -> (u64, Vec<String>) {
    let (mut submitted, mut errors) = (0, Vec::new());
    if depth == 0 {
        return (submitted, errors);
    }
    let positions: Vec<Position> = [4, 8, 12, 16]
        .into_iter()
        .flat_map(|plies| sample_positions(2_500, plies, u64::from(plies)))
        .collect();
    let mut next = 0;
    loop {
        let queued = match client.status(v2::StatusRequest::default()).await {
            Ok(status) => Some(status.into_inner().queued),
            Err(status) => {
                errors.push(format!("status: {status}"));
                None
            }
        };
        let wanted = queued.map_or(0, |queued| depth.saturating_sub(queued));
        if wanted > 0 {
            let jobs = (0..wanted.min(CAMPAIGN_BATCH))
                .map(|_| {
                    next += 1;
                    v2::JobSpec::from(&Task::Analyse {
                        position: positions[next % positions.len()],
                        config: UctConfig::default(),
                        playouts,
                    })
                })
                .collect();
            match client.submit_jobs(v2::SubmitJobsRequest { jobs }).await {
                Ok(reply) => submitted += reply.into_inner().job_ids.len() as u64,
                Err(status) => errors.push(format!("submit jobs: {status}")),
            }
        }
        if !sleep_or_stop(CAMPAIGN_EVERY, &mut stop).await {
            return (submitted, errors);
        }
    }
}
