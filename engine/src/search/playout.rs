//! Random playouts (uniform and "safe" policies) with a seeded PCG generator.
//!
//! One playout, and many on the current rayon pool; a seed gives the same games on any number of
//! threads:
//!
//! ```
//! use pentago::{Policy, Position, playout, run_playouts, seeded_rng};
//!
//! let mut rng = seeded_rng(7, 0);
//! let game = playout(&Position::START, Policy::Uniform, &mut rng);
//! assert!(game.status.is_over());
//! assert!((9..=36).contains(&game.stones)); // a five takes at least 9 stones
//!
//! let stats = run_playouts(&Position::START, Policy::Uniform, 20_000, 1);
//! assert_eq!(stats.black_wins + stats.white_wins + stats.draws, 20_000);
//! assert!(stats.black_wins > stats.white_wins); // moving first is worth it (about 52% to 43%)
//! assert_eq!(run_playouts(&Position::START, Policy::Uniform, 20_000, 1), stats);
//! ```

use std::fmt;
use std::str::FromStr;

use pentagrid_gamekit::seeded_rng;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::bitboard::Bitboard;
use crate::board::color::Color;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::board::tables::{LANE, LANE_COUNT, LINE_COVERED, SELECT, TWIST};
use crate::board::threats;
use crate::search::eval::{Evaluation, LineOccupancy};

/// How a playout chooses moves.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// A uniformly random empty square and a uniformly random twist.
    #[default]
    Uniform,
    /// Takes an immediate win when there is one; otherwise a uniformly random move among those
    /// that leave the opponent no immediate win (any move when none does).
    Safe,
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Uniform => "uniform",
            Policy::Safe => "safe",
        })
    }
}

/// A policy name other than `uniform` or `safe`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown playout policy {0:?}: expected uniform or safe")]
pub struct ParsePolicyError(pub String);

impl FromStr for Policy {
    type Err = ParsePolicyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "uniform" => Ok(Policy::Uniform),
            "safe" => Ok(Policy::Safe),
            _ => Err(ParsePolicyError(crate::excerpt(s))),
        }
    }
}

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The placement alone made five (no twist).
    PlacementWin,
    /// The twist gave exactly one side five (the mover or, by mistake, the opponent).
    TwistWin,
    /// The twist gave both sides five.
    BothFive,
    /// The 36th stone went down without a five.
    FullBoard,
    /// The playout was cut off and its result drawn from the evaluation's win probability.
    CutOff,
}

/// The outcome of one playout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlayoutResult {
    /// The final status (never `Ongoing`).
    pub status: Status,
    /// How the game ended.
    pub ending: Ending,
    /// Stones on the board at the end.
    pub stones: u32,
}

/// A uniform index below `bound` (> 0), without modulo bias.
#[inline(always)]
fn below<R: Rng>(rng: &mut R, bound: u32) -> u32 {
    rng.random_range(0..bound)
}

/// The `k`-th set bit (from the lowest, quadrant by quadrant) of `bits`.
#[inline(always)]
fn select_bit(bits: u64, mut k: u32) -> u64 {
    let mut shift = 0;
    loop {
        let lane = (bits >> shift) & LANE;
        let count = u32::from(LANE_COUNT[lane as usize]);
        if k < count {
            return 1 << (shift + SELECT[lane as usize][k as usize] as u32);
        }
        k -= count;
        shift += 16;
    }
}

/// Plays `position` out to the end with `policy`. The game must be ongoing.
pub fn playout<R: Rng>(position: &Position, policy: Policy, rng: &mut R) -> PlayoutResult {
    cut_off_playout(position, policy, None, rng)
}

/// Plays `position` with `policy` for at most `cutoff` moves; a game still going then is scored
/// by the fitted line-occupancy evaluation: a win for the side to move there with its win
/// probability, else a loss (so the expected result is that probability). `None` plays to the
/// end. The game must be ongoing.
pub fn cut_off_playout<R: Rng>(
    position: &Position,
    policy: Policy,
    cutoff: Option<u32>,
    rng: &mut R,
) -> PlayoutResult {
    debug_assert!(!position.is_over());
    let last = cutoff.map_or(36, |plies| position.stone_count() + plies);
    match policy {
        Policy::Uniform => uniform_playout(position, last, rng),
        Policy::Safe => safe_playout(position, last, rng),
    }
}

