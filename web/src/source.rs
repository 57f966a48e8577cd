//! The one place that talks to the coordinator: its read calls (through the client library),
//! turned into engine types and the explorer's own records, so the rest of the crate never sees
//! a wire message.

use pentago::{
    Color, MatchAccuracy, MatchScore, Move, MoveNotation, Position, Puzzle, Sprt, Theme, Value,
    game_points,
};
use pentagrid_client::{Client, ClientError, book, jobs, matches, puzzles};
use pentagrid_proto::v2::{self, ErrorReason};
use tonic::Code;

/// Why the coordinator could not answer a read.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SourceError {
    /// No connection (down, wrong address, network).
    #[error("the coordinator is unreachable: {0}")]
    Unreachable(String),
    /// The credential was refused.
    #[error("the coordinator refused the credential: {0}")]
    Refused(String),
    /// The thing asked for does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The coordinator found the request invalid.
    #[error("{0}")]
    Rejected(String),
    /// The coordinator failed to answer.
    #[error("the coordinator failed: {0}")]
    Failed(String),
    /// The reply did not read back (a coordinator of another version).
    #[error("the coordinator's reply does not read back: {0}")]
    Malformed(String),
}

impl From<ClientError> for SourceError {
    fn from(error: ClientError) -> SourceError {
        let ClientError::Rpc(status) = &error else {
            return match error {
                ClientError::Unreadable(why) => SourceError::Malformed(why),
                other => SourceError::Failed(other.to_string()),
            };
        };
        let message = status.message().to_owned();
        match (error.reason(), status.code()) {
            (ErrorReason::Unauthenticated | ErrorReason::ProtocolMismatch, _)
            | (_, Code::Unauthenticated | Code::PermissionDenied) => SourceError::Refused(message),
            (ErrorReason::NotFound, _) | (_, Code::NotFound) => SourceError::NotFound(message),
            (ErrorReason::InvalidArgument, _) | (_, Code::InvalidArgument) => {
                SourceError::Rejected(message)
            }
            (_, Code::Unavailable | Code::DeadlineExceeded) => SourceError::Unreachable(message),
            _ => SourceError::Failed(message),
        }
    }
}

fn malformed(what: &str, text: &str, error: impl std::fmt::Display) -> SourceError {
    SourceError::Malformed(format!("{what} {text:?}: {error}"))
}

/// One move of a book table, in the asker's frame, counted for the player making it.
#[derive(Clone, Debug, PartialEq)]
pub struct BookRow {
    /// The move shown.
    pub mv: Move,
    /// Other moves merged into this row: they reach the same position, or a symmetric one.
    pub also: Vec<Move>,
    /// Games (playouts or self-play games) that made this move.
    pub games: u64,
    /// Of them won by the mover.
    pub wins: u64,
    /// Of them drawn.
    pub draws: u64,
    /// The exact value for the mover, where the solver settled it.
    pub proven: Option<Value>,
}

/// A position's two tables.
#[derive(Clone, Debug, PartialEq)]
pub struct BookTables {
    /// The canonical form the tables are stored under.
    pub canonical: Position,
    /// From UCT analyses (playout counts).
    pub playouts: Vec<BookRow>,
    /// From self-play games.
    pub games: Vec<BookRow>,
}

/// Jobs by state, workers and stored totals (serialized as the API's `/cluster` shows them).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClusterStatus {
    /// Jobs by state.
    pub jobs: JobCounts,
    /// The workers the coordinator knows: the first page of them, by name.
    pub workers: Vec<WorkerInfo>,
    /// Every worker the coordinator knows (more than `workers` lists when there are many).
    pub worker_count: u64,
    /// What the database holds.
    pub stored: StoredTotals,
}

/// Jobs by state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct JobCounts {
    /// Jobs waiting for a worker.
    pub queued: u64,
    /// Jobs a worker holds.
    pub leased: u64,
    /// Finished jobs.
    pub done: u64,
    /// Jobs that used up their attempts.
    pub failed: u64,
    /// Cancelled jobs.
    pub cancelled: u64,
}

