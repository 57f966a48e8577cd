//! Tuning runs as stored, in the `tunes` tree: the run's record ([`StoredTune`]) under its id
//! (8 bytes), and one record per finished iteration ([`StoredTuneStep`]) under run id ‖
//! iteration (16 bytes), so a run's steps are one key range after its record. Encoded with
//! protobuf (prost) field tags that never change meaning, so the format is stable and evolves
//! only by adding fields; records written before a field existed read it as its default.
//! A step and the record's new point are written in one transaction, which checks that the
//! run and the step's match still stand as the step was computed from (a purge may have
//! changed either, see [`super::tune_purge`]).

use pentago::SpsaSchedule;
use pentagrid_model::{TunePurges, TuneStep};
use prost::Message;
use sled::Transactional;

use super::{
    Store, StoreError, StoredMatch, abort, corrupt, get_record, id_of, pair_key, put_record,
};
use crate::tune_record::{TuneControl, TunePhase, TuneRecord};

/// A tuning run, stored under its id.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredTune {
    /// The base player (text form of a `uct:` configuration).
    #[prost(string, tag = "1")]
    pub base: String,
    /// The parameter ranges (`NAME=LOW..HIGH`), in coordinate order.
    #[prost(string, repeated, tag = "2")]
    pub params: Vec<String>,
    /// Iterations asked for.
    #[prost(uint64, tag = "3")]
    pub iterations: u64,
    /// Game pairs per iteration.
    #[prost(uint64, tag = "4")]
    pub pairs_per_iteration: u64,
    /// The perturbation of the last iteration (a fraction of each range).
    #[prost(double, tag = "5")]
    pub c_end: f64,
    /// `a_end / c_end²`.
    #[prost(double, tag = "6")]
    pub r_end: f64,
    /// The stability constant `A`.
    #[prost(double, tag = "7")]
    pub stability: f64,
    /// The gain's decay `α`.
    #[prost(double, tag = "8")]
    pub alpha: f64,
    /// The perturbation's decay `γ`.
    #[prost(double, tag = "9")]
    pub gamma: f64,
    /// The seed of the perturbations and the openings.
    #[prost(uint64, tag = "10")]
    pub seed: u64,
    /// The opening source (text form).
    #[prost(string, tag = "11")]
    pub openings: String,
    /// The share of the workers; 0 reads as 1.
    #[prost(uint32, tag = "12")]
    pub weight: u32,
    /// The follow-up SPRT (text form), empty for none.
    #[prost(string, tag = "13")]
    pub sprt: String,
    /// Most pairs of the follow-up SPRT match.
    #[prost(uint64, tag = "14")]
    pub sprt_pairs: u64,
    /// Iterations finished (as many steps are stored).
    #[prost(uint64, tag = "15")]
    pub iterations_done: u64,
    /// The current point, normalized (0..1 per parameter).
    #[prost(double, repeated, tag = "16")]
    pub theta: Vec<f64>,
    /// The phase: 0 iterating, 1 verifying (the SPRT match), 2 done; an unknown number reads
    /// as done (nothing more is started).
    #[prost(uint32, tag = "17")]
    pub phase: u32,
    /// 0 open, 1 stopped; an unknown number reads as stopped.
    #[prost(uint32, tag = "18")]
    pub control: u32,
    /// The match of the current iteration, then of the SPRT; 0: none.
    #[prost(uint64, tag = "19")]
    pub current_match: u64,
    /// The follow-up SPRT match; 0: none yet.
    #[prost(uint64, tag = "20")]
    pub sprt_match: u64,
    /// Pairs of caught workers taken out of iterations whose steps were already taken.
    #[prost(uint64, tag = "21")]
    pub purged_stepped_pairs: u64,
    /// Pairs of caught workers taken out of the iteration being played, played again.
    #[prost(uint64, tag = "22")]
    pub purged_replayed_pairs: u64,
    /// The shift of the point (normalized) owed for stepped pairs, added at the next step.
    #[prost(double, repeated, tag = "23")]
    pub owed: Vec<f64>,
    /// How many stepped pairs the owed shift undoes.
    #[prost(uint64, tag = "24")]
    pub owed_pairs: u64,
    /// The user whose token created the run; empty for none (and runs stored before users
    /// existed read so).
    #[prost(string, tag = "25")]
    pub owner: String,
}

