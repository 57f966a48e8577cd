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

/// Short moves, with a margin no loaded machine's scheduling can overrun: an engine that plays
/// as it should never loses on time.
fn referee() -> RefereeOptions {
    RefereeOptions {
        time: TimeLimit::PerMove(0.2),
        margin: Duration::from_secs(5),
        grace: Duration::from_millis(800),
        command_timeout: Duration::from_secs(10),
        restart: false,
        engine_threads: Some(1),
        adjudicate: None,
    }
}

/// A tight margin (an engine that never answers is found out in a second), with a grace long
/// enough that a late answer (`slow`, half a second late) always arrives in it.
fn strict_referee() -> RefereeOptions {
    RefereeOptions {
        margin: Duration::from_millis(200),
        grace: Duration::from_secs(10),
        ..referee()
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

/// A referee that gives up on a silent engine a second after its limit.
fn impatient_referee() -> RefereeOptions {
    RefereeOptions {
        margin: Duration::from_millis(200),
        grace: Duration::from_millis(800),
        ..referee()
    }
}

/// Plays the misbehaving engine as white against a random player from a 4-stone opening.
fn misbehaving(args: &[&str]) -> (RefereedGame, ExternalEngine) {
    misbehaving_under(&referee(), args)
}

/// [`misbehaving`] under `referee`.
fn misbehaving_under(referee: &RefereeOptions, args: &[&str]) -> (RefereedGame, ExternalEngine) {
    let mut engine = fake(args);
    let game = referee
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
    let slow = misbehaving_under(&strict_referee(), &["--misbehave", "slow"]).0;
    assert!(matches!(
        slow.forfeit.unwrap().reason,
        ForfeitReason::TimeForfeit {
            allowed_ms: 200,
            ..
        }
    ));
}

#[test]
fn a_hung_engine_is_killed_and_the_next_game_starts_it_afresh() {
    let (game, mut engine) = misbehaving_under(&impatient_referee(), &["--misbehave", "hang"]);
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

/// Processes an engine left behind: each spinner started by an engine (`sh spin.sh PIDS`)
/// writes its process id to `PIDS` and burns a core until killed. Dropping this kills any
/// that are still alive, so that a failing test leaves nothing running.
struct Spinners {
    dir: tempfile::TempDir,
}

impl Spinners {
    fn new() -> Spinners {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("spin.sh"),
            "echo $$ >> \"$1\"\nwhile :; do :; done\n",
        )
        .unwrap();
        Spinners { dir }
    }

    fn pids_file(&self) -> String {
        self.dir.path().join("pids").display().to_string()
    }

    /// Shell text that starts a spinner in the background and waits until it has written its
    /// id (so that it surely runs before the engine answers anything).
    fn start_one(&self) -> String {
        let spin = self.dir.path().join("spin.sh").display().to_string();
        let pids = self.pids_file();
        format!("sh '{spin}' '{pids}' &\nwhile [ ! -s '{pids}' ]; do sleep 0.01; done\n")
    }

    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.pids_file())
            .unwrap_or_default()
            .lines()
            .map(|line| line.trim().parse().unwrap())
            .collect()
    }

    /// Waits (10 s at most: a killed process is gone once it is scheduled) until every
    /// spinner is gone, and says whether they all are.
    fn all_gone(&self) -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.pids().into_iter().any(alive) {
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for pid in self.pids().into_iter().filter(|&pid| alive(pid)) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
    }
}

/// Whether the process runs (a zombie waiting to be reaped does not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            != Some("Z")
    })
}

/// The test engine behind `sh -c SCRIPT`, with the script's arguments after `--`.
fn shell_engine(script: String, args: &[&str]) -> ExternalEngine {
    let mut all = vec!["-c".to_owned(), script, "engine".to_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    ExternalEngine::new(EngineSpec {
        name: "shell".into(),
        dialect: Dialect::Morat,
        command: EngineCommand {
            program: "sh".into(),
            args: all,
        },
    })
}

#[test]
fn an_engine_that_forks_takes_its_children_with_it_when_it_hangs() {
    let spinners = Spinners::new();
    // The engine process forks a spinner, then becomes the test engine (which hangs).
    let fake = env!("CARGO_BIN_EXE_fake_morat");
    let script = format!("{}exec '{fake}' \"$@\"\n", spinners.start_one());
    let mut engine = shell_engine(script, &["--misbehave", "hang"]);
    let game = impatient_referee()
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
    assert!(matches!(
        game.forfeit.unwrap().reason,
        ForfeitReason::Hung { .. }
    ));
    assert_eq!(spinners.pids().len(), 1, "the spinner ran");
    assert!(spinners.all_gone(), "the hung engine's child was killed");
}

#[test]
fn an_engine_behind_a_wrapper_script_leaves_nothing_running() {
    let spinners = Spinners::new();
    // A wrapper that starts a helper and runs the engine as its child (not with exec): only
    // the wrapper is the process the referee started.
    let fake = env!("CARGO_BIN_EXE_fake_morat");
    let script = format!("{}'{fake}' \"$@\"\n", spinners.start_one());
    let mut engine = shell_engine(script, &[]);
    let game = referee()
        .play_game(
            &random_opening(3, 4),
            [
                Contestant::Engine(&mut engine),
                Contestant::BuiltIn(&Player::Random),
            ],
            1,
            1,
        )
        .unwrap();
    assert_eq!(game.forfeit, None, "{game:?}");
    assert!(engine.is_running(), "kept for the next game");
    assert_eq!(spinners.pids().len(), 1, "the spinner ran");
    drop(engine);
    assert!(spinners.all_gone(), "the wrapper's children were killed");
}
