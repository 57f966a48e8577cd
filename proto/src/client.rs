//! Connecting to a coordinator: one channel, with the token and protocol headers on every call.

use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::v2::coordinator_client::CoordinatorClient;
use crate::{MAX_MESSAGE_BYTES, MAX_TOKEN_BYTES, PROTOCOL_HEADER, PROTOCOL_VERSION};

/// Adds `authorization` and the protocol version to each request.
#[derive(Clone)]
pub struct ClientAuth {
    token: MetadataValue<tonic::metadata::Ascii>,
}

impl tonic::service::Interceptor for ClientAuth {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let metadata = request.metadata_mut();
        metadata.insert("authorization", self.token.clone());
        metadata.insert(PROTOCOL_HEADER, MetadataValue::from(PROTOCOL_VERSION));
        Ok(request)
    }
}

/// A client of the coordinator API.
pub type Client = CoordinatorClient<InterceptedService<Channel, ClientAuth>>;

/// Why a client could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The address is not a valid URL.
    #[error("bad coordinator address {0:?}: expected a URL such as http://127.0.0.1:7878")]
    Address(String),
    /// An `https://` address without the certificate authority to check it against.
    #[error(
        "{0:?} is https: give the certificate authority (--tls-ca) that signed its certificate"
    )]
    MissingCa(String),
    /// The token has characters a header cannot carry.
    #[error("the token must be printable ASCII without spaces")]
    Token,
    /// The token is longer than a coordinator accepts in a header.
    #[error("the token is {0} bytes long; at most {MAX_TOKEN_BYTES} are allowed")]
    TokenTooLong(usize),
    /// TLS setup failed.
    #[error("TLS: {0}")]
    Tls(tonic::transport::Error),
}

/// A client for the coordinator at `url` (`http://host:port`, or `https://` with `tls_ca`, the
/// PEM certificate of the authority that signed the coordinator's certificate). The connection
/// is made on first use and re-made after failures, so a client outlives coordinator restarts.
/// Must be called within a tokio runtime.
pub fn connect(url: &str, token: &str, tls_ca: Option<&[u8]>) -> Result<Client, ConnectError> {
    match url.split_once("://").map(|(scheme, _)| scheme) {
        Some("http") => {}
        Some("https") if tls_ca.is_some() => {}
        Some("https") => return Err(ConnectError::MissingCa(url.to_owned())),
        _ => return Err(ConnectError::Address(url.to_owned())),
    }
    let mut endpoint = Endpoint::from_shared(url.to_owned())
        .map_err(|_| ConnectError::Address(url.to_owned()))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true)
        // A connection that died silently (a network partition, a peer gone without a reset)
        // is noticed within seconds, so calls fail over to a fresh connection instead of
        // waiting on it.
        .http2_keep_alive_interval(Duration::from_secs(5))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true);
    if let Some(ca) = tls_ca {
        endpoint = endpoint
            .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)))
            .map_err(ConnectError::Tls)?;
    }
    if token.len() > MAX_TOKEN_BYTES {
        return Err(ConnectError::TokenTooLong(token.len()));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ConnectError::Token);
    }
    let token = format!("Bearer {token}")
        .parse()
        .map_err(|_| ConnectError::Token)?;
    let channel = endpoint.connect_lazy();
    Ok(
        CoordinatorClient::with_interceptor(channel, ClientAuth { token })
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_over_long_or_unprintable_token_is_refused_before_any_call() {
        let long = "t".repeat(133_000);
        assert!(matches!(
            connect("http://127.0.0.1:1", &long, None),
            Err(ConnectError::TokenTooLong(133_000))
        ));
        assert!(matches!(
            connect("http://127.0.0.1:1", "a\u{1b}b", None),
            Err(ConnectError::Token)
        ));
    }
}
