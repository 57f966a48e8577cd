//! Domain answers as wire messages, and the wire forms of book rows read back into domain rows.

use pentago::{Move, Position};
use pentagrid_proto::{
    accuracy_to_wire, pentanomial_of_counts, source_to_wire, sprt_decision_to_wire, v2,
    value_of_wire, value_to_wire,
};
use tonic::Status;

use super::errors::invalid;
use crate::book::{BookRow, BookView, ExportRow, TableSource};
use crate::builder::BuildReport;
use crate::coordinator::ClusterStatus;
use crate::flags::QUARANTINE_FLAGS;
use crate::game::Game;
use crate::job::JobState;
use crate::jobs::registry::WorkerCursor;
use crate::jobs::{CancelOutcome, JobsUpdate, LeasedJob};
use crate::matches::{MatchReport, MatchState, MatchWait};
use crate::puzzles::PuzzleListing;
use crate::store::Counts;

pub(crate) fn job(job: LeasedJob) -> v2::Job {
    v2::Job {
        job_id: job.job_id,
        lease_id: job.lease_id,
        attempt: job.attempt,
        seed: job.seed,
        spec: Some(v2::JobSpec::from(&job.task)),
    }
}

/// Separates name and id in a worker cursor: neither may hold a control character.
const CURSOR_SEPARATOR: char = '\u{0}';

/// The worker cursor a status request carries (`None` when empty).
pub(crate) fn worker_cursor(text: &str) -> Result<Option<WorkerCursor>, Status> {
    if text.is_empty() {
        return Ok(None);
    }
    match text.split_once(CURSOR_SEPARATOR) {
        Some((name, id)) => Ok(Some((name.to_owned(), id.to_owned()))),
        None => Err(invalid(format!(
            "bad workers_after {}: pass a status answer's next_workers_after",
            super::quote::bounded(text, super::quote::QUOTED_BYTES)
        ))),
    }
}

pub(crate) fn status(status: ClusterStatus) -> v2::StatusResponse {
    let ClusterStatus {
        jobs,
        totals,
        flagged,
        solitaire,
    } = status;
    v2::StatusResponse {
        queued: jobs.queued,
        leased: jobs.leased,
        done: jobs.done,
        failed: jobs.failed,
        cancelled: jobs.cancelled,
        workers: jobs
            .workers
            .into_iter()
            .map(|w| v2::WorkerStatus {
                worker_id: w.id,
                name: w.name,
                threads: w.threads,
                leases: w.leases,
                results: w.results,
                seconds_since_seen: w.since_seen.as_secs_f64(),
                flags: w.flags,
                quarantined: w.flags >= QUARANTINE_FLAGS,
                engines: w
                    .engines
                    .into_iter()
                    .map(|(name, version)| v2::EngineInfo { name, version })
                    .collect(),
            })
            .collect(),
        playout_positions: totals.playout_positions,
        game_positions: totals.game_positions,
        games: totals.games,
        playouts: totals.kept_playouts(),
        quarantined: jobs.quarantined,
        worker_count: jobs.worker_count,
        next_workers_after: jobs
            .next_workers
            .map(|(name, id)| format!("{name}{CURSOR_SEPARATOR}{id}"))
            .unwrap_or_default(),
        flagged_workers: flagged
            .into_iter()
            .map(|w| v2::FlaggedWorker {
                worker_id: w.id,
                flags: w.flags,
                quarantined: w.quarantined,
                last_reason: w.last_reason,
                purged_results: w.purged_results,
                purged_values: w.purged_values,
                purged_analysis_positions: w.purged_positions,
                purged_playouts: w.purged_playouts,
                purged_game_positions: w.purged_game_positions,
                purged_games: w.purged_games,
                purged_pairs: w.purged_pairs,
            })
            .collect(),
        solitaire: solitaire
            .into_iter()
            .map(|(variant, player, t)| v2::SolitaireTotals {
                variant: variant.to_string(),
                player,
                deals: t.deals,
                wins: t.wins,
                cards: t.cards,
                cards_squared: t.cards_squared,
            })
            .collect(),
    }
}

/// What a cancellation did, per id, with the count of jobs it cancelled.
pub(crate) fn cancel_jobs_response(outcomes: &[CancelOutcome]) -> v2::CancelJobsResponse {
    let wire = |outcome: &CancelOutcome| match outcome {
        CancelOutcome::Cancelled => v2::CancelOutcome::Cancelled,
        CancelOutcome::NotFound => v2::CancelOutcome::NotFound,
        CancelOutcome::AlreadyFinished(JobState::Done) => v2::CancelOutcome::AlreadyDone,
        CancelOutcome::AlreadyFinished(JobState::Failed) => v2::CancelOutcome::AlreadyFailed,
        CancelOutcome::AlreadyFinished(JobState::Cancelled) => v2::CancelOutcome::AlreadyCancelled,
        // `cancel_each` cancels every unfinished job it finds.
        CancelOutcome::AlreadyFinished(JobState::Queued | JobState::Leased) => {
            v2::CancelOutcome::Unspecified
        }
    };
    let cancelled = outcomes
        .iter()
        .filter(|o| **o == CancelOutcome::Cancelled)
        .count();
    v2::CancelJobsResponse {
        cancelled: u32::try_from(cancelled).unwrap_or(u32::MAX),
        outcomes: outcomes.iter().map(|o| wire(o) as i32).collect(),
    }
}