/// The result of a game cut off with `own` (of `mover`, to move) against `other`.
#[cold]
fn score_cut_off<R: Rng>(mover: Color, own: u64, other: u64, rng: &mut R) -> PlayoutResult {
    let position = Position::from_sides(mover, Bitboard(own), Bitboard(other));
    let p = Evaluation::FITTED.win_probability(&position, &LineOccupancy::of(&position));
    let winner = if rng.random::<f32>() < p {
        mover
    } else {
        mover.opponent()
    };
    finish(Status::Won(winner), Ending::CutOff, position.stone_count())
}

/// One side's stones with, per quadrant, the five-lines whose cells there it all holds (lines
/// missing the quadrant count as held): it has five when the four sets share a line. A move
/// changes one or two quadrants, so it refreshes one or two sets instead of all four.
#[derive(Copy, Clone)]
struct Side {
    bits: u64,
    covered: [u32; 4],
}

impl Side {
    #[inline(always)]
    fn new(bits: u64) -> Side {
        let lane = |q: usize| ((bits >> (16 * q)) & LANE) as usize;
        Side {
            bits,
            covered: [0, 1, 2, 3].map(|q| LINE_COVERED[q][lane(q)]),
        }
    }

    #[inline(always)]
    fn has_five(&self) -> bool {
        self.covered[0] & self.covered[1] & self.covered[2] & self.covered[3] != 0
    }

    #[inline(always)]
    fn refresh(&mut self, q: usize) {
        self.covered[q] = LINE_COVERED[q][((self.bits >> (16 * q)) & LANE) as usize];
    }

    /// Adds one stone (a single bit).
    #[inline(always)]
    fn place(&mut self, square: u64) {
        self.bits |= square;
        self.refresh(square.trailing_zeros() as usize / 16);
    }

    #[inline(always)]
    fn twist(&mut self, twist: usize) {
        let q = twist / 2;
        let shift = 16 * q;
        let turned = TWIST[twist & 1][((self.bits >> shift) & LANE) as usize];
        self.bits = (self.bits & !(LANE << shift)) | (u64::from(turned) << shift);
        self.refresh(q);
    }
}

/// The hot loop: both sides with their line sets, the mover first.
/// Moves are played until the game ends or `last` stones are down.
fn uniform_playout<R: Rng>(position: &Position, last: u32, rng: &mut R) -> PlayoutResult {
    let mut mover = position.side_to_move();
    let (own, other) = position.sides();
    let (mut own, mut other) = (Side::new(own.0), Side::new(other.0));
    let mut stones = own.bits.count_ones() + other.bits.count_ones();
    loop {
        if stones >= last {
            return score_cut_off(mover, own.bits, other.bits, rng);
        }
        let (square, twist) = random_move(own.bits, other.bits, stones, rng);
        stones += 1;
        if let Some(result) = play_move(mover, &mut own, &mut other, square, twist, stones) {
            return result;
        }
        std::mem::swap(&mut own, &mut other);
        mover = mover.opponent();
    }
}

/// A uniformly random (square bit, twist index) among the empty squares and the 8 twists.
#[inline(always)]
fn random_move<R: Rng>(own: u64, other: u64, stones: u32, rng: &mut R) -> (u64, usize) {
    let empty = !(own | other) & Bitboard::FULL.0;
    let choice = below(rng, (36 - stones) * 8);
    (select_bit(empty, choice >> 3), (choice & 7) as usize)
}

