//! A stored match's games read a page at a time, or one game alone: what a viewer of a match's
//! games needs without reading all of them (a match may hold thousands of pairs).

use pentagrid_model::limits::MATCH_PAGE_PAIRS;
use pentagrid_proto::{Client, v2};

use crate::error::{ClientError, Result};
use crate::matches::{MatchGame, MatchRecord, match_record};

/// One page of a stored match's games.
#[derive(Clone, Debug)]
pub struct GamesPage {
    /// The match, with this page's games: two per stored pair, in pair order, A black first
    /// (its `pair_points` cover this page only).
    pub record: MatchRecord,
    /// The first pair of the next page (`None`: this page is the last).
    pub next_from_pair: Option<u64>,
}

/// Which game of a pair: each pair plays its opening twice with colours swapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairGame {
    /// The first game: A black.
    First,
    /// The second game: B black.
    Second,
}

impl PairGame {
    /// The game numbered `number` (1 or 2, as game records name them), `None` for others.
    #[must_use]
    pub const fn from_number(number: u64) -> Option<PairGame> {
        match number {
            1 => Some(PairGame::First),
            2 => Some(PairGame::Second),
            _ => None,
        }
    }

    /// 1 or 2.
    #[must_use]
    pub const fn number(self) -> u64 {
        match self {
            PairGame::First => 1,
            PairGame::Second => 2,
        }
    }

    /// The game's place among its pair's two stored games.
    const fn index(self) -> usize {
        match self {
            PairGame::First => 0,
            PairGame::Second => 1,
        }
    }
}

/// The games of match `match_id`'s stored pairs from pair `from_pair` on, at most `pairs`
/// (1 to [`MATCH_PAGE_PAIRS`]) of them; the coordinator may send fewer when the games' notes are
/// long. A `from_pair` at or past the match's pair count is refused.
pub async fn page(client: &Client, match_id: u64, from_pair: u64, pairs: u32) -> Result<GamesPage> {
    if pairs == 0 || u64::from(pairs) > MATCH_PAGE_PAIRS {
        return Err(ClientError::Invalid(format!(
            "a page of games holds 1 to {MATCH_PAGE_PAIRS} pairs, not {pairs}"
        )));
    }
    let report = client
        .clone()
        .match_status(v2::MatchStatusRequest {
            match_id,
            include_games: true,
            games_from_pair: from_pair,
            games_page_pairs: pairs,
        })
        .await?
        .into_inner();
    let next = report.next_games_from_pair;
    Ok(GamesPage {
        record: match_record(report)?,
        next_from_pair: (next != 0).then_some(next),
    })
}

/// Game `which` of pair `pair` (counted from 0) of match `match_id`, with the match; `None`
/// when that pair is not stored (not played yet, or cancelled after the SPRT decided). A pair
/// at or past the match's pair count is refused.
pub async fn game(
    client: &Client,
    match_id: u64,
    pair: u64,
    which: PairGame,
) -> Result<Option<(MatchRecord, MatchGame)>> {
    let mut page = page(client, match_id, pair, 1).await?;
    // The page starts at the first stored pair from `pair` on, which may be a later one.
    let games = std::mem::take(&mut page.record.games);
    let found = games
        .into_iter()
        .filter(|game| game.pair == pair)
        .nth(which.index());
    Ok(found.map(|game| (page.record, game)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_of_a_pair_are_numbered_one_and_two() {
        for number in [1, 2] {
            let game = PairGame::from_number(number).unwrap();
            assert_eq!(game.number(), number);
            assert_eq!(game.index() as u64, number - 1);
        }
        for bad in [0, 3, u64::MAX] {
            assert_eq!(PairGame::from_number(bad), None);
        }
    }
}
