//! Tests of result validation: every task kind's checks and the refusals they give.

use super::*;
use pentago::{NoOracle, Player};
use pentagrid_model::{MAX_MOVE_MILLIS, MoveScores, MoveTimes, Row, UNKNOWN_SCORE};

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

fn analyse(playouts: u64) -> Task {
    Task::Analyse {
        position: Position::START,
        config: "uct".parse().unwrap(),
        playouts,
    }
}

fn rows(rows: &[(&str, u64, u64, u64)]) -> Outcome {
    Outcome::Analyse {
        rows: rows
            .iter()
            .map(|&(m, games, wins, draws)| Row {
                mv: mv(m),
                games,
                wins,
                draws,
            })
            .collect(),
        simulations: rows.iter().map(|r| r.1).sum(),
        seconds: 0.1,
    }
}

#[test]
fn symmetric_moves_merge_in_the_canonical_frame() {
    // From the empty board, all four corners are one move.
    let effect = result_effect(
        &analyse(100),
        1,
        &rows(&[("a1-1R", 10, 5, 1), ("f6-1R", 20, 10, 0)]),
    )
    .unwrap();
    let table = &effect.playouts[&Position::START.key().bits()];
    assert_eq!(table.len(), 1);
    assert_eq!(table.values().next().unwrap().games, 30);
    assert_eq!(effect.playout_count, 30);
}

#[test]
fn an_analysis_of_a_win_at_once_needs_no_rows_and_is_stored_exact() {
    // Black wins at once by placing e1: UCT proves the root without a playout.
    let position: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
    let task = Task::Analyse {
        position,
        config: "uct".parse().unwrap(),
        playouts: 8,
    };
    let effect = result_effect(&task, 1, &rows(&[])).unwrap();
    let (key, table) = effect.proven.expect("the win is stored as exact");
    assert_eq!(key, position.canonical().position.key().bits());
    assert_eq!(table.values().copied().collect::<Vec<_>>(), [Value::Win]);
    assert_eq!(effect.playout_count, 0);
}

#[test]
fn bad_analyses_are_refused() {
    for (outcome, refusal) in [
        (rows(&[]), InvalidResult::NoRows),
        (
            rows(&[("a1-1R", 10, 8, 3)]),
            InvalidResult::DecidedOverGames {
                mv: mv("a1-1R"),
                games: 10,
                wins: 8,
                draws: 3,
            },
        ),
        (
            rows(&[("a1-1R", 60, 0, 0), ("b1-1R", 60, 0, 0)]),
            InvalidResult::SimulationsOverBudget {
                simulations: 120,
                budget: 100,
            },
        ),
        (
            rows(&[("a1-1R", 1, 0, 0), ("a1-1R", 1, 0, 0)]),
            InvalidResult::RepeatedMove(mv("a1-1R")),
        ),
    ] {
        assert_eq!(
            result_effect(&analyse(100), 1, &outcome).unwrap_err(),
            refusal
        );
    }
    let Outcome::Analyse { rows: over, .. } = rows(&[("a1-1R", 60, 0, 0), ("b1-1R", 60, 0, 0)])
    else {
        unreachable!()
    };
    let games_over = Outcome::Analyse {
        rows: over,
        simulations: 100,
        seconds: 0.1,
    };
    assert_eq!(
        result_effect(&analyse(100), 1, &games_over).unwrap_err(),
        InvalidResult::GamesOverBudget {
            games: 120,
            budget: 100
        }
    );
    let occupied = Task::Analyse {
        position: Position::START.play(mv("b5-1R")).unwrap(),
        config: "uct".parse().unwrap(),
        playouts: 100,
    };
    let error = result_effect(&occupied, 1, &rows(&[("b5-2R", 1, 0, 0)])).unwrap_err();
    assert!(
        matches!(error, InvalidResult::IllegalMove { mv: m, .. } if m == mv("b5-2R")),
        "{error:?}"
    );
}

