//! pentagrid as a GTP engine program: the game state, the kept search tree and the clock, and
//! one handler per command. Every command either succeeds or changes nothing. `genmove` uses
//! exact knowledge under the clock ([`crate::play::exact_clock`]): where an exact source knows
//! every move's value (a tablebase, handed in by the program that runs the engine, since the
//! engine does no I/O), or a solver proves a win within its share of the move's time, it plays
//! a value-keeping move without searching, and it never plays away a proven value.

use std::time::Instant;

use pentagrid_gamekit::splitmix64;
use thiserror::Error;

use super::commands::{COMMANDS, parse_colour};
use super::protocol::{Request, format_response, parse_request};
use crate::board::color::Color;
use crate::board::moves::{MoveNotation, ParseMoveError};
use crate::board::position::{ParsePositionError, PlayError, Position};
use crate::board::status::Status;
use crate::play::clock::{Clock, SafetyMargin, TimeControl, think_time};
use crate::play::exact_clock::exact_move;
use crate::search::oracle::SharedOracle;
use crate::search::uct::{
    Budget, KeptSearch, SearchControl, SearchError, SearchOptions, SearchResult, UctConfig,
};

/// How the engine searches.
#[derive(Clone, Debug)]
pub struct GtpOptions {
    /// The search configuration; its budget is used when no time control is set.
    pub config: UctConfig,
    /// Search trees in parallel (on the current rayon pool).
    pub threads: usize,
    /// Seed of the first search; later searches derive theirs from it.
    pub seed: u64,
    /// Time kept back from each move's limit.
    pub margin: SafetyMargin,
    /// Keep the search tree between moves.
    pub reuse: bool,
}

impl Default for GtpOptions {
    fn default() -> Self {
        GtpOptions {
            config: UctConfig::default(),
            threads: 1,
            seed: 1,
            margin: SafetyMargin::default(),
            reuse: true,
        }
    }
}

/// Why a command failed; the text is the `?` answer's reason.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum GtpError {
    /// Not a command this engine knows.
    #[error("unknown command {0:?}")]
    Unknown(String),
    /// Wrong number or form of arguments.
    #[error("{command} takes {expected}")]
    Arguments {
        /// The command.
        command: &'static str,
        /// What it takes.
        expected: &'static str,
    },
    /// A colour that is not black/b/white/w.
    #[error("bad colour {0:?}: expected black, white, b or w")]
    Colour(String),
    /// A move or genmove for the side not to move.
    #[error("it is {0}'s turn")]
    NotToMove(Color),
    /// A move that does not parse.
    #[error(transparent)]
    Move(#[from] ParseMoveError),
    /// A move that is not legal here.
    #[error("illegal move {text:?}: {why}")]
    Illegal {
        /// The move as given.
        text: String,
        /// Why.
        why: PlayError,
    },
    /// A position that does not parse.
    #[error(transparent)]
    Position(#[from] ParsePositionError),
    /// Nothing to play: the game is over.
    #[error("the game is over ({0})")]
    GameOver(Status),
    /// A final score of an unfinished game.
    #[error("the game is not over")]
    NotOver,
    /// A time or count that is not a number in range.
    #[error("bad number {0:?}: expected a number of seconds from 0 to 10^6 or a whole count")]
    Number(String),
    /// Any board but 6×6.
    #[error("only boardsize 6 is played, not {0:?}")]
    BoardSize(String),
}

/// What the engine says to one input line.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// The whole answer, empty line included.
    pub response: String,
    /// The controller asked to quit: answer, then stop reading.
    pub quit: bool,
    /// A line for the log (standard error) about what a search did.
    pub info: Option<String>,
}

/// The state of one engine program.
pub struct GtpEngine {
    options: GtpOptions,
    exact: Option<SharedOracle>,
    position: Position,
    kept: KeptSearch,
    time: TimeControl,
    clocks: [Option<Clock>; 2],
    searches: u64,
    last: Option<SearchResult>,
}

impl GtpEngine {
    /// A fresh engine on the empty board with no time limit.
    #[must_use]
    pub fn new(options: GtpOptions) -> GtpEngine {
        GtpEngine {
            options,
            exact: None,
            position: Position::START,
            kept: KeptSearch::new(),
            time: TimeControl::Unlimited,
            clocks: [None, None],
            searches: 0,
            last: None,
        }
    }

