//! `/cluster`: jobs by state, workers, stored totals, the throughput of the last minutes and
//! the running matches with their progress and share of the workers.

use std::time::Instant;

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::ApiError;
use crate::AppState;
use crate::source::{ClusterStatus, MatchRecord, MatchState};
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
    /// The running matches, newest first.
    matches: Vec<RunningMatch>,
}

/// A running match: who plays, how far it got, its weight and the leases it holds.
#[derive(Serialize)]
struct RunningMatch {
    id: u64,
    /// Player names (the full specifications are on `/matches/{id}`).
    a: String,
    b: String,
    state: MatchState,
    pairs: u64,
    pairs_done: u64,
    /// Its pairs leased to workers now.
    pairs_leased: u64,
    /// Its share of the workers among running matches.
    weight: u32,
    /// The user it belongs to (null: none).
    owner: Option<String>,
}

impl RunningMatch {
    fn of(record: MatchRecord) -> RunningMatch {
        RunningMatch {
            id: record.id,
            a: pentago::player_label(&record.a),
            b: pentago::player_label(&record.b),
            state: record.state,
            pairs: record.pairs,
            pairs_done: record.pairs_done,
            pairs_leased: record.pairs_leased,
            weight: record.weight,
            owner: Some(record.owner).filter(|o| !o.is_empty()),
        }
    }
}

/// `GET /api/v1/cluster`.
pub async fn status(State(state): State<AppState>) -> Result<Json<ClusterDetail>, ApiError> {
    let status = state.source.status().await?;
    let matches = state.source.running_matches().await?;
    let throughput = state.throughput().rates(Instant::now());
    Ok(Json(ClusterDetail {
        status,
        throughput,
        window_seconds: WINDOW.as_secs(),
        matches: matches.into_iter().map(RunningMatch::of).collect(),
    }))
}
