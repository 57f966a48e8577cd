//! Players that choose moves: a UCT engine, flat Monte Carlo, uniform random, or perfect play
//! where the midsolver reaches — or an external engine program by name (`engine:NAME`), which
//! only a worker's referee can play. Their text forms (`uct:...`, `flat:playouts=N`, `random`,
//! `perfect[:uct:...]`, `engine:NAME`) name them in self-play, matches and tournaments.

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use pentagrid_gamekit::seeded_rng;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::play::exact_clock::exact_move;
use crate::search::oracle::SharedOracle;
use crate::search::playout::{Policy, playout};
use crate::search::solver::midsolve;
use crate::search::uct::{ParseConfigError, SearchControl, SearchOptions, UctConfig, search};
use crate::search::value::Value;

/// A way of choosing moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Player {
    /// UCT search with this configuration.
    Uct(UctConfig),
    /// Flat Monte Carlo: the same number of uniform playouts after every root move, then the
    /// move with the best score. The baseline UCT must beat at equal playouts.
    Flat {
        /// Playouts in total, spread evenly over the moves.
        playouts: u64,
    },
    /// A uniformly random legal move.
    Random,
    /// Perfect play from [`crate::MID_MIN_STONES`] stones on (see [`perfect_move`]); before
    /// that, UCT with this configuration.
    Perfect(UctConfig),
    /// An external engine program, by the name workers know it under (their own
    /// configuration says what to run; see [`valid_engine_name`]). It plays only in matches,
    /// under a worker's referee.
    Engine(String),
}

/// Longest engine name.
pub const MAX_ENGINE_NAME: usize = 64;

/// Whether `name` is a valid engine name: 1 to [`MAX_ENGINE_NAME`] ASCII letters, digits, `_`,
/// `-` or `.`.
#[must_use]
pub fn valid_engine_name(name: &str) -> bool {
    (1..=MAX_ENGINE_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Why a player text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePlayerError {
    /// A bad `uct:` configuration.
    #[error(transparent)]
    Uct(#[from] ParseConfigError),
    /// A bad `flat:` configuration.
    #[error("bad flat player {0:?}: expected flat:playouts=N with N from 1 to 10^9")]
    Flat(String),
    /// A bad engine name.
    #[error(
        "bad engine player {0:?}: expected engine:NAME, NAME 1 to 64 letters, digits, _, - or ."
    )]
    Engine(String),
    /// Not a known player.
    #[error(
        "unknown player {0:?}: expected uct[:...], flat:playouts=N, random, perfect[:uct...] \
         or engine:NAME"
    )]
    Unknown(String),
}

impl FromStr for Player {
    type Err = ParsePlayerError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "random" {
            return Ok(Player::Random);
        }
        if let Some(rest) = s.strip_prefix("flat:") {
            let playouts = rest
                .strip_prefix("playouts=")
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|n| (1..=1_000_000_000).contains(n))
                .ok_or_else(|| ParsePlayerError::Flat(crate::excerpt(s)))?;
            return Ok(Player::Flat { playouts });
        }
        if s.starts_with("uct") {
            return Ok(Player::Uct(s.parse()?));
        }
        if s == "perfect" {
            return Ok(Player::Perfect(UctConfig::default()));
        }
        if let Some(rest) = s.strip_prefix("perfect:") {
            return Ok(Player::Perfect(rest.parse()?));
        }
        if let Some(name) = s.strip_prefix("engine:") {
            if !valid_engine_name(name) {
                return Err(ParsePlayerError::Engine(crate::excerpt(s)));
            }
            return Ok(Player::Engine(name.to_owned()));
        }
        Err(ParsePlayerError::Unknown(crate::excerpt(s)))
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Uct(config) => write!(f, "{config}"),
            Player::Flat { playouts } => write!(f, "flat:playouts={playouts}"),
            Player::Random => f.write_str("random"),
            Player::Perfect(config) => write!(f, "perfect:{config}"),
            Player::Engine(name) => write!(f, "engine:{name}"),
        }
    }
}

impl From<Player> for String {
    fn from(player: Player) -> String {
        player.to_string()
    }
}

