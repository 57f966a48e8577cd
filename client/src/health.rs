//! Asking a coordinator whether it serves, through `grpc.health.v1` (no token needed), as
//! scripts, container health checks and load balancers do.

use std::time::Duration;

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::error::{ClientError, Result};

/// What a coordinator's health service answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// Open and serving.
    Serving,
    /// Opening its database, or shutting down.
    NotServing,
    /// No status known (or one this client does not know).
    Unknown,
    /// The service asked about does not exist there.
    ServiceUnknown,
}

impl Health {
    /// The protocol's name for it (`SERVING`, `NOT_SERVING`, …).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Health::Serving => "SERVING",
            Health::NotServing => "NOT_SERVING",
            Health::Unknown => "UNKNOWN",
            Health::ServiceUnknown => "SERVICE_UNKNOWN",
        }
    }
}

/// Asks the coordinator at `url` about `service` (`""`: the whole server), waiting at most
/// `timeout` to connect and again for the answer. `https://` needs `tls_ca`.
pub async fn check(
    url: &str,
    tls_ca: Option<&[u8]>,
    service: &str,
    timeout: Duration,
) -> Result<Health> {
    let address = || pentagrid_proto::ConnectError::Address(url.to_owned());
    let mut endpoint = Endpoint::from_shared(url.to_owned())
        .map_err(|_| address())?
        .connect_timeout(timeout)
        .timeout(timeout);
    match (url.split_once("://").map(|(scheme, _)| scheme), tls_ca) {
        (Some("http"), _) => {}
        (Some("https"), Some(ca)) => {
            endpoint = endpoint
                .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)))
                .map_err(pentagrid_proto::ConnectError::Tls)?;
        }
        (Some("https"), None) => {
            return Err(pentagrid_proto::ConnectError::MissingCa(url.to_owned()).into());
        }
        _ => return Err(address().into()),
    }
    let channel = endpoint
        .connect()
        .await
        .map_err(|e| ClientError::Rpc(tonic::Status::unavailable(format!("{url}: {e}"))))?;
    let reply = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await?;
    Ok(match reply.into_inner().status() {
        ServingStatus::Serving => Health::Serving,
        ServingStatus::NotServing => Health::NotServing,
        ServingStatus::ServiceUnknown => Health::ServiceUnknown,
        ServingStatus::Unknown => Health::Unknown,
    })
}
