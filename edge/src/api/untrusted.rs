//! The paths untrusted bytes take through the coordinator before anything is stored — a
//! worker's result checked against its job, and a book import — as plain functions of bytes,
//! for the fuzz targets in `fuzz/` and the property tests below. Each answers what a caller
//! would be told; none may panic, whatever the bytes.

use pentagrid_proto::{Outcome, Task, v2};
use prost::Message;

use super::convert::import_rows;
use pentagrid_coordinator::book::import_entries;
use pentagrid_coordinator::validate::result_effect;

/// Decodes `job` (a `JobSpec`, as `SubmitJobs` takes it) and `submission` (a `SubmitRequest`,
/// as a worker sends it) and validates the result against the job, exactly as `Submit` does
/// before it touches the database. `Ok` when the result would be applied.
pub fn check_result(job: &[u8], submission: &[u8]) -> Result<(), String> {
    let spec = v2::JobSpec::decode(job).map_err(|e| format!("undecodable job: {e}"))?;
    let task = Task::try_from(&spec).map_err(|e| e.0)?;
    let request =
        v2::SubmitRequest::decode(submission).map_err(|e| format!("undecodable result: {e}"))?;
    let wire = request
        .result
        .as_ref()
        .ok_or("the submission has no result")?;
    let outcome = Outcome::try_from(wire).map_err(|e| e.0)?;
    result_effect(&task, request.job_id, &outcome)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Decodes `request` (a `BookImportRequest`) and checks its rows exactly as `BookImport` does
/// before it writes; `Ok` with the number of positions the rows hold.
pub fn check_book_import(request: &[u8]) -> Result<usize, String> {
    let request =
        v2::BookImportRequest::decode(request).map_err(|e| format!("undecodable import: {e}"))?;
    let rows = import_rows(&request.rows).map_err(|status| status.message().to_owned())?;
    super::convert::import_mark(&request).map_err(|status| status.message().to_owned())?;
    import_entries(&rows)
        .map(|entries| entries.len())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Move, Player, Position, play_game};
    use pentagrid_proto::value_to_wire;
    use proptest::prelude::*;

    fn selfplay_job() -> Vec<u8> {
        v2::JobSpec::from(&Task::Selfplay {
            start: Position::START,
            black: Player::Random,
            white: Player::Random,
        })
        .encode_to_vec()
    }

    fn selfplay_result(moves: Vec<String>, result: &str) -> Vec<u8> {
        v2::SubmitRequest {
            job_id: 7,
            result: Some(v2::submit_request::Result::Selfplay(v2::SelfplayResult {
                moves,
                result: result.to_owned(),
            })),
            ..Default::default()
        }
        .encode_to_vec()
    }

    /// A real game of random play, as a worker would report it.
    fn real_game(seed: u64) -> (Vec<String>, String) {
        let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
        let moves = game.moves.iter().map(Move::to_string).collect();
        (moves, game.result.to_string())
    }

    #[test]
    fn a_true_game_is_accepted_and_a_false_result_refused() {
        let (moves, result) = real_game(11);
        assert_eq!(
            check_result(&selfplay_job(), &selfplay_result(moves.clone(), &result)),
            Ok(())
        );
        let lie = if result == "draw" { "black" } else { "draw" };
        assert!(check_result(&selfplay_job(), &selfplay_result(moves, lie)).is_err());
        assert!(check_result(b"\xff\xff", b"").is_err());
    }

    #[test]
    fn a_canonical_import_row_is_accepted_and_bad_rows_refused() {
        let row = |position: &str, mv: &str| v2::BookExportRow {
            position: position.to_owned(),
            r#move: mv.to_owned(),
            source: v2::TableSource::Playouts as i32,
            games: 10,
            wins: 4,
            draws: 2,
            proven: value_to_wire(None) as i32,
            proven_by: 0,
        };
        let start = Position::START.to_string();
        let request = |rows| {
            v2::BookImportRequest {
                rows,
                ..Default::default()
            }
            .encode_to_vec()
        };
        assert_eq!(
            check_book_import(&request(vec![row(&start, "a1-1R")])),
            Ok(1)
        );
        for bad in [row(&start, "z9-1R"), row("nonsense", "a1-1R")] {
            assert!(check_book_import(&request(vec![bad])).is_err());
        }
        let mut too_many_wins = row(&start, "a1-1R");
        too_many_wins.wins = 11;
        assert!(check_book_import(&request(vec![too_many_wins])).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_bytes_never_panic(job in proptest::collection::vec(any::<u8>(), 0..256),
                                       result in proptest::collection::vec(any::<u8>(), 0..1024)) {
            let _ = check_result(&job, &result);
            let _ = check_result(&selfplay_job(), &result);
            let _ = check_book_import(&result);
        }

        #[test]
        fn damaged_games_are_refused_or_accepted_but_never_panic(
            seed in any::<u64>(),
            cut in 0usize..40,
            junk in "[a-h0-9RL-]{0,6}",
            result in prop_oneof!["ongoing", "black", "white", "draw", "[a-z]{0,5}"],
        ) {
            let (mut moves, _) = real_game(seed);
            moves.truncate(cut.min(moves.len()));
            moves.push(junk);
            let _ = check_result(&selfplay_job(), &selfplay_result(moves, &result));
        }

        #[test]
        fn every_result_kind_with_arbitrary_fields_never_panics(
            moves in proptest::collection::vec("[a-f][1-6]-[1-4][RL]|[a-z0-9-]{0,5}", 0..8),
            counts in proptest::collection::vec(any::<u64>(), 3),
            values in proptest::collection::vec(-1i32..6, 0..8),
            verdict in -1i32..7,
            puzzle_json in "\\{\"position\":\"[.xo/]{0,41}\"\\}|[ -~]{0,20}",
            seconds in any::<f64>(),
        ) {
            let rows = moves.iter().map(|m| v2::MoveRow {
                r#move: m.clone(), games: counts[0], wins: counts[1], draws: counts[2],
            }).collect();
            let proven = moves.iter().zip(&values).map(|(m, &value)| v2::ProvenMove {
                r#move: m.clone(), value,
            }).collect();
            let game = v2::SelfplayResult { moves: moves.clone(), result: "black".into() };
            let position = Position::START;
            let jobs = [
                Task::Analyse { position, config: "uct".parse().unwrap(), playouts: 100 },
                Task::Solve { position },
                Task::Verify { candidates: vec![(position, "test".into())], max_moves: 3 },
            ];
            let results = [
                v2::submit_request::Result::Analyse(v2::AnalyseResult {
                    rows, simulations: counts[0], seconds,
                }),
                v2::submit_request::Result::Solve(v2::SolveResult { moves: proven }),
                v2::submit_request::Result::Verify(v2::VerifyResult {
                    verdicts: vec![v2::Verdict { outcome: verdict, puzzle_json }],
                }),
                v2::submit_request::Result::Pair(v2::PairResult {
                    games: vec![game.clone(), game],
                    accuracy: Some(v2::MatchAccuracy {
                        min_stones: values.len() as u32 + 18,
                        a: Some(v2::Accuracy { moves: counts[0] as u32, drops: counts[1] as u32 }),
                        b: None,
                    }),
                    notes: Vec::new(),
                }),
            ];
            for job in &jobs {
                for result in &results {
                    let submission = v2::SubmitRequest {
                        job_id: 3, result: Some(result.clone()), ..Default::default()
                    };
                    let _ = check_result(
                        &v2::JobSpec::from(job).encode_to_vec(),
                        &submission.encode_to_vec(),
                    );
                }
            }
        }

        #[test]
        fn import_rows_with_arbitrary_fields_never_panic(
            position in prop_oneof![Just(Position::START.to_string()), "[.xo/]{0,41}"],
            mv in "[a-g][0-7]-[0-5][RL]",
            source in 0i32..4,
            games in any::<u64>(),
            wins in any::<u64>(),
            draws in any::<u64>(),
            proven in -1i32..6,
        ) {
            let row = v2::BookExportRow {
                position, r#move: mv, source, games, wins, draws, proven, proven_by: 0,
            };
            let _ = check_book_import(&v2::BookImportRequest { rows: vec![row], ..Default::default() }.encode_to_vec());
        }
    }
}
