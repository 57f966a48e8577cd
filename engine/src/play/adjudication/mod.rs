//! Exact adjudication: a match game ends as soon as its position's exact value is known, and is
//! scored with that value. At each position from the adjudication's stone count on, within a
//! budget that depends on the position alone (never on the clock): an exact table where it
//! covers the position, else a short node-bounded alpha-beta attempt, else the midsolver where
//! its expected time fits the budget.

mod text;

pub use text::ParseAdjudicationError;

use crate::board::color::Color;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::play::exact_clock::{ATTEMPT_MIN_STONES, midsolve_seconds};
use crate::search::oracle::ExactOracle;
use crate::search::solver::{MID_MIN_STONES, SolveLimits, SolveMethod, Solver, midsolve};
use crate::search::value::Value;

/// Stones from which adjudication ends games unless told otherwise.
pub const DEFAULT_ADJUDICATION_STONES: u32 = 20;

/// Milliseconds of exact solving a position may cost unless told otherwise (0.1 s): the
/// midsolver from 22 stones on (0.07 s a solve), the alpha-beta attempt before.
pub const DEFAULT_ADJUDICATION_BUDGET_MS: u32 = 100;

/// The largest budget, in milliseconds (a minute: more than the midsolver's 5.6 s at its
/// fewest stones, 18).
pub const MAX_ADJUDICATION_BUDGET_MS: u32 = 60_000;

/// Nodes of adjudication's alpha-beta attempt. On match positions of 12 to 21 stones
/// (BENCHMARKS.md) it proves nearly as many as attempts of 2,000 and 20,000 nodes (110, 111
/// and 115 of 357) at a half and a tenth of their cost: what it proves is decided by a few
/// forced moves.
pub const ADJUDICATION_ATTEMPT_NODES: u64 = 500;

/// Expected seconds of the alpha-beta attempt on one core of the reference machine, the
/// solver's setup included (dev-2c, BENCHMARKS.md: 0.6 to 2.8 ms from 12 to 21 stones, less
/// with more stones).
pub const ADJUDICATION_ATTEMPT_SECONDS: f64 = 0.002;

/// Transposition table of the attempt: 2^12 entries (64 KiB), room for its nodes.
const ATTEMPT_TABLE_BITS: u32 = 12;

/// When a game is adjudicated, and what may be spent on each position. Text form (stable):
/// `exact`, or `exact:` with the options `stones=N` (N from 0 to 35, default
/// [`DEFAULT_ADJUDICATION_STONES`]) and `budget=SECONDS` (0 to 60 in whole milliseconds,
/// default 0.1), printed as `exact:stones=N,budget=SECONDS`.
///
/// A position with at least `min_stones` stones ends the game when its exact value is known
/// within the budget: from an exact table; else, from 12 stones on, by an alpha-beta attempt of
/// [`ADJUDICATION_ATTEMPT_NODES`] nodes where its expected time
/// ([`ADJUDICATION_ATTEMPT_SECONDS`]) fits the budget; else by the midsolver (18 stones on)
/// where the attempt's and its expected time together fit the budget ([`midsolve_seconds`]:
/// 22 stones on under the default). Every cost is fixed or computed from the stone count at
/// the reference machine's speed, so whether and how a position is adjudicated depends on the
/// position, never on the clock: a game replays the same, and the coordinator can check the
/// rule ([`Adjudication::allows`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// The fewest stones of a position that may end a game.
    pub min_stones: u32,
    /// Milliseconds of exact solving one position may be expected to cost on one core of the
    /// reference machine (at most [`MAX_ADJUDICATION_BUDGET_MS`]; 0: tables only).
    pub budget_ms: u32,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            min_stones: DEFAULT_ADJUDICATION_STONES,
            budget_ms: DEFAULT_ADJUDICATION_BUDGET_MS,
        }
    }
}

/// How an adjudicated game ended: the exact value of its last position for the side to move
/// there, and where the value came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adjudicated {
    /// The value for the side to move.
    pub value: Value,
    /// `Table`, `AlphaBeta` or `Midsolver`.
    pub source: SolveMethod,
}

impl Adjudicated {
    /// The game's result when `mover` is to move in its last position.
    #[must_use]
    pub fn status(self, mover: Color) -> Status {
        match self.value {
            Value::Win => Status::Won(mover),
            Value::Draw => Status::Draw,
            Value::Loss => Status::Won(mover.opponent()),
        }
    }
}

