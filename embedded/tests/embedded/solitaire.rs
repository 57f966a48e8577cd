//! Solitaire campaigns on an embedded cluster with one real worker: the stored totals agree
//! with the engine's own bench of the same deals, deals played twice count once, the totals
//! survive a restart (also one in the middle of a campaign), and bad ranges are refused (by
//! the client, and by the coordinator for a job sent around it).

use std::ops::Range;

use pentagrid_calculation::{BenchSummary, Player, Variant, bench};
use pentagrid_client::solitaire::{SolitairePlan, SolitaireTotals, solitaire_campaign, totals_of};
use pentagrid_client::{ClientError, jobs};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_embedded::EmbeddedCluster;
use pentagrid_proto::v2;

const TOKEN: &str = "solitaire-token";

fn plan(variant: Variant, player: &str, deals: Range<u64>) -> SolitairePlan {
    SolitairePlan {
        variant,
        player: player.parse().unwrap(),
        deals,
        seed: 1,
    }
}

/// `totals` are exactly what the engine's bench makes of the same deals.
fn assert_same(totals: &SolitaireTotals, expected: &BenchSummary) {
    assert_eq!(
        (
            totals.deals,
            totals.wins,
            totals.success,
            totals.foundation_cards
        ),
        (
            expected.deals,
            expected.wins,
            expected.success,
            expected.foundation_cards
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn campaigns_count_each_deal_once_and_keep_their_totals() {
    let cluster = EmbeddedCluster::temporary(CoordinatorSettings::default(), TOKEN)
        .await
        .unwrap();
    let (_stop, _task) = cluster.worker("w", 1);
    let client = cluster.client();

    let first = plan(Variant::Superman, "random", 0..150);
    let report = solitaire_campaign(&client, &first, &mut |_| {})
        .await
        .unwrap();
    assert_eq!((report.jobs.done, report.jobs.failed.len()), (2, 0));
    let totals = report.totals.unwrap();
    assert_same(
        &totals,
        &bench(Variant::Superman, &Player::Random, 0..150, 1).unwrap(),
    );

    // Deals 100..150 again (other jobs, other results): only 150..220 are new.
    let overlap = plan(Variant::Superman, "random", 100..220);
    let report = solitaire_campaign(&client, &overlap, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(report.jobs.done, 2);
    let totals = report.totals.unwrap();
    assert_eq!(totals.deals, 220, "deals played twice count once");
    assert_same(
        &totals,
        &bench(Variant::Superman, &Player::Random, 0..220, 1).unwrap(),
    );

    // Another (variant, player) has its own totals.
    let strategy = plan(Variant::Standard, "strategy", 0..20);
    solitaire_campaign(&client, &strategy, &mut |_| {})
        .await
        .unwrap();
    let status = jobs::status(&client).await.unwrap();
    assert_eq!(status.solitaire.len(), 2);
    let strategy_totals = totals_of(&status.solitaire, Variant::Standard, &Player::Strategy)
        .unwrap()
        .clone();
    assert_same(
        &strategy_totals,
        &bench(Variant::Standard, &Player::Strategy, 0..20, 1).unwrap(),
    );

    let cluster = cluster
        .restart(CoordinatorSettings::default())
        .await
        .unwrap();
    let status = jobs::status(&cluster.client()).await.unwrap();
    assert_eq!(
        totals_of(&status.solitaire, Variant::Superman, &Player::Random),
        Some(&totals),
        "the totals survive a restart"
    );
    assert_eq!(
        totals_of(&status.solitaire, Variant::Standard, &Player::Strategy),
        Some(&strategy_totals)
    );
    cluster.stop().await.unwrap();
}

/// The coordinator stops while a campaign's jobs are queued; the worker that comes after the
/// restart plays them, and the totals are those of every deal once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_campaign_interrupted_by_a_restart_finishes_with_every_deal_once() {
    let cluster = EmbeddedCluster::temporary(CoordinatorSettings::default(), TOKEN)
        .await
        .unwrap();
    let campaign = plan(Variant::Computer, "random", 40..290);
    let job_ids = jobs::submit(&cluster.client(), &campaign.tasks().unwrap())
        .await
        .unwrap();
    assert_eq!(job_ids.len(), 3);
    let cluster = cluster
        .restart(CoordinatorSettings::default())
        .await
        .unwrap();
    let (_stop, _task) = cluster.worker("w", 1);
    let client = cluster.client();
    let outcome = jobs::watch(&client, &job_ids, &mut |_| {}).await.unwrap();
    assert_eq!((outcome.done, outcome.failed.len()), (3, 0));
    let status = jobs::status(&client).await.unwrap();
    assert_same(
        totals_of(&status.solitaire, Variant::Computer, &Player::Random).unwrap(),
        &bench(Variant::Computer, &Player::Random, 40..290, 1).unwrap(),
    );
    cluster.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_ranges_are_refused_and_queue_nothing() {
    let cluster = EmbeddedCluster::temporary(CoordinatorSettings::default(), TOKEN)
        .await
        .unwrap();
    let client = cluster.client();
    let reversed = Range { start: 9, end: 3 };
    for deals in [5..5, reversed, 0..2_000_000, 0..u64::MAX] {
        let refused = solitaire_campaign(
            &client,
            &plan(Variant::Standard, "random", deals.clone()),
            &mut |_| {},
        )
        .await;
        assert!(
            matches!(refused, Err(ClientError::Invalid(_))),
            "{deals:?}: {refused:?}"
        );
    }
    // Around the client: a job of no deals, of too many, running past the last deal number,
    // of an unknown variant or player.
    let spec = |variant: &str, player: &str, first_deal, deals| v2::JobSpec {
        kind: Some(v2::job_spec::Kind::Solitaire(v2::SolitaireSpec {
            variant: variant.into(),
            player: player.into(),
            first_deal,
            deals,
            seed: 1,
        })),
    };
    for spec in [
        spec("standard", "random", 0, 0),
        spec("standard", "random", 0, 1001),
        spec("standard", "random", u64::MAX, 1),
        spec("klondike", "random", 0, 1),
        spec("standard", "uct:playouts=0", 0, 1),
        spec("standard", "gnugo", 0, 1),
    ] {
        let refused = client
            .clone()
            .submit_jobs(v2::SubmitJobsRequest { jobs: vec![spec] })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
    }
    let status = jobs::status(&client).await.unwrap();
    assert_eq!(status.jobs.queued + status.jobs.done, 0);
    assert!(status.solitaire.is_empty());
    cluster.stop().await.unwrap();
}
