//! `/ratings` (the rating list of every stored match, or of one tournament's), `/tournaments`
//! (every tournament, newest first) and `/tournaments/{id}` (its matches and rating list).
//! Lists are fitted here from the stored matches' counts by [`pentagrid_rating::rating_list`]; a
//! tournament is the set of matches sharing its id (the id of its first match).

use axum::Json;
use axum::extract::{Path, State};
use pentagrid_rating::{
    Encounter, MAX_PRIOR_DRAWS, RatingError, RatingList, RatingOptions, Trinomial, rating_list,
};
use serde::Serialize;

use super::matches::MatchSummary;
use super::{ApiError, Params};
use crate::AppState;
use crate::source::{MatchRecord, MatchState};

/// Largest anchor rating taken, either sign.
const MAX_ANCHOR_RATING: f64 = 1e6;

/// A tournament in the listing.
#[derive(Serialize)]
struct TournamentSummary {
    id: u64,
    kind: String,
    /// In the order they first appear in the matches.
    players: Vec<String>,
    match_count: usize,
    pairs: u64,
    pairs_done: u64,
    /// Whether every match has ended.
    finished: bool,
}

/// Every tournament, newest first.
#[derive(Serialize)]
pub struct TournamentList {
    tournaments: Vec<TournamentSummary>,
}

/// One tournament: its matches, oldest first, and its rating list.
#[derive(Serialize)]
pub struct TournamentDetail {
    #[serde(flatten)]
    summary: TournamentSummary,
    matches: Vec<MatchSummary>,
    ratings: RatingList,
}

/// The number in `name`, if given, from `low` (above it when `open_low`) to `high`.
fn real(
    params: &Params,
    name: &'static str,
    (low, high): (f64, f64),
    open_low: bool,
) -> Result<Option<f64>, ApiError> {
    let Some(text) = params.text(name) else {
        return Ok(None);
    };
    let inside =
        |x: &f64| x.is_finite() && *x <= high && if open_low { *x > low } else { *x >= low };
    text.parse::<f64>()
        .ok()
        .filter(inside)
        .map(Some)
        .ok_or_else(|| {
            let from = if open_low { "above" } else { "from" };
            ApiError::bad(
                name,
                format!("{text:?} is not a number {from} {low} to {high}"),
            )
        })
}

/// The fit's options from `anchor`, `anchor_rating` and `prior_draws`.
fn options(params: &Params) -> Result<RatingOptions, ApiError> {
    let defaults = RatingOptions::default();
    Ok(RatingOptions {
        anchor: params.text("anchor").map(str::to_owned),
        anchor_rating: real(
            params,
            "anchor_rating",
            (-MAX_ANCHOR_RATING, MAX_ANCHOR_RATING),
            false,
        )?
        .unwrap_or(defaults.anchor_rating),
        prior_draws: real(params, "prior_draws", (0.0, MAX_PRIOR_DRAWS), true)?
            .unwrap_or(defaults.prior_draws),
    })
}

/// The rating list of `records` (oldest first, so the default anchor is the first player).
fn rate(records: &[&MatchRecord], options: &RatingOptions) -> Result<RatingList, ApiError> {
    let encounters: Vec<Encounter> = records
        .iter()
        .map(|m| Encounter {
            a: m.a.clone(),
            b: m.b.clone(),
            score: Trinomial {
                wins: m.score.games.wins,
                draws: m.score.games.draws,
                losses: m.score.games.losses,
            },
        })
        .collect();
    rating_list(&encounters, options).map_err(|error| match error {
        RatingError::NoPlayers => ApiError::NotFound("no matches to rate".to_owned()),
        RatingError::UnknownAnchor(_) => ApiError::bad("anchor", error.to_string()),
        RatingError::BadPrior(_) => ApiError::bad("prior_draws", error.to_string()),
        RatingError::BadAnchorRating(_) => ApiError::bad("anchor_rating", error.to_string()),
        RatingError::Overflow { .. } | RatingError::NotConverged => {
            ApiError::Unrated(error.to_string())
        }
    })
}

/// Matches grouped by tournament: newest tournament first, each one's matches oldest first.
fn tournaments(records: &[MatchRecord]) -> Vec<Vec<&MatchRecord>> {
    let mut members: Vec<&MatchRecord> = records.iter().filter(|m| m.tournament_id != 0).collect();
    members.sort_by_key(|m| (std::cmp::Reverse(m.tournament_id), m.id));
    let mut groups: Vec<Vec<&MatchRecord>> = Vec::new();
    for m in members {
        match groups.last_mut() {
            Some(group) if group[0].tournament_id == m.tournament_id => group.push(m),
            _ => groups.push(vec![m]),
        }
    }
    groups
}

fn summary(matches: &[&MatchRecord]) -> TournamentSummary {
    let mut players: Vec<String> = Vec::new();
    for m in matches {
        for name in [&m.a, &m.b] {
            if !players.contains(name) {
                players.push(name.clone());
            }
        }
    }
    TournamentSummary {
        id: matches[0].tournament_id,
        kind: matches[0].tournament_kind.clone(),
        players,
        match_count: matches.len(),
        pairs: matches.iter().map(|m| m.pairs).fold(0, u64::saturating_add),
        pairs_done: matches
            .iter()
            .map(|m| m.score.pairs.pairs())
            .fold(0, u64::saturating_add),
        finished: matches.iter().all(|m| m.state != MatchState::Running),
    }
}

