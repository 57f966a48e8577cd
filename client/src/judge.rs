//! Players judged against perfect play: the exact value of a position and of each of its
//! moves (from a tablebase, or the midsolver where the table does not reach; one stone below
//! the midsolver, the deep solver's value of the position and the midsolver's of the chosen
//! move), files of positions to judge on, positions sampled from play, and a player's chosen
//! moves scored by whether they keep the exact value. Books are judged in
//! [`crate::judge_book`].
//!
//! Everything here is pure computation over an [`ExactOracle`] (the caller opens the
//! tablebase), so the same code judges in the CLI, in tests and in benchmarks.

use std::collections::{BTreeMap, HashSet};
use std::ops::RangeInclusive;
use std::time::Duration;

use pentago::{
    DeepLimits, DeepSolver, ExactOracle, MID_MIN_STONES, Move, Player, Position, PositionKey,
    SharedOracle, Value, best_of, midsolve, splitmix64,
};
use thiserror::Error;

/// Why judging failed.
#[derive(Debug, Error)]
pub enum JudgeError {
    /// The exact values could not be read (a damaged tablebase file, say).
    #[error("reading exact values: {0}")]
    Exact(Box<dyn std::error::Error + Send + Sync>),
    /// A line of a positions file does not hold a position to judge.
    #[error("line {line}: {why}")]
    Line {
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A book row names a move its position does not have.
    #[error("the book's move {mv} is not legal in {position}")]
    IllegalMove {
        /// The row's position.
        position: Position,
        /// The row's move.
        mv: Move,
    },
    /// An external engine cannot be asked for moves here (only a worker's referee plays
    /// them).
    #[error("engine:{0} plays only under a worker's referee; judge a built-in player")]
    Engine(String),
    /// Sampling was asked for an empty or impossible stone range.
    #[error("stone range {0}..={1}: expected 1 to 35, the first at most the last")]
    StoneRange(u32, u32),
}

/// Where an exact value comes from (named wherever one is shown).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExactSource {
    /// Irving's tablebase.
    Table,
    /// The midsolver (from [`MID_MIN_STONES`] stones on).
    Midsolver,
}

impl ExactSource {
    /// Its stable name: `table` or `midsolver`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ExactSource::Table => "table",
            ExactSource::Midsolver => "midsolver",
        }
    }
}

/// The exact value of an ongoing position and of every legal move, for the mover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The position's value for the side to move.
    pub value: Value,
    /// Every legal move (in legal order) with its value for the mover.
    pub moves: Vec<(Move, Value)>,
    /// Where the values come from.
    pub source: ExactSource,
}

impl Exact {
    /// The value of `mv` for the mover, `None` for a move not in the list.
    #[must_use]
    pub fn of(&self, mv: Move) -> Option<Value> {
        self.moves.iter().find(|m| m.0 == mv).map(|m| m.1)
    }
}

/// The exact values of the ongoing `position`: from `oracle` where it covers every child,
/// else from the midsolver from [`MID_MIN_STONES`] stones on; `None` where neither reaches
/// (or the game is over: no move to value).
pub fn exact<O: ExactOracle>(oracle: &O, position: &Position) -> Result<Option<Exact>, JudgeError> {
    if position.is_over() {
        return Ok(None);
    }
    let from_table = oracle
        .probe_moves(position)
        .map_err(|e| JudgeError::Exact(Box::new(e)))?;
    if let Some(moves) = from_table
        && let Some((_, value)) = best_of(&moves)
    {
        return Ok(Some(Exact {
            value,
            moves,
            source: ExactSource::Table,
        }));
    }
    if position.stone_count() >= MID_MIN_STONES
        && let Ok(solved) = midsolve(position)
    {
        return Ok(Some(Exact {
            value: solved.value,
            moves: solved.moves,
            source: ExactSource::Midsolver,
        }));
    }
    Ok(None)
}

/// The positions of a positions file: one position a line in pentagrid's notation (or
/// `start`), `#` starting a comment, blank lines skipped. A line that does not read, or holds
/// a finished game (no move to judge), is refused with its number.
pub fn parse_positions(text: &str) -> Result<Vec<Position>, JudgeError> {
    let mut positions = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let bad = |why: String| JudgeError::Line {
            line: index + 1,
            why,
        };
        let position: Position = content.parse().map_err(|e| {
            bad(format!(
                "{:?} is not a position: {e}",
                pentago::excerpt(content)
            ))
        })?;
        if position.is_over() {
            return Err(bad(format!(
                "the game is over in {position}: no move to judge"
            )));
        }
        positions.push(position);
    }
    Ok(positions)
}