/// Plays one move for `mover` (whose stones are `own`) in place; `stones` counts the new one.
/// The finished game's result, or `None` while it goes on.
#[inline(always)]
fn play_move(
    mover: Color,
    own: &mut Side,
    other: &mut Side,
    square: u64,
    twist: usize,
    stones: u32,
) -> Option<PlayoutResult> {
    own.place(square);
    if own.has_five() {
        return Some(finish(Status::Won(mover), Ending::PlacementWin, stones));
    }
    own.twist(twist);
    other.twist(twist);
    match (own.has_five(), other.has_five()) {
        (true, true) => Some(finish(Status::Draw, Ending::BothFive, stones)),
        (true, false) => Some(finish(Status::Won(mover), Ending::TwistWin, stones)),
        (false, true) => Some(finish(
            Status::Won(mover.opponent()),
            Ending::TwistWin,
            stones,
        )),
        (false, false) if stones == 36 => Some(finish(Status::Draw, Ending::FullBoard, stones)),
        (false, false) => None,
    }
}

#[inline(always)]
const fn finish(status: Status, ending: Ending, stones: u32) -> PlayoutResult {
    PlayoutResult {
        status,
        ending,
        stones,
    }
}

/// Random tries before the safe policy computes the whole safe set.
const SAFE_TRIES: u32 = 8;

/// Moves are played until the game ends or `last` stones are down.
fn safe_playout<R: Rng>(position: &Position, last: u32, rng: &mut R) -> PlayoutResult {
    let mut mover = position.side_to_move();
    let (own, other) = position.sides();
    let (mut own, mut other) = (Side::new(own.0), Side::new(other.0));
    let mut stones = own.bits.count_ones() + other.bits.count_ones();
    loop {
        if stones >= last {
            return score_cut_off(mover, own.bits, other.bits, rng);
        }
        // Any winning move ends the game the same way.
        let (mine, theirs) = (own.bits, other.bits);
        let win = if threats::may_reach_four(mine, theirs) {
            threats::any_winning_move(mine, theirs)
        } else {
            None
        };
        let (square, twist) = match win {
            Some(mv) => mv,
            // With no line the opponent could bring to four, every move is safe.
            None if !threats::may_reach_four(theirs, mine) => {
                random_move(mine, theirs, stones, rng)
            }
            None => choose_safe(mine, theirs, stones, rng),
        };
        stones += 1;
        if let Some(result) = play_move(mover, &mut own, &mut other, square, twist, stones) {
            return result;
        }
        std::mem::swap(&mut own, &mut other);
        mover = mover.opponent();
    }
}

/// A uniformly random safe move, or a uniformly random move when none is safe. A few random
/// tries (rejection sampling keeps the choice uniform over the safe moves) find one in most
/// positions; the rest compute the safe set per twist and draw from it.
fn choose_safe<R: Rng>(own: u64, other: u64, stones: u32, rng: &mut R) -> (u64, usize) {
    for _ in 0..SAFE_TRIES {
        let (square, twist) = random_move(own, other, stones, rng);
        if threats::is_safe_move(own, other, square, twist) {
            return (square, twist);
        }
    }
    let safe = threats::safe_placements(own, other);
    let total: u32 = safe.iter().map(|s| s.count_ones()).sum();
    if total == 0 {
        return random_move(own, other, stones, rng);
    }
    let mut k = below(rng, total);
    for (twist, &squares) in safe.iter().enumerate() {
        let count = squares.count_ones();
        if k < count {
            return (select_bit(squares, k), twist);
        }
        k -= count;
    }
    unreachable!("k is below the total count")
}

/// Totals over many playouts, as printed by `pentagrid playouts`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayoutStats {
    /// Games played.
    pub games: u64,
    /// Games black won.
    pub black_wins: u64,
    /// Games white won.
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Sum of final stone counts (mean length = this / games).
    pub total_stones: u64,
    /// Games that ended on a placement five.
    pub placement_wins: u64,
    /// Games drawn because a twist gave both sides five.
    pub both_five_draws: u64,
    /// Games that reached 36 stones (whatever the result).
    pub full_board_games: u64,
}

