//! Puzzle rounds from a client: ask the coordinator for candidates round after round until
//! enough new puzzles are stored, and read the stored collection.

use pentago::{MAX_PUZZLE_MOVES, Puzzle};
use pentagrid_proto::{Client, v2};

use crate::error::{ClientError, Result};
use crate::jobs::watch;

/// What a round of puzzle generation aims for.
#[derive(Clone, Debug)]
pub struct Goal {
    /// New puzzles wanted, 1 to 10000.
    pub count: u64,
    /// Longest mate (1 to 7).
    pub max_moves: u32,
    /// Shortest mate wanted (0: any; instructive mates in 1 are then a small share).
    pub min_moves: u32,
    /// Candidates need at least this many stones (at most 35).
    pub min_stones: u32,
    /// Mine stored games only; otherwise games of random play are mined when they run out.
    pub stored_only: bool,
    /// Seed of the random games.
    pub seed: u64,
    /// Give up after this many rounds of candidates.
    pub rounds: u32,
}

impl Goal {
    /// Checks the goal's numbers.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_PUZZLE_MOVES).contains(&self.max_moves) {
            return Err(ClientError::Invalid(format!(
                "--max-moves must be from 1 to {MAX_PUZZLE_MOVES}"
            )));
        }
        if self.min_moves > self.max_moves {
            return Err(ClientError::Invalid(format!(
                "--min-moves {} is above --max-moves {}",
                self.min_moves, self.max_moves
            )));
        }
        if !(1..=10_000).contains(&self.count) {
            return Err(ClientError::Invalid(
                "--count must be from 1 to 10000".into(),
            ));
        }
        if self.min_stones > 35 {
            return Err(ClientError::Invalid(
                "--min-stones must be at most 35".into(),
            ));
        }
        Ok(())
    }
}

/// Where a puzzle round stands (counts since it began).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PuzzleProgress {
    /// New puzzles stored.
    pub found: u64,
    /// Candidates checked.
    pub checked: u64,
    /// Candidates still queued.
    pub pending: u64,
}

/// What a puzzle round did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PuzzleRound {
    /// New puzzles stored.
    pub found: u64,
    /// Puzzles stored in all.
    pub stored: u64,
    /// Candidates checked.
    pub checked: u64,
    /// Of those, without a mate.
    pub no_mate: u64,
    /// With another winning first move.
    pub not_unique: u64,
    /// Not settled.
    pub undecided: u64,
    /// Whether it stopped because no fresh candidates were left.
    pub ran_dry: bool,
}

impl PuzzleRound {
    /// This round if it found the `goal`'s count, else why not ([`ClientError::PuzzlesShort`]).
    pub fn delivered(self, goal: &Goal) -> Result<PuzzleRound> {
        if self.found >= goal.count {
            return Ok(self);
        }
        let why = if self.ran_dry {
            format!(
                "no fresh candidates were left{}",
                if goal.stored_only {
                    " in the stored games (drop --stored-only to mine random games too)"
                } else {
                    ""
                }
            )
        } else {
            format!("{} rounds ended; {self}", goal.rounds)
        };
        Err(ClientError::PuzzlesShort {
            found: self.found,
            wanted: goal.count,
            why,
        })
    }
}

impl std::fmt::Display for PuzzleRound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rate = if self.checked == 0 {
            0.0
        } else {
            100.0 * self.found as f64 / self.checked as f64
        };
        write!(
            f,
            "{} new puzzles ({} stored) from {} candidates ({rate:.1}%): {} without a mate, {} with another winning move, {} undecided",
            self.found, self.stored, self.checked, self.no_mate, self.not_unique, self.undecided
        )
    }
}

/// Candidates asked for per puzzle still wanted.
const CANDIDATES_PER_PUZZLE: u64 = 5;

/// Puzzles per page when reading the whole collection: a mate in 5's proof tree can reach
/// 200 KB, so a page stays below the 1 MiB message cap.
const LIST_PAGE_SIZE: u32 = 4;