/// What the database holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StoredTotals {
    /// Positions with playout tables.
    pub playout_positions: u64,
    /// Positions with game tables.
    pub game_positions: u64,
    /// Stored games.
    pub games: u64,
    /// Playouts merged into tables so far.
    pub playouts: u64,
}

/// One worker as the coordinator sees it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WorkerInfo {
    /// Its id (unique per worker process).
    pub id: String,
    /// The name it gave.
    pub name: String,
    /// Its threads.
    pub threads: u32,
    /// Leases it holds.
    pub leases: u64,
    /// Results it handed in.
    pub results: u64,
    /// Seconds since it was last heard from.
    pub seconds_since_seen: f64,
    /// Times a cross-check showed one of its exact claims wrong.
    pub flags: u32,
    /// Flagged twice: its results are refused and it gets no jobs.
    pub quarantined: bool,
}

/// Where a match stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchState {
    /// Pairs are still queued or being played.
    Running,
    /// The SPRT accepted H0.
    AcceptedH0,
    /// The SPRT accepted H1.
    AcceptedH1,
    /// Every pair was played.
    Complete,
    /// Some pairs failed or were cancelled.
    Stopped,
}

impl MatchState {
    fn from_wire(number: i32) -> Result<MatchState, SourceError> {
        Ok(match v2::MatchState::try_from(number) {
            Ok(v2::MatchState::Running) => MatchState::Running,
            Ok(v2::MatchState::AcceptedH0) => MatchState::AcceptedH0,
            Ok(v2::MatchState::AcceptedH1) => MatchState::AcceptedH1,
            Ok(v2::MatchState::Complete) => MatchState::Complete,
            Ok(v2::MatchState::Stopped) => MatchState::Stopped,
            _ => return Err(malformed("match state", &number.to_string(), "unknown")),
        })
    }
}

/// A match with its counts and, per stored pair in pair order, A's points in its two games.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The match id.
    pub id: u64,
    /// Player A (text form).
    pub a: String,
    /// Player B.
    pub b: String,
    /// Pairs asked for.
    pub pairs: u64,
    /// The sequential test, if any.
    pub sprt: Option<Sprt>,
    /// Where the openings come from.
    pub openings: String,
    /// Where it stands.
    pub state: MatchState,
    /// Pairs stored when the SPRT decided (0 while undecided).
    pub decided_after: u64,
    /// A's results.
    pub score: MatchScore,
    /// A's points in each game of each stored pair (A black first), by pair index (empty in
    /// a listing).
    pub pair_points: Vec<(u64, [f64; 2])>,
    /// A's and B's accuracy against perfect play, when the match measures it.
    pub accuracy: Option<MatchAccuracy>,
    /// The tournament the match belongs to (0: none).
    pub tournament_id: u64,
    /// The tournament's kind (empty: none).
    pub tournament_kind: String,
}

/// Filters the coordinator applies to the puzzle collection, and the page asked for.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PuzzleQuery {
    /// Shortest mate (0: no bound).
    pub min_moves: u32,
    /// Longest mate (0: no bound).
    pub max_moves: u32,
    /// Only puzzles with this theme.
    pub theme: Option<Theme>,
    /// Only puzzles of this difficulty level (`easy`, `medium`, `hard`, `expert`).
    pub level: Option<&'static str>,
    /// The page, from 1.
    pub page: u32,
    /// Puzzles per page (at most the coordinator's 100).
    pub per_page: u32,
}

/// One page of the puzzle collection, as the coordinator pages it.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzlePage {
    /// The page's puzzles, by mate length, then difficulty.
    pub puzzles: Vec<Puzzle>,
    /// Puzzles matching the filters, on all pages.
    pub total: u64,
}

/// A reader of the coordinator's read API.
#[derive(Clone)]
pub struct Source {
    client: Client,
}

impl Source {
    /// Reads through `client`.
    #[must_use]
    pub fn new(client: Client) -> Source {
        Source { client }
    }

    /// Checks that the coordinator answers and accepts the credential.
    pub async fn check(&self) -> Result<(), SourceError> {
        self.status().await.map(|_| ())
    }

