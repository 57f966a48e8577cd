//! A caught worker's pairs in tuning runs, inside its purge's transaction (see
//! [`super::word`]). A pair of the iteration being played leaves its match before the step is
//! taken and is played again by others, so the step counts honest pairs only. A pair of an
//! iteration whose step was already taken leaves that step's counts (recorded as purged on the
//! step), and the shift its net games gave the point is owed back to the run: the run's next
//! step adds it (see [`crate::tunes`]). A run past its iterations takes no more steps, so what
//! it owes stays owed and is shown (`pentagrid_model::TunePurges`).
//!
//! The records written are the `tunes` tree's own ([`StoredTune`], [`StoredTuneStep`]); no
//! other format changes.

use std::collections::BTreeMap;

use prost::Message;
use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::match_records::PurgedPair;
use super::tunes::{StoredTune, StoredTuneStep};
use super::{Store, StoreError, StoredMatch, abort, corrupt, get_record, id_of, pair_key};
use crate::tune_record::{TunePhase, TuneRecord};

/// Where the matches of tuning runs stand in their runs: match id → (run id, iteration).
pub(super) type TuneIterations = BTreeMap<u64, (u64, u64)>;

impl Store {
    /// The run and iteration of each tuning-run match among `match_ids`, read before a
    /// purge's transaction (which checks them again: a step taken meanwhile is found at the
    /// same iteration).
    pub(super) fn tune_iterations(
        &self,
        match_ids: impl IntoIterator<Item = u64>,
    ) -> Result<TuneIterations, StoreError> {
        let mut found = TuneIterations::new();
        for match_id in match_ids {
            let Some(record) = get_record::<StoredMatch>(&self.matches, match_id, "match")? else {
                continue;
            };
            if record.tune == 0 {
                continue;
            }
            let Some(run) = get_record::<StoredTune>(&self.tunes, record.tune, "tuning run")?
            else {
                continue;
            };
            let run = TuneRecord::from(&run);
            let iteration = if run.phase == TunePhase::Iterating && run.current_match == match_id {
                Some(run.iterations_done)
            } else {
                self.iteration_of(record.tune, match_id)?
            };
            if let Some(iteration) = iteration {
                found.insert(match_id, (record.tune, iteration));
            }
        }
        Ok(found)
    }

    /// The iteration of run `tune` whose stored step match `match_id` played, if any.
    fn iteration_of(&self, tune: u64, match_id: u64) -> Result<Option<u64>, StoreError> {
        for entry in self
            .tunes
            .range(pair_key(tune, 0)..=pair_key(tune, u64::MAX))
        {
            let (key, value) = entry?;
            let step =
                StoredTuneStep::decode(value.as_ref()).map_err(|e| corrupt("tuning step", e))?;
            if step.match_id == match_id {
                return id_of(&key[8..], "tuning step").map(Some);
            }
        }
        Ok(None)
    }
}

/// Takes each of `taken` that belongs to a tuning run out of that run (see the module
/// documentation), `located` saying where each match stood; marks the pairs of iterations
/// still being played (of runs not stopped) to be played again.
pub(super) fn take_back_from_runs(
    tunes: &TransactionalTree,
    taken: &mut [PurgedPair],
    located: &TuneIterations,
) -> ConflictableTransactionResult<(), StoreError> {
    for pair in taken.iter_mut().filter(|pair| pair.tune != 0) {
        let Some(&(tune, iteration)) = located.get(&pair.match_id) else {
            continue;
        };
        let run_key = tune.to_be_bytes();
        let Some(bytes) = tunes.get(run_key)? else {
            continue;
        };
        let mut run = StoredTune::decode(bytes.as_ref()).map_err(abort("tuning run"))?;
        let record = TuneRecord::from(&run);
        let playing = record.phase == TunePhase::Iterating
            && record.current_match == pair.match_id
            && record.iterations_done == iteration;
        if playing {
            if record.control == crate::tune_record::TuneControl::Open {
                pair.replay = true;
                run.purged_replayed_pairs = run.purged_replayed_pairs.saturating_add(1);
                tunes.insert(&run_key, run.encode_to_vec())?;
            }
            continue;
        }
        let step_key = pair_key(tune, iteration);
        let Some(bytes) = tunes.get(step_key)? else {
            continue;
        };
        let mut step = StoredTuneStep::decode(bytes.as_ref()).map_err(abort("tuning step"))?;
        if step.match_id != pair.match_id {
            continue;
        }
        let net = take_games(&mut step, &pair.a_half_points);
        // The step moved θ by step(k) · net · Δ (then clamped); this pair's share goes back.
        let shift = record.schedule.step(iteration) * net as f64;
        if run.owed.len() != step.delta.len() {
            run.owed = vec![0.0; step.delta.len()];
        }
        for (owed, sign) in run.owed.iter_mut().zip(&step.delta) {
            *owed -= shift * f64::from(sign.signum());
        }
        run.owed_pairs = run.owed_pairs.saturating_add(1);
        run.purged_stepped_pairs = run.purged_stepped_pairs.saturating_add(1);
        tunes.insert(&step_key, step.encode_to_vec())?;
        tunes.insert(&run_key, run.encode_to_vec())?;
    }
    Ok(())
}

/// Moves one pair's games (A's points in each, doubled) from `step`'s counts to its purged
/// counts; returns the pair's net games for A (wins − losses).
fn take_games(step: &mut StoredTuneStep, a_half_points: &[u32]) -> i64 {
    let mut net = 0;
    for &half in a_half_points {
        let (kept, purged, sign) = match half {
            2 => (&mut step.wins, &mut step.purged_wins, 1),
            1 => (&mut step.draws, &mut step.purged_draws, 0),
            _ => (&mut step.losses, &mut step.purged_losses, -1),
        };
        *kept = kept.saturating_sub(1);
        *purged = purged.saturating_add(1);
        net += sign;
    }
    step.purged_pairs = step.purged_pairs.saturating_add(1);
    net
}

