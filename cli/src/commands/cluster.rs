//! `pentagrid coordinator` and `pentagrid worker`: the two halves of a cluster.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use clap::Args;
use pentago::MID_MIN_STONES;
use pentagrid_client::{Client, read_token};
use pentagrid_coordinator::{
    BackgroundPriority, Coordinator, CoordinatorSettings, CrossCheckSettings, JobSettings,
    MAX_JUDGE_STONES, MAX_LEASE, MAX_PRUNE_AFTER_LEASES, MAX_WORKERS, Metrics,
};
use pentagrid_edge::{ConnectionLimits, Credentials, Grant, Role, TlsFiles, serve_opening};
use pentagrid_store::OpenCheck;
use pentagrid_worker::{WorkerIdentity, WorkerMetrics, WorkerOptions};

use super::engines::EngineArgs;

/// Options to reach a coordinator, shared by the worker and the client commands.
#[derive(Args, Clone)]
pub struct Connection {
    /// Coordinator URL (`https://` needs --tls-ca).
    #[arg(
        long,
        env = "PENTAGRID_COORDINATOR",
        default_value = "http://127.0.0.1:7878"
    )]
    pub coordinator: String,
    /// File holding the token (its first line); required to reach a coordinator. A worker
    /// needs a worker token; client commands an admin token (or a read token to only read).
    #[arg(long, env = "PENTAGRID_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// PEM certificate of the authority that signed the coordinator's TLS certificate.
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
}

/// The coordinator URL this command set out to reach, for an error that says it could not.
static TRIED_COORDINATOR: OnceLock<String> = OnceLock::new();

/// Notes `url` as the coordinator this command reaches (the first noted stays).
pub fn note_coordinator(url: &str) {
    let _ = TRIED_COORDINATOR.set(url.to_owned());
}

/// The coordinator URL this command set out to reach, if it reached for one by URL (an
/// embedded cluster's is not noted).
pub fn tried_coordinator() -> Option<&'static str> {
    TRIED_COORDINATOR.get().map(String::as_str)
}

impl Connection {
    /// A runtime and a client for the coordinator (the client lives in the runtime).
    pub fn client(&self) -> Result<(tokio::runtime::Runtime, Client)> {
        note_coordinator(&self.coordinator);
        let (token, ca) = self.credentials()?;
        let rt = runtime()?;
        let client = {
            let _context = rt.enter();
            pentagrid_client::connect(&self.coordinator, &token, ca.as_deref())?
        };
        Ok((rt, client))
    }

    /// The token and the CA certificate (if any) from their files.
    pub fn credentials(&self) -> Result<(String, Option<Vec<u8>>)> {
        let path = self.token_file.as_ref().context(
            "a token file is needed to reach a coordinator: pass --token-file or set PENTAGRID_TOKEN_FILE",
        )?;
        let token = read_token(path)?;
        let ca = self
            .tls_ca
            .as_ref()
            .map(std::fs::read)
            .transpose()
            .context("reading --tls-ca")?;
        Ok((token, ca))
    }
}

/// A future that completes on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("a SIGTERM handler");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

