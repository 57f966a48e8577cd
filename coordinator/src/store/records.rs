//! Records kept in the database, encoded with protobuf (prost) so the format is stable and
//! can evolve by adding fields.

use pentagrid_proto::v1;

/// A job as stored under its id in the `jobs` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredJob {
    /// What to do.
    #[prost(message, optional, tag = "1")]
    pub spec: Option<v1::JobSpec>,
    /// One of the `JobState` values.
    #[prost(uint32, tag = "2")]
    pub state: u32,
    /// Leases granted so far.
    #[prost(uint32, tag = "3")]
    pub attempts: u32,
    /// The current lease while leased.
    #[prost(uint64, tag = "4")]
    pub lease_id: u64,
    /// The worker holding the current lease.
    #[prost(string, tag = "5")]
    pub worker_id: String,
    /// The job's seed.
    #[prost(uint64, tag = "6")]
    pub seed: u64,
    /// The result applied, once done.
    #[prost(string, tag = "7")]
    pub result_id: String,
}

/// Where a job stands. Stable numbers (stored).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    /// Waiting for a worker.
    Queued = 0,
    /// Held by a worker.
    Leased = 1,
    /// Its result is applied.
    Done = 2,
    /// Gave up after too many attempts.
    Failed = 3,
    /// Cancelled by a client.
    Cancelled = 4,
}

impl JobState {
    /// The state of a stored number (unknown numbers read as failed: never re-run blindly).
    #[must_use]
    pub fn from_stored(n: u32) -> JobState {
        match n {
            0 => JobState::Queued,
            1 => JobState::Leased,
            2 => JobState::Done,
            4 => JobState::Cancelled,
            _ => JobState::Failed,
        }
    }
}

/// Where a puzzle candidate stands. Stable numbers (stored).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CandidateState {
    /// Queued in a verify job.
    Pending = 0,
    /// Became a puzzle.
    Puzzle = 1,
    /// No checkmate within the limit.
    NoMate = 2,
    /// Another first move wins too.
    NotUnique = 3,
    /// The solver could not settle it.
    Undecided = 4,
    /// The game was over.
    GameOver = 5,
}

impl CandidateState {
    /// Every state, in stored order.
    pub const ALL: [CandidateState; 6] = [
        CandidateState::Pending,
        CandidateState::Puzzle,
        CandidateState::NoMate,
        CandidateState::NotUnique,
        CandidateState::Undecided,
        CandidateState::GameOver,
    ];
}

/// A finished self-play game, stored under its job id in the `games` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredGame {
    /// Start position.
    #[prost(string, tag = "1")]
    pub start: String,
    /// Moves in order.
    #[prost(string, repeated, tag = "2")]
    pub moves: Vec<String>,
    /// Final status.
    #[prost(string, tag = "3")]
    pub result: String,
    /// The players.
    #[prost(string, tag = "4")]
    pub black: String,
    /// The players.
    #[prost(string, tag = "5")]
    pub white: String,
}

/// Running totals, in the `meta` tree under `totals`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Totals {
    /// Positions with a playout table.
    #[prost(uint64, tag = "1")]
    pub playout_positions: u64,
    /// Positions with a game table.
    #[prost(uint64, tag = "2")]
    pub game_positions: u64,
    /// Stored games.
    #[prost(uint64, tag = "3")]
    pub games: u64,
    /// Playouts merged into tables.
    #[prost(uint64, tag = "4")]
    pub playouts: u64,
    /// Results applied.
    #[prost(uint64, tag = "5")]
    pub results: u64,
}

/// An engine match, stored under its id (8 bytes) in the `matches` tree. Its counts change in
/// the same transaction as each pair result, so they always equal the stored pairs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredMatch {
    /// Player A (text form).
    #[prost(string, tag = "1")]
    pub a: String,
    /// Player B.
    #[prost(string, tag = "2")]
    pub b: String,
    /// Pairs asked for.
    #[prost(uint64, tag = "3")]
    pub pairs: u64,
    /// The SPRT (text form), empty for none.
    #[prost(string, tag = "4")]
    pub sprt: String,
    /// Where the openings came from (text form).
    #[prost(string, tag = "5")]
    pub openings: String,
    /// Seed of the openings.
    #[prost(uint64, tag = "6")]
    pub seed: u64,
    /// Pairs stored.
    #[prost(uint64, tag = "7")]
    pub pairs_done: u64,
    /// A's games won, drawn and lost.
    #[prost(uint64, tag = "8")]
    pub wins: u64,
    /// A's games won, drawn and lost.
    #[prost(uint64, tag = "9")]
    pub draws: u64,
    /// A's games won, drawn and lost.
    #[prost(uint64, tag = "10")]
    pub losses: u64,
    /// Pairs by A's points: 0, ½, 1, 1½, 2.
    #[prost(uint64, repeated, tag = "11")]
    pub pentanomial: Vec<u64>,
    /// Pairs stored when the SPRT decided; 0 while undecided.
    #[prost(uint64, tag = "12")]
    pub decided_after: u64,
    /// 1 when the SPRT accepted H1, 0 otherwise (meaningful once decided).
    #[prost(bool, tag = "13")]
    pub accepted_h1: bool,
}

/// One played pair, stored under match id ‖ pair index (16 bytes) in the `matches` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredPair {
    /// The job that played it.
    #[prost(uint64, tag = "1")]
    pub job_id: u64,
    /// A's points (0 to 4 half points).
    #[prost(uint32, tag = "2")]
    pub a_half_points: u32,
    /// A black, then B black.
    #[prost(message, repeated, tag = "3")]
    pub games: Vec<StoredGame>,
}

/// A book build, stored under its id in the `builds` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredBuild {
    /// Canonical root positions.
    #[prost(string, repeated, tag = "1")]
    pub roots: Vec<String>,
    /// Deepest ply below a root that gets analysed.
    #[prost(uint32, tag = "2")]
    pub depth: u32,
    /// Most positions to queue.
    #[prost(uint64, tag = "3")]
    pub max_positions: u64,
    /// Most playouts to spend.
    #[prost(uint64, tag = "4")]
    pub budget: u64,
    /// Playouts per analysed position.
    #[prost(uint64, tag = "5")]
    pub playouts_per_position: u64,
    /// Engine configuration (text form).
    #[prost(string, tag = "6")]
    pub config: String,
    /// Positions with at least this many stones are solved (0: never).
    #[prost(uint32, tag = "7")]
    pub solve_stones: u32,
    /// Positions queued so far (analyses and solves).
    #[prost(uint64, tag = "8")]
    pub positions: u64,
    /// Of those, solves.
    #[prost(uint64, tag = "9")]
    pub solved: u64,
    /// Playouts queued so far.
    #[prost(uint64, tag = "10")]
    pub playouts: u64,
    /// Whether the build has finished.
    #[prost(bool, tag = "11")]
    pub done: bool,
}