impl PlayoutStats {
    /// Counts one finished playout.
    pub fn record(&mut self, result: &PlayoutResult) {
        self.games += 1;
        match result.status {
            Status::Won(Color::Black) => self.black_wins += 1,
            Status::Won(Color::White) => self.white_wins += 1,
            Status::Draw | Status::Ongoing => self.draws += 1,
        }
        self.total_stones += u64::from(result.stones);
        match result.ending {
            Ending::PlacementWin => self.placement_wins += 1,
            Ending::BothFive => self.both_five_draws += 1,
            Ending::TwistWin | Ending::FullBoard | Ending::CutOff => {}
        }
        if result.stones == 36 {
            self.full_board_games += 1;
        }
    }

    /// Adds another set of totals.
    pub fn merge(&mut self, other: &PlayoutStats) {
        self.games += other.games;
        self.black_wins += other.black_wins;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.total_stones += other.total_stones;
        self.placement_wins += other.placement_wins;
        self.both_five_draws += other.both_five_draws;
        self.full_board_games += other.full_board_games;
    }

    /// Mean number of stones at the end of a game.
    #[must_use]
    pub fn mean_length(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.total_stones as f64 / self.games as f64
        }
    }
}

/// Games per independently seeded chunk; fixed so totals do not depend on the thread count.
pub const PLAYOUT_CHUNK: u64 = 1 << 14;

