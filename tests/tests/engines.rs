//! The referee with real engine processes: the morat-dialect test engine (`fake_morat`, in
//! this crate) playing built-in players and itself, and misbehaving in every way the referee
//! must catch — each loses with its reason recorded, and nothing else is disturbed.

use std::time::Duration;

use pentago::{Color, Player, Position, Status, random_opening};
use pentagrid_worker::engines::{
    Contestant, Dialect, EngineCommand, EngineSpec, ExternalEngine, ForfeitReason, RefereeOptions,
    RefereedGame, STDERR_KEPT, TimeLimit,
};

fn fake(args: &[&str]) -> ExternalEngine {
    ExternalEngine::new(EngineSpec {
        name: "fake".into(),
        dialect: Dialect::Morat,
        command: EngineCommand {
            program: env!("CARGO_BIN_EXE_fake_morat").into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        },
    })
}

fn referee() -> RefereeOptions {
    RefereeOptions {
        time: TimeLimit::PerMove(0.2),
        margin: Duration::from_millis(200),
        grace: Duration::from_millis(800),
        command_timeout: Duration::from_secs(10),
        restart: false,
        engine_threads: Some(1),
    }
}

/// Replays the record with the engine crate's rules and checks that it ends as recorded.
fn check_record(game: &RefereedGame) {
    let mut position = game.record.start;
    for &mv in &game.record.moves {
        position = position.play(mv).expect("every recorded move is legal");
    }
    match &game.forfeit {
        None => assert_eq!(position.status(), game.record.result),
        Some(forfeit) => {
            assert_eq!(game.record.result, Status::Won(forfeit.loser.opponent()));
            assert!(!position.is_over());
        }
    }
}

#[test]
fn the_morat_dialect_engine_plays_whole_games() {
    let referee = referee();
    let random = Player::Random;
    let mut engine = fake(&[]);
    for seed in 0..4 {
        let opening = random_opening(seed, 4);
        let sides = if seed % 2 == 0 {
            [
                Contestant::Engine(&mut engine),
                Contestant::BuiltIn(&random),
            ]
        } else {
            [
                Contestant::BuiltIn(&random),
                Contestant::Engine(&mut engine),
            ]
        };
        let game = referee.play_game(&opening, sides, seed, 1).unwrap();
        assert_eq!(game.forfeit, None, "{game:?}");
        assert!(game.record.result.is_over());
        assert_eq!(game.record.start, opening);
        check_record(&game);
    }
    // Reused between games (clear_board), the same process played them all.
    assert!(engine.is_running());
    let mut other = fake(&[]);
    let game = referee
        .play_game(
            &Position::START,
            [
                Contestant::Engine(&mut engine),
                Contestant::Engine(&mut other),
            ],
            9,
            1,
        )
        .unwrap();
    assert_eq!(game.forfeit, None, "{game:?}");
    check_record(&game);
    assert_eq!(
        engine.identify(Duration::from_secs(5)).unwrap(),
        "fake-morat 1.0"
    );
}

/// Plays the misbehaving engine as white against a random player from a 4-stone opening.
fn misbehaving(args: &[&str]) -> (RefereedGame, ExternalEngine) {
    let mut engine = fake(args);
    let game = referee()
        .play_game(
            &random_opening(5, 4),
            [
                Contestant::BuiltIn(&Player::Random),
                Contestant::Engine(&mut engine),
            ],
            1,
            1,
        )
        .unwrap();
    check_record(&game);
    let forfeit = game.forfeit.clone().expect("the engine forfeits");
    assert_eq!(forfeit.loser, Color::White);
    assert_eq!(game.record.result, Status::Won(Color::Black));
    (game, engine)
}

#[test]
fn every_failure_loses_with_its_reason() {
    let reason = |args: &[&str]| misbehaving(args).0.forfeit.unwrap().reason;
    assert!(matches!(
        reason(&["--misbehave", "illegal", "--at", "2"]),
        ForfeitReason::IllegalMove { .. }
    ));
    assert!(matches!(
        reason(&["--misbehave", "crash"]),
        ForfeitReason::Crashed(why) if why.contains('3')
    ));
    assert!(matches!(
        reason(&["--misbehave", "garbage"]),
        ForfeitReason::Malformed { command, .. } if command == "genmove"
    ));
    assert!(matches!(
        reason(&["--misbehave", "badmove"]),
        ForfeitReason::Malformed { why, .. } if why.contains("zz9")
    ));
    assert_eq!(reason(&["--misbehave", "resign"]), ForfeitReason::Resigned);
    assert!(matches!(
        reason(&["--misbehave", "refuse"]),
        ForfeitReason::Refused { command, .. } if command == "play"
    ));
    assert!(matches!(
        reason(&["--misbehave", "slow"]),
        ForfeitReason::TimeForfeit {
            allowed_ms: 200,
            ..
        }
    ));
}