impl TryFrom<String> for Player {
    type Error = ParsePlayerError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl Player {
    /// The external engine's name, or `None` for a built-in player.
    #[must_use]
    pub fn engine(&self) -> Option<&str> {
        match self {
            Player::Engine(name) => Some(name),
            _ => None,
        }
    }

    /// The player's move in an ongoing `position`; `seed` makes it reproducible, `threads` is the
    /// number of UCT trees (on the current rayon pool).
    ///
    /// # Panics
    /// For an external engine ([`Player::Engine`]), which only a worker's referee can play:
    /// every place that takes players from outside keeps engines out of self-play and
    /// in-process matches (see [`Player::engine`]).
    #[must_use]
    pub fn choose(&self, position: &Position, seed: u64, threads: usize) -> Move {
        self.choose_with(position, seed, threads, None)
    }

    /// [`Player::choose`] with an exact source of values (a tablebase) that a UCT player uses
    /// where it knows every move's value, and in its search (see
    /// [`crate::play::exact_clock`]).
    ///
    /// # Panics
    /// For an external engine, as [`Player::choose`].
    #[must_use]
    pub fn choose_with(
        &self,
        position: &Position,
        seed: u64,
        threads: usize,
        oracle: Option<&SharedOracle>,
    ) -> Move {
        self.choose_scored(position, seed, threads, oracle).mv
    }

    /// [`Player::choose_with`], with the mover's score for the move where the player knows one
    /// (see [`Choice::score`]): a UCT player's, and a perfect player's where it solves.
    ///
    /// # Panics
    /// For an external engine, as [`Player::choose`].
    #[must_use]
    pub fn choose_scored(
        &self,
        position: &Position,
        seed: u64,
        threads: usize,
        oracle: Option<&SharedOracle>,
    ) -> Choice {
        debug_assert!(!position.is_over());
        let unscored = |mv| Choice { mv, score: None };
        match self {
            Player::Engine(name) => {
                panic!("external engine {name:?} can only play under a worker's referee")
            }
            Player::Uct(config) => uct_move(position, config, seed, threads, oracle),
            Player::Perfect(config) => match perfect_choice(position) {
                Some((mv, value)) => Choice {
                    mv,
                    score: Some(value.score()),
                },
                None => uct_move(position, config, seed, threads, oracle),
            },
            Player::Flat { playouts } => unscored(flat_monte_carlo(position, *playouts, seed)),
            Player::Random => {
                let legal = position.legal_moves();
                unscored(legal[seeded_rng(seed, 0).random_range(0..legal.len())])
            }
        }
    }
}

/// A player's move, and what the player expected of it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move.
    pub mv: Move,
    /// The mover's expected points from the move, 0 to 1 (1 a win, ½ a draw), as the player saw
    /// it when it chose: a proven value's, or its search's mean result for the move
    /// ([`crate::ExactChoice::score`]). `None` for players that keep no score (random, flat).
    pub score: Option<f64>,
}

/// The UCT player's move: exact knowledge where it is at hand within the budget, the search
/// for the rest ([`exact_move`]).
fn uct_move(
    position: &Position,
    config: &UctConfig,
    seed: u64,
    threads: usize,
    oracle: Option<&SharedOracle>,
) -> Choice {
    // With `exact=off` the player is the search alone, without the table too.
    let oracle = oracle.filter(|_| config.exact);
    let options = SearchOptions {
        seed,
        threads,
        tables_min_visits: None,
        oracle: oracle.cloned(),
    };
    let started = Instant::now();
    let elapsed = || started.elapsed().as_secs_f64();
    let choice = exact_move(position, config, oracle, &elapsed, &mut |config| {
        search(position, config, &options, &SearchControl::new())
    })
    .expect("an ongoing position can be searched");
    Choice {
        mv: choice.mv,
        score: choice.score(),
    }
}

/// A move that keeps the exact value of the ongoing `position`, or `None` below the
/// midsolver's stone count. Among value-keeping moves it prefers faster wins and slower losses:
/// a win at once first; then the move that leaves the opponent the fewest moves that do not
/// lose at once when winning, the most when drawing or losing (so the opponent must find the
/// way out); ties go to the first in legal order.
#[must_use]
pub fn perfect_move(position: &Position) -> Option<Move> {
    perfect_choice(position).map(|(mv, _)| mv)
}