/// Run a coordinator: serves workers and clients, keeps everything in a sled database.
#[derive(Args)]
pub struct CoordinatorArgs {
    /// Address to listen on (port 0 picks a free port; the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: String,
    /// Database directory (created if missing).
    #[arg(long, default_value = "pentagrid-data")]
    db: PathBuf,
    /// Open a database that lost data it had acknowledged (found by its integrity check): go on
    /// with what is left, log what was lost, and record the smaller state as the new normal.
    #[arg(long)]
    accept_data_loss: bool,
    /// File holding a token for every role (its first line): the one token of a one-person
    /// setup.
    #[arg(long, env = "PENTAGRID_TOKEN_FILE")]
    token_file: Option<PathBuf>,
    /// File holding the token of workers: hello, lease, heartbeat, submit results.
    #[arg(long)]
    worker_token_file: Option<PathBuf>,
    /// File holding the admin token: submit, cancel, import, build, mine, start matches; read.
    #[arg(long)]
    admin_token_file: Option<PathBuf>,
    /// File holding the read token: status, book, puzzles, matches, builds, games.
    #[arg(long)]
    read_token_file: Option<PathBuf>,
    /// A user's own admin token, `NAME=FILE` (repeatable; the token is the file's first line):
    /// matches and tuning runs created with it are NAME's, and the workers are shared equally
    /// among the users with queued pairs, then among each user's matches by weight.
    #[arg(long = "user-token", value_name = "NAME=FILE")]
    user_tokens: Vec<String>,
    /// Seconds a lease lasts without a heartbeat.
    #[arg(long, default_value_t = 60)]
    lease_seconds: u64,
    /// Leases a job may use up before it is marked failed.
    #[arg(long, default_value_t = 5)]
    max_attempts: u32,
    /// Forget workers silent for longer than this many lease durations.
    #[arg(long, default_value_t = 10)]
    prune_after_leases: u32,
    /// TLS certificate chain (PEM); with --tls-key, serve https.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Serve Prometheus metrics at `http://ADDR/metrics` (e.g. 0.0.0.0:9100).
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<String>,
    /// Share of verify results (0 to 1) whose puzzles a second party must confirm before they
    /// are published; the rest are published on the finding worker's word.
    #[arg(long, default_value_t = 1.0, value_name = "SHARE")]
    check_puzzles: f64,
    /// Share of solve results (0 to 1) whose exact values a second party must confirm before
    /// they are stored; of deep-leaves results, whose one leaf the coordinator re-solves.
    #[arg(long, default_value_t = 0.05, value_name = "SHARE")]
    check_solves: f64,
    /// Share of analysis results (0 to 1) the coordinator compares with a short search of its
    /// own; a worker whose result is improbably far from it is quarantined.
    #[arg(long, default_value_t = 0.05, value_name = "SHARE")]
    check_analyses: f64,
    /// The coordinator itself is the checking party for positions with at least this many
    /// stones (the midsolver; 18 to 36), other workers below; 0: always other workers.
    #[arg(long, default_value_t = 20, value_name = "STONES")]
    judge_stones: u32,
    /// Most workers known at once; a new worker past it evicts the longest-silent one that
    /// holds no lease.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    max_workers: usize,
    /// The speed match time controls are meant for, in simulations per second (what
    /// `pentagrid worker --measure-speed` prints on that machine): each worker multiplies a
    /// refereed pair's time limit by this over its own speed (kept within 0.1 to 10) and the
    /// factor is stored with each game. 0: no scaling (right for a cluster of like machines).
    #[arg(long, default_value_t = 0, value_name = "N")]
    reference_speed: u64,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    table: super::tablebase::CoordinatorTable,
}

/// Bounds on connections, shared by the coordinator and the explorer.
#[derive(Args, Clone)]
pub struct LimitArgs {
    /// Most connections that have made a request open at once; past it the longest idle is
    /// closed (keep it and --max-pending-connections below the descriptor limit, `ulimit -n`).
    #[arg(long, default_value_t = 4_096, value_name = "N")]
    max_connections: usize,
    /// Most connections that have not yet made a request; past it the oldest is closed.
    #[arg(long, default_value_t = 256, value_name = "N")]
    max_pending_connections: usize,
    /// Most connections from one address that have not yet made a request; past it that
    /// address's oldest is closed.
    #[arg(long, default_value_t = 64, value_name = "N")]
    max_pending_per_address: usize,
    /// Seconds a new connection has to make its first request (TLS handshake and headers
    /// included); the explorer also gives any request's headers this long.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    handshake_timeout: u64,
    /// Seconds a connection may stay silent before it is closed (more than 50: live peers
    /// answer keepalive pings every 30 s).
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    idle_timeout: u64,
}

impl LimitArgs {
    /// The limits, validated.
    pub fn limits(&self) -> Result<ConnectionLimits> {
        let limits = ConnectionLimits {
            max_connections: self.max_connections,
            max_pending: self.max_pending_connections,
            max_pending_per_address: self.max_pending_per_address,
            handshake_timeout: Duration::from_secs(self.handshake_timeout),
            idle_timeout: Duration::from_secs(self.idle_timeout),
            ..ConnectionLimits::default()
        };
        limits.validate()?;
        Ok(limits)
    }
}

impl CoordinatorArgs {
    /// The tokens from the token files given; every token must differ from the others.
    fn credentials(&self) -> Result<Credentials> {
        let files = [
            (Grant::All, &self.token_file),
            (Grant::Role(Role::Worker), &self.worker_token_file),
            (Grant::Role(Role::Admin), &self.admin_token_file),
            (Grant::Role(Role::Read), &self.read_token_file),
        ];
        let mut tokens = Vec::new();
        for (grant, path) in files {
            if let Some(path) = path {
                tokens.push((grant, read_token(path)?));
            }
        }
        ensure!(
            !tokens.is_empty(),
            "a coordinator needs a token: pass --token-file (one token for every role) or \
             --worker-token-file, --admin-token-file and --read-token-file"
        );
        let mut users = Vec::new();
        for given in &self.user_tokens {
            let (name, path) = given
                .split_once('=')
                .filter(|(name, path)| !name.is_empty() && !path.is_empty())
                .with_context(|| {
                    format!(
                        "--user-token {given:?} must be NAME=FILE (a user name and a token file)"
                    )
                })?;
            let token = read_token(Path::new(path))
                .with_context(|| format!("--user-token for user {name}"))?;
            users.push((name.to_owned(), token));
        }
        Ok(Credentials::new(tokens)?.with_users(users)?)
    }
}

