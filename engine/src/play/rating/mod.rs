//! Rating engines against each other: Elo estimates with confidence intervals and the SPRT.

mod elo;
mod sprt;

pub use elo::{EloEstimate, Pentanomial, ScoreStats, Trinomial, elo_of_score, score_of_elo};
pub use sprt::{ParseSprtError, Sprt, SprtDecision};
