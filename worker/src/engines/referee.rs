//! The referee: plays one game between two players — built-in [`Player`]s or external engine
//! programs — applying every move with the engine crate's rules (`docs/DESIGN.md` §3) and timing
//! the engines on the wall clock. An engine that plays an illegal move, answers out of the framing,
//! crashes, hangs or overruns its time loses the game, with the reason recorded.

use std::time::{Duration, Instant};

use pentago::{
    Adjudicated, Adjudication, Budget, Clock, Color, GameRecord, Move, Player, Position,
    SafetyMargin, Status, TimeLimit, moves_reaching, splitmix64, think_time,
};
use thiserror::Error;

use super::external::{failure, millis};
use super::process::ProcessError;
use super::{Dialect, ExternalEngine};

/// How the referee runs games.
#[derive(Clone, Debug)]
pub struct RefereeOptions {
    /// The time limit.
    pub time: TimeLimit,
    /// Wall-clock time an engine may take past its limit (the trips through the pipes, the
    /// process being scheduled) before it loses on time.
    pub margin: Duration,
    /// How long after that to wait for a late answer: an answer in this window loses on time,
    /// none at all means the engine hung (and it is killed).
    pub grace: Duration,
    /// Limit for the answer to any command but `genmove`.
    pub command_timeout: Duration,
    /// Start every engine afresh for each game; otherwise reuse it after `clear_board`.
    pub restart: bool,
    /// Threads an engine is asked to use (in a dialect that has a command for it).
    pub engine_threads: Option<usize>,
    /// End the game as soon as its position's exact value is known.
    pub adjudicate: Option<Adjudication>,
}

impl Default for RefereeOptions {
    fn default() -> Self {
        RefereeOptions {
            time: TimeLimit::PerMove(1.0),
            margin: Duration::from_millis(100),
            grace: Duration::from_secs(2),
            command_timeout: Duration::from_secs(10),
            restart: false,
            engine_threads: None,
            adjudicate: None,
        }
    }
}

/// Why an engine lost a game without it being played out.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ForfeitReason {
    /// The program could not be started.
    #[error("could not start: {0}")]
    Spawn(String),
    /// The process ended.
    #[error("crashed: {0}")]
    Crashed(String),
    /// No answer at all, long after the limit; the process was killed.
    #[error("hung: no answer to {command} in {waited_ms} ms")]
    Hung {
        /// The command (its name).
        command: String,
        /// How long the referee waited.
        waited_ms: u64,
    },
    /// An answer, but after the limit and the margin.
    #[error("lost on time: {used_ms} ms used, {allowed_ms} ms allowed")]
    TimeForfeit {
        /// Time taken by the move.
        used_ms: u64,
        /// Time allowed (without the margin).
        allowed_ms: u64,
    },
    /// An answer outside the protocol, or a move that does not read.
    #[error("malformed answer to {command}: {why}")]
    Malformed {
        /// The command (its name).
        command: String,
        /// What was wrong.
        why: String,
    },
    /// A move that is not legal in the position.
    #[error("illegal move {answer:?}: {why}")]
    IllegalMove {
        /// The answer.
        answer: String,
        /// Why it is illegal.
        why: String,
    },
    /// A `?` to a command it must accept (a legal move, `clear_board`, `genmove`).
    #[error("refused {command}: {reason}")]
    Refused {
        /// The command (its name).
        command: String,
        /// Its reason.
        reason: String,
    },
    /// It resigned.
    #[error("resigned")]
    Resigned,
}

/// The loser of a forfeited game and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// Who lost.
    pub loser: Color,
    /// Why.
    pub reason: ForfeitReason,
}

/// A refereed game: the moves played, how it ended, and what the engines said on the side.
#[derive(Clone, Debug, PartialEq)]
pub struct RefereedGame {
    /// The moves and the result (a forfeit is a win for the other side).
    pub record: GameRecord,
    /// Set when the game ended by a forfeit.
    pub forfeit: Option<Forfeit>,
    /// Set when the game was adjudicated: its result is this value's.
    pub adjudicated: Option<Adjudicated>,
    /// Seconds each move took on the wall clock, in move order.
    pub move_seconds: Vec<f64>,
    /// The mover's score of each move, in move order: a built-in player's where it keeps one
    /// ([`pentago::Choice::score`]), `None` for the others and for external engines.
    pub move_scores: Vec<Option<f64>>,
    /// The end of each external engine's standard error during the game (black, white).
    pub stderr: [String; 2],
}

