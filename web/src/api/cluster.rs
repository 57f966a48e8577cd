//! `/cluster`: jobs by state, workers, stored totals and the throughput of the last minutes.

use std::time::Instant;

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::ApiError;
use crate::AppState;
use crate::source::ClusterStatus;
use crate::throughput::{Rate, WINDOW};

/// The cluster as the API shows it: the coordinator's status (`jobs`, `workers`, `stored`)
/// and the throughput this server sampled.
#[derive(Serialize)]
pub struct ClusterDetail {
    #[serde(flatten)]
    status: ClusterStatus,
    /// Rates between the server's samples of the coordinator's totals, oldest first.
    throughput: Vec<Rate>,
    /// Seconds of history the throughput covers at most.
    window_seconds: u64,
}

/// `GET /api/v1/cluster`.
pub async fn status(State(state): State<AppState>) -> Result<Json<ClusterDetail>, ApiError> {
    let status = state.source.status().await?;
    let throughput = state.throughput().rates(Instant::now());
    Ok(Json(ClusterDetail {
        status,
        throughput,
        window_seconds: WINDOW.as_secs(),
    }))
}