#[cfg(test)]
mod tests {
    use pentago::SpsaSchedule;
    use pentagrid_model::TuneStep;

    use super::*;
    use crate::tune_record::TuneControl;
    use crate::{Applied, PairEffect, ResultEffect};

    /// A run of three iterations over one parameter whose iteration 0 (match 20) is stepped
    /// and iteration 1 (match 21) is being played.
    fn run() -> TuneRecord {
        TuneRecord {
            base: "uct:playouts=50".into(),
            params: vec!["playouts=10..200".into()],
            schedule: SpsaSchedule::standard(3),
            pairs_per_iteration: 2,
            seed: 9,
            openings: "random:plies=2".into(),
            weight: 1,
            sprt: String::new(),
            sprt_pairs: 0,
            iterations_done: 1,
            theta: vec![0.5],
            phase: TunePhase::Iterating,
            control: TuneControl::Open,
            current_match: 21,
            sprt_match: 0,
            purges: Default::default(),
            owner: String::new(),
        }
    }

    /// Stores `worker`'s pair `pair` of match `match_id` as job `job`, A scoring `points`.
    fn play(store: &Store, worker: &str, job: u64, match_id: u64, pair: u64, points: [f64; 2]) {
        let effect = ResultEffect {
            pair: Some(PairEffect {
                match_id,
                pair,
                job_id: job,
                games: Vec::new(),
                accuracy: None,
                game_points: points,
            }),
            ..ResultEffect::default()
        };
        assert_eq!(store.apply_as(worker, job, &effect), Applied::Applied);
    }

    #[test]
    fn a_stepped_iteration_owes_its_purged_pairs_shift_and_the_current_one_replays() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for id in [20, 21] {
            let record = StoredMatch {
                pairs: 2,
                pentanomial: vec![0; 5],
                tune: 7,
                ..StoredMatch::default()
            };
            store.put_match(id, &record).unwrap();
        }
        // Iteration 0: the liar's pair won both games for A, the honest one drew both.
        play(&store, "liar", 1, 20, 0, [1.0, 1.0]);
        play(&store, "honest", 2, 20, 1, [0.5, 0.5]);
        let before = TuneRecord {
            iterations_done: 0,
            current_match: 20,
            ..run()
        };
        store.put_tune(7, &before).unwrap();
        let step = TuneStep {
            iteration: 0,
            match_id: 20,
            delta: vec![-1],
            wins: 2,
            draws: 2,
            theta: vec![0.5],
            ..TuneStep::default()
        };
        assert!(store.record_tune_step(7, &before, &step, &run()).unwrap());
        // Iteration 1: the liar played one pair of two so far.
        play(&store, "liar", 3, 21, 0, [0.0, 0.5]);
        // An ordinary match's pair of the liar is replayed as before.
        store
            .put_match(
                22,
                &StoredMatch {
                    pairs: 1,
                    pentanomial: vec![0; 5],
                    ..StoredMatch::default()
                },
            )
            .unwrap();
        play(&store, "liar", 4, 22, 0, [1.0, 0.0]);

        let purged = store.purge_worker("liar").unwrap();
        let replay: Vec<(u64, bool)> = purged
            .pairs
            .iter()
            .map(|p| (p.match_id, p.replay))
            .collect();
        assert_eq!(replay, [(20, false), (21, true), (22, true)]);
        let steps = store.tune_steps(7, 0, 10).unwrap();
        let stepped = &steps[0];
        assert_eq!(
            (stepped.wins, stepped.draws, stepped.losses),
            (0, 2, 0),
            "the honest pair's games stay"
        );
        assert_eq!(
            (
                stepped.purged_pairs,
                stepped.purged_wins,
                stepped.purged_draws,
                stepped.purged_losses
            ),
            (1, 2, 0, 0)
        );
        let after = store.tune(7).unwrap().unwrap();
        // The liar's two wins moved θ by step(0) · 2 · Δ (Δ = −1): owed back, + step(0) · 2.
        let owed = 2.0 * run().schedule.step(0);
        assert_eq!(after.purges.owed, [owed]);
        assert_eq!(
            (
                after.purges.stepped_pairs,
                after.purges.replayed_pairs,
                after.purges.owed_pairs
            ),
            (1, 1, 1)
        );
        assert_eq!(
            after.theta,
            [0.5],
            "the point itself waits for the next step"
        );
        // A second purge finds nothing more.
        assert!(store.purge_worker("liar").unwrap().pairs.is_empty());
        assert_eq!(store.tune(7).unwrap().unwrap(), after);
    }

    #[test]
    fn a_stopped_runs_pair_is_taken_out_and_not_played_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let record = StoredMatch {
            pairs: 2,
            pentanomial: vec![0; 5],
            tune: 7,
            ..StoredMatch::default()
        };
        store.put_match(21, &record).unwrap();
        let stopped = TuneRecord {
            control: TuneControl::Stopped,
            ..run()
        };
        store.put_tune(7, &stopped).unwrap();
        play(&store, "liar", 3, 21, 0, [1.0, 1.0]);
        let purged = store.purge_worker("liar").unwrap();
        assert_eq!(purged.pairs.len(), 1);
        assert!(!purged.pairs[0].replay);
        assert_eq!(store.tune(7).unwrap().unwrap(), stopped, "nothing owed");
    }
}
