//! Engine matches on the cluster: a match becomes one job per game pair; each pair result
//! updates the match's counts in the same transaction that stores it, and once the SPRT
//! decides, the match's unplayed pairs are cancelled.

use pentago::{
    MatchScore, OpeningSource, Player, Position, Sprt, SprtDecision, opening_seed, random_opening,
    splitmix64,
};
use pentagrid_proto::{Task, v1};
use tonic::Status;

use crate::coordinator::{Coordinator, internal};
use crate::scheduler::Scheduler;
use crate::store::{Store, StoreError, StoredMatch};

/// Most pairs one match may ask for.
pub const MAX_MATCH_PAIRS: u64 = 100_000;

impl StoredMatch {
    /// A's results so far.
    #[must_use]
    pub fn score(&self) -> MatchScore {
        MatchScore::from_counts(self.wins, self.draws, self.losses, &self.pentanomial)
    }

    /// The match's SPRT, if it has one (and it reads back).
    #[must_use]
    pub fn sprt(&self) -> Option<Sprt> {
        self.sprt.parse().ok()
    }

    /// Counts one pair with A's points in each game, and records the SPRT's decision the
    /// first time it decides.
    pub fn add_pair(&mut self, game_points: [f64; 2]) {
        let mut score = self.score();
        score.add_pair(game_points);
        self.wins = score.games.wins;
        self.draws = score.games.draws;
        self.losses = score.games.losses;
        self.pentanomial = score.pairs.counts.to_vec();
        self.pairs_done += 1;
        if self.decided_after == 0
            && let Some(sprt) = self.sprt()
        {
            let (_, decision) = score.test(&sprt);
            if decision != SprtDecision::Continue {
                self.decided_after = self.pairs_done;
                self.accepted_h1 = decision == SprtDecision::AcceptH1;
            }
        }
    }
}

/// Whether a task is a pair of match `match_id`.
fn is_pair_of(task: &Task, match_id: u64) -> bool {
    matches!(task, Task::Pair { match_id: m, .. } if *m == match_id)
}

/// Cancels the queued pairs of matches whose SPRT has decided (at start-up: a stop right after
/// the deciding pair may have left some).
pub(crate) fn cancel_decided_pairs(
    store: &Store,
    scheduler: &mut Scheduler,
) -> Result<(), StoreError> {
    let mut match_ids: Vec<u64> = scheduler
        .active_where(|task| matches!(task, Task::Pair { .. }))
        .into_iter()
        .filter_map(|job| match scheduler.task(job) {
            Some(Task::Pair { match_id, .. }) => Some(*match_id),
            _ => None,
        })
        .collect();
    match_ids.sort_unstable();
    match_ids.dedup();
    for match_id in match_ids {
        if store
            .match_record(match_id)?
            .is_some_and(|m| m.decided_after > 0)
        {
            let pending = scheduler.active_where(|task| is_pair_of(task, match_id));
            for (job_id, record) in scheduler.cancel(&pending) {
                store.put_job(job_id, &record)?;
            }
        }
    }
    Ok(())
}

fn parse<T: std::str::FromStr>(what: &str, text: &str) -> Result<T, Status>
where
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|e| Status::invalid_argument(format!("bad {what} {text:?}: {e}")))
}

impl Coordinator {
    /// Creates a match and queues its pairs; answers once they are durable.
    pub async fn create_match(
        &self,
        request: &v1::CreateMatchRequest,
    ) -> Result<v1::CreateMatchResponse, Status> {
        let a: Player = parse("player A", &request.a)?;
        let b: Player = parse("player B", &request.b)?;
        if !(1..=MAX_MATCH_PAIRS).contains(&request.pairs) {
            return Err(Status::invalid_argument(format!(
                "pairs must be from 1 to {MAX_MATCH_PAIRS}, not {}",
                request.pairs
            )));
        }
        let sprt: Option<Sprt> = match request.sprt.as_str() {
            "" => None,
            text => Some(parse("SPRT", text)?),
        };
        let openings: OpeningSource = match request.openings.as_str() {
            "" => OpeningSource::default(),
            text => parse("opening source", text)?,
        };
        let match_id = self.store.generate_id().map_err(internal)?;
        let mut tasks = Vec::with_capacity(request.pairs as usize);
        for pair in 0..request.pairs {
            let seed = opening_seed(request.seed, pair);
            let opening = match openings {
                OpeningSource::Random { plies } => random_opening(seed, plies),
                OpeningSource::Book { plies } => {
                    self.book_opening(seed, plies).map_err(internal)?
                }
            };
            tasks.push(Task::Pair {
                match_id,
                pair,
                opening,
                a: a.clone(),
                b: b.clone(),
            });
        }
        let record = StoredMatch {
            a: a.to_string(),
            b: b.to_string(),
            pairs: request.pairs,
            sprt: sprt.map(|s| s.to_string()).unwrap_or_default(),
            openings: openings.to_string(),
            seed: request.seed,
            pentanomial: vec![0; 5],
            ..StoredMatch::default()
        };
        self.store.put_match(match_id, &record).map_err(internal)?;
        self.queue_tasks(tasks).await?;
        tracing::info!(match_id, a = %record.a, b = %record.b, pairs = record.pairs, "match created");
        Ok(v1::CreateMatchResponse { match_id })
    }

