//! One finished iteration of an SPSA tuning run: the coordinator records it when the
//! iteration's match ends, and clients read the run's trajectory as a list of them.

use serde::Serialize;

/// One finished iteration; parameter lists follow the run's parameters, in order.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
}

impl TuneStep {
    /// The sign of a perturbation coordinate as a step records it: −1 below zero, else +1.
    #[must_use]
    pub fn sign(delta: f64) -> i32 {
        if delta < 0.0 { -1 } else { 1 }
    }
}
