//! Exact knowledge under the clock: the move of a UCT player (the default player and `pentagrid
//! gtp`) where the truth is at hand within the move's budget. In order: a tablebase's values
//! when it knows every move's; else the midsolver's, when its expected time fits a share of the
//! budget (a walk still running at a larger share is abandoned); else a short alpha-beta
//! attempt; then the UCT search with what is left, its choice held to the moves that keep a
//! proven value. A proven win is played at once; a proven loss is defended by the search's
//! choice (the move its simulations, the opponent's likely mistakes included, rate best).

use std::time::Duration;

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::play::player::keeping_move;
use crate::search::oracle::{SharedOracle, best_of};
use crate::search::solver::{
    FIRST_ATTEMPT_NODES, MID_MIN_STONES, SolveLimits, Solver, midsolve_until,
};
use crate::search::uct::{Budget, SearchResult, UctConfig};
use crate::search::value::Value;

/// Share of a move's budget the midsolver's expected time may take for it to be started.
pub const SOLVE_SHARE: f64 = 0.4;

/// Share of a move's time at which a midsolve still running is abandoned for the search.
pub const SOLVE_CAP: f64 = 0.6;

/// Simulations a second of the default search on one core of the reference machine
/// (BENCHMARKS.md: 150 k/s): converts a playout budget into the solvers' time, so that under a
/// playout budget what is solved depends on the position alone, never on the clock.
pub const SIMULATIONS_PER_SECOND: f64 = 150_000.0;

/// Transposition table of the alpha-beta attempt: 2^18 entries (4 MiB).
const ATTEMPT_TABLE_BITS: u32 = 18;

/// The fewest stones at which the alpha-beta attempt runs: earlier, a few thousand nodes
/// almost never prove anything, and the search gets the whole budget.
pub const ATTEMPT_MIN_STONES: u32 = 12;

/// Expected seconds of one midsolve with `stones` on the board, on one core of the reference
/// machine: 5.6 s at 18 stones, a third of that for each stone more (BENCHMARKS.md, dev-2c:
/// 5.6 / 1.8 / 0.63 / 0.21 / 0.073 s from 18 to 22 stones). The time depends only on the stone
/// count.
#[must_use]
pub fn midsolve_seconds(stones: u32) -> f64 {
    5.6 * 3f64.powi(18 - stones.min(36) as i32)
}

/// Where a move's exact value came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProvenBy {
    /// The tablebase (an [`crate::ExactOracle`]).
    Table,
    /// The retrograde midsolver.
    Midsolver,
    /// The short alpha-beta attempt.
    AlphaBeta,
}

impl ProvenBy {
    /// `table`, `midsolver` or `alpha-beta`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ProvenBy::Table => "table",
            ProvenBy::Midsolver => "midsolver",
            ProvenBy::AlphaBeta => "alpha-beta",
        }
    }
}

/// A chosen move and what was known when it was chosen.
#[derive(Clone, Debug)]
pub struct ExactChoice {
    /// The move to play.
    pub mv: Move,
    /// The position's exact value for the mover and where it came from, when proven before
    /// the search.
    pub exact: Option<(Value, ProvenBy)>,
    /// The search's result, when one ran.
    pub search: Option<SearchResult>,
}

impl ExactChoice {
    /// The mover's expected points from the chosen move, 0 to 1: the exact value's (1, ½ or 0)
    /// where one was proven before the search, else the search's for the move (its proven value,
    /// or its mean result over its simulations); `None` when the search ran none through it.
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        if let Some((value, _)) = self.exact {
            return Some(value.score());
        }
        let stats = self
            .search
            .as_ref()?
            .moves
            .iter()
            .find(|m| m.mv == self.mv || m.also.contains(&self.mv))?;
        match stats.proven {
            Some(value) => Some(value.score()),
            None if stats.games > 0 => Some(stats.win_rate()),
            None => None,
        }
    }
}

