//! Refusals made before or instead of a handler — a method a route does not take, a page or
//! asset that does not exist, a URI or header block too long — answered as the API's JSON
//! errors (`{"error": {"code", "message"}}`), never as empty bodies.

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::ApiError;

/// Longest request target taken, in bytes (hyper refuses far longer ones itself).
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Largest header block taken, in bytes (names and values; hyper refuses far larger ones).
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Refuses over-long URIs and header blocks, and rewrites the bodiless refusals of the
/// router (404, 405) and of layers (414, 431) as JSON errors.
pub async fn json_refusals(request: Request, next: Next) -> Response {
    let uri_bytes = request.uri().to_string().len();
    if uri_bytes > MAX_URI_BYTES {
        return ApiError::UriTooLong {
            bytes: uri_bytes,
            max: MAX_URI_BYTES,
        }
        .into_response();
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return ApiError::HeadersTooLarge {
            bytes: header_bytes,
            max: MAX_HEADER_BYTES,
        }
        .into_response();
    }
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"));
    if is_json {
        return response;
    }
    let error = match response.status() {
        StatusCode::NOT_FOUND => ApiError::NoRoute(path),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed(method.to_string()),
        StatusCode::URI_TOO_LONG => ApiError::UriTooLong {
            bytes: uri_bytes,
            max: MAX_URI_BYTES,
        },
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ApiError::HeadersTooLarge {
            bytes: header_bytes,
            max: MAX_HEADER_BYTES,
        },
        _ => return response,
    };
    let mut refusal = error.into_response();
    // Keep what the router said about the methods a route takes.
    if let Some(allow) = response.headers().get(header::ALLOW) {
        refusal.headers_mut().insert(header::ALLOW, allow.clone());
    }
    refusal
}