/// Positions of `stones` stones from `games` games of `player` against itself from the start
/// (game `i` seeded from `seed` and `i`, one thread, so the sample is reproducible), kept when
/// the side to move wins or draws (a lost position has no move that loses value) and when no
/// symmetric image was kept before.
pub fn sample_positions<O: ExactOracle>(
    oracle: &O,
    player: &Player,
    games: u64,
    seed: u64,
    stones: RangeInclusive<u32>,
) -> Result<Vec<Position>, JudgeError> {
    if let Some(name) = player.engine() {
        return Err(JudgeError::Engine(name.to_owned()));
    }
    let (low, high) = (*stones.start(), *stones.end());
    if low == 0 || low > high || high > 35 {
        return Err(JudgeError::StoneRange(low, high));
    }
    let mut seen: HashSet<PositionKey> = HashSet::new();
    let mut out = Vec::new();
    for game in 0..games {
        let mut position = Position::START;
        let mut ply = 0u64;
        while !position.is_over() && position.stone_count() <= high {
            if stones.contains(&position.stone_count())
                && seen.insert(position.canonical_key())
                && let Some(exact) = exact(oracle, &position)?
                && exact.value != Value::Loss
            {
                out.push(position);
            }
            let move_seed = splitmix64(seed ^ splitmix64(game) ^ ply);
            position = position.play_unchecked(player.choose(&position, move_seed, 1));
            ply += 1;
        }
    }
    Ok(out)
}

/// A player's chosen moves in positions of one outcome.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// Positions judged.
    pub positions: u64,
    /// Of them, those where the chosen move kept the exact value.
    pub kept: u64,
}

impl Kept {
    /// The share kept; `None` when nothing was judged.
    #[must_use]
    pub fn share(self) -> Option<f64> {
        (self.positions > 0).then(|| self.kept as f64 / self.positions as f64)
    }

    fn add(&mut self, kept: bool) {
        self.positions += 1;
        self.kept += u64::from(kept);
    }
}

/// A player judged at one stone count.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerStones {
    /// Stones of the positions.
    pub stones: u32,
    /// Won positions (for the side to move) and how often the player kept the win.
    pub won: Kept,
    /// Drawn positions and how often the player kept the draw.
    pub drawn: Kept,
    /// Lost positions: every move keeps a loss, so none is asked for a move.
    pub lost: u64,
}

/// A player judged on a list of positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerJudgement {
    /// Per stone count, fewest stones first (only counts with a judged position).
    pub stones: Vec<PlayerStones>,
    /// Positions without a known exact value (not judged).
    pub unknown: u64,
}

impl PlayerJudgement {
    /// Won and drawn positions over every stone count.
    #[must_use]
    pub fn total(&self) -> (Kept, Kept) {
        self.stones.iter().fold(
            (Kept::default(), Kept::default()),
            |(mut won, mut drawn), s| {
                won.positions += s.won.positions;
                won.kept += s.won.kept;
                drawn.positions += s.drawn.positions;
                drawn.kept += s.drawn.kept;
                (won, drawn)
            },
        )
    }
}

/// How far a player's judging has come: positions done, of all.
#[derive(Copy, Clone, Debug)]
pub struct JudgeProgress {
    /// Positions done.
    pub done: usize,
    /// Positions in all.
    pub total: usize,
}

/// The longest deep solve of one position a judge waits for: a 17-stone position takes a few
/// seconds (median) to about a minute on one core; one still open then is not judged.
pub const DEEP_JUDGE_TIME: Duration = Duration::from_secs(300);

/// Transposition table of the judge's deep solves: 2^22 entries (64 MiB).
const DEEP_JUDGE_TABLE_BITS: u32 = 22;

/// What a judged position's value is known from.
enum Known {
    /// Every move's value (the tablebase, the midsolver).
    Moves(Exact),
    /// The position's value alone (the deep solver, one stone below the midsolver): the
    /// chosen move is valued on its own.
    Value(Value),
}

impl Known {
    /// The position's value for the side to move.
    fn value(&self) -> Value {
        match self {
            Known::Moves(exact) => exact.value,
            Known::Value(value) => *value,
        }
    }

