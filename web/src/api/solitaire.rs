//! `/solitaire`: each solitaire player's success rate and mean cards on the foundations, with
//! their 95% intervals, per variant, over every deal the cluster has played.

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::ApiError;
use crate::AppState;
use crate::source::SolitaireTotals;

/// The solitaire totals as the API shows them.
#[derive(Serialize)]
pub struct SolitaireAnswer {
    /// One row per (variant, player) with results, in the coordinator's order.
    totals: Vec<SolitaireTotals>,
}

/// `GET /api/v1/solitaire`.
pub async fn totals(State(state): State<AppState>) -> Result<Json<SolitaireAnswer>, ApiError> {
    Ok(Json(SolitaireAnswer {
        totals: state.source.status().await?.solitaire,
    }))
}
