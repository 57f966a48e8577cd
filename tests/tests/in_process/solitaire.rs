//! Solitaire results as a hostile or unlucky worker sends them, over real loopback gRPC to a
//! coordinator on a real sled database: impossible or incomplete results are refused and change
//! nothing; a retried result, a second result for the same job, and another job over the same
//! deals each count once; the largest deal numbers are stored like any other; the totals
//! survive a restart.

use pentagrid_calculation::{Player, Variant};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{DealResult, Outcome, Task, v2};
use pentagrid_tests::{TestCluster, hello, lease_one};

const WORKER: &str = "hand";

fn task(deals: std::ops::Range<u64>) -> Task {
    Task::Solitaire {
        variant: Variant::Superman,
        player: Player::Strategy,
        deals,
        seed: 1,
    }
}

async fn queue(cluster: &TestCluster, tasks: &[Task]) {
    let request = v2::SubmitJobsRequest {
        jobs: tasks.iter().map(v2::JobSpec::from).collect(),
    };
    cluster.client().submit_jobs(request).await.unwrap();
}

fn deals(results: &[(bool, u32)]) -> Outcome {
    Outcome::Solitaire {
        deals: results
            .iter()
            .map(|&(won, foundation_cards)| DealResult {
                won,
                foundation_cards,
            })
            .collect(),
    }
}

async fn submit(
    cluster: &TestCluster,
    session: &str,
    job: &v2::Job,
    result_id: &str,
    outcome: &Outcome,
) -> Result<v2::SubmitOutcome, tonic::Status> {
    let request = v2::SubmitRequest {
        worker_id: WORKER.into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: result_id.into(),
        result: Some(outcome.into()),
        session: session.into(),
    };
    let reply = cluster.client().submit(request).await?.into_inner();
    Ok(v2::SubmitOutcome::try_from(reply.outcome).unwrap())
}

/// The one (variant, player) the tests play, as the status lists it.
fn totals(status: &v2::StatusResponse) -> Option<(u64, u64, u64, u64)> {
    match status.solitaire.as_slice() {
        [] => None,
        [t] => {
            assert_eq!(
                (t.variant.as_str(), t.player.as_str()),
                ("superman", "strategy")
            );
            Some((t.deals, t.wins, t.cards, t.cards_squared))
        }
        more => panic!("one pair expected: {more:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_results_change_nothing_and_every_deal_counts_once() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let session = hello(&mut client, WORKER).await;
    queue(&cluster, &[task(10..12)]).await;
    let job = lease_one(&mut client, WORKER, &session).await;

    for (bad, why) in [
        (deals(&[(true, 52)]), "1 deal results for a job of 2"),
        (deals(&[(true, 52); 3]), "3 deal results"),
        (
            deals(&[(true, 51), (false, 4)]),
            "deal 10 cannot end won with 51",
        ),
        (
            deals(&[(false, 52), (false, 4)]),
            "deal 10 cannot end lost with 52",
        ),
        (
            deals(&[(false, 4), (false, 3)]),
            "deal 11 cannot end lost with 3",
        ),
        (deals(&[(false, 4), (false, u32::MAX)]), "deal 11"),
        (Outcome::Solve { moves: vec![] }, "not of the job's kind"),
    ] {
        let refused = submit(&cluster, &session, &job, "bad", &bad)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains(why), "{why}: {refused:?}");
    }
    assert_eq!(totals(&cluster.status().await), None, "nothing stored");

    // The job still holds its lease: a good result applies once; its retry is a duplicate.
    let good = deals(&[(true, 52), (false, 30)]);
    for expected in [v2::SubmitOutcome::Applied, v2::SubmitOutcome::Duplicate] {
        assert_eq!(
            submit(&cluster, &session, &job, "r-1", &good)
                .await
                .unwrap(),
            expected
        );
    }
    // Another result for the done job (another id, another outcome) changes nothing.
    let other = deals(&[(false, 20), (false, 30)]);
    let late = submit(&cluster, &session, &job, "r-2", &other)
        .await
        .unwrap_err();
    assert_eq!(late.code(), tonic::Code::FailedPrecondition, "{late:?}");
    let after_one = Some((2, 1, 82, 52 * 52 + 30 * 30));
    assert_eq!(totals(&cluster.status().await), after_one);

    // Another job over deals 11..13: deal 11 is not counted again, whatever it claims now.
    queue(&cluster, &[task(11..13)]).await;
    let job = lease_one(&mut client, WORKER, &session).await;
    let overlapping = deals(&[(true, 52), (false, 10)]);
    assert_eq!(
        submit(&cluster, &session, &job, "r-3", &overlapping)
            .await
            .unwrap(),
        v2::SubmitOutcome::Applied
    );
    let after_two = Some((3, 1, 92, 52 * 52 + 30 * 30 + 10 * 10));
    assert_eq!(totals(&cluster.status().await), after_two);

    // The last deal numbers there are.
    queue(&cluster, &[task(u64::MAX - 2..u64::MAX)]).await;
    let job = lease_one(&mut client, WORKER, &session).await;
    assert_eq!(
        submit(
            &cluster,
            &session,
            &job,
            "r-4",
            &deals(&[(false, 4), (true, 52)])
        )
        .await
        .unwrap(),
        v2::SubmitOutcome::Applied
    );
    let after_three = Some((5, 2, 148, 52 * 52 * 2 + 30 * 30 + 10 * 10 + 16));
    assert_eq!(totals(&cluster.status().await), after_three);

    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    assert_eq!(
        totals(&cluster.status().await),
        after_three,
        "the totals survive a restart"
    );
    cluster.stop().await;
}