    /// An opening drawn from the stored tables: from the start, each move drawn in proportion
    /// to its games (playout tables first, then game tables), random where the book ends.
    /// Moves into finished games or into an immediate win for the opponent are skipped.
    fn book_opening(&self, seed: u64, plies: u32) -> Result<Position, StoreError> {
        let mut position = Position::START;
        for ply in 0..plies {
            let canonical = position.canonical();
            let key = canonical.position.key().bits();
            let mut table = self.store.playout_table(key)?;
            if table.is_empty() {
                table = self.store.game_table(key)?;
            }
            let back = canonical.symmetry.inverse();
            let fair = |child: &Position| !child.is_over() && !child.has_immediate_win();
            let choices: Vec<(Position, u64)> = table
                .iter()
                .filter_map(|(mv, counts)| {
                    let child = position.play(back.apply_move(*mv)).ok()?;
                    fair(&child).then_some((child, counts.games))
                })
                .filter(|(_, games)| *games > 0)
                .collect();
            let total: u64 = choices.iter().map(|(_, games)| games).sum();
            let draw = splitmix64(seed ^ u64::from(ply));
            position = if total == 0 {
                // Past the book: a uniformly drawn fair move, as random openings do.
                let fair_children: Vec<Position> = position
                    .legal_moves()
                    .iter()
                    .map(|&mv| position.play_unchecked(mv))
                    .filter(fair)
                    .collect();
                if fair_children.is_empty() {
                    break;
                }
                fair_children[(draw % fair_children.len() as u64) as usize]
            } else {
                let mut target = draw % total;
                let mut chosen = choices[0].0;
                for (child, games) in &choices {
                    if target < *games {
                        chosen = *child;
                        break;
                    }
                    target -= games;
                }
                chosen
            };
        }
        Ok(position)
    }

    /// Where a match stands, with its games if asked.
    pub fn match_status(
        &self,
        request: &v1::MatchStatusRequest,
    ) -> Result<v1::MatchReport, Status> {
        let record = self
            .store
            .match_record(request.match_id)
            .map_err(internal)?
            .ok_or_else(|| Status::not_found(format!("no match {}", request.match_id)))?;
        let pending = self.pending_pairs(request.match_id).len() as u64;
        let state = if record.decided_after > 0 {
            if record.accepted_h1 { "h1" } else { "h0" }
        } else if record.pairs_done == record.pairs {
            "complete"
        } else if pending > 0 {
            "running"
        } else {
            "stopped"
        };
        let mut games = Vec::new();
        if request.include_games {
            for (pair, stored) in self.store.match_pairs(request.match_id).map_err(internal)? {
                games.extend(stored.games.into_iter().map(|game| v1::MatchGame {
                    pair,
                    opening: game.start,
                    black: game.black,
                    white: game.white,
                    moves: game.moves,
                    result: game.result,
                }));
            }
        }
        Ok(v1::MatchReport {
            match_id: request.match_id,
            a: record.a,
            b: record.b,
            pairs: record.pairs,
            sprt: record.sprt,
            openings: record.openings,
            seed: record.seed,
            pairs_done: record.pairs_done,
            wins: record.wins,
            draws: record.draws,
            losses: record.losses,
            pentanomial: record.pentanomial,
            state: state.to_owned(),
            decided_after: record.decided_after,
            games,
        })
    }

    /// Jobs of a match's pairs still queued or leased.
    fn pending_pairs(&self, match_id: u64) -> Vec<u64> {
        self.scheduler()
            .active_where(|task| is_pair_of(task, match_id))
    }

    /// Cancels the unplayed pairs of a match whose SPRT has decided.
    pub(crate) async fn stop_decided_match(&self, match_id: u64) -> Result<(), Status> {
        let decided = self
            .store
            .match_record(match_id)
            .map_err(internal)?
            .is_some_and(|record| record.decided_after > 0);
        if decided {
            let pending = self.pending_pairs(match_id);
            if !pending.is_empty() {
                tracing::info!(
                    match_id,
                    cancelled = pending.len(),
                    "SPRT decided; stopping the match"
                );
                self.cancel_jobs(&v1::CancelJobsRequest { job_ids: pending })
                    .await?;
            }
        }
        Ok(())
    }
}
