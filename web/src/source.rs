//! The one place that talks to the coordinator: its read calls, through the client library,
//! which answers in engine types and its own records (the explorer never sees a wire message),
//! and their failures as the explorer's kinds of error.

use pentago::{Position, Puzzle};
use pentagrid_client::match_games::{self, GamesPage, PairGame};
use pentagrid_client::puzzles::{PuzzleFilter, PuzzlePage};
use pentagrid_client::{Client, ClientError, RefusalReason, book, jobs, matches, puzzles, tunes};
use tonic::Code;

pub use pentagrid_client::book::{BookRow, BookTables};
pub use pentagrid_client::matches::{MatchGame, MatchRecord, MatchState};
pub use pentagrid_client::solitaire::SolitaireTotals;
pub use pentagrid_client::status::ClusterStatus;
pub use pentagrid_client::tunes::{TuneRun, TuneState};

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
            (RefusalReason::Unauthenticated | RefusalReason::ProtocolMismatch, _)
            | (_, Code::Unauthenticated | Code::PermissionDenied) => SourceError::Refused(message),
            (RefusalReason::NotFound, _) | (_, Code::NotFound) => SourceError::NotFound(message),
            (RefusalReason::InvalidArgument, _) | (_, Code::InvalidArgument) => {
                SourceError::Rejected(message)
            }
            (_, Code::Unavailable | Code::DeadlineExceeded) => SourceError::Unreachable(message),
            _ => SourceError::Failed(message),
        }
    }
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
        Ok(book::tables(&self.client, position).await?)
    }

    /// The coordinator's status.
    pub async fn status(&self) -> Result<ClusterStatus, SourceError> {
        Ok(jobs::status(&self.client).await?)
    }

    /// Page `page` (from 1) of the stored puzzles within `filter`, `per_page` to a page, by
    /// mate length, then difficulty (paged by the coordinator: a page past the last is refused
    /// as [`SourceError::Rejected`]).
    pub async fn puzzles(
        &self,
        filter: &PuzzleFilter,
        page: u32,
        per_page: u32,
    ) -> Result<PuzzlePage, SourceError> {
        Ok(puzzles::page(&self.client, filter, page, per_page).await?)
    }

    /// The stored puzzle whose position has `key`.
    pub async fn puzzle(&self, key: u64) -> Result<Puzzle, SourceError> {
        Ok(puzzles::get(&self.client, key).await?)
    }

    /// Match `id` with its per-pair points.
    pub async fn match_record(&self, id: u64) -> Result<MatchRecord, SourceError> {
        Ok(matches::record(&self.client, id).await?)
    }

    /// Match `id` without its games (nor per-pair points).
    pub async fn match_header(&self, id: u64) -> Result<MatchRecord, SourceError> {
        Ok(matches::status(&self.client, id, false).await?)
    }

    /// The games of match `id`'s stored pairs from `from_pair` on, at most `pairs` pairs.
    pub async fn match_games(
        &self,
        id: u64,
        from_pair: u64,
        pairs: u32,
    ) -> Result<GamesPage, SourceError> {
        Ok(match_games::page(&self.client, id, from_pair, pairs).await?)
    }

    /// Game `which` of pair `pair` of match `id`, with the match (`None`: the pair is not
    /// stored).
    pub async fn match_game(
        &self,
        id: u64,
        pair: u64,
        which: PairGame,
    ) -> Result<Option<(MatchRecord, MatchGame)>, SourceError> {
        Ok(match_games::game(&self.client, id, pair, which).await?)
    }

    /// Every match, newest first, without per-pair points.
    pub async fn matches(&self) -> Result<Vec<MatchRecord>, SourceError> {
        Ok(matches::records(&self.client).await?)
    }

    /// The running matches, newest first, without per-pair points.
    pub async fn running_matches(&self) -> Result<Vec<MatchRecord>, SourceError> {
        Ok(matches::list_in(&self.client, &[MatchState::Running]).await?)
    }

    /// Tuning run `id` with every step.
    pub async fn tune(&self, id: u64) -> Result<TuneRun, SourceError> {
        Ok(tunes::status(&self.client, id, true).await?)
    }

    /// Every tuning run, newest first, without steps.
    pub async fn tunes(&self) -> Result<Vec<TuneRun>, SourceError> {
        Ok(tunes::list(&self.client).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_map_to_kinds_by_reason_then_code() {
        let kind = |code, reason| {
            let status = pentagrid_proto::error_status(code, RefusalReason::into(reason), "x");
            SourceError::from(ClientError::Rpc(status))
        };
        let cases = [
            (Code::Unavailable, RefusalReason::Unspecified, "unreachable"),
            (
                Code::Unauthenticated,
                RefusalReason::Unauthenticated,
                "refused",
            ),
            (
                Code::FailedPrecondition,
                RefusalReason::ProtocolMismatch,
                "refused",
            ),
            (Code::NotFound, RefusalReason::NotFound, "not found"),
            (
                Code::InvalidArgument,
                RefusalReason::InvalidArgument,
                "rejected",
            ),
            (Code::Internal, RefusalReason::Storage, "failed"),
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
