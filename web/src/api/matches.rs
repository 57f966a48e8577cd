//! `/matches` (every match, newest first) and `/matches/{id}`: a match's counts, its Elo with
//! the 95% interval, the Elo and LLR after every stored pair, and each player's accuracy
//! against perfect play when measured.

use axum::Json;
use axum::extract::{Path, State};
use pentago::{Accuracy, MatchAccuracy, MatchScore};
use pentagrid_rating::{EloEstimate, Sprt};
use serde::Serialize;

use super::ApiError;
use crate::AppState;
use crate::source::{MatchRecord, MatchState};

/// Most points in a history (longer ones are thinned evenly, the last pair always kept).
const MAX_HISTORY: usize = 500;

/// A match as the API shows it.
#[derive(Serialize)]
pub struct MatchDetail {
    id: u64,
    a: String,
    b: String,
    pairs: u64,
    pairs_done: u64,
    state: MatchState,
    openings: String,
    sprt: Option<SprtInfo>,
    /// Pairs stored when the SPRT decided (0 while undecided).
    decided_after: u64,
    /// A's games won, drawn, lost.
    games: Games,
    /// Pairs by A's points in them: 0, ½, 1, 1½, 2.
    pentanomial: [u64; 5],
    /// A's Elo over B from the pairs, null without pairs; unbounded values (interval ends, the
    /// estimate of a perfect score) are null. See `ScoreStats::interval95` for the interval.
    elo: Option<EloEstimate>,
    /// The SPRT's log-likelihood ratio now (null without an SPRT).
    llr: Option<f64>,
    /// After each stored pair (in pair order): Elo, interval and LLR.
    history: Vec<HistoryPoint>,
    /// A's and B's accuracy against perfect play over the stored pairs (null when the match
    /// does not measure it).
    accuracy: Option<AccuracyInfo>,
    /// Every game's wall-clock time limit (null: the players' own budgets).
    time_limit: Option<String>,
    /// Why a running match cannot go on (null when it can).
    waiting: Option<String>,
    /// Stored games that ended by an external engine's forfeit.
    forfeits: Vec<ForfeitInfo>,
}

#[derive(Serialize)]
struct ForfeitInfo {
    pair: u64,
    /// 1 or 2.
    game: usize,
    loser: &'static str,
    /// The reason's stable name (`illegal`, `hang`, …).
    reason: &'static str,
    detail: String,
}

#[derive(Serialize)]
struct AccuracyInfo {
    /// Moves from positions with at least this many stones are judged.
    min_stones: u32,
    a: SideAccuracy,
    b: SideAccuracy,
}

#[derive(Serialize)]
struct SideAccuracy {
    moves: u32,
    drops: u32,
    /// The share of judged moves that kept the exact value (null when none was judged).
    share: Option<f64>,
}

impl AccuracyInfo {
    fn of(accuracy: &MatchAccuracy) -> AccuracyInfo {
        let side = |side: Accuracy| SideAccuracy {
            moves: side.moves,
            drops: side.drops,
            share: side.share(),
        };
        AccuracyInfo {
            min_stones: accuracy.min_stones,
            a: side(accuracy.sides[0]),
            b: side(accuracy.sides[1]),
        }
    }
}

#[derive(Serialize)]
struct Games {
    wins: u64,
    draws: u64,
    losses: u64,
}

#[derive(Serialize)]
struct SprtInfo {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    /// LLR bounds: at or below `lower` H0 is accepted, at or above `upper` H1.
    lower: f64,
    upper: f64,
}

#[derive(Serialize)]
struct HistoryPoint {
    pairs: u64,
    elo: Option<EloEstimate>,
    llr: Option<f64>,
}

fn elo(score: &MatchScore) -> Option<EloEstimate> {
    score.pairs.stats().map(|stats| stats.elo())
}

fn llr(score: &MatchScore, sprt: Option<&Sprt>) -> Option<f64> {
    sprt.map(|sprt| score.test(sprt).0)
}

/// The running Elo and LLR after each pair, thinned to at most [`MAX_HISTORY`] points.
fn history(record: &MatchRecord) -> Vec<HistoryPoint> {
    let total = record.pair_points.len();
    let step = total.div_ceil(MAX_HISTORY).max(1);
    let mut score = MatchScore::default();
    let mut points = Vec::with_capacity(total.min(MAX_HISTORY));
    for (index, (_, game_points)) in record.pair_points.iter().enumerate() {
        score.add_pair(*game_points);
        if (index + 1) % step == 0 || index + 1 == total {
            points.push(HistoryPoint {
                pairs: index as u64 + 1,
                elo: elo(&score),
                llr: llr(&score, record.sprt.as_ref()),
            });
        }
    }
    points
}

impl MatchDetail {
    fn of(record: &MatchRecord) -> MatchDetail {
        let score = &record.score;
        MatchDetail {
            id: record.id,
            a: record.a.clone(),
            b: record.b.clone(),
            pairs: record.pairs,
            pairs_done: score.pairs.pairs(),
            state: record.state,
            openings: record.openings.clone(),
            sprt: record.sprt.map(|sprt| {
                let (lower, upper) = sprt.bounds();
                SprtInfo {
                    elo0: sprt.elo0,
                    elo1: sprt.elo1,
                    alpha: sprt.alpha,
                    beta: sprt.beta,
                    lower,
                    upper,
                }
            }),
            decided_after: record.decided_after,
            games: Games {
                wins: score.games.wins,
                draws: score.games.draws,
                losses: score.games.losses,
            },
            pentanomial: score.pairs.counts,
            elo: elo(score),
            llr: llr(score, record.sprt.as_ref()),
            history: history(record),
            accuracy: record.accuracy.as_ref().map(AccuracyInfo::of),
            time_limit: Some(record.time_limit.clone()).filter(|t| !t.is_empty()),
            waiting: record.waiting.as_ref().map(ToString::to_string),
            forfeits: record
                .forfeits
                .iter()
                .map(|(pair, game, forfeit)| ForfeitInfo {
                    pair: *pair,
                    game: *game,
                    loser: forfeit.loser.name(),
                    reason: forfeit.reason.name(),
                    detail: forfeit.detail.clone(),
                })
                .collect(),
        }
    }
}