    /// The tables of `position`, in its frame.
    pub async fn book(&self, position: &Position) -> Result<BookTables, SourceError> {
        let reply = book::show(&self.client, position).await?;
        let canonical = reply
            .canonical
            .parse()
            .map_err(|e| malformed("position", &reply.canonical, e))?;
        Ok(BookTables {
            canonical,
            playouts: book_rows(position, &reply.playouts)?,
            games: book_rows(position, &reply.games)?,
        })
    }

    /// The coordinator's status.
    pub async fn status(&self) -> Result<ClusterStatus, SourceError> {
        let s = jobs::status(&self.client).await?;
        // A coordinator from before the count was sent: what it listed is all it knows.
        let worker_count = s.worker_count.max(s.workers.len() as u64);
        Ok(ClusterStatus {
            jobs: JobCounts {
                queued: s.queued,
                leased: s.leased,
                done: s.done,
                failed: s.failed,
                cancelled: s.cancelled,
            },
            workers: s
                .workers
                .into_iter()
                .map(|w| WorkerInfo {
                    id: w.worker_id,
                    name: w.name,
                    threads: w.threads,
                    leases: w.leases,
                    results: w.results,
                    seconds_since_seen: w.seconds_since_seen,
                    flags: w.flags,
                    quarantined: w.quarantined,
                })
                .collect(),
            worker_count,
            stored: StoredTotals {
                playout_positions: s.playout_positions,
                game_positions: s.game_positions,
                games: s.games,
                playouts: s.playouts,
            },
        })
    }

    /// One page of the stored puzzles within `query`, by mate length, then difficulty (paged
    /// by the coordinator: a page past the last is refused as [`SourceError::Rejected`]). The
    /// coordinator ends a page early when its puzzles are large; the rest of the page is read
    /// on from its cursor, so that page `n` always starts after `n - 1` full pages.
    pub async fn puzzles(&self, query: PuzzleQuery) -> Result<PuzzlePage, SourceError> {
        let mut request = v2::ListPuzzlesRequest {
            min_moves: query.min_moves,
            max_moves: query.max_moves,
            theme: query.theme.map(|t| t.name().to_owned()).unwrap_or_default(),
            level: query.level.unwrap_or_default().to_owned(),
            page: query.page,
            page_size: query.per_page,
            ..v2::ListPuzzlesRequest::default()
        };
        let mut puzzles = Vec::new();
        loop {
            let reply = self
                .client
                .clone()
                .list_puzzles(request.clone())
                .await
                .map_err(|status| SourceError::from(ClientError::Rpc(status)))?
                .into_inner();
            for json in &reply.puzzles_json {
                puzzles.push(serde_json::from_str(json).map_err(|e| malformed("puzzle", json, e))?);
            }
            let short = (query.per_page as usize).saturating_sub(puzzles.len());
            if short == 0 || reply.next_cursor.is_empty() {
                return Ok(PuzzlePage {
                    puzzles,
                    total: reply.total,
                });
            }
            request.page = 0;
            request.page_size = short as u32;
            request.cursor = reply.next_cursor;
        }
    }

    /// The stored puzzle whose position has `key`.
    pub async fn puzzle(&self, key: u64) -> Result<Puzzle, SourceError> {
        Ok(puzzles::get(&self.client, key).await?)
    }

    /// Match `id` with its per-pair points.
    pub async fn match_record(&self, id: u64) -> Result<MatchRecord, SourceError> {
        let report = matches::status(&self.client, id, true).await?;
        match_record(report)
    }

    /// Every match, newest first, without per-pair points.
    pub async fn matches(&self) -> Result<Vec<MatchRecord>, SourceError> {
        matches::list(&self.client)
            .await?
            .into_iter()
            .map(match_record)
            .collect()
    }
}

fn match_record(report: v2::MatchStatusResponse) -> Result<MatchRecord, SourceError> {
    let sprt = match report.sprt.as_str() {
        "" => None,
        text => Some(text.parse().map_err(|e| malformed("SPRT", text, e))?),
    };
    Ok(MatchRecord {
        id: report.match_id,
        pair_points: pair_points(&report.games)?,
        score: matches::report_score(&report),
        accuracy: matches::report_accuracy(&report),
        state: MatchState::from_wire(report.state)?,
        a: report.a,
        b: report.b,
        pairs: report.pairs,
        sprt,
        openings: report.openings,
        decided_after: report.decided_after,
        tournament_id: report.tournament_id,
        tournament_kind: report.tournament_kind,
    })
}

