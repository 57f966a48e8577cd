//! Authentication and protocol check for every call: a bearer token and the protocol version
//! in the metadata, checked by an interceptor before any handler runs.

use pentagrid_proto::{PROTOCOL_HEADER, PROTOCOL_VERSION};
use tonic::{Request, Status};

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
        let metadata = request.metadata();
        let protocol = metadata.get(PROTOCOL_HEADER).and_then(|v| v.to_str().ok());
        match protocol.map(str::parse::<u32>) {
            Some(Ok(PROTOCOL_VERSION)) => {}
            Some(_) => {
                return Err(Status::failed_precondition(format!(
                    "incompatible protocol {:?}: this coordinator speaks pentagrid protocol {PROTOCOL_VERSION}",
                    protocol.unwrap_or_default()
                )));
            }
            None => {
                return Err(Status::failed_precondition(format!(
                    "missing {PROTOCOL_HEADER} header: this coordinator speaks pentagrid protocol {PROTOCOL_VERSION}"
                )));
            }
        }
        let token = metadata.get("authorization").and_then(|v| v.to_str().ok());
        match token {
            Some(given) if constant_time_eq(given.as_bytes(), self.expected.as_bytes()) => {
                Ok(request)
            }
            Some(_) => {
                tracing::warn!("call with a wrong token refused");
                Err(Status::unauthenticated("wrong token"))
            }
            None => Err(Status::unauthenticated(
                "missing token (authorization: Bearer <token>)",
            )),
        }
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
            auth.check(request(Some("Bearer s3cret"), Some("1")))
                .is_ok()
        );
        let code = |r| auth.check(r).unwrap_err().code();
        assert_eq!(code(request(None, Some("1"))), tonic::Code::Unauthenticated);
        assert_eq!(
            code(request(Some("Bearer nope"), Some("1"))),
            tonic::Code::Unauthenticated
        );
        assert_eq!(
            code(request(Some("Bearer s3cret"), Some("2"))),
            tonic::Code::FailedPrecondition
        );
        assert_eq!(
            code(request(Some("Bearer s3cret"), None)),
            tonic::Code::FailedPrecondition
        );
    }
}