/// A match in the listing.
#[derive(Serialize)]
pub(super) struct MatchSummary {
    id: u64,
    a: String,
    b: String,
    pairs: u64,
    pairs_done: u64,
    state: MatchState,
    elo: Option<EloEstimate>,
}

/// Every match, newest first.
#[derive(Serialize)]
pub struct MatchList {
    matches: Vec<MatchSummary>,
}

/// `GET /api/v1/matches`.
pub async fn list(State(state): State<AppState>) -> Result<Json<MatchList>, ApiError> {
    let matches = state
        .source
        .matches()
        .await?
        .iter()
        .map(MatchSummary::of)
        .collect();
    Ok(Json(MatchList { matches }))
}

impl MatchSummary {
    /// A match's line in a listing.
    pub(super) fn of(record: &MatchRecord) -> MatchSummary {
        MatchSummary {
            id: record.id,
            a: record.a.clone(),
            b: record.b.clone(),
            pairs: record.pairs,
            pairs_done: record.score.pairs.pairs(),
            state: record.state,
            elo: elo(&record.score),
        }
    }
}

/// `GET /api/v1/matches/{id}`.
pub async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<MatchDetail>, ApiError> {
    let record = state.source.match_record(match_id(&id)?).await?;
    Ok(Json(MatchDetail::of(&record)))
}

/// The match id in path segment `id` (a positive whole number).
pub(super) fn match_id(text: &str) -> Result<u64, ApiError> {
    text.parse().ok().filter(|id| *id > 0).ok_or_else(|| {
        ApiError::bad(
            "id",
            format!("bad match id {text:?}: expected a positive whole number"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pairs: usize) -> MatchRecord {
        let pair_points: Vec<(u64, [f64; 2])> = (0..pairs as u64)
            .map(|pair| {
                (
                    pair,
                    if pair % 3 == 0 {
                        [1.0, 0.5]
                    } else {
                        [1.0, 0.0]
                    },
                )
            })
            .collect();
        let mut score = MatchScore::default();
        for (_, points) in &pair_points {
            score.add_pair(*points);
        }
        MatchRecord {
            id: 1,
            a: "a".into(),
            b: "b".into(),
            pairs: pairs as u64,
            sprt: "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().ok(),
            openings: String::new(),
            seed: 0,
            pairs_done: 0,
            decision: pentagrid_rating::SprtDecision::Continue,
            games: Vec::new(),
            state: MatchState::Running,
            decided_after: 0,
            score,
            pair_points,
            time_limit: String::new(),
            suite_openings: 0,
            adjudicate: String::new(),
            waiting: None,
            weight: 1,
            pairs_leased: 0,
            owner: String::new(),
            forfeits: Vec::new(),
            accuracy: None,
            tournament_id: 0,
            tournament_kind: String::new(),
        }
    }

    #[test]
    fn history_ends_at_the_match_totals() {
        for pairs in [1, 7, 499, 500, 501, 1234] {
            let record = record(pairs);
            let points = history(&record);
            assert!(points.len() <= MAX_HISTORY && !points.is_empty());
            let last = points.last().unwrap();
            assert_eq!(last.pairs, pairs as u64);
            assert_eq!(last.llr, llr(&record.score, record.sprt.as_ref()));
            assert!(points.windows(2).all(|w| w[0].pairs < w[1].pairs));
        }
        assert!(history(&record(0)).is_empty());
    }

    #[test]
    fn one_even_pair_has_an_open_interval_and_unjudged_moves_no_share() {
        // One pair of a win each: an even score, which used to read
        // `{"elo":-0.0,"low":-0.0,"high":-0.0}`.
        let mut record = record(0);
        record.pair_points = vec![(0, [1.0, 0.0])];
        record.score = MatchScore::default();
        record.score.add_pair([1.0, 0.0]);
        record.accuracy = Some(MatchAccuracy {
            min_stones: 22,
            sides: [
                Accuracy { moves: 0, drops: 0 },
                Accuracy { moves: 4, drops: 1 },
            ],
        });
        let detail = serde_json::to_value(MatchDetail::of(&record)).unwrap();
        let text = detail.to_string();
        // A negative zero serializes as `-0.0`, then a comma or a brace.
        assert!(!text.contains("-0.0,") && !text.contains("-0.0}"), "{text}");
        let elo = &detail["elo"];
        assert_eq!(elo["elo"], 0.0, "{elo}");
        let (low, high) = (elo["low"].as_f64().unwrap(), elo["high"].as_f64().unwrap());
        assert!(low < -100.0 && (low + high).abs() < 1e-6, "{elo}");
        assert_eq!(detail["history"][0]["elo"], *elo);
        assert!(detail["accuracy"]["a"]["share"].is_null(), "{text}");
        assert_eq!(detail["accuracy"]["b"]["share"], 0.75, "{text}");
    }
}