/// One finished iteration of a run, stored under run id ‖ iteration.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredTuneStep {
    /// The match that played it.
    #[prost(uint64, tag = "1")]
    pub match_id: u64,
    /// The signs Δ (+1 or −1 each).
    #[prost(sint32, repeated, tag = "2")]
    pub delta: Vec<i32>,
    /// The perturbation c (normalized).
    #[prost(double, tag = "3")]
    pub c: f64,
    /// The values θ + cΔ played.
    #[prost(double, repeated, tag = "4")]
    pub plus: Vec<f64>,
    /// The values θ − cΔ played.
    #[prost(double, repeated, tag = "5")]
    pub minus: Vec<f64>,
    /// θ + cΔ's games won.
    #[prost(uint64, tag = "6")]
    pub wins: u64,
    /// θ + cΔ's games drawn.
    #[prost(uint64, tag = "7")]
    pub draws: u64,
    /// θ + cΔ's games lost.
    #[prost(uint64, tag = "8")]
    pub losses: u64,
    /// The point after the update, normalized.
    #[prost(double, repeated, tag = "9")]
    pub theta: Vec<f64>,
    /// The parameter values after the update.
    #[prost(double, repeated, tag = "10")]
    pub values: Vec<f64>,
    /// Pairs of caught workers taken out after the step was taken (the counts above stay).
    #[prost(uint64, tag = "11")]
    pub purged_pairs: u64,
    /// θ + cΔ's games won in them.
    #[prost(uint64, tag = "12")]
    pub purged_wins: u64,
    /// θ + cΔ's games drawn in them.
    #[prost(uint64, tag = "13")]
    pub purged_draws: u64,
    /// θ + cΔ's games lost in them.
    #[prost(uint64, tag = "14")]
    pub purged_losses: u64,
    /// The shift (normalized) the step added for earlier steps' purged pairs.
    #[prost(double, repeated, tag = "15")]
    pub correction: Vec<f64>,
}

fn phase_number(phase: TunePhase) -> u32 {
    match phase {
        TunePhase::Iterating => 0,
        TunePhase::Verifying => 1,
        TunePhase::Done => 2,
    }
}

impl From<&TuneRecord> for StoredTune {
    fn from(r: &TuneRecord) -> StoredTune {
        StoredTune {
            base: r.base.clone(),
            params: r.params.clone(),
            iterations: r.schedule.iterations,
            pairs_per_iteration: r.pairs_per_iteration,
            c_end: r.schedule.c_end,
            r_end: r.schedule.r_end,
            stability: r.schedule.stability,
            alpha: r.schedule.alpha,
            gamma: r.schedule.gamma,
            seed: r.seed,
            openings: r.openings.clone(),
            weight: r.weight,
            sprt: r.sprt.clone(),
            sprt_pairs: r.sprt_pairs,
            iterations_done: r.iterations_done,
            theta: r.theta.clone(),
            phase: phase_number(r.phase),
            control: match r.control {
                TuneControl::Open => 0,
                TuneControl::Stopped => 1,
            },
            current_match: r.current_match,
            sprt_match: r.sprt_match,
            purged_stepped_pairs: r.purges.stepped_pairs,
            purged_replayed_pairs: r.purges.replayed_pairs,
            owed: r.purges.owed.clone(),
            owed_pairs: r.purges.owed_pairs,
            owner: r.owner.clone(),
        }
    }
}

impl From<&StoredTune> for TuneRecord {
    fn from(s: &StoredTune) -> TuneRecord {
        TuneRecord {
            base: s.base.clone(),
            params: s.params.clone(),
            schedule: SpsaSchedule {
                iterations: s.iterations,
                c_end: s.c_end,
                r_end: s.r_end,
                stability: s.stability,
                alpha: s.alpha,
                gamma: s.gamma,
            },
            pairs_per_iteration: s.pairs_per_iteration,
            seed: s.seed,
            openings: s.openings.clone(),
            weight: s.weight.max(1),
            sprt: s.sprt.clone(),
            sprt_pairs: s.sprt_pairs,
            iterations_done: s.iterations_done,
            theta: s.theta.clone(),
            phase: match s.phase {
                0 => TunePhase::Iterating,
                1 => TunePhase::Verifying,
                _ => TunePhase::Done,
            },
            control: match s.control {
                0 => TuneControl::Open,
                _ => TuneControl::Stopped,
            },
            current_match: s.current_match,
            sprt_match: s.sprt_match,
            purges: TunePurges {
                stepped_pairs: s.purged_stepped_pairs,
                replayed_pairs: s.purged_replayed_pairs,
                owed: s.owed.clone(),
                owed_pairs: s.owed_pairs,
            },
            owner: s.owner.clone(),
        }
    }
}