/// What the solvers proved before the search: every move's value, or the position's value
/// with one move that keeps it.
enum Known {
    All(Vec<(Move, Value)>),
    One(Value, Move),
}

/// The move of a UCT player with `config` in the ongoing `position`: exact knowledge first (see
/// the module), `search` (a UCT search with the configuration it is given) for the rest of the
/// budget. `elapsed` says the seconds since the move was asked for (injected, so that a test
/// can run a clock of its own); only a time budget ([`Budget::Seconds`]) reads it. With
/// `config.exact` off, the search alone decides.
///
/// # Errors
/// What `search` returns.
pub fn exact_move<E>(
    position: &Position,
    config: &UctConfig,
    oracle: Option<&SharedOracle>,
    elapsed: &(dyn Fn() -> f64 + Sync),
    search: &mut dyn FnMut(&UctConfig) -> Result<SearchResult, E>,
) -> Result<ExactChoice, E> {
    if !config.exact {
        return searched(search(config)?);
    }
    if let Some(moves) = oracle.and_then(|o| o.0.exact_moves(position))
        && let (Some((_, value)), Some(mv)) = (best_of(&moves), keeping_move(position, &moves))
    {
        return Ok(proven(mv, value, ProvenBy::Table));
    }
    let (known, source) = match solve_within(position, config.budget, elapsed) {
        Some((known, source)) => (known, source),
        None => return searched(search(&rest_of(config, elapsed, None, false))?),
    };
    match known {
        Known::All(moves) => {
            let (_, value) = best_of(&moves).expect("an ongoing position has moves");
            let keeping = keeping_move(position, &moves).expect("an ongoing position has moves");
            if value == Value::Win {
                return Ok(proven(keeping, value, source));
            }
            let stones = position.stone_count();
            let result = search(&rest_of(config, elapsed, Some(stones), false))?;
            // The search's best-ranked move among those that keep the value.
            let mv = result
                .moves
                .iter()
                .filter(|m| moves.contains(&(m.mv, value)))
                .max_by_key(|m| m.rank())
                .map_or(keeping, |m| m.mv);
            Ok(ExactChoice {
                mv,
                exact: Some((value, source)),
                search: Some(result),
            })
        }
        Known::One(Value::Win, mv) => Ok(proven(mv, Value::Win, source)),
        Known::One(value, keeping) => {
            let result = search(&rest_of(config, elapsed, None, true))?;
            let choice = result.best.expect("an ongoing position has a move");
            let kept = value == Value::Loss
                || choice == keeping
                || keeps(position, choice, value, config.budget);
            let mv = if kept { choice } else { keeping };
            Ok(ExactChoice {
                mv,
                exact: Some((value, source)),
                search: Some(result),
            })
        }
    }
}

/// A proven move played without a search.
fn proven(mv: Move, value: Value, source: ProvenBy) -> ExactChoice {
    ExactChoice {
        mv,
        exact: Some((value, source)),
        search: None,
    }
}

/// The search's choice, nothing proven before it (its own proofs rank a proven win first and
/// proven losses last).
fn searched<E>(result: SearchResult) -> Result<ExactChoice, E> {
    Ok(ExactChoice {
        mv: result.best.expect("an ongoing position has a move"),
        exact: None,
        search: Some(result),
    })
}

/// The solvers' budget in seconds: the time budget, or a playout budget at the default
/// search's speed.
fn budget_seconds(budget: Budget) -> f64 {
    match budget {
        Budget::Seconds(t) => t,
        Budget::Playouts(n) => n as f64 / SIMULATIONS_PER_SECOND,
    }
}

