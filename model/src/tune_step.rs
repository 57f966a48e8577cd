//! One finished iteration of an SPSA tuning run: the coordinator records it when the
//! iteration's match ends, and clients read the run's trajectory as a list of them; and what
//! purges of caught workers took out of a run.

use serde::Serialize;

/// One finished iteration; parameter lists follow the run's parameters, in order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TuneStep {
    /// The iteration, from 0.
    pub iteration: u64,
    /// The match that played it (A: θ + cΔ, B: θ − cΔ).
    pub match_id: u64,
    /// The signs Δ, each +1 or −1.
    pub delta: Vec<i32>,
    /// The perturbation c of the iteration, as a fraction of each range (normalized).
    pub c: f64,
    /// The parameter values θ + cΔ played (as the configuration took them).
    pub plus: Vec<f64>,
    /// The values θ − cΔ played.
    pub minus: Vec<f64>,
    /// θ + cΔ's games won.
    pub wins: u64,
    /// θ + cΔ's games drawn.
    pub draws: u64,
    /// θ + cΔ's games lost.
    pub losses: u64,
    /// The point after the update, normalized (0..1 over each range).
    pub theta: Vec<f64>,
    /// The parameter values after the update.
    pub values: Vec<f64>,
    /// Pairs of caught workers taken out of this iteration after its step was taken (the
    /// counts above are what stays; the shift their games made is undone at a later step, see
    /// [`TunePurges`]). This and the purge fields below are serialized only when not zero or
    /// empty, so a step no purge touched reads as it always did.
    #[serde(skip_serializing_if = "is_zero")]
    pub purged_pairs: u64,
    /// θ + cΔ's games won in those pairs.
    #[serde(skip_serializing_if = "is_zero")]
    pub purged_wins: u64,
    /// θ + cΔ's games drawn in those pairs.
    #[serde(skip_serializing_if = "is_zero")]
    pub purged_draws: u64,
    /// θ + cΔ's games lost in those pairs.
    #[serde(skip_serializing_if = "is_zero")]
    pub purged_losses: u64,
    /// The shift (normalized) this step added to undo what purged pairs of earlier steps had
    /// moved the point; empty when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub correction: Vec<f64>,
}

/// What purges of caught workers took out of a tuning run (see `README.md`, Cross-checked
/// truth). A caught worker's pairs of the iteration being played leave its match before the
/// step and are played again by others; its pairs of iterations whose step was already taken
/// leave those steps' counts, and the shift their net games gave the point is owed back: the
/// run's next step adds it. A run past its iterations takes no more steps, so what it still owes
/// stays owed and is shown.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TunePurges {
    /// Pairs taken out of iterations whose steps were already taken.
    pub stepped_pairs: u64,
    /// Pairs taken out of the iteration being played before its step, played again by others.
    pub replayed_pairs: u64,
    /// The shift of the point (normalized, per parameter) not yet added; empty when none.
    pub owed: Vec<f64>,
    /// How many of the stepped pairs the owed shift undoes.
    pub owed_pairs: u64,
}

/// Whether a count is zero (serde's test for leaving it out).
fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl TuneStep {
    /// The sign of a perturbation coordinate as a step records it: −1 below zero, else +1.
    #[must_use]
    pub fn sign(delta: f64) -> i32 {
        if delta < 0.0 { -1 } else { 1 }
    }
}