    /// The engine with an exact source of values: in a position where it knows every move's
    /// value, `genmove` plays one that keeps the best of them (as [`crate::perfect_move`]
    /// picks) instead of searching; elsewhere its searches treat the positions it values as
    /// proven.
    #[must_use]
    pub fn with_oracle(mut self, oracle: SharedOracle) -> GtpEngine {
        self.exact = Some(oracle);
        self
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> Position {
        self.position
    }

    /// Answers one input line; `None` when there is nothing to answer (an empty line or a
    /// comment).
    pub fn handle_line(&mut self, line: &str) -> Option<Exchange> {
        let request = match parse_request(line) {
            Ok(None) => return None,
            Ok(Some(request)) => request,
            Err(error) => {
                let response = format_response(error.id(), Err(&error.to_string()));
                return Some(Exchange {
                    response,
                    quit: false,
                    info: None,
                });
            }
        };
        let mut info = None;
        let result = self.execute(&request, &mut info);
        let response = match &result {
            Ok(text) => format_response(request.id, Ok(text)),
            Err(error) => format_response(request.id, Err(&error.to_string())),
        };
        Some(Exchange {
            response,
            quit: request.name == "quit" && result.is_ok(),
            info,
        })
    }

    fn execute(
        &mut self,
        request: &Request,
        info: &mut Option<String>,
    ) -> Result<String, GtpError> {
        let args: Vec<&str> = request.args.iter().map(String::as_str).collect();
        let none = |command| {
            if args.is_empty() {
                Ok(())
            } else {
                Err(GtpError::Arguments {
                    command,
                    expected: "no arguments",
                })
            }
        };
        match request.name.as_str() {
            "protocol_version" => none("protocol_version").map(|()| "2".to_owned()),
            "name" => none("name").map(|()| "pentagrid".to_owned()),
            "version" => none("version").map(|()| env!("CARGO_PKG_VERSION").to_owned()),
            "known_command" => match args[..] {
                [name] => Ok(COMMANDS.contains(&name).to_string()),
                _ => Err(GtpError::Arguments {
                    command: "known_command",
                    expected: "one command name",
                }),
            },
            "list_commands" => none("list_commands").map(|()| COMMANDS.join("\n")),
            "quit" => none("quit").map(|()| String::new()),
            "boardsize" => match args[..] {
                ["6"] => Ok(String::new()),
                [other] => Err(GtpError::BoardSize(crate::excerpt(other))),
                _ => Err(GtpError::Arguments {
                    command: "boardsize",
                    expected: "one size (6)",
                }),
            },
            "clear_board" => none("clear_board").map(|()| {
                self.position = Position::START;
                self.kept.clear();
                self.clocks = [None, None];
                self.last = None;
                String::new()
            }),
            "play" => self.play(&args),
            "genmove" => self.genmove(&args, info),
            "time_settings" => self.time_settings(&args),
            "pentagrid-time_settings" => self.pentagrid_time_settings(&args),
            "time_left" => self.time_left(&args),
            "showboard" => none("showboard").map(|()| diagram(&self.position)),
            "final_score" => none("final_score").and_then(|()| final_score(self.position.status())),
            "pentagrid-set_position" => match args[..] {
                [text] => {
                    self.position = text.parse()?;
                    Ok(String::new())
                }
                _ => Err(GtpError::Arguments {
                    command: "pentagrid-set_position",
                    expected: "one position, as in x.o.../....../....../....../....../......",
                }),
            },
            "pentagrid-position" => none("pentagrid-position").map(|()| self.position.to_string()),
            "pentagrid-tree_visits" => none("pentagrid-tree_visits")
                .map(|()| self.kept.visits_at(&self.position).to_string()),
            "pentagrid-last_search" => none("pentagrid-last_search").map(|()| {
                self.last
                    .as_ref()
                    .map_or_else(|| "none".to_owned(), search_summary)
            }),
            _ => Err(GtpError::Unknown(crate::excerpt(&request.name))),
        }
    }

    /// The colour argument, which must be the side to move.
    fn mover(&self, text: &str) -> Result<Color, GtpError> {
        let colour = parse_colour(text).ok_or_else(|| GtpError::Colour(crate::excerpt(text)))?;
        let status = self.position.status();
        if status.is_over() {
            return Err(GtpError::GameOver(status));
        }
        let to_move = self.position.side_to_move();
        if colour == to_move {
            Ok(colour)
        } else {
            Err(GtpError::NotToMove(to_move))
        }
    }

    fn play(&mut self, args: &[&str]) -> Result<String, GtpError> {
        let [colour, text] = args[..] else {
            return Err(GtpError::Arguments {
                command: "play",
                expected: "a colour and a move, as in play black c4-1R",
            });
        };
        self.mover(colour)?;
        let notation: MoveNotation = text.parse()?;
        let illegal = |why| GtpError::Illegal {
            text: crate::excerpt(text),
            why,
        };
        let mv = self.position.resolve(notation).map_err(illegal)?;
        self.position = self.position.play(mv).map_err(illegal)?;
        Ok(String::new())
    }

    fn genmove(&mut self, args: &[&str], info: &mut Option<String>) -> Result<String, GtpError> {
        let [colour] = args[..] else {
            return Err(GtpError::Arguments {
                command: "genmove",
                expected: "a colour",
            });
        };
        let colour = self.mover(colour)?;
        let index = colour as usize;
        let asked = Instant::now();
        let think = think_time(
            &self.time,
            self.clocks[index],
            self.position.stone_count(),
            &self.options.margin,
        );
        let budget = think.map_or(self.options.config.budget, Budget::Seconds);
        let config = self.options.config.with_budget(budget);
        if !self.options.reuse {
            self.kept.clear();
        }
        let options = SearchOptions {
            seed: splitmix64(self.options.seed.wrapping_add(self.searches)),
            threads: self.options.threads.max(1),
            tables_min_visits: None,
            oracle: self.exact.clone(),
        };
        let (position, kept) = (self.position, &mut self.kept);
        let elapsed = || asked.elapsed().as_secs_f64();
        let choice = exact_move(
            &position,
            &config,
            self.exact.as_ref(),
            &elapsed,
            &mut |config| kept.search(&position, config, &options, &SearchControl::new()),
        )
        .map_err(|SearchError::GameOver(status)| GtpError::GameOver(status))?;
        let mv = choice.mv;
        self.play_own(index, mv, asked);
        let exact = choice
            .exact
            .map(|(value, source)| format!("exact: {} by {}; ", value.name(), source.name()))
            .unwrap_or_default();
        let searched = choice
            .search
            .as_ref()
            .map_or_else(|| "no search".to_owned(), search_summary);
        *info = Some(format!("genmove {colour}: {mv}; {exact}{searched}"));
        if let Some(result) = choice.search {
            self.searches += 1;
            self.last = Some(result);
        }
        Ok(mv.to_string())
    }

    /// Plays the engine's own move `mv` for the side of clock `index`, thought about since
    /// `started`.
    fn play_own(&mut self, index: usize, mv: crate::Move, started: Instant) {
        let clock = self.clocks[index].unwrap_or_else(|| self.time.initial_clock());
        let elapsed = started.elapsed().as_secs_f64();
        self.clocks[index] = Some(clock.after_move(&self.time, elapsed));
        self.position = self.position.play_unchecked(mv);
    }

    fn time_settings(&mut self, args: &[&str]) -> Result<String, GtpError> {
        let [main, byo_yomi, stones] = args[..] else {
            return Err(GtpError::Arguments {
                command: "time_settings",
                expected: "main time, byo-yomi time and byo-yomi stones",
            });
        };
        let control = TimeControl::from_gtp(seconds(main)?, seconds(byo_yomi)?, count(stones)?);
        self.set_time(control);
        Ok(String::new())
    }

    fn pentagrid_time_settings(&mut self, args: &[&str]) -> Result<String, GtpError> {
        let control = match args[..] {
            ["none"] => TimeControl::Unlimited,
            ["move", per_move] => TimeControl::PerMove {
                seconds: seconds(per_move)?,
            },
            ["increment", base, increment] => TimeControl::Increment {
                base: seconds(base)?,
                increment: seconds(increment)?,
            },
            _ => {
                return Err(GtpError::Arguments {
                    command: "pentagrid-time_settings",
                    expected: "none, move SECONDS or increment BASE INCREMENT",
                });
            }
        };
        self.set_time(control);
        Ok(String::new())
    }

    fn set_time(&mut self, control: TimeControl) {
        self.time = control;
        self.clocks = [None, None];
    }

    fn time_left(&mut self, args: &[&str]) -> Result<String, GtpError> {
        let [colour, left, stones] = args[..] else {
            return Err(GtpError::Arguments {
                command: "time_left",
                expected: "a colour, seconds left and stones left",
            });
        };
        let colour =
            parse_colour(colour).ok_or_else(|| GtpError::Colour(crate::excerpt(colour)))?;
        let clock = Clock {
            seconds: seconds(left)?,
            stones: count(stones)?,
        };
        self.clocks[colour as usize] = Some(clock);
        Ok(String::new())
    }
}

/// Seconds from 0 to 10^6.
fn seconds(text: &str) -> Result<f64, GtpError> {
    text.parse::<f64>()
        .ok()
        .filter(|s| (0.0..=1e6).contains(s))
        .ok_or_else(|| GtpError::Number(crate::excerpt(text)))
}

/// A whole count up to 10^6.
fn count(text: &str) -> Result<u32, GtpError> {
    text.parse::<u32>()
        .ok()
        .filter(|n| *n <= 1_000_000)
        .ok_or_else(|| GtpError::Number(crate::excerpt(text)))
}

/// `B+` or `W+` for the winner, `0` for a draw.
fn final_score(status: Status) -> Result<String, GtpError> {
    match status {
        Status::Won(Color::Black) => Ok("B+".to_owned()),
        Status::Won(Color::White) => Ok("W+".to_owned()),
        Status::Draw => Ok("0".to_owned()),
        Status::Ongoing => Err(GtpError::NotOver),
    }
}

/// What a search did, on one line: `reused=N simulations=N seconds=S best=MOVE pv=…`.
fn search_summary(result: &SearchResult) -> String {
    let pv: Vec<String> = result.pv.iter().map(ToString::to_string).collect();
    format!(
        "reused={} simulations={} seconds={:.3} best={} pv={}",
        result.reused,
        result.simulations,
        result.seconds,
        result
            .best
            .map_or_else(|| "none".to_owned(), |m| m.to_string()),
        pv.join(",")
    )
}

/// The board as `showboard` draws it: [`Position::diagram`], then who is to move. Starts with a
/// line break so the board's lines line up under the `=`.
fn diagram(position: &Position) -> String {
    let mut out = format!("\n{}", position.diagram());
    let status = position.status();
    if status.is_over() {
        out.push_str(&format!("game over: {status}"));
    } else {
        out.push_str(&format!("{} to move", position.side_to_move()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> GtpEngine {
        GtpEngine::new(GtpOptions {
            config: "uct:playouts=2000".parse().unwrap(),
            ..GtpOptions::default()
        })
    }

    /// The answer to `line`: `Ok(text)` for `=`, `Err(reason)` for `?`.
    fn say(engine: &mut GtpEngine, line: &str) -> Result<String, String> {
        let exchange = engine.handle_line(line).expect("an answer");
        let text = exchange.response;
        assert!(text.ends_with("\n\n"), "{text:?}");
        let body = text[..text.len() - 2].to_owned();
        let rest = body[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        let rest = rest.strip_prefix(' ').unwrap_or(rest).to_owned();
        if body.starts_with('=') {
            Ok(rest)
        } else {
            assert!(body.starts_with('?'), "{body:?}");
            Err(rest)
        }
    }

    #[test]
    fn administrative_commands_answer() {
        let mut e = engine();
        assert_eq!(say(&mut e, "protocol_version"), Ok("2".into()));
        assert_eq!(say(&mut e, "name"), Ok("pentagrid".into()));
        assert_eq!(say(&mut e, "version"), Ok(env!("CARGO_PKG_VERSION").into()));
        assert_eq!(say(&mut e, "known_command genmove"), Ok("true".into()));
        assert_eq!(say(&mut e, "known_command fly"), Ok("false".into()));
        let list = say(&mut e, "list_commands").unwrap();
        assert_eq!(list.lines().collect::<Vec<_>>(), COMMANDS);
        assert_eq!(say(&mut e, "boardsize 6"), Ok(String::new()));
        assert!(say(&mut e, "boardsize 19").is_err());
        let quit = e.handle_line("5 quit").unwrap();
        assert!(quit.quit);
        assert_eq!(quit.response, "=5 \n\n");
        assert_eq!(e.handle_line("# nothing"), None);
    }

    #[test]
    fn play_and_positions_follow_the_rules() {
        let mut e = engine();
        assert_eq!(say(&mut e, "play black c4-1R"), Ok(String::new()));
        assert_eq!(say(&mut e, "play w d3-2l"), Ok(String::new()));
        assert_eq!(e.position().stone_count(), 2);
        assert_eq!(
            say(&mut e, "pentagrid-position"),
            Ok(e.position().to_string())
        );
        let board = say(&mut e, "showboard").unwrap();
        assert!(
            board.starts_with('\n') && board.contains("+-------+-------+"),
            "{board}"
        );
        assert!(board.ends_with("black to move"), "{board}");
        assert_eq!(
            say(&mut e, "final_score"),
            Err("the game is not over".into())
        );
        assert_eq!(say(&mut e, "clear_board"), Ok(String::new()));
        assert_eq!(e.position(), Position::START);
        let won = "....../....../....../....../oooo../xxxxx.";
        assert_eq!(
            say(&mut e, &format!("pentagrid-set_position {won}")),
            Ok(String::new())
        );
        assert_eq!(say(&mut e, "final_score"), Ok("B+".into()));
        assert!(
            say(&mut e, "genmove white")
                .unwrap_err()
                .contains("game is over")
        );
    }

    #[test]
    fn bad_commands_are_refused_and_change_nothing() {
        let mut e = engine();
        say(&mut e, "play black c4-1R").unwrap();
        let before = e.position();
        for (line, reason) in [
            ("fly", "unknown command"),
            ("play black d3-2L", "it is white's turn"),
            ("play white a4-2R", "illegal move"),
            ("play white z9-1R", "bad square"),
            ("play white d3-5R", "bad twist"),
            ("play white d3", "illegal move"),
            ("play purple d3-1R", "bad colour"),
            ("play white", "play takes"),
            ("genmove black", "it is white's turn"),
            ("genmove", "genmove takes"),
            ("time_settings 1 2", "time_settings takes"),
            ("time_settings -1 0 0", "bad number"),
            ("time_settings 1 nan 0", "bad number"),
            ("time_left white 5", "time_left takes"),
            ("time_left red 5 0", "bad colour"),
            ("pentagrid-set_position xxxx", "position"),
            (
                "pentagrid-time_settings fast",
                "pentagrid-time_settings takes",
            ),
            ("name please", "name takes no arguments"),
            ("7", "no command"),
        ] {
            let reason_given = say(&mut e, line).unwrap_err();
            assert!(reason_given.contains(reason), "{line}: {reason_given}");
            assert_eq!(e.position(), before, "{line} changed nothing");
        }
        assert_eq!(
            e.handle_line("12 fly").unwrap().response,
            "?12 unknown command \"fly\"\n\n"
        );
    }

    #[test]
    fn genmove_plays_and_the_next_search_reuses_the_tree() {
        let mut e = engine();
        say(
            &mut e,
            "pentagrid-set_position x.o.../.x..../....o./..x.../....../......",
        )
        .unwrap();
        let first = say(&mut e, "genmove white").unwrap();
        let mv: MoveNotation = first.parse().unwrap();
        assert!(mv.twist.is_some());
        assert_eq!(e.position().stone_count(), 6);
        // The opponent answers with the reply the search expected.
        let pv = e.last.as_ref().unwrap().pv.clone();
        say(&mut e, &format!("play black {}", pv[1])).unwrap();
        let waiting: u64 = say(&mut e, "pentagrid-tree_visits")
            .unwrap()
            .parse()
            .unwrap();
        assert!(waiting > 0);
        let exchange = e.handle_line("genmove white").unwrap();
        let info = exchange.info.unwrap();
        assert!(info.contains(&format!("reused={waiting} ")), "{info}");
        let summary = say(&mut e, "pentagrid-last_search").unwrap();
        assert!(
            summary.starts_with(&format!("reused={waiting} simulations=2000")),
            "{summary}"
        );
    }

    #[test]
    fn without_reuse_every_search_starts_fresh() {
        let mut e = GtpEngine::new(GtpOptions {
            config: "uct:playouts=1000".parse().unwrap(),
            reuse: false,
            ..GtpOptions::default()
        });
        say(&mut e, "genmove black").unwrap();
        say(&mut e, "genmove white").unwrap();
        assert!(
            say(&mut e, "pentagrid-last_search")
                .unwrap()
                .starts_with("reused=0 ")
        );
    }

    #[test]
    fn a_time_control_sets_the_budget() {
        let mut e = engine();
        say(&mut e, "time_settings 0 0.2 1").unwrap();
        say(&mut e, "genmove black").unwrap();
        // The search stops by the move's limit less the margin (it looks at the clock every
        // few hundred simulations), so well within the 0.2 s.
        let searched = e.last.as_ref().unwrap().seconds;
        assert!(searched < 0.2, "{searched}");
        say(&mut e, "pentagrid-time_settings increment 1 0").unwrap();
        say(&mut e, "time_left white 0.3 0").unwrap();
        say(&mut e, "genmove white").unwrap();
        let searched = e.last.as_ref().unwrap().seconds;
        assert!(searched < 0.3, "{searched}");
    }
}