/// What the solvers prove of `position` within their share of `budget`, and which solver:
/// the midsolver where its expected time fits [`SOLVE_SHARE`] of it (abandoned at
/// [`SOLVE_CAP`] under a time budget), else from [`ATTEMPT_MIN_STONES`] on a short alpha-beta
/// attempt.
fn solve_within(
    position: &Position,
    budget: Budget,
    elapsed: &(dyn Fn() -> f64 + Sync),
) -> Option<(Known, ProvenBy)> {
    let stones = position.stone_count();
    let seconds = budget_seconds(budget);
    if stones >= MID_MIN_STONES && midsolve_seconds(stones) <= SOLVE_SHARE * seconds {
        let cap = match budget {
            Budget::Seconds(t) => SOLVE_CAP * t,
            Budget::Playouts(_) => f64::INFINITY,
        };
        let solved = midsolve_until(position, &|| elapsed() >= cap).ok()?;
        return Some((Known::All(solved.moves), ProvenBy::Midsolver));
    }
    if stones < ATTEMPT_MIN_STONES {
        return None;
    }
    let solution = Solver::new(ATTEMPT_TABLE_BITS).alpha_beta(position, attempt_limits(budget));
    match (solution.value, solution.best) {
        (Some(value), Some(mv)) => Some((Known::One(value, mv), ProvenBy::AlphaBeta)),
        _ => None,
    }
}

/// Limits of one alpha-beta attempt under `budget`: [`FIRST_ATTEMPT_NODES`] nodes at most (a
/// tenth of the playouts under a playout budget), and under a time budget its share of the
/// time at most.
fn attempt_limits(budget: Budget) -> SolveLimits {
    match budget {
        Budget::Seconds(t) => SolveLimits {
            max_nodes: FIRST_ATTEMPT_NODES,
            max_time: Some(Duration::from_secs_f64(SOLVE_SHARE * t)),
        },
        Budget::Playouts(n) => SolveLimits {
            max_nodes: FIRST_ATTEMPT_NODES.min(n / 10),
            max_time: None,
        },
    }
}

/// Whether `mv` is proven to keep `value` in `position`: its child is proven to be worth at
/// most the opposite for the opponent by a short alpha-beta attempt.
fn keeps(position: &Position, mv: Move, value: Value, budget: Budget) -> bool {
    let child = position.play_unchecked(mv);
    if let Some(result) = Value::of_status(child.status(), position.side_to_move()) {
        return result >= value;
    }
    let limits = match budget {
        // What the search left: the check takes a tenth of the move's time at most.
        Budget::Seconds(t) => SolveLimits {
            max_nodes: FIRST_ATTEMPT_NODES,
            max_time: Some(Duration::from_secs_f64(CHECK_SHARE * t)),
        },
        Budget::Playouts(_) => attempt_limits(budget),
    };
    let solution = Solver::new(ATTEMPT_TABLE_BITS).alpha_beta(&child, limits);
    solution.value.is_some_and(|v| v.negate() >= value)
}

/// Share of a move's time kept back from the search for [`keeps`] to check its choice.
const CHECK_SHARE: f64 = 0.1;

/// `config` with the budget left for the search after the solvers: under a time budget the
/// time not yet used, less [`CHECK_SHARE`] when its choice will be checked (`check`); under a
/// playout budget the playouts less the expected cost of a midsolve that ran at `midsolved`
/// stones, at least one.
fn rest_of(
    config: &UctConfig,
    elapsed: &(dyn Fn() -> f64 + Sync),
    midsolved: Option<u32>,
    check: bool,
) -> UctConfig {
    let budget = match config.budget {
        Budget::Seconds(t) => {
            let kept = if check { CHECK_SHARE * t } else { 0.0 };
            Budget::Seconds((t - kept - elapsed()).max(crate::play::clock::MIN_THINK_SECONDS))
        }
        Budget::Playouts(n) => {
            let cost = midsolved.map_or(0, |stones| {
                (midsolve_seconds(stones) * SIMULATIONS_PER_SECOND) as u64
            });
            Budget::Playouts(n.saturating_sub(cost).max(1))
        }
    };
    config.with_budget(budget)
}