impl From<&TuneStep> for StoredTuneStep {
    fn from(step: &TuneStep) -> StoredTuneStep {
        StoredTuneStep {
            match_id: step.match_id,
            delta: step.delta.clone(),
            c: step.c,
            plus: step.plus.clone(),
            minus: step.minus.clone(),
            wins: step.wins,
            draws: step.draws,
            losses: step.losses,
            theta: step.theta.clone(),
            values: step.values.clone(),
            purged_pairs: step.purged_pairs,
            purged_wins: step.purged_wins,
            purged_draws: step.purged_draws,
            purged_losses: step.purged_losses,
            correction: step.correction.clone(),
        }
    }
}

impl StoredTuneStep {
    /// The step as the services know it, as iteration `iteration`.
    #[must_use]
    pub fn step(&self, iteration: u64) -> TuneStep {
        TuneStep {
            iteration,
            match_id: self.match_id,
            delta: self.delta.iter().map(|&d| d.signum()).collect(),
            c: self.c,
            plus: self.plus.clone(),
            minus: self.minus.clone(),
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            theta: self.theta.clone(),
            values: self.values.clone(),
            purged_pairs: self.purged_pairs,
            purged_wins: self.purged_wins,
            purged_draws: self.purged_draws,
            purged_losses: self.purged_losses,
            correction: self.correction.clone(),
        }
    }
}

impl Store {
    /// Stores a run's record as it is (durable at the next flush).
    pub fn put_tune(&self, id: u64, record: &TuneRecord) -> Result<(), StoreError> {
        let _writing = self.writing();
        put_record(&self.tunes, id, &StoredTune::from(record))
    }

    /// A run's record.
    pub fn tune(&self, id: u64) -> Result<Option<TuneRecord>, StoreError> {
        let stored: Option<StoredTune> = get_record(&self.tunes, id, "tuning run")?;
        Ok(stored.as_ref().map(TuneRecord::from))
    }

    /// Stores iteration `step` of run `id` and the run's record after it in one transaction,
    /// once, and only while both still stand as the step was computed from: `false` (and
    /// nothing written) when the stored run is no longer `before` (it has finished that
    /// iteration, was stopped, or a purge changed it; or it is gone), or the step's match no
    /// longer holds the games the step counts (a purge took a pair out).
    pub fn record_tune_step(
        &self,
        id: u64,
        before: &TuneRecord,
        step: &TuneStep,
        after: &TuneRecord,
    ) -> Result<bool, StoreError> {
        let _writing = self.writing();
        let key = id.to_be_bytes();
        let step_key = pair_key(id, step.iteration);
        let (record, stored_step) = (StoredTune::from(after), StoredTuneStep::from(step));
        let games = (step.wins, step.draws, step.losses);
        let trees = (&self.tunes, &self.matches);
        let written = trees.transaction(|(tunes, matches)| {
            let Some(bytes) = tunes.get(key)? else {
                return Ok(false);
            };
            let current = StoredTune::decode(bytes.as_ref()).map_err(abort("tuning run"))?;
            if TuneRecord::from(&current) != *before || before.iterations_done != step.iteration {
                return Ok(false);
            }
            let Some(bytes) = matches.get(step.match_id.to_be_bytes())? else {
                return Ok(false);
            };
            let played = StoredMatch::decode(bytes.as_ref()).map_err(abort("match"))?;
            if (played.wins, played.draws, played.losses) != games {
                return Ok(false);
            }
            tunes.insert(&step_key, stored_step.encode_to_vec())?;
            tunes.insert(&key, record.encode_to_vec())?;
            Ok(true)
        })?;
        Ok(written)
    }

    /// The steps of run `id` from iteration `from` on, at most `limit`.
    pub fn tune_steps(
        &self,
        id: u64,
        from: u64,
        limit: usize,
    ) -> Result<Vec<TuneStep>, StoreError> {
        self.tunes
            .range(pair_key(id, from)..=pair_key(id, u64::MAX))
            .take(limit)
            .map(|entry| {
                let (key, value) = entry?;
                let iteration = id_of(&key[8..], "tuning step")?;
                let stored = StoredTuneStep::decode(value.as_ref())
                    .map_err(|e| corrupt("tuning step", e))?;
                Ok(stored.step(iteration))
            })
            .collect()
    }

