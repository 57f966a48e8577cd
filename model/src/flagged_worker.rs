//! A worker a cross-check caught with a wrong exact claim, as the coordinator's status lists it
//! and its clients read it back.

use serde::Serialize;

/// A worker a cross-check caught with a wrong exact claim (kept across restarts).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlaggedWorker {
    /// Its id.
    pub id: String,
    /// Times a cross-check showed its exact claim wrong.
    pub flags: u32,
    /// Caught once: its results are refused, it gets no jobs, and its unconfirmed exact
    /// values are purged.
    pub quarantined: bool,
    /// What it got wrong last, for people.
    pub last_reason: String,
    /// Its results whose exact values were purged.
    pub purged_results: u64,
    /// The exact values (proven tables, deep leaves) those results had stored, removed.
    pub purged_values: u64,
    /// Positions whose playout tables lost its analyses' rows once it was caught.
    pub purged_positions: u64,
    /// The playouts those rows held, removed from the book.
    pub purged_playouts: u64,
    /// Positions whose game tables lost its self-play games' rows.
    pub purged_game_positions: u64,
    /// Games through moves those rows held, removed from the book.
    pub purged_games: u64,
    /// Match pairs it played, taken out of their matches (played again by others).
    pub purged_pairs: u64,
    /// Finished deep solves that took in one of its leaves, reopened.
    pub reopened_solves: u64,
    /// Proven move values carried up the book from its purged values (and the reopened
    /// solves' roots), taken back with them.
    pub demoted_values: u64,
}
