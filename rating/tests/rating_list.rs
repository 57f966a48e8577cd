//! The rating list on synthetic results drawn from known strengths: the fit recovers them
//! within its intervals, the list does not depend on how results are written down, the anchor
//! only shifts it, and any results whatever give a finite list.

use pentagrid_gamekit::seeded_rng;
use pentagrid_rating::{
    Encounter, RatingList, RatingOptions, Trinomial, rating_list, score_of_elo,
};
use rand::RngExt;

fn elo(list: &RatingList, name: &str) -> f64 {
    list.player(name).unwrap().rating.elo
}

/// Every pair of `strengths` (Elo) plays `games` games: a draw with probability up to 30%
/// (less near a sure result), the rest split so that the expected score is the model's.
fn synthetic(strengths: &[f64], games: u64, seed: u64) -> Vec<Encounter> {
    let mut rng = seeded_rng(seed, 0x5A7E);
    let mut encounters = Vec::new();
    for (i, &ri) in strengths.iter().enumerate() {
        for (j, &rj) in strengths.iter().enumerate().skip(i + 1) {
            let p = score_of_elo(ri - rj);
            let draw = 0.3f64.min(2.0 * p.min(1.0 - p));
            let win = p - draw / 2.0;
            let mut score = Trinomial::default();
            for _ in 0..games {
                let u: f64 = rng.random();
                if u < win {
                    score.wins += 1;
                } else if u < win + draw {
                    score.draws += 1;
                } else {
                    score.losses += 1;
                }
            }
            encounters.push(Encounter::new(&format!("p{i}"), &format!("p{j}"), score));
        }
    }
    encounters
}

#[test]
fn known_strengths_are_recovered_within_their_intervals() {
    let strengths = [0.0, 120.0, -80.0, 250.0, -200.0, 40.0];
    let (mut inside, mut inside_half, mut checks) = (0, 0, 0);
    for seed in 0..40 {
        let list = rating_list(
            &synthetic(&strengths, 300, seed),
            &RatingOptions::anchored("p0"),
        )
        .unwrap();
        for (i, &truth) in strengths.iter().enumerate().skip(1) {
            let r = list.player(&format!("p{i}")).unwrap().rating;
            checks += 1;
            inside += usize::from(r.low <= truth && truth <= r.high);
            // Far outside (over four standard errors) would mean a biased fit.
            let half = r.high - r.elo;
            inside_half += usize::from((r.elo - truth).abs() <= half / 2.0);
            assert!(
                (r.elo - truth).abs() < 2.0 * half,
                "seed {seed} p{i}: {r:?}"
            );
        }
    }
    // 95% intervals, a little wide with draws: at least 90% of 200 should hold the truth.
    assert!(inside * 10 >= checks * 9, "{inside} of {checks}");
    // Nor are they vacuously wide: half as wide (about one standard error), they must miss
    // the truth now and then.
    assert!(inside_half * 20 < checks * 19, "{inside_half} of {checks}");
}

#[test]
fn the_anchor_and_its_rating_only_shift_the_list() {
    let encounters = synthetic(&[0.0, 100.0, -50.0, 30.0], 50, 7);
    let base = rating_list(&encounters, &RatingOptions::default()).unwrap();
    assert_eq!(base.anchor, "p0");
    let shifted = RatingOptions {
        anchor_rating: 1500.0,
        ..RatingOptions::default()
    };
    let moved = rating_list(&encounters, &shifted).unwrap();
    let other = rating_list(&encounters, &RatingOptions::anchored("p2")).unwrap();
    assert_eq!(other.player("p2").unwrap().rating.elo, 0.0);
    let offset = elo(&other, "p0");
    for p in &base.players {
        let (r, m) = (p.rating, moved.player(&p.name).unwrap().rating);
        assert!((m.elo - r.elo - 1500.0).abs() < 1e-9 && (m.low - r.low - 1500.0).abs() < 1e-9);
        assert!(
            (elo(&other, &p.name) - r.elo - offset).abs() < 1e-6,
            "{}",
            p.name
        );
    }
    // The fitted differences do not depend on the anchor either.
    for (x, y) in base.pairs.iter().zip(&other.pairs) {
        assert_eq!((&x.a, &x.b), (&y.a, &y.b));
        assert!((x.difference.elo - y.difference.elo).abs() < 1e-6);
    }
}

