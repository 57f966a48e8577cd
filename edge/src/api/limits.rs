//! Every paged or batched message at its fullest stays well below the message cap: the page
//! and batch limits of the services, checked against worst-case wire sizes.

use pentagrid_proto::{MAX_MESSAGE_BYTES, v2};
use prost::Message;

use pentagrid_coordinator::book::{
    EXPORT_PAGE_ROWS, GAMES_PAGE_SIZE, MAX_BOOK_ROWS, MAX_IMPORT_ROWS,
};
use pentagrid_coordinator::matches::MATCH_PAGE_PAIRS;

/// "Well below": half the cap.
const BUDGET: usize = MAX_MESSAGE_BYTES / 2;

/// A long player text form (real ones are a few dozen bytes).
fn player() -> String {
    format!("uct:k=1.41421356,playouts=1000000000,{}", "x".repeat(80))
}

/// The longest game: 36 moves, each in its longest notation.
fn moves() -> Vec<String> {
    vec!["f6-4R".to_owned(); 36]
}

fn full_position() -> String {
    "xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxo.".to_owned()
}

#[test]
fn a_full_page_of_games_is_well_below_the_cap() {
    let game = v2::GameRecord {
        job_id: u64::MAX,
        start: full_position(),
        moves: moves(),
        result: "draw".into(),
        black: player(),
        white: player(),
    };
    let page = v2::GetGamesResponse {
        games: vec![game; GAMES_PAGE_SIZE as usize],
        next_offset: u64::MAX,
    };
    assert!(page.encoded_len() < BUDGET, "{}", page.encoded_len());
    let ids = v2::GetGamesRequest {
        job_ids: vec![u64::MAX; MAX_BOOK_ROWS],
        offset: u64::MAX,
        page_size: u32::MAX,
    };
    assert!(ids.encoded_len() < BUDGET, "{}", ids.encoded_len());
}

#[test]
fn a_full_page_of_match_games_is_well_below_the_cap() {
    let game = v2::MatchGame {
        pair: u64::MAX,
        opening: full_position(),
        black: player(),
        white: player(),
        moves: moves(),
        result: "black".into(),
        ..v2::MatchGame::default()
    };
    let page = v2::MatchStatusResponse {
        a: player(),
        b: player(),
        sprt: "elo0=0,elo1=5,alpha=0.05,beta=0.05".into(),
        games: vec![game; 2 * MATCH_PAGE_PAIRS as usize],
        next_games_from_pair: u64::MAX,
        ..v2::MatchStatusResponse::default()
    };
    assert!(page.encoded_len() < BUDGET, "{}", page.encoded_len());
}

#[test]
fn full_book_pages_are_well_below_the_cap() {
    let row = v2::BookExportRow {
        position: full_position(),
        r#move: "f6-4R".into(),
        source: v2::TableSource::Games as i32,
        games: u64::MAX,
        wins: u64::MAX,
        draws: u64::MAX,
        proven: v2::Value::Draw as i32,
        proven_by: v2::ExactSource::Unrecorded as i32,
    };
    // A page ends after the position that fills it: at most 8 × 36 moves in each of two
    // tables, plus proven moves, past the row limit.
    let export = v2::BookExportResponse {
        rows: vec![row.clone(); EXPORT_PAGE_ROWS + 3 * 288],
        next_key: u64::MAX,
    };
    assert!(export.encoded_len() < BUDGET, "{}", export.encoded_len());
    let import = v2::BookImportRequest {
        rows: vec![row; MAX_IMPORT_ROWS],
        book_digest: vec![0xff; 32],
        part: u32::MAX,
        parts: u32::MAX,
        again: true,
    };
    assert!(import.encoded_len() < BUDGET, "{}", import.encoded_len());
}

#[test]
fn a_full_submission_of_small_jobs_is_well_below_the_cap() {
    let spec = v2::JobSpec {
        kind: Some(v2::job_spec::Kind::Selfplay(v2::SelfplaySpec {
            start: full_position(),
            black: player(),
            white: player(),
        })),
    };
    let request = v2::SubmitJobsRequest {
        jobs: vec![spec; pentagrid_coordinator::jobs::MAX_JOBS_PER_SUBMISSION],
    };
    assert!(request.encoded_len() < BUDGET, "{}", request.encoded_len());
}

/// Arbitrary worker ids and names at Hello are registered or refused cleanly, and a status at
/// its fullest (1,000 workers with the longest ids and names) stays well below the cap.
mod hello_status {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use pentagrid_coordinator::coordinator::Coordinator;
    use pentagrid_coordinator::identity::{MAX_WORKER_ID_BYTES, MAX_WORKER_NAME_BYTES, WorkerId};
    use pentagrid_coordinator::jobs::{JobError, WorkerPage};
    use pentagrid_coordinator::settings::CoordinatorSettings;