/// The stored puzzles matching `filter`, in order: at most `filter.limit` (0: all), read page
/// by page (the filter's own `page` and `page_size` are ignored).
pub async fn list(client: &Client, filter: v2::ListPuzzlesRequest) -> Result<Vec<Puzzle>> {
    let limit = filter.limit as usize;
    let mut puzzles = Vec::new();
    for page in 1.. {
        let request = v2::ListPuzzlesRequest {
            page,
            page_size: LIST_PAGE_SIZE,
            limit: 0,
            ..filter.clone()
        };
        let reply = client.clone().list_puzzles(request).await?.into_inner();
        for json in &reply.puzzles_json {
            puzzles.push(read_puzzle(json)?);
        }
        let last = u64::from(page) * u64::from(LIST_PAGE_SIZE) >= reply.total;
        if last || (limit > 0 && puzzles.len() >= limit) {
            break;
        }
    }
    if limit > 0 {
        puzzles.truncate(limit);
    }
    Ok(puzzles)
}

/// The stored puzzle whose position has `key` (the puzzle's own position, in its frame).
pub async fn get(client: &Client, key: u64) -> Result<Puzzle> {
    let reply = client
        .clone()
        .get_puzzle(v2::GetPuzzleRequest { key })
        .await?
        .into_inner();
    read_puzzle(&reply.puzzle_json)
}

fn read_puzzle(json: &str) -> Result<Puzzle> {
    serde_json::from_str(json)
        .map_err(|e| ClientError::Unreadable(format!("an unreadable puzzle: {e}")))
}

async fn counts(client: &Client) -> Result<v2::ListPuzzlesResponse> {
    let request = v2::ListPuzzlesRequest {
        limit: 1,
        ..v2::ListPuzzlesRequest::default()
    };
    Ok(client.clone().list_puzzles(request).await?.into_inner())
}

/// Rounds of candidates until `goal.count` new puzzles are stored (or the rounds or the
/// candidates run out), telling `progress` as candidates are checked.
pub async fn generate(
    client: &Client,
    goal: &Goal,
    progress: &mut dyn FnMut(PuzzleProgress),
) -> Result<PuzzleRound> {
    goal.validate()?;
    let before = counts(client).await?;
    let mut now = before.clone();
    let mut ran_dry = false;
    for round in 0..goal.rounds {
        let found = now.found - before.found;
        if found >= goal.count {
            break;
        }
        // The coordinator's checkmate probe drops candidates without a mate, so about one
        // candidate in five becomes a puzzle (the rest mostly have a second winning move).
        let wanted = ((goal.count - found) * CANDIDATES_PER_PUZZLE).clamp(16, 20_000);
        let reply = client
            .clone()
            .generate_puzzles(v2::GeneratePuzzlesRequest {
                candidates: wanted,
                max_moves: goal.max_moves,
                min_moves: goal.min_moves,
                min_stones: goal.min_stones,
                random_games: !goal.stored_only,
                seed: goal.seed.wrapping_add(u64::from(round)),
            })
            .await?
            .into_inner();
        if reply.queued == 0 {
            ran_dry = true;
            break;
        }
        // Wait for exactly this round's verify jobs; the puzzle counts are read once they are
        // done, for the progress.
        watch(client, &reply.job_ids, &mut |_| {}).await?;
        now = counts(client).await?;
        progress(PuzzleProgress {
            found: now.found - before.found,
            checked: now.candidates - before.candidates,
            pending: now.pending,
        });
    }
    Ok(PuzzleRound {
        found: now.found - before.found,
        stored: now.found,
        checked: now.candidates - before.candidates,
        no_mate: now.no_mate - before.no_mate,
        not_unique: now.not_unique - before.not_unique,
        undecided: now.undecided - before.undecided,
        ran_dry,
    })
}
