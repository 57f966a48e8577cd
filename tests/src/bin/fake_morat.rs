//! A small engine program in morat's dialect for the referee's tests: it keeps the game with
//! the engine crate's rules and plays a winning move when it has one, else a random one. With
//! `--misbehave KIND` it fails on purpose at its `--at N`th genmove (default 1): `illegal`
//! (a move on an occupied square), `hang`, `crash` (exit status 3), `garbage` (an answer
//! without `=`), `badmove` (a word that is no move), `slow` (answers half a second past the
//! seconds it was given), `resign`, `refuse` (a `?` to every `play`). `--chatter N` writes N
//! bytes to standard error on every genmove; `--tell-time` writes `given SECONDS` there (the
//! seconds its genmove was given).

use std::io::{BufRead, Write};
use std::time::Duration;

use pentago::{Color, Position};
use pentagrid_worker::engines::{morat_move, parse_morat_move};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let misbehave = option("--misbehave").unwrap_or_default();
    let at: u32 = option("--at").and_then(|n| n.parse().ok()).unwrap_or(1);
    let chatter: usize = option("--chatter")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let tell_time = args.iter().any(|a| a == "--tell-time");
    let mut position = Position::START;
    let mut genmoves = 0u32;
    let mut draws = 0u64;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let words: Vec<&str> = line.split_whitespace().collect();
        let answer: Result<String, String> = match words[..] {
            [] => continue,
            ["quit"] => {
                let _ = out.write_all(b"= \n\n");
                return;
            }
            ["name"] => Ok("fake-morat".into()),
            ["version"] => Ok("1.0".into()),
            ["params", ..] | ["boardsize", _] => Ok(String::new()),
            ["clear_board"] => {
                position = Position::START;
                Ok(String::new())
            }
            ["play", colour, mv] => {
                if misbehave == "refuse" {
                    Err("I refuse".into())
                } else {
                    play(&mut position, colour, mv)
                }
            }
            ["genmove", colour, seconds] => {
                genmoves += 1;
                let _ = std::io::stderr().write_all(&vec![b'.'; chatter]);
                if tell_time {
                    let _ = writeln!(std::io::stderr(), "given {seconds}");
                }
                if genmoves == at
                    && !misbehave.is_empty()
                    && let Some(text) = misbehave_now(&misbehave, &position, &words)
                {
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                    continue;
                }
                genmove(&mut position, colour, &mut draws)
            }
            ["winner"] => Ok(match position.status() {
                pentago::Status::Won(Color::Black) => "white".into(),
                pentago::Status::Won(Color::White) => "black".into(),
                pentago::Status::Draw => "draw".into(),
                pentago::Status::Ongoing => "none".into(),
            }),
            _ => Err("unknown command".into()),
        };
        let text = match answer {
            Ok(text) => format!("= {text}\n\n"),
            Err(reason) => format!("? {reason}\n\n"),
        };
        if out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

/// morat's colour word: its first player is white.
fn colour_of(word: &str) -> Option<Color> {
    match word {
        "white" | "w" => Some(Color::Black),
        "black" | "b" => Some(Color::White),
        _ => None,
    }
}

fn play(position: &mut Position, colour: &str, mv: &str) -> Result<String, String> {
    if colour_of(colour) != Some(position.side_to_move()) {
        return Err(format!("not {colour}'s turn"));
    }
    let mv = parse_morat_move(mv).map_err(|e| e.to_string())?;
    *position = position.play(mv).map_err(|e| e.to_string())?;
    Ok(String::new())
}

fn genmove(position: &mut Position, colour: &str, draws: &mut u64) -> Result<String, String> {
    if colour_of(colour) != Some(position.side_to_move()) || position.is_over() {
        return Err("cannot move".into());
    }
    let mv = position.winning_move().unwrap_or_else(|| {
        let legal = position.legal_moves();
        *draws += 1;
        legal[(pentago::splitmix64(*draws) % legal.len() as u64) as usize]
    });
    *position = position.play_unchecked(mv);
    Ok(morat_move(mv))
}

/// The raw answer of a misbehaving genmove, or `None` to answer normally after a delay.
fn misbehave_now(kind: &str, position: &Position, words: &[&str]) -> Option<String> {
    match kind {
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(60));
        },
        "crash" => std::process::exit(3),
        "garbage" => Some("banana\n\n".into()),
        "badmove" => Some("= zz9\n\n".into()),
        "resign" => Some("= resign\n\n".into()),
        "illegal" => {
            let taken = position.occupied().squares().next()?;
            let mv = pentago::Move::new(taken, pentago::Twist::ALL[0]);
            Some(format!("= {}\n\n", morat_move(mv)))
        }
        "slow" => {
            let seconds: f64 = words.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.0);
            std::thread::sleep(Duration::from_secs_f64(seconds + 0.5));
            None
        }
        _ => None,
    }
}