/// How the database is checked at open: `--accept-data-loss` goes on past a shortfall.
pub fn open_check(accept_data_loss: bool) -> OpenCheck {
    if accept_data_loss {
        tracing::warn!(
            "--accept-data-loss: a database that lost acknowledged data will be opened with what is left"
        );
        OpenCheck::AcceptDataLoss
    } else {
        OpenCheck::Verify
    }
}

// The flags' ranges, from the bounds the coordinator's settings are validated against where
// they are defined, so that a refused flag names itself instead of the setting behind it.
/// Lease durations a coordinator accepts, in seconds.
const LEASE_SECONDS: RangeInclusive<u64> = 1..=MAX_LEASE.as_secs();
/// Lease durations of silence after which a worker is forgotten.
const PRUNE_AFTER_LEASES: RangeInclusive<u32> = 1..=MAX_PRUNE_AFTER_LEASES;
/// Workers a coordinator may know at once.
const WORKERS: RangeInclusive<usize> = 1..=MAX_WORKERS;
/// Stone counts from which the coordinator can judge claims itself: the midsolver's, from its
/// smallest stone count to a full board.
const JUDGE_STONES: RangeInclusive<u32> = MID_MIN_STONES..=MAX_JUDGE_STONES;

/// Checks the coordinator's settings before anything is opened.
fn check_settings(args: &CoordinatorArgs) -> Result<()> {
    ensure!(
        LEASE_SECONDS.contains(&args.lease_seconds),
        "--lease-seconds must be from {} to {}",
        LEASE_SECONDS.start(),
        LEASE_SECONDS.end()
    );
    ensure!(args.max_attempts >= 1, "--max-attempts must be at least 1");
    ensure!(
        PRUNE_AFTER_LEASES.contains(&args.prune_after_leases),
        "--prune-after-leases must be from {} to {}",
        PRUNE_AFTER_LEASES.start(),
        PRUNE_AFTER_LEASES.end()
    );
    for (flag, share) in [
        ("--check-puzzles", args.check_puzzles),
        ("--check-solves", args.check_solves),
        ("--check-analyses", args.check_analyses),
    ] {
        ensure!((0.0..=1.0).contains(&share), "{flag} must be from 0 to 1");
    }
    ensure!(
        args.judge_stones == 0 || JUDGE_STONES.contains(&args.judge_stones),
        "--judge-stones must be 0 (never) or from {} to {}",
        JUDGE_STONES.start(),
        JUDGE_STONES.end()
    );
    ensure!(
        WORKERS.contains(&args.max_workers),
        "--max-workers must be from {} to {}",
        WORKERS.start(),
        WORKERS.end()
    );
    Ok(())
}

