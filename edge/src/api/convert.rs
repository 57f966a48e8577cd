//! Domain answers as wire messages, and the wire forms of book rows read back into domain rows.

use pentago::{Move, Position};
use pentagrid_model::CancelOutcome;
use pentagrid_proto::{
    accuracy_to_wire, cancel_outcome_to_wire, flagged_worker_to_wire, match_state_to_wire,
    match_wait_to_wire, pentanomial_of_counts, sprt_decision_to_wire, table_source_of_wire, v2,
    value_of_wire, worker_info_to_wire,
};
use tonic::Status;

use super::errors::invalid;
use pentagrid_coordinator::book::ExportRow;
use pentagrid_coordinator::builder::BuildReport;
use pentagrid_coordinator::coordinator::StatusReport;
use pentagrid_coordinator::jobs::registry::WorkerCursor;
use pentagrid_coordinator::jobs::{JobsUpdate, LeasedJob};
use pentagrid_coordinator::matches::MatchReport;
use pentagrid_coordinator::puzzles::PuzzleListing;
use pentagrid_store::game::Game;
use pentagrid_store::job::JobState;

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

pub(crate) fn status(status: StatusReport) -> v2::StatusResponse {
    let StatusReport {
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
        workers: jobs.workers.into_iter().map(worker_info_to_wire).collect(),
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
        flagged_workers: flagged.into_iter().map(flagged_worker_to_wire).collect(),
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
    let cancelled = outcomes
        .iter()
        .filter(|o| **o == CancelOutcome::Cancelled)
        .count();
    v2::CancelJobsResponse {
        cancelled: u32::try_from(cancelled).unwrap_or(u32::MAX),
        outcomes: outcomes
            .iter()
            .map(|o| cancel_outcome_to_wire(*o) as i32)
            .collect(),
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

/// The book an import call belongs to, if its request names one: a digest of 32 bytes, and
/// its part below its parts.
pub(crate) fn import_mark(
    request: &v2::BookImportRequest,
) -> Result<Option<pentagrid_store::ImportMark>, Status> {
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
    Ok(Some(pentagrid_store::ImportMark {
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
            let source = table_source_of_wire(row.source)
                .ok_or_else(|| bad(format!("unknown source {}", row.source)))?;
            Ok(ExportRow {
                position,
                mv,
                source,
                games: row.games,
                wins: row.wins,
                draws: row.draws,
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
        owner: record.owner,
        pairs_leased,
        decided_after: record.decided_after,
        tournament_id: record.tournament,
        tournament_kind: record.tournament_kind,
        time_limit: record.time_limit,
        waiting: waiting.map(match_wait_to_wire),
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
                move_millis: game.move_times.millis().to_vec(),
                move_score_milli: game.move_scores.milli().to_vec(),
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
