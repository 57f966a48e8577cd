//! Tournaments and rating lists from a client. A tournament is queued as one cluster match per
//! pairing, every match with the same openings (the same seed), each carrying the tournament's
//! id: the id of its first match. It needs no record of its own, so it is stored and resumes
//! after a coordinator restart exactly as its matches do. Rating lists are fitted here, from
//! the stored matches' counts.

use std::collections::HashMap;

use pentago::{Adjudication, NamedPlayer, OpeningSource, Record, TimeLimit, TournamentKind};
use pentagrid_proto::{Client, v2};
use pentagrid_rating::{Encounter, RatingList, RatingOptions, rating_list};

use crate::error::{ClientError, ProgressResult, Result};
use crate::game_records::NewGames;
use crate::jobs::poll;
use crate::matches::{MatchPlan, MatchRecord, MatchState, create_request, list};
use crate::suites::suite_positions;

/// A tournament to queue.
#[derive(Clone, Debug)]
pub struct TournamentPlan {
    /// Round robin or gauntlet.
    pub kind: TournamentKind,
    /// The players; a gauntlet's first is the one that meets all others.
    pub players: Vec<NamedPlayer>,
    /// Game pairs per match.
    pub pairs: u64,
    /// Where openings come from.
    pub openings: OpeningSource,
    /// Seed of the openings, the same in every match.
    pub seed: u64,
    /// Every game's wall-clock time limit; required with external engines.
    pub time: Option<TimeLimit>,
    /// End each game as soon as its position's exact value is known.
    pub adjudicate: Option<Adjudication>,
}

/// A stored tournament: its matches, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    /// The tournament id (its first match's id).
    pub id: u64,
    /// Its kind, as stored.
    pub kind: String,
    /// Its matches, in the order they were queued.
    pub matches: Vec<MatchRecord>,
}

impl Tournament {
    /// The players in the order they first appear in the matches.
    #[must_use]
    pub fn players(&self) -> Vec<String> {
        let mut players: Vec<String> = Vec::new();
        for m in &self.matches {
            for name in [&m.a, &m.b] {
                if !players.contains(name) {
                    players.push(name.clone());
                }
            }
        }
        players
    }

    /// Pairs stored and pairs asked for, over all matches.
    #[must_use]
    pub fn progress(&self) -> (u64, u64) {
        self.matches.iter().fold((0, 0), |(done, all), m| {
            (
                done.saturating_add(m.pairs_done),
                all.saturating_add(m.pairs),
            )
        })
    }

    /// Whether every match has ended (complete, decided or stopped).
    #[must_use]
    pub fn finished(&self) -> bool {
        self.matches.iter().all(|m| m.state != MatchState::Running)
    }

    /// The rating list of the tournament's games, anchored at its first player unless
    /// `options` names another.
    ///
    /// # Errors
    ///
    /// The list cannot be fitted (see [`pentagrid_rating::RatingError`]).
    pub fn ratings(&self, options: &RatingOptions) -> Result<RatingList> {
        Ok(rating_list(&encounters(&self.matches), options)?)
    }
}

/// Each match's results as an encounter between its players.
#[must_use]
pub fn encounters(matches: &[MatchRecord]) -> Vec<Encounter> {
    matches
        .iter()
        .map(|m| Encounter {
            a: m.a.clone(),
            b: m.b.clone(),
            score: m.score.games,
        })
        .collect()
}

/// Queues a tournament: one match per pairing. Returns its id.
///
/// # Errors
///
/// A bad player list or pair count, or a refused match. Matches queued before a refusal stay
/// queued: the tournament then has fewer matches than its kind asks for, and says so by its
/// players and matches.
pub async fn start(client: &Client, plan: &TournamentPlan) -> Result<u64> {
    let pairings = plan
        .kind
        .pairings(&plan.players)
        .map_err(|e| ClientError::Invalid(e.to_string()))?;
    // Read once, before anything is sent: a bad file queues no match.
    let suite = suite_positions(&plan.openings)?;
    let mut tournament_id = 0;
    for (a, b) in pairings {
        let match_plan = MatchPlan {
            a: plan.players[a].clone(),
            b: plan.players[b].clone(),
            pairs: plan.pairs,
            sprt: None,
            openings: plan.openings.clone(),
            seed: plan.seed,
            accuracy: None,
            time: plan.time,
            weight: 1,
            adjudicate: plan.adjudicate,
        };
        match_plan.validate()?;
        let request = v2::CreateMatchRequest {
            tournament_kind: plan.kind.to_string(),
            tournament_id,
            ..create_request(&match_plan, &suite)
        };
        let match_id = client
            .clone()
            .create_match(request)
            .await?
            .into_inner()
            .match_id;
        if tournament_id == 0 {
            tournament_id = match_id;
        }
    }
    Ok(tournament_id)
}

/// Every stored tournament, newest first.
///
/// # Errors
///
/// The coordinator could not be asked.
pub async fn all(client: &Client) -> Result<Vec<Tournament>> {
    Ok(group(list(client).await?))
}

/// Groups matches (in any order) into tournaments, newest tournament first, each one's matches
/// oldest first; matches in no tournament are left out.
#[must_use]
pub fn group(mut matches: Vec<MatchRecord>) -> Vec<Tournament> {
    matches.retain(|m| m.tournament_id != 0);
    matches.sort_by_key(|m| (std::cmp::Reverse(m.tournament_id), m.id));
    let mut tournaments: Vec<Tournament> = Vec::new();
    for m in matches {
        match tournaments.last_mut() {
            Some(t) if t.id == m.tournament_id => t.matches.push(m),
            _ => tournaments.push(Tournament {
                id: m.tournament_id,
                kind: m.tournament_kind.clone(),
                matches: vec![m],
            }),
        }
    }
    tournaments
}