pub fn run_coordinator(args: &CoordinatorArgs) -> Result<()> {
    check_settings(args)?;
    let limits = args.limits.limits()?;
    let credentials = args.credentials()?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsFiles {
            cert: std::fs::read(cert).context("reading --tls-cert")?,
            key: std::fs::read(key).context("reading --tls-key")?,
        }),
        _ => None,
    };
    let metrics = Metrics::new();
    let settings = CoordinatorSettings {
        jobs: JobSettings {
            lease_duration: Duration::from_secs(args.lease_seconds),
            heartbeat_interval: Duration::from_secs((args.lease_seconds / 4).max(1)),
            max_attempts: args.max_attempts,
            prune_after_leases: args.prune_after_leases,
            max_workers: args.max_workers,
            reference_speed: args.reference_speed,
            ..JobSettings::default()
        },
        metrics: metrics.clone(),
        crosscheck: CrossCheckSettings {
            puzzle_sample: args.check_puzzles,
            solve_sample: args.check_solves,
            analysis_sample: args.check_analyses,
            judge_stones: args.judge_stones,
        },
        // A standalone coordinator answers many workers: its mining and build rounds must
        // wait for the CPU before their heartbeats do.
        background: BackgroundPriority::Low,
        open_check: open_check(args.accept_data_loss),
        table: args.table.open()?,
    };
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let address = listener.local_addr()?;
        let opened: Arc<OnceLock<Arc<Coordinator>>> = Arc::default();
        if let Some(metrics_listen) = &args.metrics_listen {
            let (metrics, opened) = (metrics.clone(), opened.clone());
            let bound = crate::metrics_http::start(metrics_listen, move || {
                metrics.render(opened.get().and_then(|c| c.metrics_snapshot()).as_ref())
            })
            .await?;
            // A courtesy, as the address line: a service whose output went away keeps serving.
            let _ = crate::output::io_line(format_args!("metrics at http://{bound}/metrics"));
        }
        // Health answers NOT_SERVING on the address while the database opens and is checked;
        // the address is announced only once the TLS material was read and the database passed
        // its check, so a refused start never reads as a coordinator that came up.
        tracing::info!(%address, db = %args.db.display(), "opening and checking the database");
        let db = args.db.clone();
        let open = move || {
            let coordinator = Coordinator::open(&db, settings)?;
            let _ = opened.set(coordinator.clone());
            // A daemon whose standard output went away keeps serving: the line is a courtesy.
            let _ = crate::output::io_line(format_args!("coordinator listening on {address}"));
            tracing::info!(%address, "coordinator listening; the database passed its check");
            Ok(coordinator)
        };
        serve_opening(
            listener,
            open,
            metrics,
            credentials,
            tls,
            limits,
            shutdown_signal(),
        )
        .await
        .with_context(|| format!("coordinator with the database in {}", args.db.display()))?;
        Ok(())
    })
}

/// Run a worker: lease jobs from the coordinator and run them on all cores.
#[derive(Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    connection: Connection,
    /// Threads (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Name shown in the coordinator's status; with the state directory, it also keys the
    /// worker's persisted id (give each worker on one machine its own name).
    #[arg(long, default_value = "worker")]
    name: String,
    /// Where the worker keeps its id across restarts (default: the user's data directory,
    /// `$XDG_DATA_HOME/pentagrid` or `~/.local/share/pentagrid`). When it cannot be written
    /// (a read-only container), the id is derived from --name instead.
    #[arg(long, env = "PENTAGRID_WORKER_STATE", value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Append `result_id job_id applied|duplicate` to this file for every acknowledged result.
    #[arg(long)]
    ack_log: Option<PathBuf>,
    /// Serve Prometheus metrics at `http://ADDR/metrics` (e.g. 0.0.0.0:9101).
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<String>,
    /// This machine's speed in simulations per second of one thread of the default player, as
    /// told to the coordinator (whose --reference-speed over it scales match time limits);
    /// by default measured (a fraction of a second) when a coordinator first asks for
    /// scaling. 0: unknown, never scaled.
    #[arg(long, value_name = "N")]
    speed: Option<u64>,
    /// Measure this machine's speed (as a worker does for a coordinator with a reference
    /// speed), print it and exit.
    #[arg(long, conflicts_with = "speed")]
    measure_speed: bool,
    #[command(flatten)]
    engines: EngineArgs,
}

pub fn run_worker(args: &WorkerArgs) -> Result<()> {
    if args.measure_speed {
        let speed = pentagrid_worker::measure_speed();
        crate::output::outln!("{speed} simulations per second (one thread, the default player)");
        return Ok(());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    ensure!(
        (1..=super::MAX_THREADS).contains(&threads),
        "--threads must be from 1 to {}, not {threads}",
        super::MAX_THREADS
    );
    let (token, tls_ca) = args.connection.credentials()?;
    let options = WorkerOptions {
        coordinator: args.connection.coordinator.clone(),
        token,
        tls_ca,
        name: args.name.clone(),
        threads,
        ack_log: args.ack_log.clone(),
        max_results: None,
        identity: WorkerIdentity::Persisted(
            args.state_dir.clone().unwrap_or_else(default_state_dir),
        ),
        engines: args.engines.settings()?,
        speed: args.speed,
    };
    runtime()?.block_on(async {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("shutting down: finishing the current job");
            let _ = stop.send(true);
        });
        let metrics = WorkerMetrics::new();
        if let Some(metrics_listen) = &args.metrics_listen {
            let metrics = metrics.clone();
            let bound =
                crate::metrics_http::start(metrics_listen, move || metrics.render()).await?;
            // A courtesy, as the address line: a service whose output went away keeps serving.
            let _ = crate::output::io_line(format_args!("metrics at http://{bound}/metrics"));
        }
        let report = pentagrid_worker::run_with_metrics(options, stopped, metrics).await?;
        tracing::info!(?report, "worker stopped");
        Ok(())
    })
}

