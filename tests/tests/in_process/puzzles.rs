//! Puzzle verification on an in-process cluster: verdicts are stored once per canonical
//! position, and forged or malformed verdicts are refused without changing anything.

use pentago::SearchControl;
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Outcome, RejectionKind, Task, Verdict, v2};
use pentagrid_tests::{TestCluster, hello};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forged_puzzles_are_refused_and_true_verdicts_stored_once() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let queued = client
        .generate_puzzles(v2::GeneratePuzzlesRequest {
            candidates: 40,
            max_moves: 3,
            min_stones: 22,
            random_games: true,
            seed: 9,
            min_moves: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(queued.queued, 40);
    let session = hello(&mut client, "w").await;
    let jobs = client
        .lease(v2::LeaseRequest {
            worker_id: "w".into(),
            max_jobs: 64,
            session: session.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .jobs;
    let mut stored = 0;
    for (index, job) in jobs.iter().enumerate() {
        let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
        let Some(Outcome::Verify { verdicts }) =
            pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new())
        else {
            panic!("a verify job gives verdicts");
        };
        let submit = |verdicts: Vec<Verdict>, result_id: String| v2::SubmitRequest {
            worker_id: "w".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id,
            result: Some((&Outcome::Verify { verdicts }).into()),
            session: session.clone(),
        };
        // One verdict short.
        let short = verdicts[1..].to_vec();
        let error = client
            .submit(submit(short, format!("short-{index}")))
            .await
            .unwrap_err();
        assert!(error.message().contains("verdicts"), "{}", error.message());
        // A puzzle whose solution is a move that does not win.
        if let Some(at) = verdicts
            .iter()
            .position(|v| matches!(v, Verdict::Puzzle(_)))
        {
            let mut forged = verdicts.clone();
            if let Verdict::Puzzle(puzzle) = &mut forged[at] {
                let position = puzzle.position;
                let quiet = position
                    .legal_moves()
                    .iter()
                    .copied()
                    .find(|&mv| !position.play_unchecked(mv).is_over())
                    .unwrap();
                puzzle.first_move = quiet;
                puzzle.proof.tree = pentago::AttackNode {
                    mv: quiet,
                    replies: Vec::new(),
                };
            }
            let error = client
                .submit(submit(forged, format!("forged-{index}")))
                .await
                .unwrap_err();
            assert_eq!(error.code(), tonic::Code::InvalidArgument);
        }
        // A puzzle claimed for a candidate that has none.
        if let Some(at) = verdicts
            .iter()
            .position(|v| *v == Verdict::Rejected(RejectionKind::NoMate))
            && let Some(Verdict::Puzzle(real)) =
                verdicts.iter().find(|v| matches!(v, Verdict::Puzzle(_)))
        {
            let mut forged = verdicts.clone();
            forged[at] = Verdict::Puzzle(real.clone());
            let error = client
                .submit(submit(forged, format!("moved-{index}")))
                .await
                .unwrap_err();
            assert!(
                error.message().contains("another position"),
                "{}",
                error.message()
            );
        }
        stored += verdicts
            .iter()
            .filter(|v| matches!(v, Verdict::Puzzle(_)))
            .count();
        client
            .submit(submit(verdicts, format!("true-{index}")))
            .await
            .unwrap();
    }
    let listing = client
        .list_puzzles(v2::ListPuzzlesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(stored > 0, "the forged-puzzle checks ran");
    assert_eq!(listing.candidates, 40);
    assert_eq!(listing.pending, 0);
    assert_eq!(listing.found as usize, stored);
    assert_eq!(listing.puzzles_json.len(), stored);
    // The same candidates are never queued twice.
    let again = client
        .generate_puzzles(v2::GeneratePuzzlesRequest {
            candidates: 40,
            max_moves: 3,
            min_stones: 22,
            random_games: false,
            seed: 9,
            min_moves: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.queued, 0);
    let bad = client
        .generate_puzzles(v2::GeneratePuzzlesRequest {
            candidates: 10,
            max_moves: 8,
            ..v2::GeneratePuzzlesRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    cluster.stop().await;
}
