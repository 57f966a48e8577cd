//! `/cluster`: jobs by state, workers, stored totals and the throughput of the last minutes.

use std::time::Instant;

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::ApiError;
use crate::AppState;
use crate::throughput::{Rate, WINDOW};

/// The cluster as the API shows it.
#[derive(Serialize)]
pub struct ClusterDetail {
    jobs: Jobs,
    workers: Vec<Worker>,
    stored: Stored,
    /// Rates between the server's samples of the coordinator's totals, oldest first.
    throughput: Vec<Rate>,
    /// Seconds of history the throughput covers at most.
    window_seconds: u64,
}

#[derive(Serialize)]
struct Jobs {
    queued: u64,
    leased: u64,
    done: u64,
    failed: u64,
    cancelled: u64,
}

#[derive(Serialize)]
struct Worker {
    id: String,
    name: String,
    threads: u32,
    leases: u64,
    results: u64,
    seconds_since_seen: f64,
}

#[derive(Serialize)]
struct Stored {
    playout_positions: u64,
    game_positions: u64,
    games: u64,
    playouts: u64,
}

/// `GET /api/v1/cluster`.
pub async fn status(State(state): State<AppState>) -> Result<Json<ClusterDetail>, ApiError> {
    let s = state.source.status().await?;
    let throughput = state.throughput().rates(Instant::now());
    Ok(Json(ClusterDetail {
        jobs: Jobs {
            queued: s.queued,
            leased: s.leased,
            done: s.done,
            failed: s.failed,
            cancelled: s.cancelled,
        },
        workers: s
            .workers
            .into_iter()
            .map(|w| Worker {
                id: w.id,
                name: w.name,
                threads: w.threads,
                leases: w.leases,
                results: w.results,
                seconds_since_seen: w.seconds_since_seen,
            })
            .collect(),
        stored: Stored {
            playout_positions: s.playout_positions,
            game_positions: s.game_positions,
            games: s.games,
            playouts: s.playouts,
        },
        throughput,
        window_seconds: WINDOW.as_secs(),
    }))
}