fn parse_move(position: &Position, text: &str) -> Result<Move, SourceError> {
    let notation: MoveNotation = text.parse().map_err(|e| malformed("move", text, e))?;
    position
        .resolve(notation)
        .map_err(|e| malformed("move", text, e))
}

fn book_rows(position: &Position, rows: &[v2::BookRow]) -> Result<Vec<BookRow>, SourceError> {
    rows.iter()
        .map(|row| {
            let proven: Option<Value> = book::proven(row.proven);
            Ok(BookRow {
                mv: parse_move(position, &row.r#move)?,
                also: row
                    .also
                    .iter()
                    .map(|text| parse_move(position, text))
                    .collect::<Result<_, _>>()?,
                games: row.games,
                wins: row.wins,
                draws: row.draws,
                proven,
            })
        })
        .collect()
}

/// A's points per stored pair: each pair's first game has A black, its second B black.
fn pair_points(games: &[v2::MatchGame]) -> Result<Vec<(u64, [f64; 2])>, SourceError> {
    let mut pairs: Vec<(u64, [f64; 2])> = Vec::with_capacity(games.len() / 2);
    for pair in games.chunks(2) {
        let [first, second] = pair else {
            return Err(SourceError::Malformed("a pair with one game".into()));
        };
        if first.pair != second.pair {
            return Err(SourceError::Malformed(format!(
                "pair {} and pair {} mixed",
                first.pair, second.pair
            )));
        }
        let status = |game: &v2::MatchGame| {
            game.result
                .parse()
                .map_err(|e| malformed("result", &game.result, e))
        };
        pairs.push((
            first.pair,
            [
                game_points(status(first)?, Color::Black),
                game_points(status(second)?, Color::White),
            ],
        ));
    }
    pairs.sort_by_key(|(pair, _)| *pair);
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(pair: u64, result: &str) -> v2::MatchGame {
        v2::MatchGame {
            pair,
            result: result.into(),
            ..v2::MatchGame::default()
        }
    }

    #[test]
    fn pair_points_score_a_as_black_then_white() {
        let games = [
            game(1, "white"),
            game(1, "white"),
            game(0, "black"),
            game(0, "draw"),
        ];
        assert_eq!(
            pair_points(&games).unwrap(),
            vec![(0, [1.0, 0.5]), (1, [0.0, 1.0])]
        );
    }

    #[test]
    fn broken_pairs_are_malformed_not_panics() {
        for games in [
            vec![game(0, "black")],
            vec![game(0, "black"), game(1, "white")],
            vec![game(0, "black"), game(0, "nobody")],
        ] {
            assert!(matches!(
                pair_points(&games),
                Err(SourceError::Malformed(_))
            ));
        }
    }

    #[test]
    fn refusals_map_to_kinds_by_reason_then_code() {
        let kind = |code, reason| {
            let status = pentagrid_proto::error_status(code, reason, "x");
            SourceError::from(ClientError::Rpc(status))
        };
        let cases = [
            (Code::Unavailable, ErrorReason::Unspecified, "unreachable"),
            (
                Code::Unauthenticated,
                ErrorReason::Unauthenticated,
                "refused",
            ),
            (
                Code::FailedPrecondition,
                ErrorReason::ProtocolMismatch,
                "refused",
            ),
            (Code::NotFound, ErrorReason::NotFound, "not found"),
            (
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
                "rejected",
            ),
            (Code::Internal, ErrorReason::Storage, "failed"),
        ];
        for (code, reason, expected) in cases {
            let name = match kind(code, reason) {
                SourceError::Unreachable(_) => "unreachable",
                SourceError::Refused(_) => "refused",
                SourceError::NotFound(_) => "not found",
                SourceError::Rejected(_) => "rejected",
                SourceError::Failed(_) => "failed",
                SourceError::Malformed(_) => "malformed",
            };
            assert_eq!(name, expected, "{code:?} {reason:?}");
        }
    }
}
