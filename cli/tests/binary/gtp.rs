//! `pentagrid gtp` as a real process: every command through standard input and output, bad
//! input answered `?` with nothing changed, whole games driven by a controller (the worker's
//! referee), the kept tree, time management within what `time_left` says, and late games under
//! a time limit with the solvers on.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use pentago::{Player, Position, Status, random_opening};
use pentagrid_worker::engines::{
    Contestant, Dialect, EngineCommand, EngineSpec, ExternalEngine, RefereeOptions, TimeLimit,
};

/// Runs `pentagrid gtp ARGS` on `script` (all of standard input) and returns its output.
fn session(args: &[&str], script: &str) -> (String, String, bool) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.success(),
    )
}

/// The answers of a session, each without its empty line.
fn answers(stdout: &str) -> Vec<String> {
    assert!(stdout.is_empty() || stdout.ends_with("\n\n"), "{stdout:?}");
    stdout
        .split("\n\n")
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect()
}

const FAST: [&str; 4] = ["--config", "uct:playouts=500", "--threads", "1"];

#[test]
fn every_command_answers_in_the_framing() {
    let script = "\
protocol_version
1 name
2 version
known_command showboard
known_command teleport
list_commands
boardsize 6
clear_board
play black c4-1R
play w d3-2L
pentagrid-position
10 showboard
time_settings 0 1 1
pentagrid-time_settings increment 5 0.1
time_left black 4.5 0
genmove b
pentagrid-last_search
pentagrid-tree_visits
final_score
pentagrid-set_position ....../....../....../....../oooo../xxxxx.
final_score
99 quit
name
";
    // Two stones: the tablebase would answer genmove; the search's summary is tested here.
    let (stdout, stderr, ok) = session(&[&FAST[..], &["--no-tablebase"]].concat(), script);
    assert!(ok, "{stderr}");
    let a = answers(&stdout);
    assert_eq!(a[0], "= 2");
    assert_eq!(a[1], "=1 pentagrid");
    assert_eq!(a[2], format!("=2 {}", env!("CARGO_PKG_VERSION")));
    assert_eq!((a[3].as_str(), a[4].as_str()), ("= true", "= false"));
    assert!(a[5].contains("\npentagrid-set_position\n"), "{}", a[5]);
    for (i, answer) in a.iter().enumerate().take(10).skip(6) {
        assert_eq!(answer, "= ", "answer {i}");
    }
    assert_eq!(a[10], format!("= {}", played(&["c4-1R", "d3-2L"])));
    assert!(a[11].starts_with("=10 \n    a b c   d e f\n"), "{}", a[11]);
    assert!(a[11].ends_with("black to move"), "{}", a[11]);
    for answer in &a[12..15] {
        assert_eq!(answer, "= ");
    }
    let mv = a[15].strip_prefix("= ").unwrap();
    assert!(mv.contains('-'), "a full move: {mv}");
    assert!(a[16].starts_with("= reused=0 simulations="), "{}", a[16]);
    assert!(a[17].strip_prefix("= ").unwrap().parse::<u64>().is_ok());
    assert_eq!(a[18], "? the game is not over");
    assert_eq!((a[19].as_str(), a[20].as_str()), ("= ", "= B+"));
    assert_eq!(a[21], "=99 ");
    assert_eq!(a.len(), 22, "nothing after quit: {a:?}");
    assert!(
        stderr.contains(&format!("genmove black: {mv};")),
        "{stderr}"
    );
}

/// The position after `moves` from the start.
fn played(moves: &[&str]) -> Position {
    moves.iter().fold(Position::START, |p, text| {
        p.play(p.resolve(text.parse().unwrap()).unwrap()).unwrap()
    })
}

#[test]
fn bad_input_is_refused_with_a_reason_and_changes_nothing() {
    let script = "\
play black c4-1R
play black d3-1R
play white a4-2R
play white q9-1R
play white d3-9X
play white d3
play
genmove black
genmove purple
time_settings 1 x 0
time_left white -3 0
pentagrid-set_position ooo
boardsize 19
teleport home
7
pentagrid-position
";
    let (stdout, stderr, ok) = session(&FAST, script);
    assert!(ok, "{stderr}");
    let a = answers(&stdout);
    assert_eq!(a.len(), 16, "{a:?}");
    assert_eq!(a[0], "= ");
    for (answer, reason) in a[1..15].iter().zip([
        "it is white's turn",
        "illegal move",
        "bad square",
        "bad twist",
        "illegal move",
        "play takes",
        "it is white's turn",
        "bad colour",
        "bad number",
        "bad number",
        "position",
        "boardsize",
        "unknown command",
        "no command",
    ]) {
        assert!(
            answer.starts_with('?') && answer.contains(reason),
            "{answer} ({reason})"
        );
    }
    assert_eq!(a[14], "?7 no command after the id");
    assert_eq!(a[15], format!("= {}", played(&["c4-1R"])));
    assert!(!stderr.contains("panicked"));
}

