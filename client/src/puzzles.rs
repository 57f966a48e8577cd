//! Puzzle rounds from a client: ask the coordinator for candidates round after round until
//! enough new puzzles are stored, and read the stored collection.

use pentago::{MAX_PUZZLE_MOVES, Puzzle};
use pentagrid_model::limits::MAX_PUZZLES_PAGE;
use pentagrid_proto::{Client, puzzle_filter_to_wire, v2};

use crate::error::{ClientError, Result};
use crate::jobs::{cancel, watch};
use crate::parameter::{Parameter, ParameterError, Problem, range};

pub use pentagrid_model::PuzzleFilter;

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
            return Err(
                ParameterError::new(Parameter::MaxMoves, range(1, MAX_PUZZLE_MOVES)).into(),
            );
        }
        if self.min_moves > self.max_moves {
            return Err(ParameterError::new(
                Parameter::MinMoves,
                Problem::Above {
                    value: self.min_moves.to_string(),
                    other: Parameter::MaxMoves,
                    other_value: self.max_moves.to_string(),
                },
            )
            .into());
        }
        if !(1..=10_000).contains(&self.count) {
            return Err(ParameterError::new(Parameter::Count, range(1, 10_000)).into());
        }
        if self.min_stones > 35 {
            return Err(
                ParameterError::new(Parameter::MinStones, Problem::AtMost("35".into())).into(),
            );
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
                    " in the stored games"
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
            stored_only: self.ran_dry && goal.stored_only,
        })
    }
}

impl std::fmt::Display for PuzzleRound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No candidate checked: no rate measured.
        let rate = if self.checked == 0 {
            "n/a".to_owned()
        } else {
            format!("{:.1}%", 100.0 * self.found as f64 / self.checked as f64)
        };
        write!(
            f,
            "{} new puzzles ({} stored) from {} candidates ({rate}): {} without a mate, {} with another winning move, {} undecided",
            self.found, self.stored, self.checked, self.no_mate, self.not_unique, self.undecided
        )
    }
}

/// Candidates asked for per puzzle still wanted, before any was checked.
const CANDIDATES_PER_PUZZLE: u64 = 5;
/// Fewest candidates a round asks for: two verify jobs.
const MIN_ROUND_CANDIDATES: u64 = 16;

/// Puzzles asked for per page when reading the whole collection: the coordinator's most (it
/// ends a page early when its puzzles are large).
const LIST_PAGE_SIZE: u32 = MAX_PUZZLES_PAGE as u32;

/// The request for `filter`'s page starting at `cursor` (empty: the first), `page_size` long.
fn request(
    filter: &PuzzleFilter,
    page: u32,
    page_size: u32,
    cursor: String,
) -> v2::ListPuzzlesRequest {
    v2::ListPuzzlesRequest {
        page,
        page_size,
        limit: 0,
        cursor,
        ..puzzle_filter_to_wire(filter)
    }
}

/// One page of the stored puzzles, as the coordinator pages them.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzlePage {
    /// The page's puzzles, by mate length, then difficulty.
    pub puzzles: Vec<Puzzle>,
    /// Puzzles matching the filter, on all pages.
    pub total: u64,
}

/// Every stored puzzle matching `filter`, in order, read page by page with the coordinator's
/// cursor.
pub async fn list(client: &Client, filter: &PuzzleFilter) -> Result<Vec<Puzzle>> {
    let mut puzzles = Vec::new();
    let mut cursor = String::new();
    loop {
        let request = request(filter, 0, LIST_PAGE_SIZE, cursor);
        let reply = client.clone().list_puzzles(request).await?.into_inner();
        for json in &reply.puzzles_json {
            puzzles.push(read_puzzle(json)?);
        }
        cursor = reply.next_cursor;
        if cursor.is_empty() {
            return Ok(puzzles);
        }
    }
}