/// One stored tournament.
///
/// # Errors
///
/// [`ClientError::NoTournament`] when no match belongs to it, or the coordinator could not be
/// asked.
pub async fn status(client: &Client, id: u64) -> Result<Tournament> {
    all(client)
        .await?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or(ClientError::NoTournament(id))
}

/// Follows a tournament until all its matches end, telling `progress` (pairs stored, pairs
/// asked for) each time more pairs are stored.
///
/// # Errors
///
/// The tournament does not exist, the coordinator could not be asked, or `progress` failed.
pub async fn follow(
    client: &Client,
    id: u64,
    progress: &mut dyn FnMut((u64, u64)) -> ProgressResult,
) -> Result<Tournament> {
    follow_inner(client, id, progress, None).await
}

/// Where [`follow_with_games`] hands the games of newly stored pairs, and their date.
type GameSink<'a> = (&'a str, &'a mut dyn FnMut(&[Record]) -> ProgressResult);

/// [`follow`], handing `games` the records of each newly stored pair of every match (each
/// pair once), dated `date`; a failure of `games` stops following at once.
///
/// # Errors
///
/// As [`follow`], or `games` failed.
pub async fn follow_with_games(
    client: &Client,
    id: u64,
    progress: &mut dyn FnMut((u64, u64)) -> ProgressResult,
    date: &str,
    games: &mut dyn FnMut(&[Record]) -> ProgressResult,
) -> Result<Tournament> {
    follow_inner(client, id, progress, Some((date, games))).await
}

async fn follow_inner(
    client: &Client,
    id: u64,
    progress: &mut dyn FnMut((u64, u64)) -> ProgressResult,
    mut games: Option<GameSink<'_>>,
) -> Result<Tournament> {
    let failed = |source| ClientError::Stopped {
        context: "writing the tournament's progress".into(),
        source,
    };
    let mut shown = None;
    let mut written: HashMap<u64, u64> = HashMap::new();
    let mut new_games = NewGames::default();
    let tournament = poll(async || {
        let tournament = status(client, id).await?;
        let now = tournament.progress();
        if shown != Some(now) {
            shown = Some(now);
            progress(now).map_err(failed)?;
        }
        if let Some((date, sink)) = &mut games {
            for m in &tournament.matches {
                if written.insert(m.id, m.pairs_done) != Some(m.pairs_done) {
                    let records = new_games.poll(client, m.id, date).await?;
                    sink(&records).map_err(failed)?;
                }
            }
        }
        Ok(tournament.finished().then_some(tournament))
    })
    .await?;
    if let Some((date, sink)) = &mut games {
        // Pairs stored between the last look and the end.
        for m in &tournament.matches {
            let records = new_games.poll(client, m.id, date).await?;
            sink(&records).map_err(failed)?;
        }
    }
    Ok(tournament)
}

/// The rating list of every stored match between `players` (all stored matches when empty).
///
/// # Errors
///
/// No such games, a bad option (see [`pentagrid_rating::RatingError`]), or the coordinator could not
/// be asked.
pub async fn ratings(
    client: &Client,
    players: &[String],
    options: &RatingOptions,
) -> Result<RatingList> {
    let mut matches = list(client).await?;
    // Oldest first, so that the default anchor is the first player ever matched.
    matches.reverse();
    if !players.is_empty() {
        matches.retain(|m| players.contains(&m.a) && players.contains(&m.b));
    }
    Ok(rating_list(&encounters(&matches), options)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(id: u64, tournament_id: u64, a: &str, b: &str) -> MatchRecord {
        crate::matches::match_record(v2::MatchStatusResponse {
            match_id: id,
            a: a.into(),
            b: b.into(),
            pairs: 4,
            pairs_done: 2,
            wins: 3,
            draws: 1,
            tournament_id,
            tournament_kind: if tournament_id == 0 {
                String::new()
            } else {
                "round-robin".into()
            },
            state: v2::MatchState::Running as i32,
            ..v2::MatchStatusResponse::default()
        })
        .unwrap()
    }

    #[test]
    fn matches_group_into_tournaments_newest_first() {
        let matches = vec![
            stored(9, 7, "y", "z"),
            stored(8, 7, "x", "z"),
            stored(7, 7, "x", "y"),
            stored(5, 0, "x", "y"),
            stored(4, 3, "p", "q"),
        ];
        let tournaments = group(matches);
        let ids: Vec<(u64, Vec<u64>)> = tournaments
            .iter()
            .map(|t| (t.id, t.matches.iter().map(|m| m.id).collect()))
            .collect();
        assert_eq!(ids, [(7, vec![7, 8, 9]), (3, vec![4])]);
        let first = &tournaments[0];
        assert_eq!(first.players(), ["x", "y", "z"]);
        assert_eq!(first.progress(), (6, 12));
        assert!(!first.finished());
        assert_eq!(first.kind, "round-robin");
        let list = first.ratings(&RatingOptions::default()).unwrap();
        assert_eq!(list.anchor, "x");
        assert_eq!(list.players.len(), 3);
    }

    #[test]
    fn encounters_carry_each_match_score() {
        let e = encounters(&[stored(1, 0, "a", "b")]);
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].a.as_str(), e[0].b.as_str()), ("a", "b"));
        assert_eq!(
            (e[0].score.wins, e[0].score.draws, e[0].score.losses),
            (3, 1, 0)
        );
    }
}
