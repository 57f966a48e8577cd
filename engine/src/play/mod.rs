//! The applications' game logic: players, self-play, matches, tournaments and ratings,
//! openings, puzzles, tuning.
//!
//! Built on the board and search layers; the cluster runs these as jobs.

pub(crate) mod accuracy;
pub(crate) mod adjudication;
pub(crate) mod candidates;
pub(crate) mod clock;
pub mod exact_clock;
pub mod gtp;
pub(crate) mod matches;
pub(crate) mod named;
pub(crate) mod openings;
pub(crate) mod player;
pub(crate) mod puzzle;
pub(crate) mod record;
pub(crate) mod selfplay;
pub(crate) mod sprt_stop;
pub(crate) mod spsa;
pub(crate) mod suite;
pub(crate) mod themes;
pub(crate) mod time_limit;
pub(crate) mod tournament;
pub(crate) mod tune_space;
