//! The limits a coordinator owns and its clients keep, each written once: the coordinator
//! refuses a call past them, and clients check their plans against them (so that a bad plan
//! sends nothing) and split their work so that no call goes past them. Those on one call are
//! part of the protocol (`pentagrid_proto::PROTOCOL_VERSION`): stable, raised only with it.

/// Most jobs one submission may queue: a full call stays far below the message cap (a job
/// spec is a few hundred bytes at most); clients split larger submissions into batches.
pub const MAX_JOBS_PER_SUBMISSION: usize = 1_000;

/// Most positions one book export page reads, and most game ids one games call names.
pub const MAX_BOOK_ROWS: usize = 10_000;

/// Most rows one book import call carries (a row is well under 100 bytes on the wire).
pub const MAX_IMPORT_ROWS: usize = 4_000;

/// Most pairs one match may ask for.
pub const MAX_MATCH_PAIRS: u64 = 100_000;

/// Largest weight (share of the workers among running matches) a match may have; the least
/// is 1.
pub const MAX_MATCH_WEIGHT: u32 = 1_000;

/// Most game pairs one iteration of a tuning run may play.
pub const MAX_TUNE_PAIRS_PER_ITERATION: u64 = 1_000;

/// Pairs of games per match status page unless asked for fewer, and at most: two games of at
/// most 36 moves each are at most about 1.2 KB on the wire, so a page stays far below the cap.
pub const MATCH_PAGE_PAIRS: u64 = 250;

/// Most puzzles per listed page.
pub const MAX_PUZZLES_PAGE: u64 = 100;

/// Longest worker id, in bytes.
pub const MAX_WORKER_ID_BYTES: usize = 200;