/// [`perfect_move`] with the position's exact value for the mover (which the move keeps).
fn perfect_choice(position: &Position) -> Option<(Move, Value)> {
    let solved = midsolve(position).ok()?;
    let (_, value) = crate::best_of(&solved.moves)?;
    Some((keeping_move(position, &solved.moves)?, value))
}

/// Of every move of the ongoing `position` with its exact value for the mover (from any
/// source: the midsolver, a tablebase), one that keeps the best value, chosen as
/// [`perfect_move`] chooses; `None` when `moves` is empty.
#[must_use]
pub fn keeping_move(position: &Position, moves: &[(Move, Value)]) -> Option<Move> {
    let (_, value) = crate::best_of(moves)?;
    if value == Value::Win
        && let Some(mv) = position.winning_move()
    {
        return Some(mv);
    }
    let keeping = moves.iter().filter(|m| m.1 == value);
    let escapes = |mv: Move| {
        let after = position.play_unchecked(mv);
        if after.is_over() {
            0
        } else {
            after.safe_moves().len() as i64
        }
    };
    let sign = if value == Value::Win { 1 } else { -1 };
    keeping.min_by_key(|m| sign * escapes(m.0)).map(|m| m.0)
}

fn flat_monte_carlo(position: &Position, playouts: u64, seed: u64) -> Move {
    let mut rng = seeded_rng(seed, 0);
    let mover = position.side_to_move();
    let legal = position.legal_moves();
    let per_move = (playouts / legal.len() as u64).max(1);
    let mut best = (f64::NEG_INFINITY, legal[0]);
    for &mv in legal.iter() {
        let after = position.play_unchecked(mv);
        let score = match Value::of_status(after.status(), mover) {
            Some(value) => value.score() * per_move as f64,
            None => (0..per_move)
                .map(|_| {
                    let end = playout(&after, Policy::Uniform, &mut rng);
                    Value::of_status(end.status, mover).map_or(0.0, Value::score)
                })
                .sum(),
        };
        if score > best.0 {
            best = (score, mv);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_text_round_trips() {
        for text in [
            "random",
            "flat:playouts=500",
            "uct:k=0.7,playouts=300",
            "perfect",
            "perfect:uct:playouts=50",
            "engine:morat-1.2_x",
        ] {
            let player: Player = text.parse().unwrap();
            assert_eq!(player.to_string().parse::<Player>().unwrap(), player);
        }
        assert!("flat:playouts=0".parse::<Player>().is_err());
        assert!("alphabeta".parse::<Player>().is_err());
        for bad in [
            "engine:",
            "engine:a b",
            "engine:a=b",
            &format!("engine:{}", "n".repeat(65)),
        ] {
            assert!(
                matches!(bad.parse::<Player>(), Err(ParsePlayerError::Engine(_))),
                "{bad}"
            );
        }
        let engine: Player = "engine:pg".parse().unwrap();
        assert_eq!(engine.engine(), Some("pg"));
        assert_eq!(Player::Random.engine(), None);
    }

    #[test]
    fn searching_players_score_their_moves_and_the_others_do_not() {
        let p: Position = "....../....../....../....../o.x.../......".parse().unwrap();
        let uct: Player = "uct:playouts=400,exact=off".parse().unwrap();
        let choice = uct.choose_scored(&p, 5, 1, None);
        assert_eq!(choice.mv, uct.choose(&p, 5, 1));
        let score = choice.score.expect("a searched move has a score");
        assert!((0.0..=1.0).contains(&score), "{score}");
        // A proven win is worth a whole point.
        let won: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let uct: Player = "uct:playouts=2000".parse().unwrap();
        let choice = uct.choose_scored(&won, 3, 1, None);
        assert_eq!(choice.score, Some(1.0));
        for player in ["random", "flat:playouts=100"] {
            let player: Player = player.parse().unwrap();
            assert_eq!(player.choose_scored(&p, 5, 1, None).score, None, "{player}");
        }
    }

    #[test]
    fn every_player_takes_an_immediate_win() {
        let p: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        for player in ["flat:playouts=2000", "uct:playouts=2000"] {
            let player: Player = player.parse().unwrap();
            let mv = player.choose(&p, 3, 1);
            assert!(
                p.play(mv).unwrap().status().is_over(),
                "{player} played {mv}"
            );
        }
    }
}
