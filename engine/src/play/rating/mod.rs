//! Rating engines and moves: Elo estimates with confidence intervals, the SPRT, win rates
//! with their intervals, and rating lists over many players.

mod bradley_terry;
mod cholesky;
mod elo;
mod list;
mod sprt;
mod win_rate;

pub use elo::{EloEstimate, Pentanomial, ScoreStats, Trinomial, elo_of_score, score_of_elo};
pub use list::{
    Encounter, HeadToHead, MAX_PRIOR_DRAWS, RatedPlayer, RatingError, RatingList, RatingOptions,
    rating_list,
};
pub use sprt::{ParseSprtError, Sprt, SprtDecision};
pub use win_rate::{WinRate, win_rate};