#[test]
fn order_and_orientation_of_the_results_do_not_matter() {
    let encounters = synthetic(&[0.0, 100.0, -50.0, 30.0], 40, 3);
    let base = rating_list(&encounters, &RatingOptions::anchored("p1")).unwrap();
    let mut turned: Vec<Encounter> = encounters
        .iter()
        .map(|e| Encounter::new(&e.b, &e.a, e.score.flipped()))
        .collect();
    turned.reverse();
    let other = rating_list(&turned, &RatingOptions::anchored("p1")).unwrap();
    for p in &base.players {
        let q = other.player(&p.name).unwrap();
        assert!((p.rating.elo - q.rating.elo).abs() < 1e-6 && p.rank == q.rank);
        assert_eq!((p.games, p.points), (q.games, q.points));
    }
    // Split results add up to the same list.
    let halves: Vec<Encounter> = encounters
        .iter()
        .flat_map(|e| {
            let s = e.score;
            let first = Trinomial::new(s.wins / 2, s.draws / 2, s.losses / 2);
            let rest = Trinomial::new(
                s.wins - first.wins,
                s.draws - first.draws,
                s.losses - first.losses,
            );
            [
                Encounter::new(&e.a, &e.b, first),
                Encounter::new(
                    &e.b,
                    &e.a,
                    Trinomial::new(rest.losses, rest.draws, rest.wins),
                ),
            ]
        })
        .collect();
    let split = rating_list(&halves, &RatingOptions::anchored("p1")).unwrap();
    for p in &base.players {
        assert!((p.rating.elo - elo(&split, &p.name)).abs() < 1e-6);
    }
}

#[test]
fn mirrored_results_mirror_the_ratings_and_equal_results_tie() {
    let encounters = synthetic(&[0.0, 100.0, -50.0], 60, 11);
    let base = rating_list(&encounters, &RatingOptions::anchored("p0")).unwrap();
    let mirrored: Vec<Encounter> = encounters
        .iter()
        .map(|e| Encounter::new(&e.a, &e.b, e.score.flipped()))
        .collect();
    let mirror = rating_list(&mirrored, &RatingOptions::anchored("p0")).unwrap();
    for p in &base.players {
        assert!((p.rating.elo + elo(&mirror, &p.name)).abs() < 1e-6);
    }
    let even = [
        Encounter::new("x", "y", Trinomial::new(3, 4, 3)),
        Encounter::new("y", "z", Trinomial::new(5, 0, 5)),
        Encounter::new("z", "x", Trinomial::new(0, 10, 0)),
    ];
    let tie = rating_list(&even, &RatingOptions::default()).unwrap();
    assert!(
        tie.players.iter().all(|p| p.rating.elo.abs() < 1e-9),
        "{tie:?}"
    );
}

#[test]
fn more_games_narrow_the_intervals_by_their_square_root() {
    let encounters = synthetic(&[0.0, 150.0, -60.0], 100, 5);
    let base = rating_list(&encounters, &RatingOptions::anchored("p0")).unwrap();
    let quadrupled: Vec<Encounter> = encounters
        .iter()
        .map(|e| {
            Encounter::new(
                &e.a,
                &e.b,
                Trinomial::new(4 * e.score.wins, 4 * e.score.draws, 4 * e.score.losses),
            )
        })
        .collect();
    let options = RatingOptions {
        prior_draws: 4.0,
        ..RatingOptions::anchored("p0")
    };
    let more = rating_list(&quadrupled, &options).unwrap();
    for p in base.players.iter().filter(|p| p.name != "p0") {
        let q = more.player(&p.name).unwrap().rating;
        assert!((q.elo - p.rating.elo).abs() < 1e-6);
        let ratio = (p.rating.high - p.rating.low) / (q.high - q.low);
        assert!((ratio - 2.0).abs() < 1e-6, "{ratio}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Any results give a finite list: no NaN, intervals around the ratings, the anchor
    /// exact, every game counted for both players.
    #[test]
    fn any_results_give_a_finite_list(
        results in proptest::collection::vec(
            (0usize..6, 0usize..6, 0u64..40, 0u64..40, 0u64..40), 1..20),
        prior in 0.01f64..10.0,
        anchor_rating in -3000.0f64..3000.0,
    ) {
        // Games of a player against itself (a == b) are left out of the list.
        let encounters: Vec<Encounter> = results
            .iter()
            .map(|&(a, b, w, d, l)| Encounter::new(&format!("p{a}"), &format!("p{b}"), Trinomial::new(w, d, l)))
            .collect();
        let options = RatingOptions { anchor: None, anchor_rating, prior_draws: prior };
        match rating_list(&encounters, &options) {
            Err(e) => proptest::prop_assert!(false, "{e}"),
            Ok(list) => {
                let anchor = list.player(&list.anchor).unwrap();
                proptest::prop_assert_eq!(anchor.rating.elo, anchor_rating);
                proptest::prop_assert_eq!(anchor.component, 0);
                for p in &list.players {
                    let r = p.rating;
                    proptest::prop_assert!(r.elo.is_finite() && r.low.is_finite() && r.high.is_finite());
                    proptest::prop_assert!(r.low <= r.elo && r.elo <= r.high, "{:?}", p);
                    proptest::prop_assert!(p.points <= p.games as f64);
                }
                let games: u64 = list.players.iter().map(|p| p.games).sum();
                let points: f64 = list.players.iter().map(|p| p.points).sum();
                proptest::prop_assert!((points * 2.0 - games as f64).abs() < 1e-6);
                let total: u64 = encounters
                    .iter()
                    .filter(|e| e.a != e.b)
                    .map(|e| e.score.games())
                    .sum();
                proptest::prop_assert_eq!(games, 2 * total);
            }
        }
    }
}
