//! `pentagrid-rating`: the statistics of playing strength, for any two-player game — Elo
//! estimates with confidence intervals (from game results or game pairs), the sequential
//! probability ratio test, win rates with their intervals, and rating lists over many players
//! (a Bradley–Terry maximum-likelihood fit).
//!
//! Pure arithmetic: no I/O, no game rules. Pentago's matches and tuning (`pentago`), the
//! solitaire's summaries (`pentagrid-calculation`) and the cluster's pages use it.
//!
//! ```
//! use pentagrid_rating::{Sprt, SprtDecision, Trinomial};
//!
//! let sprt: Sprt = "elo0=0,elo1=10".parse().unwrap();
//! let stats = Trinomial::new(120, 40, 40).stats().unwrap();
//! assert!(stats.elo().elo > 0.0);
//! assert_eq!(sprt.decide(&stats), SprtDecision::AcceptH1);
//! ```

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