#[test]
fn games_must_be_legal_finished_and_truthful() {
    let task = Task::Selfplay {
        start: "....../....../....../....../oooo../xxxx..".parse().unwrap(),
        black: Player::Random,
        white: Player::Random,
    };
    let game = |moves: &[&str], result: &str| Outcome::Selfplay {
        moves: moves.iter().map(|m| mv(m)).collect(),
        result: result.parse().unwrap(),
    };
    let effect = result_effect(&task, 1, &game(&["e1-1R"], "black")).unwrap();
    assert_eq!(effect.games.len(), 1);
    let row = effect
        .games
        .values()
        .next()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!((row.games, row.wins, row.draws), (1, 1, 0));
    assert_eq!(
        result_effect(&task, 1, &game(&["e1-1R"], "white")).unwrap_err(),
        InvalidResult::WrongResult {
            found: "black".parse().unwrap(),
            reported: "white".parse().unwrap(),
        }
    );
    assert!(matches!(
        result_effect(&task, 1, &game(&["a6-1R"], "black")).unwrap_err(),
        InvalidResult::GameNotOver(_)
    ));
    assert!(matches!(
        result_effect(&task, 1, &game(&["a1-1R"], "black")).unwrap_err(),
        InvalidResult::IllegalGameMove { ply: 1, .. }
    ));
    assert_eq!(
        result_effect(&task, 1, &rows(&[("a6-1R", 1, 0, 0)])).unwrap_err(),
        InvalidResult::WrongKind
    );
}

#[test]
fn a_pair_accuracy_report_must_match_its_games() {
    // A late opening: every move of both games is judged from 27 stones on.
    let opening: Position = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox".parse().unwrap();
    let task = |accuracy_stones| Task::Pair {
        match_id: 1,
        pair: 0,
        opening,
        a: Player::Random,
        b: Player::Random,
        accuracy_stones,
        time: None,
        adjudicate: None,
    };
    let played = pentago::play_pair(&opening, &Player::Random, &Player::Random, 5, 1);
    let truth = MatchAccuracy {
        min_stones: 20,
        sides: pentago::pair_accuracy(&played, 20, &NoOracle).unwrap(),
    };
    let games = played.games.map(|game| (game.moves, game.result));
    let outcome = |accuracy| Outcome::Pair {
        games: games.clone(),
        accuracy,
        notes: Default::default(),
    };
    let effect = result_effect(&task(Some(20)), 3, &outcome(Some(truth))).unwrap();
    assert_eq!(effect.pair.unwrap().accuracy, Some(truth));
    let effect = result_effect(&task(None), 3, &outcome(None)).unwrap();
    assert_eq!(effect.pair.unwrap().accuracy, None);

    let lie = |change: fn(&mut MatchAccuracy)| {
        let mut accuracy = truth;
        change(&mut accuracy);
        outcome(Some(accuracy))
    };
    let [a, b] = truth.sides;
    for (asked, outcome, refusal) in [
        (
            Some(20),
            lie(|a| a.sides[1].drops = a.sides[1].moves + 1),
            InvalidResult::AccuracyDrops {
                player: "B",
                drops: b.moves + 1,
                moves: b.moves,
            },
        ),
        (
            Some(20),
            lie(|a| a.sides[0].moves -= 1),
            InvalidResult::AccuracyMoves {
                player: "A",
                reported: a.moves - 1,
                judged: a.moves,
                min_stones: 20,
            },
        ),
        (
            Some(20),
            lie(|a| a.min_stones = 21),
            InvalidResult::AccuracyStones {
                found: 21,
                asked: 20,
            },
        ),
        (Some(20), outcome(None), InvalidResult::AccuracyMissing),
        (None, outcome(Some(truth)), InvalidResult::AccuracyNotAsked),
    ] {
        assert_eq!(
            result_effect(&task(asked), 3, &outcome).unwrap_err(),
            refusal
        );
    }
}

#[test]
fn analyses_with_unreal_durations_are_refused() {
    let task = analyse(100);
    for bad in [f64::NAN, -1e300, -0.5, f64::INFINITY, 1e300] {
        let Outcome::Analyse {
            rows, simulations, ..
        } = rows(&[("a1-1R", 10, 5, 0)])
        else {
            unreachable!()
        };
        let outcome = Outcome::Analyse {
            rows,
            simulations,
            seconds: bad,
        };
        let refused = result_effect(&task, 1, &outcome).unwrap_err();
        assert!(
            matches!(refused, InvalidResult::Seconds(_)),
            "{bad}: {refused}"
        );
    }
    assert!(result_effect(&task, 1, &rows(&[("a1-1R", 10, 5, 0)])).is_ok());
}