impl Adjudication {
    /// The budget in seconds.
    #[must_use]
    pub fn budget_seconds(&self) -> f64 {
        f64::from(self.budget_ms) / 1000.0
    }

    /// Whether the alpha-beta attempt runs at a position of `stones` stones: from 12 stones
    /// (and the adjudication's) on, where [`ADJUDICATION_ATTEMPT_SECONDS`] fits the budget.
    #[must_use]
    pub fn attempts(&self, stones: u32) -> bool {
        stones >= ATTEMPT_MIN_STONES.max(self.min_stones)
            && ADJUDICATION_ATTEMPT_SECONDS <= self.budget_seconds()
    }

    /// Whether the midsolver values a position of `stones` stones (after the attempt): it
    /// accepts the position and the attempt's and its expected time fit the budget.
    #[must_use]
    pub fn midsolves(&self, stones: u32) -> bool {
        let attempt = if self.attempts(stones) {
            ADJUDICATION_ATTEMPT_SECONDS
        } else {
            0.0
        };
        stones >= MID_MIN_STONES.max(self.min_stones)
            && attempt + midsolve_seconds(stones) <= self.budget_seconds()
    }

    /// Whether `source` may end a game at a position of `stones` stones under this
    /// adjudication: the rule [`Adjudication::judge`] follows, for a checker of its verdicts.
    #[must_use]
    pub fn allows(&self, source: SolveMethod, stones: u32) -> bool {
        match source {
            SolveMethod::Table => stones >= self.min_stones,
            SolveMethod::AlphaBeta => self.attempts(stones),
            SolveMethod::Midsolver => self.midsolves(stones),
            SolveMethod::Finished | SolveMethod::Deep => false,
        }
    }

