//! A tuning run's record as the coordinator's services and its edge know it: its settings, the
//! point SPSA stands at, its phase and the matches it runs (its steps, one per finished
//! iteration, are `pentagrid_model::TuneStep`). The store keeps them in stable records of their own and converts at its edge
//! (`store::tunes`), as it does for matches ([`crate::match_record`]).

use pentago::SpsaSchedule;
use pentagrid_model::TunePurges;

/// Where a run is in its course, as stored.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TunePhase {
    /// Iterations are being played.
    #[default]
    Iterating,
    /// Every iteration was played; the follow-up SPRT match is running (or over: the run's
    /// state then says so, from the match).
    Verifying,
    /// Every iteration was played and there is no SPRT to run.
    Done,
}

/// Whether a run may go on: open until someone stops it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TuneControl {
    /// It plays on.
    #[default]
    Open,
    /// It was stopped: its running match was stopped too, its steps kept.
    Stopped,
}

/// A tuning run: its settings and where it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneRecord {
    /// The base player (text form of a `uct:` configuration): the starting point and the
    /// SPRT's opponent.
    pub base: String,
    /// The tuned parameters with their ranges (text form `NAME=LOW..HIGH`), in coordinate
    /// order.
    pub params: Vec<String>,
    /// The SPSA schedule.
    pub schedule: SpsaSchedule,
    /// Game pairs per iteration.
    pub pairs_per_iteration: u64,
    /// The seed of the perturbations and the openings.
    pub seed: u64,
    /// Where the openings come from (text form).
    pub openings: String,
    /// Its share of the workers among running matches.
    pub weight: u32,
    /// The follow-up SPRT of tuned against base (text form; empty: none).
    pub sprt: String,
    /// Most pairs of the follow-up SPRT match.
    pub sprt_pairs: u64,
    /// Iterations finished.
    pub iterations_done: u64,
    /// The point SPSA stands at: each parameter's normalized coordinate (0..1 over its range).
    pub theta: Vec<f64>,
    /// Its phase.
    pub phase: TunePhase,
    /// Whether it was stopped.
    pub control: TuneControl,
    /// The match it runs now or ran last: the current iteration's, then the SPRT's (0: none).
    pub current_match: u64,
    /// The follow-up SPRT match (0: none yet).
    pub sprt_match: u64,
    /// What purges of caught workers took out of it, and the shift of the point its next
    /// step owes for them.
    pub purges: TunePurges,
    /// The user whose token created it (empty: none); its matches are this user's.
    pub owner: String,
}
