//! Running one job with the engine (blocking, on the worker's rayon pool).

use std::ops::Range;

use pentago::{
    Budget, LeafValue, Position, PuzzleVerifier, SearchControl, SearchOptions, SolveLimits, Solver,
    UctConfig, play_game, play_pair_judged, search, solve_leaf,
};
use pentagrid_calculation::{Player as SolitairePlayer, Variant, play_deal};
use pentagrid_proto::{DealResult, Outcome, RejectionKind, Row, Task, Verdict};
use pentagrid_proto::{GameNote, MoveScores, MoveTimes};
use rayon::prelude::*;

use crate::accuracy::judge;
use crate::engines::{EngineSettings, PairError, RefereedPair};
use crate::timed_watch::TimedWatch;

/// Solver nodes allowed for settling each other first move of a puzzle candidate; beyond it
/// the candidate is rejected as undecided.
pub const VERIFY_SOLVER_NODES: u64 = 3_000_000;

/// What the deep solver may spend on each other first move the solver leaves open, for a
/// candidate below the midsolver's stone count: top nodes with a quick alpha-beta attempt per
/// leaf, no midsolve (deterministic, so that a cross-checking worker reaches the same verdict).
pub const VERIFY_DEEP_BUDGET: pentago::DeepBudget = pentago::DeepBudget {
    midsolves: 0,
    nodes: 2_000,
};

/// Solver nodes one solve job (a late book position) may search over all its first moves;
/// moves still open when it runs out are reported unsettled.
pub const SOLVE_JOB_NODES: u64 = 20_000_000;

/// Runs `task` with `seed` on `threads` trees of the current rayon pool. `None` when the
/// search was stopped through `control` (the lease was lost) or could not run (a pair that
/// names an external engine: see [`execute_with_engines`]).
pub fn execute(task: &Task, seed: u64, threads: usize, control: &SearchControl) -> Option<Outcome> {
    execute_with_engines(task, seed, threads, control, &EngineSettings::default())
        .ok()
        .flatten()
}

/// [`execute`] on a worker that runs `engines`: a game pair with a time limit is refereed
/// (its external engines started for it). An error when the pair cannot be played here.
pub fn execute_with_engines(
    task: &Task,
    seed: u64,
    threads: usize,
    control: &SearchControl,
    engines: &EngineSettings,
) -> Result<Option<Outcome>, PairError> {
    if let Task::Pair {
        opening,
        a,
        b,
        accuracy_stones,
        time: Some(time),
        adjudicate,
        ..
    } = task
    {
        let pair = RefereedPair {
            opening,
            a,
            b,
            time: *time,
            accuracy_stones: *accuracy_stones,
            adjudicate: *adjudicate,
        };
        let outcome = pair.play(engines, seed, threads)?;
        return Ok((!control.is_stopped()).then_some(outcome));
    }
    Ok(run(task, seed, threads, control))
}

fn run(task: &Task, seed: u64, threads: usize, control: &SearchControl) -> Option<Outcome> {
    match task {
        Task::Analyse {
            position,
            config,
            playouts,
        } => analyse(position, config, *playouts, seed, threads, control),
        Task::Selfplay {
            start,
            black,
            white,
        } => {
            let game = play_game(start, black, white, seed, threads);
            Some(Outcome::Selfplay {
                moves: game.moves,
                result: game.result,
            })
        }
        Task::Solve { position } => {
            let limits = SolveLimits {
                max_nodes: SOLVE_JOB_NODES,
                max_time: None,
            };
            let moves = Solver::new(22)
                .solve_moves(position, limits)
                .into_iter()
                .filter_map(|(mv, value)| Some((mv, value?)))
                .collect();
            Some(Outcome::Solve { moves })
        }
        Task::Verify {
            candidates,
            max_moves,
        } => verify(candidates, *max_moves, seed, control),
        Task::DeepLeaves { leaves, .. } => deep_leaves(leaves, control),
        // The task's own seed, not the job's: a deal's result is the same in every job that
        // plays it, and the same as `pentagrid solitaire bench --seed` gives.
        Task::Solitaire {
            variant,
            player,
            deals,
            seed,
        } => solitaire(*variant, player, deals.clone(), *seed, control),
        Task::Pair {
            opening,
            a,
            b,
            accuracy_stones,
            adjudicate: adjudication,
            ..
        } => {
            let mut watches = [
                TimedWatch::new(*adjudication),
                TimedWatch::new(*adjudication),
            ];
            let [first, second] = &mut watches;
            let (pair, verdicts) = play_pair_judged(opening, a, b, seed, threads, [first, second]);
            if control.is_stopped() {
                return None;
            }
            let accuracy = match accuracy_stones.map(|min_stones| judge(&pair, min_stones)) {
                None => None,
                Some(Ok(accuracy)) => Some(accuracy),
                Some(Err(error)) => {
                    // No result rather than a false one: the lease runs out and the job is
                    // tried again.
                    tracing::error!(%error, "cannot judge the pair's accuracy");
                    return None;
                }
            };
            let [first, second] = watches;
            let [first_verdict, second_verdict] = verdicts;
            let times = [(first, first_verdict), (second, second_verdict)];
            Some(Outcome::Pair {
                games: pair.games.map(|game| (game.moves, game.result)),
                accuracy,
                notes: Box::new(times.map(|(watch, verdict)| {
                    let (seconds, scores) = watch.into_moves();
                    GameNote {
                        adjudicated: verdict.map(|v| v.source),
                        move_times: MoveTimes::from_seconds(seconds),
                        move_scores: MoveScores::from_points(scores),
                        ..GameNote::default()
                    }
                })),
            })
        }
    }
}

