//! What a tuning run plays: its parameter space read back from the stored run, and the match
//! of each iteration — `θ + cΔ` against `θ − cΔ`, Δ from the run's seed and the iteration, the
//! openings from a seed of their own per iteration — or of its follow-up SPRT.

use pentago::{
    NamedPlayer, OpeningSource, ParamRange, Player, TuneSpace, UctConfig, perturbation, perturbed,
    splitmix64,
};
use pentagrid_rating::Sprt;
use thiserror::Error;

use crate::matches::MatchSpec;
use pentagrid_store::tune_record::{TunePhase, TuneRecord};

/// A stored run whose settings do not read back (what does not).
#[derive(Debug, Error)]
#[error("{0}")]
pub struct Unreadable(pub String);

/// The space of a stored run, read back from its text forms.
pub(crate) fn space_of(record: &TuneRecord) -> Result<TuneSpace, Unreadable> {
    let unreadable = Unreadable;
    let base = match record.base.parse::<Player>() {
        Ok(Player::Uct(config)) => config,
        Ok(other) => return Err(unreadable(format!("base {other} is not a uct: player"))),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let params = record
        .params
        .iter()
        .map(|text| text.parse::<ParamRange>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| unreadable(e.to_string()))?;
    TuneSpace::new(base, params).map_err(|e| unreadable(e.to_string()))
}

/// The seed of iteration `k`'s openings (the SPRT's: `k` = the iteration count).
fn match_seed(seed: u64, k: u64) -> u64 {
    splitmix64(seed ^ splitmix64(k ^ 0x7E57_0000_0000))
}

fn named(name: String, config: UctConfig) -> NamedPlayer {
    NamedPlayer {
        name: Some(name),
        player: Player::Uct(config),
    }
}

/// The match that plays run `id`'s next match (`record` as stored, `space` read from it): its
/// current iteration (A `θ + cΔ`, B `θ − cΔ`, tagged with the run), or while verifying the
/// follow-up SPRT (A the tuned configuration, B the base; an ordinary match).
pub(crate) fn next_match(
    id: u64,
    record: &TuneRecord,
    space: &TuneSpace,
) -> Result<MatchSpec, Unreadable> {
    let unreadable = Unreadable;
    let openings: OpeningSource = record
        .openings
        .parse()
        .map_err(|e| unreadable(format!("{e}")))?;
    let k = record.iterations_done;
    let common = MatchSpec {
        a: named("plus".into(), space.base().clone()),
        b: named("minus".into(), space.base().clone()),
        pairs: record.pairs_per_iteration,
        sprt: None,
        openings,
        opening_positions: Vec::new(),
        seed: match_seed(record.seed, k),
        accuracy_stones: None,
        tournament: None,
        time: None,
        weight: record.weight,
        owner: record.owner.clone(),
        adjudicate: None,
        tune: id,
    };
    if record.phase == TunePhase::Verifying {
        let sprt: Sprt = record
            .sprt
            .parse()
            .map_err(|e| unreadable(format!("{e}")))?;
        return Ok(MatchSpec {
            a: named(format!("tuned-{id}"), space.config(&record.theta)),
            b: named(format!("base-{id}"), space.base().clone()),
            pairs: record.sprt_pairs,
            sprt: Some(sprt),
            tune: 0,
            ..common
        });
    }
    let delta = perturbation(record.seed, k, record.theta.len());
    let [plus, minus] = perturbed(&record.theta, &delta, record.schedule.c(k));
    Ok(MatchSpec {
        a: named("plus".into(), space.config(&plus)),
        b: named("minus".into(), space.config(&minus)),
        ..common
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Budget, SpsaSchedule};
    use pentagrid_store::tune_record::TuneControl;

    fn record() -> TuneRecord {
        TuneRecord {
            base: "uct:k=0.5,playouts=100".into(),
            params: vec!["k=0..1".into(), "playouts=50..150".into()],
            schedule: SpsaSchedule::standard(10),
            pairs_per_iteration: 3,
            seed: 7,
            openings: "random:plies=4".into(),
            weight: 5,
            sprt: "elo0=0,elo1=10,alpha=0.05,beta=0.05".into(),
            sprt_pairs: 40,
            iterations_done: 2,
            theta: vec![0.5, 0.5],
            phase: TunePhase::Iterating,
            control: TuneControl::Open,
            current_match: 9,
            sprt_match: 0,
            purges: Default::default(),
            owner: String::new(),
        }
    }

    fn uct(player: &NamedPlayer) -> &UctConfig {
        match &player.player {
            Player::Uct(config) => config,
            other => panic!("{other}"),
        }
    }

    #[test]
    fn an_iteration_plays_theta_plus_against_theta_minus_as_the_run_s_match() {
        let record = record();
        let space = space_of(&record).unwrap();
        let spec = next_match(4, &record, &space).unwrap();
        let delta = perturbation(7, 2, 2);
        let c = record.schedule.c(2);
        let (a, b) = (uct(&spec.a), uct(&spec.b));
        assert_eq!(
            a.exploration,
            space.values(&[0.5 + c * delta[0], 0.5])[0] as f32
        );
        assert_eq!(
            b.exploration,
            space.values(&[0.5 - c * delta[0], 0.5])[0] as f32
        );
        let played = |config: &UctConfig| match config.budget {
            Budget::Playouts(n) => n as f64,
            Budget::Seconds(_) => panic!("a playout budget"),
        };
        assert_eq!(played(a) > played(b), delta[1] > 0.0);
        assert_eq!((spec.pairs, spec.weight, spec.tune), (3, 5, 4));
        assert_eq!(spec.openings.to_string(), "random:plies=4");
        assert!(spec.sprt.is_none());
        // Each iteration has openings of its own, fixed by the seed.
        let next = TuneRecord {
            iterations_done: 3,
            ..record.clone()
        };
        assert_ne!(next_match(4, &next, &space).unwrap().seed, spec.seed);
        assert_eq!(next_match(4, &record, &space).unwrap().seed, spec.seed);
    }

    #[test]
    fn the_follow_up_plays_tuned_against_base_as_an_ordinary_match() {
        let record = TuneRecord {
            phase: TunePhase::Verifying,
            theta: vec![1.0, 0.0],
            ..record()
        };
        let space = space_of(&record).unwrap();
        let spec = next_match(4, &record, &space).unwrap();
        assert_eq!(spec.a.name.as_deref(), Some("tuned-4"));
        assert_eq!(spec.b.name.as_deref(), Some("base-4"));
        assert_eq!(uct(&spec.a).exploration, 1.0);
        assert_eq!(uct(&spec.a).budget, Budget::Playouts(50));
        assert_eq!(uct(&spec.b), space.base());
        assert_eq!((spec.pairs, spec.tune), (40, 0));
        assert!(spec.sprt.is_some());
    }

    #[test]
    fn settings_that_no_longer_read_are_named() {
        let random = TuneRecord {
            base: "random".into(),
            ..record()
        };
        assert!(
            space_of(&random)
                .unwrap_err()
                .0
                .contains("not a uct: player")
        );
        let bad = TuneRecord {
            params: vec!["colour=1..2".into()],
            ..record()
        };
        assert!(space_of(&bad).unwrap_err().0.contains("unknown parameter"));
    }
}