/// Plays `games` playouts from `position` on the current rayon pool. Chunk `i` uses
/// [`seeded_rng`]`(seed, i)`, so the totals depend only on the seed, never on the threads.
#[must_use]
pub fn run_playouts(position: &Position, policy: Policy, games: u64, seed: u64) -> PlayoutStats {
    use rayon::prelude::*;
    let chunks = games.div_ceil(PLAYOUT_CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let mut rng = seeded_rng(seed, chunk);
            let count = PLAYOUT_CHUNK.min(games - chunk * PLAYOUT_CHUNK);
            let mut stats = PlayoutStats::default();
            for _ in 0..count {
                stats.record(&playout(position, policy, &mut rng));
            }
            stats
        })
        .reduce(PlayoutStats::default, |mut a, b| {
            a.merge(&b);
            a
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::moves::Move;
    use crate::board::square::Square;
    use crate::board::twist::Twist;

    #[test]
    fn select_bit_walks_the_lanes() {
        let bits = Bitboard::FULL.0;
        let mut seen = 0u64;
        for k in 0..36 {
            seen |= select_bit(bits, k);
        }
        assert_eq!(seen, bits);
        assert_eq!(select_bit(0b1010 << 16, 1), 0b1000 << 16);
    }

    #[test]
    fn playouts_end_consistently() {
        for policy in [Policy::Uniform, Policy::Safe] {
            let mut rng = seeded_rng(7, 0);
            for _ in 0..2_000 {
                let result = playout(&Position::START, policy, &mut rng);
                assert!(result.status.is_over());
                assert!((9..=36).contains(&result.stones), "{result:?}");
                if result.ending == Ending::FullBoard {
                    assert_eq!(result.stones, 36);
                    assert_eq!(result.status, Status::Draw);
                }
            }
        }
    }

    #[test]
    fn totals_do_not_depend_on_threads() {
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let games = 3 * PLAYOUT_CHUNK + 17;
        let a = one.install(|| run_playouts(&Position::START, Policy::Uniform, games, 5));
        let b = two.install(|| run_playouts(&Position::START, Policy::Uniform, games, 5));
        assert_eq!(a, b);
        assert_eq!(a.games, games);
        assert_eq!(a.black_wins + a.white_wins + a.draws, games);
    }

    #[test]
    fn safe_policy_takes_a_win() {
        let p: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let mut rng = seeded_rng(1, 1);
        for _ in 0..50 {
            let result = playout(&p, Policy::Safe, &mut rng);
            assert_eq!(result.status, Status::Won(Color::Black));
            assert_eq!(result.stones, 9);
        }
    }

    /// Draws the safe policy's move in `position` many times; every draw must be safe by the
    /// rules read literally (play it, then look for a winning reply), and every safe move must
    /// turn up. Returns how many distinct moves were drawn.
    fn safe_choices_are_safe_and_uniform(position: &Position) -> usize {
        let (own, other) = position.sides();
        let stones = position.stone_count();
        let reference: Vec<Move> = position
            .legal_moves()
            .iter()
            .copied()
            .filter(|&mv| {
                let after = position.play_unchecked(mv);
                match after.status() {
                    Status::Ongoing => !after.has_immediate_win(),
                    status => status != Status::Won(position.side_to_move().opponent()),
                }
            })
            .collect();
        assert!(!reference.is_empty() && reference.len() < 200, "{position}");
        let mut seen = std::collections::HashSet::new();
        let mut rng = seeded_rng(3, 3);
        for _ in 0..40 * reference.len() {
            let (square, twist) = choose_safe(own.0, other.0, stones, &mut rng);
            let mv = Move::new(
                Square::from_bit(square.trailing_zeros()),
                Twist::from_index_unchecked(twist),
            );
            assert!(reference.contains(&mv), "{mv} is not safe in {position}");
            seen.insert(mv);
        }
        assert_eq!(seen.len(), reference.len(), "every safe move is drawn");
        seen.len()
    }

    #[test]
    fn safe_policy_blocks_a_placement_five() {
        // White threatens f1 after b1-e1: only taking f1 (with any twist) holds.
        let p: Position = "x...../x...../x...../....../....../xoooo.".parse().unwrap();
        assert_eq!(safe_choices_are_safe_and_uniform(&p), 8);
    }

    #[test]
    fn safe_policy_stops_a_twist_five() {
        // White has no open four, but turning quadrant 4 clockwise makes a2-e2 white.
        let p: Position = "....../.x..../x...../x...../oooxo./x...o.".parse().unwrap();
        assert!(!p.white().has_four_open(p.black()));
        let careless: Move = "a6-1R".parse().unwrap();
        assert!(p.play(careless).unwrap().has_immediate_win());
        safe_choices_are_safe_and_uniform(&p);
    }

    #[test]
    fn safe_policy_never_twists_a_five_into_the_opponents_line() {
        // Turning quadrant 4 clockwise brings white's f1 and f2 onto d1 and e1: a1-e1 white.
        let p: Position = "x...x./..x.../.x..../....../.....o/ooo.xo".parse().unwrap();
        let suicide: Move = "c3-4R".parse().unwrap();
        assert_eq!(p.play(suicide).unwrap().status(), Status::Won(Color::White));
        safe_choices_are_safe_and_uniform(&p);
    }

    #[test]
    fn cut_off_playouts_stop_and_repeat_with_the_seed() {
        let p: Position = "x.o.../.x..../....o./..x.../....../......".parse().unwrap();
        for policy in [Policy::Uniform, Policy::Safe] {
            let run = |seed| {
                let mut rng = seeded_rng(seed, 0);
                (0..500)
                    .map(|_| cut_off_playout(&p, policy, Some(6), &mut rng))
                    .collect::<Vec<_>>()
            };
            let results = run(8);
            assert_eq!(results, run(8));
            assert_ne!(results, run(9));
            assert!(results.iter().all(|r| r.stones <= 11 && r.status.is_over()));
            let cut = results.iter().filter(|r| r.ending == Ending::CutOff);
            assert!(cut.clone().all(|r| r.stones == 11));
            // Both sides win some cut-off games: the result is drawn, not fixed.
            let black = cut
                .clone()
                .filter(|r| r.status == Status::Won(Color::Black))
                .count();
            assert!(black > 50 && cut.count() - black > 50, "{black}");
        }
    }

    #[test]
    fn policy_names_round_trip() {
        for policy in [Policy::Uniform, Policy::Safe] {
            assert_eq!(policy.to_string().parse::<Policy>(), Ok(policy));
        }
        assert!("greedy".parse::<Policy>().is_err());
    }
}
