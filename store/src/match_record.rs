//! A match's record as the coordinator's services and its edge know it: its settings, its
//! score so far, the SPRT's decision and the accuracy totals, read. The store keeps it in a
//! stable record of its own and converts at its edge (`store::match_records`), as it does for
//! jobs ([`crate::job`]).

use pentago::{MatchAccuracy, MatchScore};
use pentagrid_rating::SprtDecision;

/// An engine match: who plays, how many pairs, how it is tested, and where it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// Player A (text form).
    pub a: String,
    /// Player B.
    pub b: String,
    /// Pairs asked for.
    pub pairs: u64,
    /// The SPRT (text form; empty: none).
    pub sprt: String,
    /// Where the openings come from (text form).
    pub openings: String,
    /// The seed of the openings.
    pub seed: u64,
    /// Pairs stored so far.
    pub pairs_done: u64,
    /// A's score over the stored pairs.
    pub score: MatchScore,
    /// The SPRT's decision as recorded (`Continue` while undecided or without an SPRT).
    pub decision: SprtDecision,
    /// Pairs stored when the SPRT decided (0 while undecided).
    pub decided_after: u64,
    /// A's and B's accuracy over the stored pairs, when the match measures it.
    pub accuracy: Option<MatchAccuracy>,
    /// The tournament it belongs to (its first match's id; 0: none).
    pub tournament: u64,
    /// The tournament's kind (text form; empty: none).
    pub tournament_kind: String,
    /// Every game's wall-clock time limit (text form; empty: the players' own budgets).
    pub time_limit: String,
    /// A `file:` suite's positions (text form); empty for every other opening source.
    pub opening_positions: Vec<String>,
    /// The adjudication of every game (text form, e.g. `exact:stones=20,budget=0.1`; empty: none).
    pub adjudicate: String,
    /// Its share of the workers among running matches (1 to 1000, `MAX_MATCH_WEIGHT`).
    pub weight: u32,
    /// Whether it was stopped.
    pub control: MatchControl,
    /// The tuning run whose iteration it plays (0: none). Such matches are the run's: match
    /// listings leave them out.
    pub tune: u64,
    /// The user whose token created it, or the creator of the tuning run it plays; empty:
    /// none (a token naming no user, and matches stored before users existed). The workers
    /// are shared equally among owners first, then among an owner's matches by weight.
    pub owner: String,
}

/// Whether a match may go on: open until someone stops it (`StopMatch`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MatchControl {
    /// It plays on until its pairs are played or its SPRT decides.
    #[default]
    Open,
    /// It was stopped: its unplayed pairs were cancelled, its played ones kept.
    Stopped,
}
