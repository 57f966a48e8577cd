//! A stored match in the client's own types: its players, test, state and counts, and A's
//! points pair by pair, read from the coordinator's match status.

use pentago::{Color, MatchAccuracy, MatchScore, Sprt, game_points};
use pentagrid_proto::{Client, v2};
use serde::Serialize;

use crate::error::{ClientError, Result};
use crate::matches::{list, report_accuracy, report_score, status};

/// Where a match stands (serialized in snake case: `running`, `accepted_h0`, …).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
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
    fn from_wire(number: i32) -> Result<MatchState> {
        Ok(match v2::MatchState::try_from(number) {
            Ok(v2::MatchState::Running) => MatchState::Running,
            Ok(v2::MatchState::AcceptedH0) => MatchState::AcceptedH0,
            Ok(v2::MatchState::AcceptedH1) => MatchState::AcceptedH1,
            Ok(v2::MatchState::Complete) => MatchState::Complete,
            Ok(v2::MatchState::Stopped) => MatchState::Stopped,
            _ => return Err(unreadable("match state", &number.to_string(), "unknown")),
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
    /// The tournament the match belongs to (0: none; see [`crate::tournaments`]).
    pub tournament_id: u64,
    /// The tournament's kind (empty: none).
    pub tournament_kind: String,
}

/// Match `id` with its per-pair points.
pub async fn record(client: &Client, id: u64) -> Result<MatchRecord> {
    match_record(status(client, id, true).await?)
}

/// Every match, newest first, without per-pair points.
pub async fn records(client: &Client) -> Result<Vec<MatchRecord>> {
    list(client).await?.into_iter().map(match_record).collect()
}

fn unreadable(what: &str, text: &str, error: impl std::fmt::Display) -> ClientError {
    ClientError::Unreadable(format!("{what} {text:?}: {error}"))
}

fn match_record(report: v2::MatchStatusResponse) -> Result<MatchRecord> {
    let sprt = match report.sprt.as_str() {
        "" => None,
        text => Some(text.parse().map_err(|e| unreadable("SPRT", text, e))?),
    };
    Ok(MatchRecord {
        id: report.match_id,
        pair_points: pair_points(&report.games)?,
        score: report_score(&report),
        accuracy: report_accuracy(&report),
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

/// A's points per stored pair: each pair's first game has A black, its second B black.
fn pair_points(games: &[v2::MatchGame]) -> Result<Vec<(u64, [f64; 2])>> {
    let mut pairs: Vec<(u64, [f64; 2])> = Vec::with_capacity(games.len() / 2);
    for pair in games.chunks(2) {
        let [first, second] = pair else {
            return Err(ClientError::Unreadable("a pair with one game".into()));
        };
        if first.pair != second.pair {
            return Err(ClientError::Unreadable(format!(
                "pair {} and pair {} mixed",
                first.pair, second.pair
            )));
        }
        let status = |game: &v2::MatchGame| {
            game.result
                .parse()
                .map_err(|e| unreadable("result", &game.result, e))
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
    fn broken_pairs_are_unreadable_not_panics() {
        for games in [
            vec![game(0, "black")],
            vec![game(0, "black"), game(1, "white")],
            vec![game(0, "black"), game(0, "nobody")],
        ] {
            assert!(matches!(
                pair_points(&games),
                Err(ClientError::Unreadable(_))
            ));
        }
    }

    #[test]
    fn states_read_back_and_unknown_ones_are_unreadable() {
        let cases = [
            (v2::MatchState::Running, MatchState::Running),
            (v2::MatchState::AcceptedH0, MatchState::AcceptedH0),
            (v2::MatchState::AcceptedH1, MatchState::AcceptedH1),
            (v2::MatchState::Complete, MatchState::Complete),
            (v2::MatchState::Stopped, MatchState::Stopped),
        ];
        for (wire, state) in cases {
            assert_eq!(MatchState::from_wire(wire as i32).unwrap(), state);
        }
        for number in [v2::MatchState::Unspecified as i32, 99, -1] {
            assert!(matches!(
                MatchState::from_wire(number),
                Err(ClientError::Unreadable(_))
            ));
        }
    }
}