    /// Whether `mv` keeps the value (for [`Known::Value`], the midsolver values the move's
    /// position; `false` when it cannot).
    fn kept_by(&self, position: &Position, mv: Move) -> bool {
        match self {
            Known::Moves(exact) => exact.of(mv) == Some(exact.value),
            Known::Value(value) => move_value(position, mv) == Some(*value),
        }
    }
}

/// The exact value of `position` (one stone below the midsolver) from the deep solver within
/// [`DEEP_JUDGE_TIME`]; `None` at other stone counts or when it is not proven in time.
fn deep_value(position: &Position) -> Option<Value> {
    if position.is_over() || position.stone_count() + 1 != MID_MIN_STONES {
        return None;
    }
    let limits = DeepLimits {
        max_time: Some(DEEP_JUDGE_TIME),
        ..DeepLimits::default()
    };
    DeepSolver::new(DEEP_JUDGE_TABLE_BITS)
        .solve(position, limits)
        .value
}

/// The exact value of `mv` for the side to move in `position`: from the game's end when it
/// ends it, else from the midsolver (the position after it has at least
/// [`MID_MIN_STONES`] stones).
fn move_value(position: &Position, mv: Move) -> Option<Value> {
    let mover = position.side_to_move();
    let after = position.play(mv).ok()?;
    if after.is_over() {
        return Value::of_status(after.status(), mover);
    }
    (after.stone_count() >= MID_MIN_STONES)
        .then(|| midsolve(&after).ok())
        .flatten()
        .map(|solved| solved.value.negate())
}