/// A pair job of two random players from a late opening, and its two games as played (each
/// of at least two moves).
fn late_random_pair() -> (Task, [(Vec<pentago::Move>, pentago::Status); 2]) {
    let opening: Position = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox".parse().unwrap();
    let task = Task::Pair {
        match_id: 1,
        pair: 0,
        opening,
        a: Player::Random,
        b: Player::Random,
        accuracy_stones: None,
        time: None,
        adjudicate: None,
    };
    let played = pentago::play_pair(&opening, &Player::Random, &Player::Random, 5, 1);
    let games = played.games.map(|game| (game.moves, game.result));
    assert!(games.iter().all(|(moves, _)| moves.len() >= 2), "{games:?}");
    (task, games)
}

#[test]
fn a_pair_games_move_times_are_one_per_move_and_bounded() {
    let (task, games) = late_random_pair();
    let moves = games[1].0.len();
    let outcome = |second: Vec<u32>| Outcome::Pair {
        games: games.clone(),
        accuracy: None,
        notes: Box::new([
            GameNote::default(),
            GameNote {
                move_times: MoveTimes::from_millis(second),
                ..GameNote::default()
            },
        ]),
    };
    let mut honest = vec![7; moves];
    honest[0] = MAX_MOVE_MILLIS;
    let effect = result_effect(&task, 3, &outcome(honest.clone())).unwrap();
    let stored = effect.pair.unwrap().games;
    assert!(!stored[0].move_times.is_known(), "none given: unknown");
    assert_eq!(stored[1].move_times.millis(), honest);
    let game_two = |error| InvalidResult::PairGame {
        game: 2,
        error: Box::new(error),
    };
    let mut too_long = honest.clone();
    too_long[1] = MAX_MOVE_MILLIS + 1;
    for (times, refusal) in [
        (
            vec![7; moves - 1],
            InvalidResult::MoveTimeCount {
                times: moves - 1,
                moves,
            },
        ),
        (
            vec![7; moves + 1],
            InvalidResult::MoveTimeCount {
                times: moves + 1,
                moves,
            },
        ),
        (
            too_long,
            InvalidResult::MoveTimeTooLong {
                ply: 2,
                millis: MAX_MOVE_MILLIS + 1,
            },
        ),
    ] {
        let refused = result_effect(&task, 3, &outcome(times)).unwrap_err();
        assert!(refused.to_string().contains("move_millis"), "{refused}");
        assert_eq!(refused, game_two(refusal));
    }
}

#[test]
fn a_pair_games_move_scores_are_one_per_move_and_in_range() {
    let (task, games) = late_random_pair();
    let moves = games[0].0.len();
    let outcome = |first: Vec<u32>| Outcome::Pair {
        games: games.clone(),
        accuracy: None,
        notes: Box::new([
            GameNote {
                move_scores: MoveScores::from_milli(first),
                ..GameNote::default()
            },
            GameNote::default(),
        ]),
    };
    let mut honest = vec![500; moves];
    honest[0] = 1000;
    honest[1] = UNKNOWN_SCORE;
    let effect = result_effect(&task, 3, &outcome(honest.clone())).unwrap();
    let stored = effect.pair.unwrap().games;
    assert_eq!(stored[0].move_scores.milli(), honest);
    assert!(!stored[1].move_scores.is_known(), "none given: unknown");
    let game_one = |error| InvalidResult::PairGame {
        game: 1,
        error: Box::new(error),
    };
    let mut over = honest.clone();
    over[1] = 1001;
    for (scores, refusal) in [
        (
            vec![500; moves - 1],
            InvalidResult::MoveScoreCount {
                scores: moves - 1,
                moves,
            },
        ),
        (
            vec![500; moves + 1],
            InvalidResult::MoveScoreCount {
                scores: moves + 1,
                moves,
            },
        ),
        (
            over,
            InvalidResult::MoveScoreOutOfRange {
                ply: 2,
                milli: 1001,
            },
        ),
    ] {
        let refused = result_effect(&task, 3, &outcome(scores)).unwrap_err();
        assert!(
            refused.to_string().contains("move_score_milli"),
            "{refused}"
        );
        assert_eq!(refused, game_one(refusal));
    }
}