#[test]
fn end_of_input_and_a_closed_output_end_quietly() {
    let (stdout, stderr, ok) = session(&FAST, "name");
    assert!(ok && stderr.is_empty(), "{stderr}");
    assert_eq!(
        stdout, "= pentagrid\n\n",
        "a last line without its end still counts"
    );
    let (stdout, _, ok) = session(&FAST, "");
    assert!(ok && stdout.is_empty());
    // The reader goes away before the answers are written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .args(["gtp", "--quiet"])
        .args(FAST)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all("name\n".repeat(1000).as_bytes());
    drop(stdin);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// A controller talking to one engine process line by line.
struct Controller {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Controller {
    fn start(args: &[&str]) -> Controller {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pentagrid"))
            .args(["gtp", "--quiet"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Controller {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    /// The text of a `=` answer to `command`.
    fn ask(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").unwrap();
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "{command}: no answer"
            );
            if line == "\n" {
                break;
            }
            answer.push_str(&line);
        }
        let text = answer.strip_prefix('=').map(str::trim);
        text.unwrap_or_else(|| panic!("{command}: {answer}"))
            .to_owned()
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `reused=N` of the last search.
fn reused(summary: &str) -> u64 {
    summary
        .strip_prefix("reused=")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"))
}

#[test]
fn the_second_search_starts_from_the_kept_tree() {
    // The positions are table-covered: the searches are what is tested here.
    let mut engine = Controller::start(&[
        "--config",
        "uct:playouts=20000",
        "--threads",
        "1",
        "--no-tablebase",
    ]);
    engine.ask("pentagrid-set_position x.o.../.x..../....o./..x.../....../......");
    engine.ask("genmove white");
    let first = engine.ask("pentagrid-last_search");
    assert_eq!(reused(&first), 0);
    // The opponent plays the reply the engine expected (the second move of its line).
    let pv = first.split("pv=").nth(1).unwrap();
    let reply = pv.split(',').nth(1).unwrap();
    engine.ask(&format!("play black {reply}"));
    let waiting: u64 = engine.ask("pentagrid-tree_visits").parse().unwrap();
    assert!(waiting > 0);
    engine.ask("genmove white");
    let second = engine.ask("pentagrid-last_search");
    assert_eq!(reused(&second), waiting, "{second}");

    let mut fresh = Controller::start(&[
        "--config",
        "uct:playouts=20000",
        "--threads",
        "1",
        "--no-reuse",
        "--no-tablebase",
    ]);
    fresh.ask("genmove black");
    fresh.ask("genmove white");
    assert_eq!(reused(&fresh.ask("pentagrid-last_search")), 0);
}

#[test]
fn searches_keep_within_time_left() {
    let mut engine = Controller::start(&[
        "--config",
        "uct:seconds=30",
        "--threads",
        "1",
        "--no-tablebase",
    ]);
    engine.ask("time_settings 60 0 0");
    for (colour, left) in [
        ("black", 0.4),
        ("white", 0.3),
        ("black", 0.2),
        ("white", 0.1),
    ] {
        engine.ask(&format!("time_left {colour} {left} 0"));
        engine.ask(&format!("genmove {colour}"));
        let summary = engine.ask("pentagrid-last_search");
        let seconds: f64 = summary
            .split("seconds=")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap();
        // The search spends a share of what is left (a 60 s game has many moves to go),
        // never all of it, and never the 30 s of its configured budget.
        assert!(seconds < left, "{left} s left, searched {seconds} s");
    }
}

fn pentagrid_engine(name: &str, config: &str) -> ExternalEngine {
    ExternalEngine::new(EngineSpec {
        name: name.into(),
        dialect: Dialect::Pentagrid,
        command: EngineCommand {
            program: env!("CARGO_BIN_EXE_pentagrid").into(),
            args: ["gtp", "--threads", "1", "--quiet", "--config", config]
                .map(str::to_owned)
                .to_vec(),
        },
    })
}

#[test]
fn a_controller_plays_whole_games_between_engine_processes() {
    let referee = RefereeOptions {
        time: TimeLimit::Increment {
            base: 3.0,
            increment: 0.05,
        },
        // Wide: on a loaded machine the pipes and the scheduler may take that long, and an
        // engine that plays as it should must never lose on time here.
        margin: Duration::from_secs(3),
        ..RefereeOptions::default()
    };
    let mut a = pentagrid_engine("a", "uct:playouts=300");
    let mut b = pentagrid_engine("b", "uct:playouts=300");
    let built_in: Player = "uct:playouts=300".parse().unwrap();
    for seed in 0..2 {
        let opening = random_opening(seed, 2);
        let game = referee
            .play_game(
                &opening,
                [Contestant::Engine(&mut a), Contestant::Engine(&mut b)],
                seed,
                1,
            )
            .unwrap();
        assert_eq!(game.forfeit, None, "{game:?}");
        let mut position = opening;
        for &mv in &game.record.moves {
            position = position.play(mv).unwrap();
        }
        assert_eq!(position.status(), game.record.result);
        assert!(game.seconds().iter().all(|s| *s < 3.0 + 0.05 * 18.0));
    }
    let game = referee
        .play_game(
            &Position::START,
            [Contestant::BuiltIn(&built_in), Contestant::Engine(&mut a)],
            5,
            1,
        )
        .unwrap();
    assert_eq!(game.forfeit, None);
    assert_ne!(game.record.result, Status::Ongoing);
    assert_eq!(
        a.identify(Duration::from_secs(5)).unwrap(),
        format!("pentagrid {}", env!("CARGO_PKG_VERSION"))
    );
}

/// Where the shipped tablebase knows every move's value (up to five stones), `genmove` keeps
/// the position's exact value even with a search too weak to find it (one playout), and says
/// so in its log line; with `--no-tablebase` the same search drops values.
#[test]
fn table_covered_positions_are_played_perfectly() {
    let table = pentagrid_tablebase::Tablebase::shipped().unwrap();
    let positions: Vec<Position> = (0..24u64)
        .map(|seed| random_opening(seed, (seed % 6) as u32))
        .filter(|p| !p.is_over())
        .collect();
    let weak = ["--config", "uct:playouts=1", "--threads", "1"];
    let mut kept = [0, 0];
    for (with_table, args) in [(true, vec![]), (false, vec!["--no-tablebase"])] {
        let mut engine = Controller::start(&[&weak[..], &args[..]].concat());
        for position in &positions {
            engine.ask(&format!("pentagrid-set_position {position}"));
            let colour = if position.stone_count() % 2 == 0 {
                "black"
            } else {
                "white"
            };
            let mv: pentago::Move = engine.ask(&format!("genmove {colour}")).parse().unwrap();
            let value = table.value(position).unwrap().unwrap();
            let after = position.play(mv).unwrap();
            let kept_value = match after.status() {
                Status::Ongoing => table.value(&after).unwrap().unwrap().negate(),
                status => pentago::Value::of_status(status, position.side_to_move()).unwrap(),
            };
            kept[usize::from(with_table)] += usize::from(kept_value == value);
        }
    }
    assert_eq!(
        kept[1],
        positions.len(),
        "every move keeps the value with the table"
    );
    assert!(
        kept[0] < positions.len(),
        "one playout alone drops some: {kept:?}"
    );
}

/// From late openings (17 and 19 stones, where the solvers run), `pentagrid gtp` with its
/// defaults (tablebase, solvers within a share of the move's time) never loses on time under a
/// `move:` or a `game:` limit. The referee's margin is wide for a loaded machine, but a
/// midsolve started regardless of the clock (seconds at 18 stones) would still overrun it.
#[test]
fn late_games_keep_to_the_clock_with_the_solvers_on() {
    let limits = [
        TimeLimit::PerMove(0.3),
        TimeLimit::Increment {
            base: 2.0,
            increment: 0.1,
        },
    ];
    for time in limits {
        let referee = RefereeOptions {
            time,
            margin: Duration::from_secs(2),
            ..RefereeOptions::default()
        };
        let mut a = pentagrid_engine("a", "uct");
        let mut b = pentagrid_engine("b", "uct");
        for seed in 0..2u64 {
            let opening = random_opening(seed, 17 + 2 * seed as u32);
            let game = referee
                .play_game(
                    &opening,
                    [Contestant::Engine(&mut a), Contestant::Engine(&mut b)],
                    seed,
                    1,
                )
                .unwrap();
            assert_eq!(game.forfeit, None, "{time}: {game:?}");
            assert!(game.record.result.is_over());
        }
    }
}