    /// Stored runs with ids below `before` (every id when 0), newest first, at most `limit`;
    /// each step back skips a whole run (its steps sort after its record).
    pub fn tunes_before(
        &self,
        before: u64,
        limit: usize,
    ) -> Result<Vec<(u64, TuneRecord)>, StoreError> {
        let mut found = Vec::new();
        let mut bound = (before != 0).then_some(before);
        while found.len() < limit {
            let last = match bound {
                Some(id) => self.tunes.range(..id.to_be_bytes()).next_back(),
                None => self.tunes.iter().next_back(),
            };
            let Some(entry) = last else { break };
            let (key, _) = entry?;
            let id = id_of(key.get(..8).unwrap_or(&key), "tuning run")?;
            if let Some(record) = self.tune(id)? {
                found.push((id, record));
            }
            bound = Some(id);
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> TuneRecord {
        TuneRecord {
            base: "uct:playouts=50".into(),
            params: vec!["playouts=10..200".into()],
            schedule: SpsaSchedule::standard(4),
            pairs_per_iteration: 2,
            seed: 9,
            openings: "random:plies=2".into(),
            weight: 3,
            sprt: String::new(),
            sprt_pairs: 0,
            iterations_done: 0,
            theta: vec![0.2],
            phase: TunePhase::Iterating,
            control: TuneControl::Open,
            current_match: 5,
            sprt_match: 0,
            purges: Default::default(),
            owner: String::new(),
        }
    }

    fn step(iteration: u64) -> TuneStep {
        TuneStep {
            iteration,
            match_id: 5,
            delta: vec![-1],
            c: 0.15,
            plus: vec![10.0],
            minus: vec![67.0],
            wins: 1,
            draws: 0,
            losses: 3,
            theta: vec![0.3],
            values: vec![67.0],
            purged_pairs: 1,
            purged_wins: 2,
            correction: vec![0.0625],
            ..TuneStep::default()
        }
    }

    #[test]
    fn runs_and_steps_round_trip_and_a_step_is_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.put_tune(7, &record()).unwrap();
        assert_eq!(store.tune(7).unwrap(), Some(record()));
        let after = TuneRecord {
            iterations_done: 1,
            theta: vec![0.3],
            purges: TunePurges {
                stepped_pairs: 2,
                replayed_pairs: 1,
                owed: vec![-0.125],
                owed_pairs: 1,
            },
            ..record()
        };
        // The step's match holds other games than the step counts (a purge took a pair out
        // meanwhile): nothing is written.
        let played = StoredMatch {
            wins: 1,
            losses: 4,
            ..StoredMatch::default()
        };
        store.put_match(5, &played).unwrap();
        assert!(
            !store
                .record_tune_step(7, &record(), &step(0), &after)
                .unwrap()
        );
        store
            .put_match(
                5,
                &StoredMatch {
                    losses: 3,
                    ..played
                },
            )
            .unwrap();
        // Nor when the run is no longer what the step was computed from.
        let changed = TuneRecord {
            theta: vec![0.25],
            ..record()
        };
        assert!(
            !store
                .record_tune_step(7, &changed, &step(0), &after)
                .unwrap()
        );
        assert!(
            store
                .record_tune_step(7, &record(), &step(0), &after)
                .unwrap()
        );
        assert!(
            !store
                .record_tune_step(7, &record(), &step(0), &after)
                .unwrap(),
            "once"
        );
        assert!(
            !store
                .record_tune_step(8, &record(), &step(0), &after)
                .unwrap(),
            "no run"
        );
        assert_eq!(store.tune(7).unwrap(), Some(after.clone()));
        assert_eq!(store.tune_steps(7, 0, 10).unwrap(), [step(0)]);
        assert!(store.tune_steps(7, 1, 10).unwrap().is_empty());
        store.put_tune(3, &record()).unwrap();
        store.put_tune(12, &record()).unwrap();
        let ids = |before, limit| -> Vec<u64> {
            let listed = store.tunes_before(before, limit).unwrap();
            listed.into_iter().map(|(id, _)| id).collect()
        };
        assert_eq!(ids(0, 10), [12, 7, 3]);
        assert_eq!(ids(12, 1), [7]);
        assert_eq!(ids(7, 10), [3]);
    }

    #[test]
    fn unknown_phases_and_controls_read_as_finished() {
        let mut stored = StoredTune::from(&record());
        stored.phase = 9;
        stored.control = 4;
        stored.weight = 0;
        let read =
            TuneRecord::from(&StoredTune::decode(stored.encode_to_vec().as_slice()).unwrap());
        assert_eq!(read.phase, TunePhase::Done);
        assert_eq!(read.control, TuneControl::Stopped);
        assert_eq!(read.weight, 1);
    }
}