    fn coordinator() -> (tokio::runtime::Runtime, tempfile::TempDir, Arc<Coordinator>) {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let coordinator = {
            let _context = runtime.enter();
            Coordinator::open(dir.path(), CoordinatorSettings::default()).unwrap()
        };
        (runtime, dir, coordinator)
    }

    #[test]
    fn a_full_status_page_is_well_below_the_cap() {
        let (_runtime, _dir, coordinator) = coordinator();
        for i in 0..1_500 {
            let id = format!("{i:\u{10FFFF}>50}");
            let name = "\u{10FFFF}".repeat(MAX_WORKER_NAME_BYTES / 4);
            assert!(id.len() <= MAX_WORKER_ID_BYTES && id.len() > 180);
            let id = WorkerId::parse(&id).unwrap();
            coordinator.jobs.hello(&id, &name, u32::MAX).unwrap();
        }
        let status = coordinator.status_page(&WorkerPage::first()).unwrap();
        let wire = super::super::convert::status(status);
        assert_eq!((wire.workers.len(), wire.worker_count), (1_000, 1_500));
        assert!(wire.encoded_len() < BUDGET, "{}", wire.encoded_len());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn arbitrary_hellos_are_registered_or_refused_and_status_fits(
            hellos in proptest::collection::vec((any::<String>(), any::<String>()), 1..40),
        ) {
            let (_runtime, _dir, coordinator) = coordinator();
            let mut registered = std::collections::HashSet::new();
            for (id, name) in &hellos {
                let Ok(worker) = WorkerId::parse(id) else {
                    continue;
                };
                match coordinator.jobs.hello(&worker, name, 1) {
                    Ok(_) => {
                        prop_assert!(!id.is_empty() && id.len() <= MAX_WORKER_ID_BYTES);
                        prop_assert!(name.len() <= MAX_WORKER_NAME_BYTES);
                        prop_assert!(!id.chars().chain(name.chars()).any(char::is_control));
                        registered.insert(id.clone());
                    }
                    Err(JobError::BadWorkerName(_)) => {}
                    // A second keyless hello under a live id is someone else's.
                    Err(JobError::WorkerIdInUse(_)) if registered.contains(id) => {}
                    Err(other) => prop_assert!(false, "unexpected refusal {other}"),
                }
            }
            let status = coordinator.status_page(&WorkerPage::first()).unwrap();
            let wire = super::super::convert::status(status);
            prop_assert_eq!(wire.worker_count, registered.len() as u64);
            prop_assert!(wire.encoded_len() < BUDGET);
        }
    }
}

#[test]
fn a_full_page_of_tuning_steps_and_of_runs_is_well_below_the_cap() {
    use pentagrid_coordinator::tunes::{MAX_LISTED_TUNES, TUNE_PAGE_STEPS};
    let params = pentago::MAX_TUNE_PARAMS;
    let numbers = vec![f64::MIN_POSITIVE; params];
    let step = v2::TuneStep {
        iteration: u64::MAX,
        match_id: u64::MAX,
        delta: vec![-1; params],
        c: f64::MIN_POSITIVE,
        plus: numbers.clone(),
        minus: numbers.clone(),
        wins: u64::MAX,
        draws: u64::MAX,
        losses: u64::MAX,
        theta: numbers.clone(),
        values: numbers.clone(),
        purged_pairs: u64::MAX,
        purged_wins: u64::MAX,
        purged_draws: u64::MAX,
        purged_losses: u64::MAX,
        correction: numbers.clone(),
    };
    let run = v2::TuneStatusResponse {
        tune_id: u64::MAX,
        base: player(),
        params: vec![format!("nodes=1000..{}", 1e10); params],
        sprt: "elo0=-1.5,elo1=2.5,alpha=0.05,beta=0.05".into(),
        theta: numbers.clone(),
        values: numbers.clone(),
        tuned: player(),
        purges: Some(v2::TunePurges {
            stepped_pairs: u64::MAX,
            replayed_pairs: u64::MAX,
            owed: numbers,
            owed_pairs: u64::MAX,
        }),
        sprt_match: Some(v2::MatchStatusResponse {
            a: player(),
            b: player(),
            ..v2::MatchStatusResponse::default()
        }),
        ..v2::TuneStatusResponse::default()
    };
    let page = v2::TuneStatusResponse {
        steps: vec![step; TUNE_PAGE_STEPS as usize],
        ..run.clone()
    };
    assert!(page.encoded_len() < BUDGET, "{}", page.encoded_len());
    let list = v2::ListTunesResponse {
        tunes: vec![run; MAX_LISTED_TUNES as usize],
        next_before_id: u64::MAX,
    };
    assert!(list.encoded_len() < BUDGET, "{}", list.encoded_len());
}
