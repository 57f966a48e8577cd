//! `pentagrid health`: asks a coordinator's `grpc.health.v1` service whether it serves, for
//! scripts and container health checks (exit 0 when SERVING, 1 otherwise).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use super::cluster::runtime;

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
}

pub fn run(args: &HealthArgs) -> Result<()> {
    anyhow::ensure!(
        (1..=3600).contains(&args.timeout),
        "--timeout must be from 1 to 3600 seconds"
    );
    let timeout = Duration::from_secs(args.timeout);
    let mut endpoint = Endpoint::from_shared(args.coordinator.clone())
        .with_context(|| format!("bad coordinator address {:?}", args.coordinator))?
        .connect_timeout(timeout)
        .timeout(timeout);
    if let Some(ca) = &args.tls_ca {
        let ca = std::fs::read(ca).context("reading --tls-ca")?;
        endpoint = endpoint
            .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)))?;
    }
    let status = runtime()?.block_on(async {
        let channel = endpoint
            .connect()
            .await
            .with_context(|| format!("the coordinator at {} is unreachable", args.coordinator))?;
        let reply = HealthClient::new(channel)
            .check(HealthCheckRequest {
                service: args.service.clone(),
            })
            .await?;
        anyhow::Ok(reply.into_inner().status())
    })?;
    match status {
        ServingStatus::Serving => {
            println!("serving");
            Ok(())
        }
        other => bail!("the coordinator is not serving ({})", other.as_str_name()),
    }
}