/// UCT rows of `position` after `playouts` playouts.
fn analyse(
    position: &Position,
    config: &UctConfig,
    playouts: u64,
    seed: u64,
    threads: usize,
    control: &SearchControl,
) -> Option<Outcome> {
    let config = config.with_budget(Budget::Playouts(playouts));
    let options = SearchOptions {
        seed,
        threads,
        tables_min_visits: None,
        oracle: None,
    };
    let result = search(position, &config, &options, control).ok()?;
    if control.is_stopped() {
        return None;
    }
    Some(Outcome::Analyse {
        rows: result
            .moves
            .iter()
            .filter(|m| m.games > 0)
            .map(|m| Row {
                mv: m.mv,
                games: m.games,
                wins: m.wins,
                draws: m.draws,
            })
            .collect(),
        simulations: result.simulations,
        seconds: result.seconds,
    })
}

/// Transposition table of the solver each thread values deep-solve leaves with: 2^20
/// entries (16 MiB).
const LEAF_TABLE_BITS: u32 = 20;

/// The exact values of deep-solve leaves, in their order: a short alpha-beta attempt, then the
/// midsolver (which always decides from 18 stones on, and values each leaf's rotated variants
/// in the same walk), the leaves sharing the pool's threads. `None` when the lease was lost on
/// the way.
fn deep_leaves(leaves: &[Position], control: &SearchControl) -> Option<Outcome> {
    let solved: Option<Vec<LeafValue>> = leaves
        .par_iter()
        .with_max_len(1)
        .map_init(
            || Solver::new(LEAF_TABLE_BITS),
            |solver, leaf| {
                if control.is_stopped() {
                    return None;
                }
                solve_leaf(solver, leaf).ok()
            },
        )
        .collect();
    let (values, rotated) = solved?.into_iter().map(|s| (s.value, s.rotated)).unzip();
    Some(Outcome::DeepLeaves { values, rotated })
}

/// How each deal ended, in order. Deals run side by side on the pool, one search thread each
/// (as `pentagrid solitaire bench` plays them).
fn solitaire(
    variant: Variant,
    player: &SolitairePlayer,
    deals: Range<u64>,
    seed: u64,
    control: &SearchControl,
) -> Option<Outcome> {
    let results: Option<Vec<DealResult>> = deals
        .into_par_iter()
        .map(|deal| {
            (!control.is_stopped()).then(|| {
                let outcome = play_deal(variant, deal, player, seed, 1).outcome;
                DealResult {
                    won: outcome.won,
                    foundation_cards: outcome.foundation_cards,
                }
            })
        })
        .collect();
    Some(Outcome::Solitaire { deals: results? })
}

/// The verdicts on puzzle candidates, in their order.
fn verify(
    candidates: &[(Position, String)],
    max_moves: u32,
    seed: u64,
    control: &SearchControl,
) -> Option<Outcome> {
    let limits = SolveLimits {
        max_nodes: VERIFY_SOLVER_NODES,
        max_time: None,
    };
    // A candidate's checkmate searches, alpha-beta and rating UCT run on one thread, so the
    // job's candidates share the pool's threads, each thread reusing one verifier's memory.
    let verdicts: Option<Vec<Verdict>> = candidates
        .par_iter()
        .with_max_len(1)
        .map_init(
            || PuzzleVerifier::new(20, limits, seed).with_deep(VERIFY_DEEP_BUDGET),
            |verifier, (position, source)| {
                (!control.is_stopped()).then(|| verdict(verifier, position, source, max_moves))
            },
        )
        .collect();
    Some(Outcome::Verify {
        verdicts: verdicts?,
    })
}

/// The verdict on one puzzle candidate.
fn verdict(
    verifier: &mut PuzzleVerifier,
    position: &pentago::Position,
    source: &str,
    max_moves: u32,
) -> Verdict {
    match verifier.verify(position, max_moves) {
        Ok(mut puzzle) => {
            puzzle.source = source.to_owned();
            Verdict::Puzzle(Box::new(puzzle))
        }
        Err(rejection) => Verdict::Rejected(RejectionKind::from(&rejection)),
    }
}
