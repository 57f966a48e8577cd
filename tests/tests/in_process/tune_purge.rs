//! A caught worker's pairs in a tuning run, over a real server: the liar plays one pair of an
//! iteration whose step is then taken and one pair of the iteration being played. Once it is
//! caught, the stepped iteration's counts lose its pair and the shift its games gave the point
//! is undone at the run's next step, and the pair of the iteration being played leaves it and
//! is played again by the honest worker before that step is taken: every step after the purge
//! rests on honest pairs alone, and `tune show` says what was purged.

use pentago::{OpeningSource, SpsaSchedule, spsa_update};
use pentagrid_client::tunes::{self, TunePlan, TuneRun, TuneState};
use pentagrid_proto::{Client, v2};

use super::analysis_purge::{ADMIN, Server, opening, status};

/// Three iterations of two pairs, no follow-up SPRT.
fn plan() -> TunePlan {
    TunePlan {
        base: "uct:playouts=20,exact=off".parse().unwrap(),
        params: vec!["playouts=10..300".parse().unwrap()],
        schedule: SpsaSchedule::standard(3),
        pairs_per_iteration: 2,
        seed: 11,
        openings: OpeningSource::Random { plies: 2 },
        weight: 1,
        sprt: None,
    }
}

async fn run(admin: &Client, id: u64) -> TuneRun {
    tunes::status(admin, id, true).await.unwrap()
}

/// `theta` shifted by `shift`, kept in 0..1, as the coordinator adds an owed shift.
fn shifted(theta: &[f64], shift: &[f64]) -> Vec<f64> {
    theta
        .iter()
        .zip(shift)
        .map(|(t, s)| (t + s).clamp(0.0, 1.0))
        .collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_caught_workers_tuning_pairs_are_replayed_or_their_shift_undone() {
    let server = Server::start_in(tempfile::tempdir().unwrap()).await;
    let mut admin = server.served.client(ADMIN);
    let mut honest = server.worker("honest").await;
    let mut liar = server.worker("inflater").await;
    let plan = plan();
    let id = tunes::create(&admin, &plan).await.unwrap();

    // Iteration 0: one pair each; its step is taken with the liar's pair in it.
    assert_eq!(liar.play_next().await, Some(Some(0)));
    assert_eq!(honest.play_next().await, Some(Some(1)));
    let stepped = run(&admin, id).await;
    assert_eq!(stepped.iterations_done, 1);
    let step0 = stepped.steps[0].clone();
    assert_eq!(step0.wins + step0.draws + step0.losses, 4);
    // Iteration 1: the liar plays pair 0; the honest worker holds pair 1's lease.
    assert_eq!(liar.play_next().await, Some(Some(0)));
    let (held_job, held_task, held_outcome) = honest.lease_and_play().await.unwrap();
    assert!(matches!(
        held_task,
        pentagrid_proto::Task::Pair { pair: 1, .. }
    ));

    for round in 1..=40u64 {
        liar.analyse(opening(round), true).await;
        // The honest worker keeps its lease alive meanwhile, as a worker does.
        let beat = v2::HeartbeatRequest {
            worker_id: honest.id.clone(),
            lease_ids: vec![held_job.lease_id],
            session: honest.session.clone(),
        };
        honest.client.heartbeat(beat).await.unwrap();
        if !status(&mut admin).await.flagged_workers.is_empty() {
            break;
        }
    }
    let caught = status(&mut admin).await.flagged_workers.remove(0);
    assert_eq!(
        (
            caught.worker_id.as_str(),
            caught.quarantined,
            caught.purged_pairs
        ),
        ("inflater", true, 2)
    );
    let purged = run(&admin, id).await;
    assert_eq!(purged.iterations_done, 1, "no step taken on the purge");
    let step0_now = &purged.steps[0];
    assert_eq!(
        step0_now.wins + step0_now.draws + step0_now.losses,
        2,
        "the honest pair's games stay"
    );
    assert_eq!(step0_now.purged_pairs, 1);
    let liar_games = (
        step0_now.purged_wins,
        step0_now.purged_draws,
        step0_now.purged_losses,
    );
    assert_eq!(liar_games.0 + liar_games.1 + liar_games.2, 2);
    assert_eq!(
        (
            step0_now.wins + liar_games.0,
            step0_now.draws + liar_games.1,
            step0_now.losses + liar_games.2
        ),
        (step0.wins, step0.draws, step0.losses),
        "taken out, not changed"
    );
    let p = &purged.purges;
    assert_eq!((p.stepped_pairs, p.replayed_pairs, p.owed_pairs), (1, 1, 1));
    // What the liar's net games moved the point at step 0 is owed back.
    let net = liar_games.0 as i64 - liar_games.2 as i64;
    let owed: Vec<f64> = step0
        .delta
        .iter()
        .map(|&d| -(plan.schedule.step(0) * net as f64) * f64::from(d))
        .collect();
    assert!(close(&p.owed, &owed), "{:?} vs {owed:?}", p.owed);
    assert_eq!(
        purged.theta, step0.theta,
        "the point moves at the next step"
    );

    // The liar gets nothing more; the honest worker hands in its pair and plays the liar's
    // pair again, and the step is taken on those two.
    assert_eq!(liar.play_next().await, None);
    assert!(honest.hand_in(&held_job, &held_outcome).await);
    assert_eq!(honest.play_next().await, Some(Some(0)), "the replayed pair");
    let after = run(&admin, id).await;
    assert_eq!(after.iterations_done, 2);
    let step1 = &after.steps[1];
    assert_eq!(
        step1.wins + step1.draws + step1.losses,
        4,
        "two honest pairs"
    );
    assert_eq!(step1.purged_pairs, 0);
    assert!(close(&step1.correction, &owed));
    let delta1: Vec<f64> = step1.delta.iter().map(|&d| f64::from(d)).collect();
    let net1 = step1.wins as i64 - step1.losses as i64;
    let expected = shifted(
        &spsa_update(&step0.theta, &delta1, plan.schedule.step(1), net1),
        &owed,
    );
    assert!(
        close(&step1.theta, &expected),
        "{:?} vs {expected:?}",
        step1.theta
    );
    assert!(after.purges.owed.is_empty() && after.purges.owed_pairs == 0);
    assert_eq!(after.purges.stepped_pairs, 1);

    // The last iteration: honest pairs alone; the run ends owing nothing.
    assert!(honest.play_next().await.is_some());
    assert!(honest.play_next().await.is_some());
    let done = run(&admin, id).await;
    assert_eq!((done.state, done.iterations_done), (TuneState::Done, 3));
    assert_eq!(
        done.steps[2].wins + done.steps[2].draws + done.steps[2].losses,
        4
    );
    assert_eq!(
        (
            done.purges.stepped_pairs,
            done.purges.replayed_pairs,
            done.purges.owed_pairs
        ),
        (1, 1, 0)
    );
    server.served.stop().await;
}