pub(crate) fn jobs_update(update: JobsUpdate) -> v2::JobsUpdate {
    let finished_state = |state: JobState| match state {
        JobState::Done => v2::FinishedState::Done,
        JobState::Failed => v2::FinishedState::Failed,
        JobState::Cancelled => v2::FinishedState::Cancelled,
        JobState::Queued | JobState::Leased => v2::FinishedState::Unspecified,
    };
    v2::JobsUpdate {
        total: update.total,
        queued: update.queued,
        leased: update.leased,
        done: update.done,
        failed: update.failed,
        cancelled: update.cancelled,
        finished: update
            .finished
            .into_iter()
            .map(|job| v2::FinishedJob {
                job_id: job.job_id,
                state: finished_state(job.state) as i32,
                error: job.error,
            })
            .collect(),
        playouts: update.playouts,
        games: update.games,
    }
}

fn book_row(row: BookRow) -> v2::BookRow {
    v2::BookRow {
        r#move: row.mv.to_string(),
        also: row.also.iter().map(ToString::to_string).collect(),
        games: row.counts.games,
        wins: row.counts.wins,
        draws: row.counts.draws,
        proven: value_to_wire(row.proven) as i32,
        proven_by: source_to_wire(row.proven_by) as i32,
    }
}

pub(crate) fn book_view(view: BookView) -> v2::BookShowResponse {
    v2::BookShowResponse {
        position: view.position.to_string(),
        canonical: view.canonical.to_string(),
        playouts: view.playouts.into_iter().map(book_row).collect(),
        games: view.games.into_iter().map(book_row).collect(),
        proven: value_to_wire(view.proven) as i32,
        proven_line: view.proven_line.iter().map(ToString::to_string).collect(),
        proven_by: source_to_wire(view.proven_by) as i32,
    }
}

pub(crate) fn export_row(row: &ExportRow) -> v2::BookExportRow {
    v2::BookExportRow {
        position: row.position.to_string(),
        r#move: row.mv.to_string(),
        source: match row.source {
            TableSource::Playouts => v2::TableSource::Playouts,
            TableSource::Games => v2::TableSource::Games,
        } as i32,
        games: row.counts.games,
        wins: row.counts.wins,
        draws: row.counts.draws,
        proven: value_to_wire(row.proven) as i32,
        proven_by: source_to_wire(row.proven_by) as i32,
    }
}

/// The book an import call belongs to, if its request names one: a digest of 32 bytes, and
/// its part below its parts.
pub(crate) fn import_mark(
    request: &v2::BookImportRequest,
) -> Result<Option<crate::store::ImportMark>, Status> {
    if request.book_digest.is_empty() {
        return Ok(None);
    }
    let digest: [u8; 32] = request.book_digest.as_slice().try_into().map_err(|_| {
        invalid(format!(
            "book_digest: a SHA-256 digest has 32 bytes, not {}",
            request.book_digest.len()
        ))
    })?;
    if request.part >= request.parts {
        return Err(invalid(format!(
            "part {} of {} parts: parts are counted from 0, below parts",
            request.part, request.parts
        )));
    }
    Ok(Some(crate::store::ImportMark {
        digest,
        part: request.part,
        parts: request.parts,
        again: request.again,
    }))
}

/// Imported rows in domain form; errors name the row (counted from 1).
pub(crate) fn import_rows(rows: &[v2::BookExportRow]) -> Result<Vec<ExportRow>, Status> {
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let bad = |why: String| invalid(format!("row {}: {why}", index + 1));
            let position: Position = row.position.parse().map_err(|e| bad(format!("{e}")))?;
            let mv: Move = row.r#move.parse().map_err(|e| bad(format!("{e}")))?;
            let source = match v2::TableSource::try_from(row.source) {
                Ok(v2::TableSource::Playouts) => TableSource::Playouts,
                Ok(v2::TableSource::Games) => TableSource::Games,
                _ => return Err(bad(format!("unknown source {}", row.source))),
            };
            Ok(ExportRow {
                position,
                mv,
                source,
                counts: Counts {
                    games: row.games,
                    wins: row.wins,
                    draws: row.draws,
                },
                proven: value_of_wire(row.proven).map_err(|e| bad(e.0))?,
                // Whatever the row names, the importer stores its value as imported.
                proven_by: None,
            })
        })
        .collect()
}

