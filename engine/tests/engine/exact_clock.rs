//! Exact knowledge under the clock: the default UCT player takes a proven win whenever one is
//! known within its budget and never gives up a proven value, on positions whose values come
//! from an independent solver (`../shared/data/solved-positions.txt`), each move checked by the
//! engine's alpha-beta solver; a midsolve that runs past its share of a time budget is
//! abandoned for the search, on an injected clock (no test here reads the real one).

use crate::support;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use pentago::{
    Budget, Player, Position, ProvenBy, SearchControl, SearchOptions, SearchResult, SolveLimits,
    Solver, UctConfig, Value, exact_move, search,
};

/// The value for the side to move of `value` as the reference file writes it.
fn value_of(value: i8) -> Value {
    match value {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

/// The exact value `mv` keeps for the mover of `position`, by alpha-beta on the child.
fn value_after(solver: &mut Solver, position: &Position, mv: pentago::Move) -> Value {
    let child = position.play(mv).unwrap();
    match Value::of_status(child.status(), position.side_to_move()) {
        Some(value) => value,
        None => solver
            .alpha_beta(&child, SolveLimits::default())
            .value
            .expect("no limit")
            .negate(),
    }
}

/// A plain search of `position` with `config`.
fn searched(position: &Position, config: &UctConfig) -> Result<SearchResult, pentago::SearchError> {
    search(
        position,
        config,
        &SearchOptions::default(),
        &SearchControl::new(),
    )
}

/// Won and drawn reference positions of `stones` stones or more, `per_value` of each.
fn reference(min_stones: u32, per_value: usize) -> Vec<(Position, Value)> {
    let all = support::solved_positions();
    let mut chosen = Vec::new();
    for wanted in [Value::Win, Value::Draw] {
        chosen.extend(
            all.iter()
                .map(|&(p, v)| (p, value_of(v)))
                .filter(|&(p, v)| v == wanted && p.stone_count() >= min_stones)
                .take(per_value),
        );
    }
    chosen
}

#[test]
fn the_default_player_keeps_every_value_it_can_prove_within_its_budget() {
    // 2,000 playouts stand for 13 ms: the midsolver's expected time fits its share from 25
    // stones on, so every move there is proven; a win is played without a search.
    let config: UctConfig = "uct:playouts=2000".parse().unwrap();
    let player = Player::Uct(config.clone());
    let plain = Player::Uct("uct:playouts=2000,exact=off".parse().unwrap());
    let mut solver = Solver::new(20);
    let mut plain_kept = 0;
    let positions = reference(25, 20);
    for (index, &(position, value)) in positions.iter().enumerate() {
        let mv = player.choose(&position, index as u64, 1);
        assert_eq!(
            value_after(&mut solver, &position, mv),
            value,
            "{position}: {mv} gives up the value"
        );
        let choice = exact_move(&position, &config, None, &|| 0.0, &mut |c| {
            searched(&position, c)
        })
        .unwrap();
        assert_eq!(choice.exact, Some((value, ProvenBy::Midsolver)));
        assert_eq!(choice.search.is_none(), value == Value::Win, "{position}");
        let mv = plain.choose(&position, index as u64, 1);
        plain_kept += usize::from(value_after(&mut solver, &position, mv) == value);
    }
    // The same search without the solvers is not perfect there (so the test can tell).
    assert!(plain_kept < positions.len(), "{plain_kept}");
}

#[test]
fn a_proven_win_below_the_midsolver_is_taken_and_a_proven_draw_kept() {
    // 20 to 22 stones with a small playout budget: no midsolve, but the alpha-beta attempt
    // proves some of them; whatever it proves is kept.
    let config: UctConfig = "uct:playouts=3000".parse().unwrap();
    let mut solver = Solver::new(20);
    let mut proven = 0;
    let positions: Vec<_> = reference(20, 40)
        .into_iter()
        .filter(|(p, _)| p.stone_count() <= 22)
        .collect();
    for &(position, value) in &positions {
        let choice = exact_move(&position, &config, None, &|| 0.0, &mut |c| {
            searched(&position, c)
        })
        .unwrap();
        let Some((known, source)) = choice.exact else {
            continue;
        };
        proven += 1;
        assert_eq!((known, source), (value, ProvenBy::AlphaBeta));
        assert_eq!(
            value_after(&mut solver, &position, choice.mv),
            value,
            "{position}: {} gives up the proven value",
            choice.mv
        );
        if value == Value::Win {
            assert!(choice.search.is_none(), "a proven win is played at once");
        }
    }
    assert!(proven > 0, "the attempt proves some of {}", positions.len());
}

#[test]
fn a_lost_position_is_defended_by_the_search() {
    // Every move loses: the player still answers, with the search's choice.
    let (position, _) = support::solved_positions()
        .into_iter()
        .find(|(p, v)| *v == -1 && p.stone_count() >= 23)
        .unwrap();
    let config: UctConfig = "uct:playouts=20000".parse().unwrap();
    let choice = exact_move(&position, &config, None, &|| 0.0, &mut |c| {
        searched(&position, c)
    })
    .unwrap();
    assert_eq!(choice.exact, Some((Value::Loss, ProvenBy::Midsolver)));
    let result = choice.search.expect("a loss is searched");
    assert_eq!(Some(choice.mv), result.best, "the search's choice");
}

#[test]
fn a_midsolve_past_its_share_of_the_time_is_abandoned_for_the_search() {
    // An injected clock that moves a tenth of a second each time it is read: the midsolver
    // (expected 0.07 s at 22 stones, well within 40% of 10 s) finds the cap (6 s) passed
    // after some sixty looks, gives up, and the search gets what the clock says is left.
    let (position, _) = support::solved_positions()
        .into_iter()
        .find(|(p, _)| p.stone_count() == 22)
        .unwrap();
    let config = UctConfig::default().with_budget(Budget::Seconds(10.0));
    let looks = AtomicU32::new(0);
    let clock = || f64::from(looks.fetch_add(1, Ordering::Relaxed)) * 0.1;
    let given = Mutex::new(None);
    let choice = exact_move(&position, &config, None, &clock, &mut |c| {
        *given.lock().unwrap() = Some(c.budget);
        searched(&position, &c.with_budget(Budget::Playouts(200)))
    })
    .unwrap();
    assert_eq!(choice.exact, None, "abandoned, nothing proven");
    let Some(Budget::Seconds(left)) = *given.lock().unwrap() else {
        panic!("a time budget for the search");
    };
    let read = f64::from(looks.load(Ordering::Relaxed) - 1) * 0.1;
    assert!((left - (10.0 - read)).abs() < 1e-9, "{left} after {read}");
    assert!(left > 3.0 && left < 4.0 + 1e-9, "{left}");

    // With a clock that stands still, the same midsolve finishes and decides.
    let choice = exact_move(&position, &config, None, &|| 0.0, &mut |c| {
        searched(&position, &c.with_budget(Budget::Playouts(200)))
    })
    .unwrap();
    assert_eq!(choice.exact.map(|e| e.1), Some(ProvenBy::Midsolver));
}

#[test]
fn the_midsolver_is_not_started_where_it_cannot_finish_in_its_share() {
    // A midsolve of 20 stones takes more than half a second: within half a second only the
    // alpha-beta attempt runs, and the clock is read only for the search's budget, never by a
    // midsolve.
    let position = support::solved_positions()
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| p.stone_count() == 20)
        .unwrap();
    let config = UctConfig::default().with_budget(Budget::Seconds(0.5));
    let looks = AtomicU32::new(0);
    let clock = || {
        looks.fetch_add(1, Ordering::Relaxed);
        0.0
    };
    let choice = exact_move(&position, &config, None, &clock, &mut |c| {
        searched(&position, &c.with_budget(Budget::Playouts(200)))
    })
    .unwrap();
    assert_ne!(choice.exact.map(|e| e.1), Some(ProvenBy::Midsolver));
    assert!(looks.load(Ordering::Relaxed) <= 1);
}
