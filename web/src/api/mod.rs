//! The read-only JSON API under `/api/v1/` (documented in `web/openapi.json`).

mod book;
mod cluster;
mod error;
mod exact;
mod games;
mod matches;
mod puzzles;
mod ratings;
mod solitaire;
mod tunes;

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Query};
use axum::http::Uri;
use axum::http::request::Parts;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use pentago::Position;

pub use error::{ApiError, MAX_HEADER_BYTES, MAX_URI_BYTES, Unreadable};

use crate::AppState;

/// The OpenAPI description of this API (served at `/api/v1/openapi.json`).
pub const OPENAPI: &str = include_str!("../../openapi.json");

/// The API routes, nested under `/api/v1` by the caller.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/book", get(book::position))
        .route("/book/line", get(book::line))
        .route("/puzzles", get(puzzles::list))
        .route("/puzzles/{id}", get(puzzles::one))
        .route("/matches", get(matches::list))
        .route("/matches/{id}", get(matches::one))
        .route("/tunes", get(tunes::list))
        .route("/tunes/{id}", get(tunes::one))
        .route("/matches/{id}/games", get(games::list))
        .route("/matches/{id}/games/{pair}/{game}", get(games::one))
        .route("/ratings", get(ratings::list))
        .route("/tournaments", get(ratings::tournament_list))
        .route("/tournaments/{id}", get(ratings::tournament))
        .route("/cluster", get(cluster::status))
        .route("/exact", get(exact::values))
        .route("/exact/solver", get(exact::solver))
        .route("/solitaire", get(solitaire::totals))
        .route("/openapi.json", get(openapi))
        .fallback(no_route)
}

async fn openapi() -> impl IntoResponse {
    let value: serde_json::Value = serde_json::from_str(OPENAPI).unwrap_or_default();
    Json(value)
}

async fn no_route(uri: Uri) -> ApiError {
    ApiError::NoRoute(uri.path().to_owned())
}

/// The query parameters of a request, read one by one with precise errors.
pub struct Params(HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Params, ApiError> {
        Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map(|Query(map)| Params(map))
            .map_err(|rejection| ApiError::bad("query", rejection.body_text()))
    }
}

impl Params {
    /// The text of `name`, if given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The position in `name` (`start` when absent).
    pub fn position(&self, name: &'static str) -> Result<Position, ApiError> {
        let text = self.text(name).unwrap_or("start");
        text.parse()
            .map_err(|e| ApiError::bad(name, format!("bad position {text:?}: {e}")))
    }

    /// The whole number in `name` within `range` (`default` when absent).
    pub fn number(
        &self,
        name: &'static str,
        range: std::ops::RangeInclusive<u64>,
        default: Option<u64>,
    ) -> Result<Option<u64>, ApiError> {
        let Some(text) = self.text(name) else {
            return Ok(default);
        };
        let bounds = || format!("from {} to {}", range.start(), range.end());
        let number: u64 = text.parse().map_err(|_| {
            ApiError::bad(name, format!("{text:?} is not a whole number {}", bounds()))
        })?;
        if !range.contains(&number) {
            return Err(ApiError::bad(
                name,
                format!("{number} is out of range: expected {}", bounds()),
            ));
        }
        Ok(Some(number))
    }
}