/// `GET /api/v1/ratings`: every stored match, or with `tournament` one tournament's.
pub async fn list(
    State(state): State<AppState>,
    params: Params,
) -> Result<Json<RatingList>, ApiError> {
    let options = options(&params)?;
    let tournament = params.number("tournament", 1..=u64::MAX, None)?;
    let mut records = state.source.matches().await?;
    // Oldest first: the default anchor is the first player ever matched.
    records.reverse();
    let chosen: Vec<&MatchRecord> = records
        .iter()
        .filter(|m| tournament.is_none_or(|id| m.tournament_id == id))
        .collect();
    if let (Some(id), true) = (tournament, chosen.is_empty()) {
        return Err(ApiError::NotFound(format!("no tournament {id}")));
    }
    Ok(Json(rate(&chosen, &options)?))
}

/// `GET /api/v1/tournaments`.
pub async fn tournament_list(
    State(state): State<AppState>,
) -> Result<Json<TournamentList>, ApiError> {
    let records = state.source.matches().await?;
    let tournaments = tournaments(&records)
        .iter()
        .map(|group| summary(group))
        .collect();
    Ok(Json(TournamentList { tournaments }))
}

/// `GET /api/v1/tournaments/{id}`.
pub async fn tournament(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Params,
) -> Result<Json<TournamentDetail>, ApiError> {
    let id: u64 = id
        .parse()
        .ok()
        .filter(|id| *id != 0)
        .ok_or_else(|| ApiError::bad("id", format!("{id:?} is not a tournament id")))?;
    let options = options(&params)?;
    let records = state.source.matches().await?;
    let group = tournaments(&records)
        .into_iter()
        .find(|group| group[0].tournament_id == id)
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
    Ok(Json(TournamentDetail {
        summary: summary(&group),
        matches: group.iter().map(|m| MatchSummary::of(m)).collect(),
        ratings: rate(&group, &options)?,
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use pentago::MatchScore;

    use super::*;

    fn record(id: u64, tournament_id: u64, a: &str, b: &str, wins: u64) -> MatchRecord {
        MatchRecord {
            id,
            a: a.into(),
            b: b.into(),
            pairs: 2,
            sprt: None,
            openings: String::new(),
            seed: 0,
            pairs_done: 0,
            decision: pentagrid_rating::SprtDecision::Continue,
            games: Vec::new(),
            state: MatchState::Complete,
            decided_after: 0,
            score: MatchScore::from_counts(wins, 0, 4 - wins, &[]),
            pair_points: Vec::new(),
            time_limit: String::new(),
            suite_openings: 0,
            adjudicate: String::new(),
            waiting: None,
            weight: 1,
            pairs_leased: 0,
            owner: String::new(),
            forfeits: Vec::new(),
            accuracy: None,
            tournament_id,
            tournament_kind: if tournament_id == 0 {
                String::new()
            } else {
                "gauntlet".into()
            },
        }
    }

    fn params(pairs: &[(&str, &str)]) -> Params {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Params(map)
    }

    #[test]
    fn matches_group_into_tournaments_with_their_players() {
        let records = vec![
            record(6, 4, "x", "z", 1),
            record(5, 0, "x", "y", 2),
            record(4, 4, "x", "y", 3),
            record(2, 1, "p", "q", 4),
        ];
        let groups = tournaments(&records);
        let ids: Vec<Vec<u64>> = groups
            .iter()
            .map(|g| g.iter().map(|m| m.id).collect())
            .collect();
        assert_eq!(ids, [vec![4, 6], vec![2]]);
        let first = summary(&groups[0]);
        assert_eq!((first.id, first.kind.as_str()), (4, "gauntlet"));
        assert_eq!(first.players, ["x", "y", "z"]);
        assert_eq!(
            (first.match_count, first.pairs, first.pairs_done),
            (2, 4, 0)
        );
        assert!(first.finished);
        let list = rate(&groups[0], &RatingOptions::default()).unwrap();
        assert_eq!(list.anchor, "x");
        assert!(matches!(
            rate(&[], &RatingOptions::default()),
            Err(ApiError::NotFound(_))
        ));
        let bad_anchor = RatingOptions {
            anchor: Some("w".into()),
            ..RatingOptions::default()
        };
        assert!(matches!(
            rate(&groups[0], &bad_anchor),
            Err(ApiError::BadParameter { name: "anchor", .. })
        ));
    }

    #[test]
    fn rating_options_read_from_the_query() {
        let read = options(&params(&[
            ("anchor", "uct"),
            ("anchor_rating", "-1500"),
            ("prior_draws", "2.5"),
        ]))
        .unwrap();
        assert_eq!(read.anchor.as_deref(), Some("uct"));
        assert_eq!((read.anchor_rating, read.prior_draws), (-1500.0, 2.5));
        assert_eq!(options(&params(&[])).unwrap(), RatingOptions::default());
        for (name, bad) in [
            ("anchor_rating", "x"),
            ("anchor_rating", "NaN"),
            ("anchor_rating", "2e6"),
            ("prior_draws", "0"),
            ("prior_draws", "-1"),
            ("prior_draws", "1001"),
            ("prior_draws", "inf"),
        ] {
            assert!(
                matches!(options(&params(&[(name, bad)])), Err(ApiError::BadParameter { name: n, .. }) if n == name),
                "{name}={bad}"
            );
        }
    }
}