impl RefereedGame {
    /// Seconds each side (black, white) spent on its moves, on the wall clock.
    #[must_use]
    pub fn seconds(&self) -> [f64; 2] {
        let mut seconds = [0.0; 2];
        let mut mover = self.record.start.side_to_move();
        for used in &self.move_seconds {
            seconds[mover as usize] += used;
            mover = mover.opponent();
        }
        seconds
    }
}

/// A game the referee cannot start.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RefereeError {
    /// The start position is a finished game.
    #[error("the start position is a finished game ({0})")]
    GameOver(Status),
    /// No way to tell the engines the start position was found.
    #[error("no sequence of moves reaches the start position {0}")]
    Unreachable(Position),
}

/// One side of a game.
pub enum Contestant<'a> {
    /// A built-in player; under a time limit a UCT player searches for the time the engine
    /// programs' policy gives it, and it has the shipped tablebase's exact values (as
    /// `pentagrid gtp` has by default).
    BuiltIn(&'a Player),
    /// An external engine program.
    Engine(&'a mut ExternalEngine),
}

/// The state of a game in progress.
struct Game {
    position: Position,
    moves: Vec<Move>,
    clocks: [Clock; 2],
    move_seconds: Vec<f64>,
    move_scores: Vec<Option<f64>>,
    adjudicated: Option<Adjudicated>,
}

impl RefereeOptions {
    /// Plays a game from `start` (ongoing) between `sides` (black, white). `seed` makes the
    /// built-in players' moves reproducible; `threads` is their tree count.
    pub fn play_game(
        &self,
        start: &Position,
        mut sides: [Contestant<'_>; 2],
        seed: u64,
        threads: usize,
    ) -> Result<RefereedGame, RefereeError> {
        let status = start.status();
        if status.is_over() {
            return Err(RefereeError::GameOver(status));
        }
        let opening = moves_reaching(start).ok_or(RefereeError::Unreachable(*start))?;
        let initial = self.time.control().initial_clock();
        let mut game = Game {
            position: *start,
            moves: Vec::new(),
            clocks: [initial, initial],
            move_seconds: Vec::new(),
            move_scores: Vec::new(),
            adjudicated: None,
        };
        let forfeit = self
            .run(&mut sides, &mut game, &opening, seed, threads)
            .err();
        if let Some(forfeit) = &forfeit
            && let Contestant::Engine(engine) = &mut sides[forfeit.loser as usize]
        {
            // Whatever state it is in, it starts afresh next game; stopped first, so that all
            // it wrote before it lost is read.
            engine.stop();
        }
        if self.restart {
            for side in &mut sides {
                if let Contestant::Engine(engine) = side {
                    engine.stop();
                }
            }
        }
        let stderr = sides.each_mut().map(|side| match side {
            Contestant::Engine(engine) => engine.take_stderr(),
            Contestant::BuiltIn(_) => String::new(),
        });
        let result = match (&forfeit, game.adjudicated) {
            (Some(f), _) => Status::Won(f.loser.opponent()),
            (None, Some(verdict)) => verdict.status(game.position.side_to_move()),
            (None, None) => game.position.status(),
        };
        Ok(RefereedGame {
            record: GameRecord {
                start: *start,
                moves: game.moves,
                result,
            },
            forfeit,
            adjudicated: game.adjudicated,
            move_seconds: game.move_seconds,
            move_scores: game.move_scores,
            stderr,
        })
    }

    fn run(
        &self,
        sides: &mut [Contestant<'_>; 2],
        game: &mut Game,
        opening: &[Move],
        seed: u64,
        threads: usize,
    ) -> Result<(), Forfeit> {
        for colour in [Color::Black, Color::White] {
            if let Contestant::Engine(engine) = &mut sides[colour as usize] {
                self.prepare(engine, opening).map_err(|reason| Forfeit {
                    loser: colour,
                    reason,
                })?;
            }
        }
        while !game.position.is_over() {
            if let Some(verdict) = self
                .adjudicate
                .and_then(|adj| crate::accuracy::adjudicate(&adj, &game.position))
            {
                game.adjudicated = Some(verdict);
                return Ok(());
            }
            let colour = game.position.side_to_move();
            let seed = splitmix64(seed.wrapping_add(game.moves.len() as u64));
            let side = &mut sides[colour as usize];
            let mv = self
                .next_move(side, colour, game, seed, threads)
                .map_err(|reason| Forfeit {
                    loser: colour,
                    reason,
                })?;
            game.position = game.position.play_unchecked(mv);
            game.moves.push(mv);
            let other = colour.opponent();
            if !game.position.is_over()
                && let Contestant::Engine(engine) = &mut sides[other as usize]
            {
                let line = engine.spec.dialect.play(colour, mv);
                engine
                    .ask(&line, self.command_timeout, self.engine_threads)
                    .map_err(|reason| Forfeit {
                        loser: other,
                        reason,
                    })?;
            }
        }
        Ok(())
    }

    /// Starts or resets an engine for a new game and tells it the time limit and the moves
    /// that reach the start position.
    fn prepare(&self, engine: &mut ExternalEngine, opening: &[Move]) -> Result<(), ForfeitReason> {
        let (timeout, threads) = (self.command_timeout, self.engine_threads);
        engine.ask("clear_board", timeout, threads)?;
        let dialect = engine.spec.dialect;
        if dialect.uses_time_left() {
            let settings = match self.time {
                TimeLimit::PerMove(s) => format!("time_settings 0 {s} 1"),
                TimeLimit::Increment { base, .. } => format!("time_settings {base} 0 0"),
            };
            // Optional in GTP: an engine that does not keep time still plays.
            engine.ask_answer(&settings, timeout, threads)?;
            // GTP's time_settings cannot say "increment"; pentagrid's extension can, so an
            // engine that knows it plans with the increment as the built-in player does (one
            // that does not answers `?` and keeps the sudden-death clock of time_left).
            if let TimeLimit::Increment { base, increment } = self.time {
                let extension = format!("pentagrid-time_settings increment {base} {increment}");
                engine.ask_answer(&extension, timeout, threads)?;
            }
        }
        let mut position = Position::START;
        for &mv in opening {
            let line = dialect.play(position.side_to_move(), mv);
            engine.ask(&line, timeout, threads)?;
            position = position.play_unchecked(mv);
        }
        Ok(())
    }

    /// The move of the side to move, checked for legality.
    fn next_move(
        &self,
        side: &mut Contestant<'_>,
        colour: Color,
        game: &mut Game,
        seed: u64,
        threads: usize,
    ) -> Result<Move, ForfeitReason> {
        let index = colour as usize;
        let clock = game.clocks[index];
        let allowed = match self.time {
            TimeLimit::PerMove(s) => s,
            TimeLimit::Increment { .. } => clock.seconds.max(0.0),
        };
        let started = Instant::now();
        let (mv, score) = match side {
            Contestant::BuiltIn(player) => {
                let player = self.timed(player, clock, game.position.stone_count());
                let oracle = crate::shipped::shipped_oracle();
                let choice = player.choose_scored(&game.position, seed, threads, oracle.as_ref());
                (choice.mv, choice.score)
            }
            Contestant::Engine(engine) => (self.engine_move(engine, colour, game, allowed)?, None),
        };
        let used = started.elapsed().as_secs_f64();
        game.move_seconds.push(used);
        game.move_scores.push(score);
        game.clocks[index] = clock.after_move(&self.time.control(), used);
        Ok(mv)
    }

    /// A built-in UCT player searches for the time the clock gives it.
    fn timed(&self, player: &Player, clock: Clock, stones: u32) -> Player {
        let margin = SafetyMargin::default();
        let think = think_time(&self.time.control(), Some(clock), stones, &margin);
        match (player, think) {
            (Player::Uct(config), Some(s)) => Player::Uct(config.with_budget(Budget::Seconds(s))),
            (Player::Perfect(config), Some(s)) => {
                Player::Perfect(config.with_budget(Budget::Seconds(s)))
            }
            _ => player.clone(),
        }
    }

    fn engine_move(
        &self,
        engine: &mut ExternalEngine,
        colour: Color,
        game: &Game,
        allowed: f64,
    ) -> Result<Move, ForfeitReason> {
        let (timeout, threads) = (self.command_timeout, self.engine_threads);
        let dialect = engine.spec.dialect;
        if dialect.uses_time_left() {
            let stones = u32::from(matches!(self.time, TimeLimit::PerMove(_)));
            let line = format!("time_left {} {allowed:.3} {stones}", dialect.colour(colour));
            engine.ask_answer(&line, timeout, threads)?;
        }
        let line = dialect.genmove(colour, allowed);
        let process = engine.process(threads)?;
        let started = Instant::now();
        let limit = Duration::from_secs_f64(allowed) + self.margin;
        let answer = process
            .ask(&line, started + limit)
            .map_err(|error| match error {
                // Late: wait a little longer to tell a slow engine from a hung one.
                ProcessError::Timeout => match process.receive(started + limit + self.grace) {
                    Ok(_) => ForfeitReason::TimeForfeit {
                        used_ms: millis(started.elapsed()),
                        allowed_ms: millis(Duration::from_secs_f64(allowed)),
                    },
                    Err(error) => failure(&error, process, &line, limit + self.grace),
                },
                error => failure(&error, process, &line, limit),
            });
        let answer = answer.inspect_err(|_| engine.stop())?;
        if !answer.success {
            return Err(ForfeitReason::Refused {
                command: "genmove".to_owned(),
                reason: pentago::excerpt(&answer.text),
            });
        }
        let text = answer.text.trim();
        if text.eq_ignore_ascii_case("resign") {
            return Err(ForfeitReason::Resigned);
        }
        let mv = dialect
            .read_move(text, &game.position)
            .map_err(|why| match why {
                super::BadMove::Unresolved { why, .. } => ForfeitReason::IllegalMove {
                    answer: pentago::excerpt(text),
                    why: why.to_string(),
                },
                why => ForfeitReason::Malformed {
                    command: "genmove".to_owned(),
                    why: why.to_string(),
                },
            })?;
        game.position
            .play(mv)
            .map_err(|why| ForfeitReason::IllegalMove {
                answer: pentago::excerpt(text),
                why: why.to_string(),
            })?;
        Ok(mv)
    }
}

impl Contestant<'_> {
    /// The engine's dialect, or `None` for a built-in player.
    #[must_use]
    pub fn dialect(&self) -> Option<Dialect> {
        match self {
            Contestant::Engine(engine) => Some(engine.spec.dialect),
            Contestant::BuiltIn(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_players_play_a_game_under_the_referee() {
        let referee = RefereeOptions {
            time: TimeLimit::PerMove(0.02),
            ..RefereeOptions::default()
        };
        let uct: Player = "uct:playouts=200".parse().unwrap();
        let game = referee
            .play_game(
                &Position::START,
                [
                    Contestant::BuiltIn(&uct),
                    Contestant::BuiltIn(&Player::Random),
                ],
                3,
                1,
            )
            .unwrap();
        assert!(game.record.result.is_over());
        assert_eq!(game.forfeit, None);
        assert_eq!(game.move_seconds.len(), game.record.moves.len());
        let [black, white] = game.seconds();
        assert!(black > 0.0 && white >= 0.0, "{:?}", game.move_seconds);
        // The UCT player (black, moving first) scores each of its moves; random keeps none.
        assert_eq!(game.move_scores.len(), game.record.moves.len());
        for (index, score) in game.move_scores.iter().enumerate() {
            if index % 2 == 0 {
                assert!(
                    score.is_some_and(|s| (0.0..=1.0).contains(&s)),
                    "{index}: {score:?}"
                );
            } else {
                assert_eq!(*score, None, "{index}");
            }
        }
        let over: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
        assert!(matches!(
            referee.play_game(
                &over,
                [Contestant::BuiltIn(&uct), Contestant::BuiltIn(&uct)],
                1,
                1
            ),
            Err(RefereeError::GameOver(_))
        ));
    }
}