#[test]
fn a_hung_engine_is_killed_and_the_next_game_starts_it_afresh() {
    let (game, mut engine) = misbehaving(&["--misbehave", "hang"]);
    assert!(matches!(
        game.forfeit.unwrap().reason,
        ForfeitReason::Hung { command, .. } if command == "genmove"
    ));
    assert!(!engine.is_running(), "the hung process was killed");
    // The same engine answers again, from a new process.
    assert_eq!(
        engine.identify(Duration::from_secs(5)).unwrap(),
        "fake-morat 1.0"
    );
}

#[test]
fn engines_that_cannot_start_lose() {
    let mut missing = ExternalEngine::new(EngineSpec {
        name: "missing".into(),
        dialect: Dialect::Pentagrid,
        command: EngineCommand {
            program: "/nonexistent/engine".into(),
            args: Vec::new(),
        },
    });
    let game = referee()
        .play_game(
            &Position::START,
            [
                Contestant::Engine(&mut missing),
                Contestant::BuiltIn(&Player::Random),
            ],
            1,
            1,
        )
        .unwrap();
    let forfeit = game.forfeit.unwrap();
    assert_eq!(forfeit.loser, Color::Black);
    assert!(matches!(forfeit.reason, ForfeitReason::Spawn(_)));
    assert!(game.record.moves.is_empty());
}

#[test]
fn standard_error_is_kept_bounded() {
    let mut engine = fake(&["--chatter", "5000"]);
    let game = referee()
        .play_game(
            &random_opening(2, 2),
            [
                Contestant::Engine(&mut engine),
                Contestant::BuiltIn(&Player::Random),
            ],
            1,
            1,
        )
        .unwrap();
    assert_eq!(game.forfeit, None);
    let stderr = &game.stderr[0];
    assert!(stderr.len() <= STDERR_KEPT + 64, "{} bytes", stderr.len());
    assert!(stderr.starts_with('['), "notes what it left out");
    assert!(game.stderr[1].is_empty());
}

#[test]
fn restarting_engines_start_a_new_process_per_game() {
    let referee = RefereeOptions {
        restart: true,
        ..referee()
    };
    let mut engine = fake(&[]);
    let game = referee
        .play_game(
            &random_opening(1, 2),
            [
                Contestant::Engine(&mut engine),
                Contestant::BuiltIn(&Player::Random),
            ],
            1,
            1,
        )
        .unwrap();
    assert_eq!(game.forfeit, None);
    assert!(!engine.is_running(), "stopped after its game");
}

/// An engine in pentagrid's dialect that writes every command to standard error, answers `=`
/// to all and resigns when asked for a move: the commands the referee sent, read back from the
/// stderr the forfeit keeps.
fn echoing_resigner() -> ExternalEngine {
    let script = r#"while read -r line; do
        echo "$line" >&2
        case "$line" in
          genmove*) printf '= resign\n\n' ;;
          quit) printf '= \n\n'; exit 0 ;;
          *) printf '= \n\n' ;;
        esac
      done"#;
    ExternalEngine::new(EngineSpec {
        name: "echo".into(),
        dialect: Dialect::Pentagrid,
        command: EngineCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
        },
    })
}

#[test]
fn a_pentagrid_dialect_engine_is_told_the_increment_and_its_clock() {
    let referee = RefereeOptions {
        time: TimeLimit::Increment {
            base: 60.0,
            increment: 1.5,
        },
        ..referee()
    };
    let mut engine = echoing_resigner();
    let game = referee
        .play_game(
            &Position::START,
            [
                Contestant::Engine(&mut engine),
                Contestant::BuiltIn(&Player::Random),
            ],
            1,
            1,
        )
        .unwrap();
    assert_eq!(game.forfeit.unwrap().reason, ForfeitReason::Resigned);
    let sent: Vec<&str> = game.stderr[0].lines().collect();
    let at = |command: &str| sent.iter().position(|line| line.starts_with(command));
    let settings = at("time_settings 60 0 0").expect("GTP's sudden-death settings");
    let extension = at("pentagrid-time_settings increment 60 1.5").expect("the increment");
    let clock = at("time_left black 60.000 0").expect("the clock before the move");
    assert!(settings < extension && extension < clock, "{sent:?}");
    assert_eq!(sent.last(), Some(&"genmove black"), "{sent:?}");
}