/// Asks `player` for a move in each won or drawn position of `positions` (position `i`
/// seeded from `seed` and `i`; `threads` UCT trees; `player_table` the exact values the player
/// has, as a worker's built-in player and `pentagrid gtp` have the shipped tablebase) and
/// counts the moves that keep the exact value. Lost positions are counted, not asked;
/// positions without an exact value are left out. Positions one stone below the midsolver
/// are valued by the deep solver (within [`DEEP_JUDGE_TIME`]) and the chosen move by the
/// midsolver.
pub fn judge_player<O: ExactOracle>(
    oracle: &O,
    player: &Player,
    player_table: Option<&SharedOracle>,
    positions: &[Position],
    seed: u64,
    threads: usize,
    progress: &mut dyn FnMut(JudgeProgress),
) -> Result<PlayerJudgement, JudgeError> {
    if let Some(name) = player.engine() {
        return Err(JudgeError::Engine(name.to_owned()));
    }
    let mut by_stones: BTreeMap<u32, PlayerStones> = BTreeMap::new();
    let mut unknown = 0;
    for (index, position) in positions.iter().enumerate() {
        progress(JudgeProgress {
            done: index,
            total: positions.len(),
        });
        let known = match exact(oracle, position)? {
            Some(exact) => Known::Moves(exact),
            None => match deep_value(position) {
                Some(value) => Known::Value(value),
                None => {
                    unknown += 1;
                    continue;
                }
            },
        };
        let stones = position.stone_count();
        let entry = by_stones.entry(stones).or_insert(PlayerStones {
            stones,
            ..PlayerStones::default()
        });
        if known.value() == Value::Loss {
            entry.lost += 1;
            continue;
        }
        let seed = splitmix64(seed ^ index as u64);
        let mv = player.choose_with(position, seed, threads.max(1), player_table);
        let kept = known.kept_by(position, mv);
        match known.value() {
            Value::Win => entry.won.add(kept),
            _ => entry.drawn.add(kept),
        }
    }
    progress(JudgeProgress {
        done: positions.len(),
        total: positions.len(),
    });
    Ok(PlayerJudgement {
        stones: by_stones.into_values().collect(),
        unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::NoOracle;

    /// An oracle that values positions by the midsolver (from 18 stones on), so that the
    /// judge's arithmetic can be checked against an independent count of keeping moves.
    struct Mid;

    impl ExactOracle for Mid {
        type Error = std::convert::Infallible;

        fn probe(&self, position: &Position) -> Result<Option<Value>, Self::Error> {
            if let Some(value) = Value::of_status(position.status(), position.side_to_move()) {
                return Ok(Some(value));
            }
            Ok(midsolve(position).ok().map(|s| s.value))
        }
    }

    /// A white-to-move position white wins (see the accuracy tests).
    const WON: &str = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";

    /// One stone below the midsolver the deep solver values the position: white to move has
    /// four in a row and a free fifth square, a win the player takes (the move ends the game,
    /// so no midsolve is needed to value it).
    #[test]
    fn a_position_one_stone_below_the_midsolver_is_judged_by_the_deep_solver() {
        let position: Position = "oooo../x.x.x./.x.x.x/x...../x.o.o./x..o.o".parse().unwrap();
        assert_eq!(position.stone_count() + 1, MID_MIN_STONES);
        assert_eq!(deep_value(&position), Some(Value::Win));
        let player: Player = "uct:playouts=500".parse().unwrap();
        let judged =
            judge_player(&NoOracle, &player, None, &[position], 1, 1, &mut |_| {}).unwrap();
        assert_eq!(judged.unknown, 0);
        let stones = &judged.stones[0];
        assert_eq!(
            (stones.stones, stones.won.positions, stones.won.kept),
            (17, 1, 1)
        );
        // Further from the midsolver there is nothing to value a position with.
        assert_eq!(deep_value(&Position::START), None);
    }

    #[test]
    fn positions_files_skip_comments_and_refuse_bad_lines_by_number() {
        let text =
            "# two positions\nstart\n\n  o...../....x./....../....../.x..../......  # a comment\n";
        let positions = parse_positions(text).unwrap();
        assert_eq!(positions.len(), 2);
        assert_eq!(positions[0], Position::START);
        assert_eq!(positions[1].stone_count(), 3);
        let error = parse_positions("start\nstart\nxxxx\n").unwrap_err();
        assert!(error.to_string().starts_with("line 3:"), "{error}");
        let five = "xxxxx./oooo../....../....../....../......";
        let error = parse_positions(&format!("# x\n{five}\n")).unwrap_err();
        assert!(
            error.to_string().starts_with("line 2: the game is over"),
            "{error}"
        );
        assert!(parse_positions("# only comments\n\n").unwrap().is_empty());
    }

    #[test]
    fn below_the_midsolver_an_uncovered_position_has_no_exact_value() {
        assert_eq!(exact(&NoOracle, &Position::START).unwrap(), None);
        let won: Position = WON.parse().unwrap();
        let from_mid = exact(&NoOracle, &won).unwrap().unwrap();
        assert_eq!(from_mid.source, ExactSource::Midsolver);
        assert_eq!(from_mid.value, Value::Win);
        let from_table = exact(&Mid, &won).unwrap().unwrap();
        assert_eq!(from_table.source, ExactSource::Table);
        assert_eq!(from_table.moves, from_mid.moves);
    }

    #[test]
    fn random_play_keeps_a_win_about_as_often_as_winning_moves_are_common() {
        let won: Position = WON.parse().unwrap();
        let exact = exact(&NoOracle, &won).unwrap().unwrap();
        let winning = exact.moves.iter().filter(|m| m.1 == Value::Win).count() as u64;
        // Perfect play keeps the win.
        let positions = vec![won; 1];
        let perfect: Player = "perfect".parse().unwrap();
        let judged =
            judge_player(&NoOracle, &perfect, None, &positions, 1, 1, &mut |_| {}).unwrap();
        assert_eq!(judged.stones.len(), 1);
        assert_eq!(
            judged.stones[0].won,
            Kept {
                positions: 1,
                kept: 1
            }
        );
        // The random player over many seeds keeps the win in a share near winning / all.
        let many = vec![won; 200];
        let judged =
            judge_player(&NoOracle, &Player::Random, None, &many, 7, 1, &mut |_| {}).unwrap();
        let (won_total, drawn_total) = judged.total();
        assert_eq!(won_total.positions, 200);
        assert_eq!(drawn_total.positions, 0);
        let expected = winning as f64 / exact.moves.len() as f64;
        let share = won_total.share().unwrap();
        assert!((share - expected).abs() < 0.15, "{share} vs {expected}");
    }

    #[test]
    fn judging_skips_unknown_positions_and_refuses_engines() {
        let judged = judge_player(
            &NoOracle,
            &Player::Random,
            None,
            &[Position::START],
            1,
            1,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(judged.unknown, 1);
        assert!(judged.stones.is_empty());
        assert_eq!(judged.total().0.share(), None);
        let engine: Player = "engine:other".parse().unwrap();
        assert!(matches!(
            judge_player(
                &NoOracle,
                &engine,
                None,
                &[Position::START],
                1,
                1,
                &mut |_| {}
            ),
            Err(JudgeError::Engine(_))
        ));
        assert!(matches!(
            sample_positions(&NoOracle, &Player::Random, 1, 1, RangeInclusive::new(4, 3)),
            Err(JudgeError::StoneRange(4, 3))
        ));
    }
}
