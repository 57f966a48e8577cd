//! Rating engines and moves: Elo estimates with confidence intervals, the SPRT, and win rates
//! with their intervals.

mod elo;
mod sprt;
mod win_rate;

pub use elo::{EloEstimate, Pentanomial, ScoreStats, Trinomial, elo_of_score, score_of_elo};
pub use sprt::{ParseSprtError, Sprt, SprtDecision};
pub use win_rate::{WinRate, win_rate};