/// The user's data directory for pentagrid (`$XDG_DATA_HOME/pentagrid`, else
/// `~/.local/share/pentagrid`, else `./.pentagrid` when no home is known).
fn default_state_dir() -> PathBuf {
    let from_env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(data) = from_env("XDG_DATA_HOME") {
        return PathBuf::from(data).join("pentagrid");
    }
    match from_env("HOME") {
        Some(home) => PathBuf::from(home).join(".local/share/pentagrid"),
        None => PathBuf::from(".pentagrid"),
    }
}

/// A multi-threaded tokio runtime for the cluster commands.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        args: CoordinatorArgs,
    }

    fn check(flags: &[&str]) -> Result<()> {
        let command =
            Command::try_parse_from(std::iter::once("coordinator").chain(flags.iter().copied()))
                .expect("the flags parse");
        check_settings(&command.args)
    }

    #[test]
    fn settings_are_checked_against_the_engine_and_the_named_bounds() {
        // The coordinator judges with the midsolver: from its smallest stone count to a full
        // board.
        assert_eq!(JUDGE_STONES, 18..=36);
        let accepted: &[&[&str]] = &[
            &[],
            &["--judge-stones", "0"],
            &["--judge-stones", "18"],
            &["--judge-stones", "36"],
            &["--lease-seconds", "1"],
            &["--lease-seconds", "86400"],
            &["--prune-after-leases", "10000"],
            &["--max-workers", "1"],
            &["--check-puzzles", "0", "--check-solves", "1"],
        ];
        for flags in accepted {
            assert!(check(flags).is_ok(), "{flags:?}");
        }
        let refused: &[(&[&str], &str)] = &[
            (
                &["--judge-stones", "17"],
                "--judge-stones must be 0 (never) or from 18 to 36",
            ),
            (
                &["--judge-stones", "37"],
                "--judge-stones must be 0 (never) or from 18 to 36",
            ),
            (
                &["--lease-seconds", "0"],
                "--lease-seconds must be from 1 to 86400",
            ),
            (
                &["--lease-seconds", "86401"],
                "--lease-seconds must be from 1 to 86400",
            ),
            (
                &["--prune-after-leases", "0"],
                "--prune-after-leases must be from 1 to 10000",
            ),
            (
                &["--max-workers", "0"],
                "--max-workers must be from 1 to 10000000",
            ),
            (
                &["--max-attempts", "0"],
                "--max-attempts must be at least 1",
            ),
            (
                &["--check-solves", "1.5"],
                "--check-solves must be from 0 to 1",
            ),
        ];
        for (flags, message) in refused {
            let error = check(flags).expect_err("refused");
            assert_eq!(error.to_string(), *message, "{flags:?}");
        }
    }

    #[test]
    fn user_tokens_name_their_users_and_bad_ones_are_refused_clearly() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let write = |name: &str, token: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("{token}\n")).expect("write a token file");
            path.display().to_string()
        };
        let all = write("all", "t-all");
        let ann = write("ann", "t-ann");
        let bob = write("bob", "t-bob");
        let same = write("same", "t-ann");
        let credentials = |users: &[String]| {
            let mut flags = vec!["coordinator".to_owned(), "--token-file".into(), all.clone()];
            for user in users {
                flags.extend(["--user-token".to_owned(), user.clone()]);
            }
            Command::try_parse_from(flags)
                .expect("the flags parse")
                .args
                .credentials()
        };
        let both = credentials(&[format!("ann={ann}"), format!("bob={bob}")]).expect("accepted");
        assert!(format!("{both:?}").contains("\"bob\""), "{both:?}");
        let refused = [
            (vec![ann.clone()], "must be NAME=FILE"),
            (vec![format!("={ann}")], "must be NAME=FILE"),
            (vec!["ann=".to_owned()], "must be NAME=FILE"),
            (
                vec!["ann=/nonexistent/ann".to_owned()],
                "--user-token for user ann: reading token file /nonexistent/ann",
            ),
            (
                vec![format!("ann={ann}"), format!("ann={bob}")],
                "user ann is given twice",
            ),
            (
                vec![format!("ann={ann}"), format!("bob={same}")],
                "the token of user bob is also given for a role or another user",
            ),
            (vec![format!("a b={ann}")], "user name \"a b\" must be"),
        ];
        for (users, message) in refused {
            let error = format!("{:#}", credentials(&users).expect_err("refused"));
            assert!(error.contains(message), "{users:?}: {error}");
        }
    }
}