pub(crate) fn game(job_id: u64, game: Game) -> v2::GameRecord {
    v2::GameRecord {
        job_id,
        start: game.start,
        moves: game.moves,
        result: game.result,
        black: game.black,
        white: game.white,
    }
}

/// The match states, domain and wire, one table for both directions.
const MATCH_STATES: [(MatchState, v2::MatchState); 5] = [
    (MatchState::Running, v2::MatchState::Running),
    (MatchState::AcceptedH0, v2::MatchState::AcceptedH0),
    (MatchState::AcceptedH1, v2::MatchState::AcceptedH1),
    (MatchState::Complete, v2::MatchState::Complete),
    (MatchState::Stopped, v2::MatchState::Stopped),
];

fn match_state_to_wire(state: MatchState) -> v2::MatchState {
    MATCH_STATES
        .iter()
        .find(|(domain, _)| *domain == state)
        .map_or(v2::MatchState::Unspecified, |(_, wire)| *wire)
}

/// A match state from its wire number; `None` for UNSPECIFIED or a number this version does
/// not know.
pub(crate) fn match_state_of_wire(number: i32) -> Option<MatchState> {
    let wire = v2::MatchState::try_from(number).ok()?;
    MATCH_STATES
        .iter()
        .find(|(_, w)| *w == wire)
        .map(|(domain, _)| *domain)
}

pub(crate) fn match_report(report: MatchReport) -> v2::MatchStatusResponse {
    let MatchReport {
        id,
        record,
        state,
        games,
        next_from_pair,
        waiting,
        pairs_leased,
    } = report;
    let decision = record.decision;
    let score = record.score;
    let accuracy = record.accuracy.as_ref().map(accuracy_to_wire);
    v2::MatchStatusResponse {
        match_id: id,
        a: record.a,
        b: record.b,
        pairs: record.pairs,
        sprt: record.sprt,
        openings: record.openings,
        suite_openings: record.opening_positions.len() as u32,
        adjudicate: record.adjudicate,
        seed: record.seed,
        pairs_done: record.pairs_done,
        wins: score.games.wins,
        draws: score.games.draws,
        losses: score.games.losses,
        pentanomial: Some(pentanomial_of_counts(score.pairs.counts)),
        state: match_state_to_wire(state) as i32,
        weight: record.weight,
        pairs_leased,
        decided_after: record.decided_after,
        tournament_id: record.tournament,
        tournament_kind: record.tournament_kind,
        time_limit: record.time_limit,
        waiting: waiting.map(|MatchWait::NoWorkerHasEngines(engines)| v2::MatchWait {
            reason: v2::MatchWaitReason::NoWorkerHasEngines as i32,
            engines,
        }),
        games: games
            .into_iter()
            .map(|(pair, game)| v2::MatchGame {
                pair,
                opening: game.start,
                black: game.black,
                white: game.white,
                moves: game.moves,
                result: game.result,
                forfeit: game.forfeit.as_ref().map(pentagrid_proto::forfeit_to_wire),
                stderr_black: game.stderr_black,
                stderr_white: game.stderr_white,
                adjudicated: game
                    .adjudicated
                    .map(|source| source.name().to_owned())
                    .unwrap_or_default(),
                time_scale: game.time_scale.get(),
            })
            .collect(),
        decision: sprt_decision_to_wire(decision) as i32,
        next_games_from_pair: next_from_pair,
        accuracy,
    }
}

pub(crate) fn build_report(report: BuildReport) -> v2::BuildStatusResponse {
    let BuildReport {
        id,
        record,
        pending,
    } = report;
    v2::BuildStatusResponse {
        build_id: id,
        state: if record.done {
            v2::BuildState::Done
        } else {
            v2::BuildState::Running
        } as i32,
        positions: record.positions,
        solved: record.solved,
        playouts: record.playouts,
        pending,
        depth: record.depth,
        max_positions: record.max_positions,
        budget: record.budget,
        roots: record.roots,
        deep_started: record.deep_started,
        deep_finished: record.deep_finished,
        deep_from: record.deep_from,
    }
}

pub(crate) fn puzzle_listing(listing: PuzzleListing) -> v2::ListPuzzlesResponse {
    v2::ListPuzzlesResponse {
        puzzles_json: listing.puzzles_json,
        candidates: listing.candidates,
        found: listing.found,
        no_mate: listing.no_mate,
        not_unique: listing.not_unique,
        undecided: listing.undecided,
        pending: listing.pending,
        total: listing.total,
        unconfirmed: listing.unconfirmed,
        disputed: listing.disputed,
        next_cursor: listing
            .next_cursor
            .map(|cursor| cursor.to_string())
            .unwrap_or_default(),
    }
}
