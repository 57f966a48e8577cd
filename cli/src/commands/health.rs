//! `pentagrid health`: asks a coordinator's `grpc.health.v1` service whether it serves, for
//! scripts and container health checks (exit 0 when SERVING, 1 otherwise).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use clap::Args;
use pentagrid_client::health::{Health, check};

use super::cluster::runtime;
use crate::output::outln;

/// Check that a coordinator is up and serving (exit 0), or not (exit 1). Needs no token.
#[derive(Args)]
pub struct HealthArgs {
    /// Coordinator URL (`https://` needs --tls-ca).
    #[arg(
        long,
        env = "PENTAGRID_COORDINATOR",
        default_value = "http://127.0.0.1:7878"
    )]
    coordinator: String,
    /// PEM certificate of the authority that signed the coordinator's TLS certificate.
    #[arg(long)]
    tls_ca: Option<PathBuf>,
    /// The service to ask about; the default, empty, means the whole server.
    #[arg(long, default_value = "")]
    service: String,
    /// Seconds to wait for an answer.
    #[arg(long, default_value_t = 5)]
    timeout: u64,
    /// Print the answer as JSON (`{"coordinator": URL, "service": NAME, "status": "SERVING"}`);
    /// the exit status is the same.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &HealthArgs) -> Result<()> {
    ensure!(
        (1..=3600).contains(&args.timeout),
        "--timeout must be from 1 to 3600 seconds"
    );
    let ca = args
        .tls_ca
        .as_ref()
        .map(std::fs::read)
        .transpose()
        .context("reading --tls-ca")?;
    let timeout = Duration::from_secs(args.timeout);
    super::cluster::note_coordinator(&args.coordinator);
    let health = runtime()?.block_on(check(
        &args.coordinator,
        ca.as_deref(),
        &args.service,
        timeout,
    ))?;
    if args.json {
        outln!(
            "{}",
            serde_json::json!({
                "coordinator": args.coordinator,
                "service": args.service,
                "status": health.name(),
            })
        );
    } else if health == Health::Serving {
        outln!("serving");
    }
    match health {
        Health::Serving => Ok(()),
        other => bail!(
            "the coordinator at {} is not serving ({})",
            crate::output::peer(&args.coordinator),
            other.name()
        ),
    }
}
