//! Authentication and protocol check for every call: a bearer token and the protocol version
//! in the metadata, checked by an interceptor before any handler runs.

use pentagrid_proto::{PROTOCOL_HEADER, PROTOCOL_VERSION};
use tonic::{Request, Status};

/// Why a call was refused before reaching a handler.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The caller speaks another protocol version.
    #[error(
        "incompatible protocol {0:?}: this coordinator speaks pentagrid protocol {PROTOCOL_VERSION}"
    )]
    Protocol(String),
    /// The caller sent no protocol version.
    #[error(
        "missing {PROTOCOL_HEADER} header: this coordinator speaks pentagrid protocol {PROTOCOL_VERSION}"
    )]
    NoProtocol,
    /// The token is wrong.
    #[error("wrong token")]
    WrongToken,
    /// There is no token.
    #[error("missing token (authorization: Bearer <token>)")]
    NoToken,
}

/// The interceptor: refuses calls without the right token or protocol version.
#[derive(Clone)]
pub struct Auth {
    expected: String,
}

impl Auth {
    /// Accepts `authorization: Bearer <token>`.
    #[must_use]
    pub fn new(token: &str) -> Auth {
        Auth {
            expected: format!("Bearer {token}"),
        }
    }

    /// Checks one call.
    pub fn check(&self, request: Request<()>) -> Result<Request<()>, Status> {
        self.verify(&request)?;
        Ok(request)
    }

    fn verify(&self, request: &Request<()>) -> Result<(), AuthError> {
        let metadata = request.metadata();
        let protocol = metadata.get(PROTOCOL_HEADER).and_then(|v| v.to_str().ok());
        match protocol.map(str::parse::<u32>) {
            Some(Ok(PROTOCOL_VERSION)) => {}
            Some(_) => {
                return Err(AuthError::Protocol(protocol.unwrap_or_default().to_owned()));
            }
            None => return Err(AuthError::NoProtocol),
        }
        let token = metadata.get("authorization").and_then(|v| v.to_str().ok());
        match token {
            Some(given) if constant_time_eq(given.as_bytes(), self.expected.as_bytes()) => Ok(()),
            Some(_) => {
                tracing::warn!("call with a wrong token refused");
                Err(AuthError::WrongToken)
            }
            None => Err(AuthError::NoToken),
        }
    }
}

impl tonic::service::Interceptor for Auth {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        self.check(request)
    }
}

/// Compares without an early exit, so timing does not reveal how much of a token matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(token: Option<&str>, protocol: Option<&str>) -> Request<()> {
        let mut r = Request::new(());
        if let Some(t) = token {
            r.metadata_mut().insert("authorization", t.parse().unwrap());
        }
        if let Some(p) = protocol {
            r.metadata_mut().insert(PROTOCOL_HEADER, p.parse().unwrap());
        }
        r
    }

    #[test]
    fn token_and_protocol_are_required() {
        let auth = Auth::new("s3cret");
        assert!(
            auth.check(request(Some("Bearer s3cret"), Some("2")))
                .is_ok()
        );
        let code = |r| auth.check(r).unwrap_err().code();
        assert_eq!(code(request(None, Some("2"))), tonic::Code::Unauthenticated);
        assert_eq!(
            code(request(Some("Bearer nope"), Some("2"))),
            tonic::Code::Unauthenticated
        );
        assert_eq!(
            code(request(Some("Bearer s3cret"), Some("1"))),
            tonic::Code::FailedPrecondition
        );
        assert_eq!(
            code(request(Some("Bearer s3cret"), None)),
            tonic::Code::FailedPrecondition
        );
    }
}