/// Page `page` (from 1) of the stored puzzles matching `filter`, `per_page` to a page (at most
/// the coordinator's 100); a page past the last is refused by the coordinator. The
/// coordinator ends a page early when its puzzles are large; the rest of the page is read on
/// from its cursor, so that page `n` always starts after `n - 1` full pages.
pub async fn page(
    client: &Client,
    filter: &PuzzleFilter,
    page: u32,
    per_page: u32,
) -> Result<PuzzlePage> {
    let mut request = request(filter, page, per_page, String::new());
    let mut puzzles = Vec::new();
    loop {
        let reply = client
            .clone()
            .list_puzzles(request.clone())
            .await?
            .into_inner();
        for json in &reply.puzzles_json {
            puzzles.push(read_puzzle(json)?);
        }
        let short = (per_page as usize).saturating_sub(puzzles.len());
        if short == 0 || reply.next_cursor.is_empty() {
            return Ok(PuzzlePage {
                puzzles,
                total: reply.total,
            });
        }
        request.page = 0;
        request.page_size = u32::try_from(short).unwrap_or(per_page);
        request.cursor = reply.next_cursor;
    }
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
///
/// Rounds overlap: while one round's candidates are verified, the next is mined when the yield
/// seen so far says the round in flight will likely fall short, so the coordinator's mining
/// and the workers' verifying run at the same time. Once enough puzzles are stored, the jobs of
/// a round still in flight are cancelled (their candidates are freed, not lost); those already
/// verified may make the count a little more than asked.
pub async fn generate(
    client: &Client,
    goal: &Goal,
    progress: &mut dyn FnMut(PuzzleProgress),
) -> Result<PuzzleRound> {
    goal.validate()?;
    let before = counts(client).await?;
    let mut now = before.clone();
    let (mut ran_dry, mut rounds) = (false, 0);
    // The verify jobs of the round in flight, with its candidate count.
    let mut verifying: Option<(Vec<u64>, u64)> = None;
    loop {
        let yields = Yield::seen(&before, &now);
        if yields.found >= goal.count {
            // Enough: the round still in flight is not needed. Its jobs are cancelled, which
            // frees their candidates for a later generation.
            if let Some((job_ids, _)) = verifying.take() {
                cancel(client, &job_ids).await?;
                now = counts(client).await?;
            }
            break;
        }
        let in_flight = verifying.as_ref().map_or(0, |(_, queued)| *queued);
        let wanted = yields.candidates_to_mine(goal.count, in_flight);
        let mine = !ran_dry && rounds < goal.rounds && wanted > 0;
        if !mine && verifying.is_none() {
            break;
        }
        let mining = async {
            if !mine {
                return Ok(None);
            }
            let request = v2::GeneratePuzzlesRequest {
                candidates: wanted,
                max_moves: goal.max_moves,
                min_moves: goal.min_moves,
                min_stones: goal.min_stones,
                random_games: !goal.stored_only,
                seed: goal.seed.wrapping_add(u64::from(rounds)),
            };
            let reply = client.clone().generate_puzzles(request).await?;
            Ok::<_, ClientError>(Some(reply.into_inner()))
        };
        // Wait for exactly the round in flight's verify jobs.
        let waiting = async {
            match &verifying {
                Some((job_ids, _)) => watch(client, job_ids, &mut |_| {}).await.map(|_| ()),
                None => Ok(()),
            }
        };
        let (mined, waited) = tokio::join!(mining, waiting);
        waited?;
        verifying = None;
        if let Some(reply) = mined? {
            rounds += 1;
            if reply.queued == 0 {
                ran_dry = true;
            } else {
                verifying = Some((reply.job_ids, reply.queued));
            }
        }
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

/// Puzzles found per candidate checked so far in a generation, with a prior of one puzzle in
/// [`CANDIDATES_PER_PUZZLE`] candidates.
struct Yield {
    found: u64,
    candidates_per_puzzle: f64,
}

impl Yield {
    fn seen(before: &v2::ListPuzzlesResponse, now: &v2::ListPuzzlesResponse) -> Yield {
        let found = now.found - before.found;
        let checked = now.candidates - before.candidates;
        Yield {
            found,
            candidates_per_puzzle: (checked + CANDIDATES_PER_PUZZLE) as f64 / (found + 1) as f64,
        }
    }

    /// Candidates the next round should mine for `count` puzzles while `in_flight` are being
    /// verified; 0 when those are likely enough. Whether to mine counts the round in flight at
    /// half its expected yield (mining one round too many costs some verifying, one too few
    /// leaves the workers idle while the next is mined); how much to mine counts it in full,
    /// so a large generation does not run far past its count.
    fn candidates_to_mine(&self, count: u64, in_flight: u64) -> u64 {
        let expected = in_flight as f64 / self.candidates_per_puzzle;
        let wanted = count as f64 - self.found as f64;
        if wanted - expected / 2.0 <= 0.0 {
            return 0;
        }
        let short = (wanted - expected).max(0.0);
        ((short * self.candidates_per_puzzle).ceil() as u64).clamp(MIN_ROUND_CANDIDATES, 20_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(found: u64, candidates: u64) -> v2::ListPuzzlesResponse {
        v2::ListPuzzlesResponse {
            found,
            candidates,
            ..v2::ListPuzzlesResponse::default()
        }
    }

    #[test]
    fn the_next_round_is_mined_while_the_one_in_flight_likely_falls_short() {
        let start = counts(4, 100);
        // Nothing checked yet: one puzzle in five candidates, so 3 puzzles want 15 (at least 16).
        let fresh = Yield::seen(&start, &start);
        assert_eq!(fresh.candidates_to_mine(3, 0), MIN_ROUND_CANDIDATES);
        // 16 in flight count for 1.6 puzzles: the next round is mined beside them (16, the
        // least, as in full they count for 3.2).
        assert_eq!(fresh.candidates_to_mine(3, 16), MIN_ROUND_CANDIDATES);
        // 200 wanted, 500 in flight (100 expected): 500 more for the other 100.
        assert_eq!(fresh.candidates_to_mine(200, 500), 500);
        // 40 in flight count for 4: enough, nothing more is mined.
        assert_eq!(fresh.candidates_to_mine(3, 40), 0);
        // One puzzle in 31 candidates so far: 2 more want 2 × 18 candidates.
        let poor = Yield::seen(&start, &counts(5, 131));
        assert_eq!(poor.candidates_to_mine(3, 0), 36);
        // Done: nothing more, whatever is in flight.
        assert_eq!(
            Yield::seen(&start, &counts(7, 120)).candidates_to_mine(3, 0),
            0
        );
    }
}