    /// The exact value of `position` when it ends the game: it is ongoing, has at least
    /// [`Adjudication::min_stones`] stones, and `table` covers it, or the alpha-beta attempt
    /// proves its value, or the midsolver values it (see [`Adjudication`]). A table that fails
    /// to answer counts as not covering the position.
    #[must_use]
    pub fn judge<O: ExactOracle>(&self, position: &Position, table: &O) -> Option<Adjudicated> {
        let stones = position.stone_count();
        if position.is_over() || stones < self.min_stones {
            return None;
        }
        let verdict = |value, source| Some(Adjudicated { value, source });
        if let Ok(Some(value)) = table.probe(position) {
            return verdict(value, SolveMethod::Table);
        }
        if self.attempts(stones) {
            let limits = SolveLimits {
                max_nodes: ADJUDICATION_ATTEMPT_NODES,
                max_time: None,
            };
            let attempt = Solver::new(ATTEMPT_TABLE_BITS).alpha_beta(position, limits);
            if let Some(value) = attempt.value {
                return verdict(value, SolveMethod::AlphaBeta);
            }
        }
        if self.midsolves(stones) {
            return midsolve(position)
                .ok()
                .and_then(|solution| verdict(solution.value, SolveMethod::Midsolver));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoOracle;

    /// 20 stones, black to move, and black wins (from the shared solved positions); the
    /// attempt does not prove it (nor one of a million nodes).
    const WON_20: &str = "o...oo/.o..xo/.x.xo./.ox.../x.xx.x/oxoo.x";
    /// 22 stones, a draw from a match game that the attempt does not prove (nor one of a
    /// million nodes).
    const DRAWN_22: &str = "..o..o/.oxxo./..ox.x/xx..o./ox.oxo/ox.oxx";
    /// 13 stones, from a match game: the side to move (white) wins by force, which the attempt
    /// proves (in 2 nodes).
    const WON_13: &str = ".o..../xxo.../.x..../.x..o./xxo..x/oo....";

    fn adjudication(text: &str) -> Adjudication {
        text.parse().unwrap()
    }

    /// A table that covers every position, as a draw.
    struct Drawn;

    impl ExactOracle for Drawn {
        type Error = std::convert::Infallible;

        fn probe(&self, _: &Position) -> Result<Option<Value>, Self::Error> {
            Ok(Some(Value::Draw))
        }
    }

    #[test]
    fn the_budget_decides_which_solver_may_value_a_position() {
        let default = Adjudication::default();
        let from_0 = adjudication("exact:stones=0");
        assert!(!from_0.attempts(11), "no attempt below 12 stones");
        assert!(from_0.attempts(12));
        assert!(!default.attempts(19), "none below the stone count");
        assert!(default.attempts(20));
        // 0.1 s: the midsolver from 22 stones (0.07 s), not 21 (0.21 s).
        assert!(!default.midsolves(21) && default.midsolves(22) && default.midsolves(35));
        let second = adjudication("exact:budget=1");
        assert!(!second.midsolves(19) && second.midsolves(20));
        // Never below the midsolver's fewest stones, nor below the adjudication's.
        let minute = adjudication("exact:stones=0,budget=60");
        assert!(!minute.midsolves(17) && minute.midsolves(18));
        assert!(!adjudication("exact:stones=25,budget=60").midsolves(24));
        // Two milliseconds buy the attempt and then no midsolve at all; one buys no attempt,
        // and the midsolver alone from 26 stones (0.85 ms).
        let two = adjudication("exact:budget=0.002");
        assert!(two.attempts(20) && (20..36).all(|stones| !two.midsolves(stones)));
        let one = adjudication("exact:budget=0.001");
        assert!(!one.attempts(35) && !one.midsolves(25) && one.midsolves(26));
        let tables = adjudication("exact:stones=0,budget=0");
        assert!((0..36).all(|s| !tables.attempts(s) && !tables.midsolves(s)));
        // The checker's rule is the same.
        assert!(tables.allows(SolveMethod::Table, 0));
        assert!(!default.allows(SolveMethod::Table, 19) && default.allows(SolveMethod::Table, 20));
        assert!(
            default.allows(SolveMethod::AlphaBeta, 20)
                && !tables.allows(SolveMethod::AlphaBeta, 20)
        );
        assert!(
            !default.allows(SolveMethod::Midsolver, 21)
                && default.allows(SolveMethod::Midsolver, 22)
        );
        for never in [SolveMethod::Finished, SolveMethod::Deep] {
            assert!(!minute.allows(never, 30), "{never:?}");
        }
    }

    #[test]
    fn a_position_too_expensive_for_the_budget_is_not_adjudicated_and_one_within_it_is() {
        let won: Position = WON_20.parse().unwrap();
        // The midsolver's 0.63 s at 20 stones is over the default budget, and the attempt
        // does not prove the win.
        assert_eq!(Adjudication::default().judge(&won, &NoOracle), None);
        let verdict = adjudication("exact:budget=1")
            .judge(&won, &NoOracle)
            .unwrap();
        assert_eq!(verdict.source, SolveMethod::Midsolver);
        assert_eq!(
            verdict.status(won.side_to_move()),
            Status::Won(Color::Black)
        );
        assert_eq!(
            adjudication("exact:stones=21,budget=1").judge(&won, &NoOracle),
            None
        );
        // At 22 stones the default budget pays for the midsolver (0.002 s of attempt and
        // 0.069 s), 0.07 s does not.
        let drawn: Position = DRAWN_22.parse().unwrap();
        let verdict = Adjudication::default().judge(&drawn, &NoOracle).unwrap();
        assert_eq!(
            (verdict.value, verdict.source),
            (Value::Draw, SolveMethod::Midsolver)
        );
        assert_eq!(
            adjudication("exact:budget=0.07").judge(&drawn, &NoOracle),
            None
        );
        let start = Position::START;
        assert_eq!(
            adjudication("exact:stones=0").judge(&start, &NoOracle),
            None
        );
    }

    #[test]
    fn the_attempt_proves_a_tactical_position_early_and_a_table_comes_first() {
        let won: Position = WON_13.parse().unwrap();
        assert_eq!(won.stone_count(), 13);
        let verdict = adjudication("exact:stones=12")
            .judge(&won, &NoOracle)
            .unwrap();
        assert_eq!(
            (verdict.value, verdict.source),
            (Value::Win, SolveMethod::AlphaBeta)
        );
        assert_eq!(verdict.status(Color::White), Status::Won(Color::White));
        // The same position, judged again: the same verdict (nodes, not time, bound it).
        assert_eq!(
            adjudication("exact:stones=12").judge(&won, &NoOracle),
            Some(verdict)
        );
        assert_eq!(
            Adjudication::default().judge(&won, &NoOracle),
            None,
            "below 20 stones"
        );
        assert_eq!(
            adjudication("exact:stones=12,budget=0").judge(&won, &NoOracle),
            None
        );
        // A table that covers the position answers first, whatever the budget.
        let table = adjudication("exact:stones=0,budget=0")
            .judge(&won, &Drawn)
            .unwrap();
        assert_eq!(
            (table.value, table.source),
            (Value::Draw, SolveMethod::Table)
        );
        let over: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
        assert_eq!(
            adjudication("exact:stones=0").judge(&over, &Drawn),
            None,
            "game over"
        );
    }
}
