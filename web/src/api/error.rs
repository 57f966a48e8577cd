//! The API's errors and the one place that turns them into HTTP statuses and JSON bodies.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::exact::ExactError;
use crate::source::SourceError;

/// Why a request got no answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ApiError {
    /// A query or path parameter is missing or does not read.
    #[error("bad parameter {name:?}: {message}")]
    BadParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The thing asked for does not exist.
    #[error("{0}")]
    NotFound(String),
    /// No such route.
    #[error("no such route: {0:?}")]
    NoRoute(String),
    /// The route does not take this method (the API only reads: GET).
    #[error("method {0} is not allowed here: the API only reads (GET)")]
    MethodNotAllowed(String),
    /// The request target is too long.
    #[error("the URI is {bytes} bytes long; at most {max} are taken")]
    UriTooLong {
        /// Its length.
        bytes: usize,
        /// The longest taken.
        max: usize,
    },
    /// The headers are too large.
    #[error("the request headers are too large ({bytes} bytes); at most {max} are taken")]
    HeadersTooLarge {
        /// Their size.
        bytes: usize,
        /// The largest taken.
        max: usize,
    },
    /// The request could not be read as HTTP at all (refused by the HTTP layer, before any
    /// routing).
    #[error("{0}")]
    Unreadable(Unreadable),
    /// The coordinator could not answer.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Exact values could not be given (the solver is busy, a tablebase file is damaged).
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// An answer could not be written as JSON.
    #[error("the answer could not be encoded: {0}")]
    Encode(String),
    /// A rating list could not be fitted (counts beyond any real tournament).
    #[error("the rating list could not be fitted: {0}")]
    Unrated(String),
}

/// Longest request target taken, in bytes (hyper refuses far longer ones itself).
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Seconds a refused client is told to wait before asking again (`Retry-After`) when the
/// solver is busy.
pub const SOLVER_RETRY_AFTER_SECONDS: u64 = 5;

/// Largest header block taken, in bytes (names and values; hyper refuses far larger ones).
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Why the HTTP layer could not read a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// A request line or header that is not HTTP/1.1.
    #[error("the request is not valid HTTP/1.1: a malformed request line or header")]
    Malformed,
    /// A request target far past the longest taken.
    #[error("the URI is too long to be read; at most {max} bytes are taken", max = MAX_URI_BYTES)]
    UriTooLong,
    /// A header block far past the largest taken, or too many headers.
    #[error("the request headers are too large or too many to be read; at most {max} bytes are taken", max = MAX_HEADER_BYTES)]
    HeadersTooLarge,
}

impl ApiError {
    /// A bad parameter `name`.
    pub fn bad(name: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::BadParameter {
            name,
            message: message.into(),
        }
    }

    /// The status and the stable error code of this error.
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::BadParameter { .. } => (StatusCode::BAD_REQUEST, "bad_parameter"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::NoRoute(_) => (StatusCode::NOT_FOUND, "no_route"),
            ApiError::MethodNotAllowed(_) => (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
            ApiError::UriTooLong { .. } | ApiError::Unreadable(Unreadable::UriTooLong) => {
                (StatusCode::URI_TOO_LONG, "uri_too_long")
            }
            ApiError::HeadersTooLarge { .. }
            | ApiError::Unreadable(Unreadable::HeadersTooLarge) => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers_too_large",
            ),
            ApiError::Unreadable(Unreadable::Malformed) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::Encode(_) | ApiError::Unrated(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "internal")
            }
            ApiError::Exact(error) => match error {
                ExactError::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, "solver_busy"),
                ExactError::ShuttingDown => (StatusCode::SERVICE_UNAVAILABLE, "shutting_down"),
                ExactError::Table(_) => (StatusCode::INTERNAL_SERVER_ERROR, "tablebase_failed"),
                ExactError::SolverFailed(_) => (StatusCode::INTERNAL_SERVER_ERROR, "solver_failed"),
            },
            ApiError::Source(error) => match error {
                SourceError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
                SourceError::Rejected(_) => (StatusCode::BAD_REQUEST, "rejected"),
                SourceError::Unreachable(_) => {
                    (StatusCode::SERVICE_UNAVAILABLE, "coordinator_unreachable")
                }
                SourceError::Refused(_) => (StatusCode::BAD_GATEWAY, "coordinator_refused"),
                SourceError::Failed(_) | SourceError::Malformed(_) => {
                    (StatusCode::BAD_GATEWAY, "coordinator_failed")
                }
            },
        }
    }
}

/// The JSON body of every error: `{"error": {"code": ..., "message": ..., "parameter": ...}}`.
#[derive(Serialize)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Serialize)]
struct ErrorDetail {
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameter: Option<&'static str>,
}

impl ApiError {
    /// The status and the JSON body of this error.
    fn status_and_body(&self) -> (StatusCode, ErrorBody) {
        let (status, code) = self.status_and_code();
        let parameter = match self {
            ApiError::BadParameter { name, .. } => Some(*name),
            _ => None,
        };
        let body = ErrorBody {
            error: ErrorDetail {
                code,
                message: self.to_string(),
                parameter,
            },
        };
        (status, body)
    }

    /// The status and the JSON body of this error, as bytes (for answers written below the
    /// router).
    pub(crate) fn status_and_json(&self) -> (StatusCode, Vec<u8>) {
        let (status, body) = self.status_and_body();
        // Two strings and an optional one: serialising cannot fail.
        (status, serde_json::to_vec(&body).unwrap_or_default())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body) = self.status_and_body();
        if status.is_server_error() || status == StatusCode::BAD_GATEWAY {
            tracing::warn!(error = %self, "API request failed");
        }
        let mut response = (status, Json(body)).into_response();
        if let ApiError::Exact(ExactError::Busy(_)) = self {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(SOLVER_RETRY_AFTER_SECONDS),
            );
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_by_kind() {
        let status = |e: ApiError| e.status_and_code().0;
        assert_eq!(status(ApiError::bad("page", "x")), StatusCode::BAD_REQUEST);
        assert_eq!(
            status(ApiError::NotFound("x".into())),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status(SourceError::Unreachable("x".into()).into()),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            status(SourceError::Rejected("x".into()).into()),
            StatusCode::BAD_REQUEST
        );
        let busy = ApiError::from(ExactError::Busy(crate::exact::Busy {
            running: 1,
            queued: 4,
        }));
        assert_eq!(status(busy.clone()), StatusCode::SERVICE_UNAVAILABLE);
        let response = busy.into_response();
        assert_eq!(response.headers()[header::RETRY_AFTER], "5");
    }
}
