//! Checks a result against its job before anything touches the database, and turns it into the
//! table rows it adds (in canonical frames, merged the way stored tables merge moves). A refusal
//! is an [`InvalidResult`] carrying what was wrong; the wire status is chosen in `api/errors.rs`.

use std::collections::{BTreeMap, HashMap};

mod adjudicated;
mod deep;
mod forfeit;
mod invalid;
mod per_move;
mod solitaire;

use pentago::{
    Color, MatchAccuracy, Move, MoveGroups, Position, Puzzle, Status, Theme, Value, difficulty,
    game_points, judged_moves,
};
use pentagrid_model::{GameNote, Outcome, RejectionKind, Task, Verdict};

pub use invalid::InvalidResult;

use pentagrid_store::game::Game;
use pentagrid_store::{CandidateState, Counts, PairEffect, ProvenTable, ResultEffect, Table};

/// Validates `outcome` as the result of `task` and computes what it adds.
pub fn result_effect(
    task: &Task,
    job_id: u64,
    outcome: &Outcome,
) -> Result<ResultEffect, InvalidResult> {
    match (task, outcome) {
        (
            Task::Analyse {
                position, playouts, ..
            },
            Outcome::Analyse {
                rows,
                simulations,
                seconds,
            },
        ) => {
            check_seconds(*seconds)?;
            analyse_effect(position, *playouts, rows, *simulations)
        }
        (
            Task::Selfplay {
                start,
                black,
                white,
            },
            Outcome::Selfplay { moves, result },
        ) => {
            let mut effect = selfplay_effect(start, moves, *result)?;
            if let Some(game) = effect.game.as_mut() {
                game.black = black.to_string();
                game.white = white.to_string();
            }
            Ok(effect)
        }
        (
            Task::Pair { .. },
            Outcome::Pair {
                games,
                accuracy,
                notes,
            },
        ) => pair_effect(task, job_id, games, accuracy.as_ref(), notes),
        (
            Task::Verify {
                candidates,
                max_moves,
            },
            Outcome::Verify { verdicts },
        ) => verify_effect(candidates, *max_moves, verdicts),
        (Task::Solve { position }, Outcome::Solve { moves }) => solve_effect(position, moves),
        (Task::DeepLeaves { leaves, .. }, Outcome::DeepLeaves { values, rotated }) => {
            deep::leaves_effect(leaves, values, rotated)
        }
        (
            Task::Solitaire {
                variant,
                player,
                deals,
                ..
            },
            Outcome::Solitaire { deals: results },
        ) => solitaire::solitaire_effect(*variant, player, deals, results),
        _ => Err(InvalidResult::WrongKind),
    }
}

/// Longest time an analysis may report: far beyond any lease a worker keeps alive, far below
/// what would distort the rates computed from it.
pub const MAX_RESULT_SECONDS: f64 = 30.0 * 86_400.0;

/// The time an analysis reports must be a real duration: finite, not negative, in range.
fn check_seconds(seconds: f64) -> Result<(), InvalidResult> {
    if (0.0..=MAX_RESULT_SECONDS).contains(&seconds) {
        Ok(())
    } else {
        Err(InvalidResult::Seconds(seconds))
    }
}

/// Maps moves of `position` to the representative move of their group in the canonical frame.
struct CanonicalFrame {
    key: u64,
    symmetry: pentago::Symmetry,
    representative: HashMap<Move, Move>,
}

impl CanonicalFrame {
    fn of(position: &Position) -> CanonicalFrame {
        let canonical = position.canonical();
        let mut representative = HashMap::new();
        for group in MoveGroups::of(&canonical.position, true).iter() {
            for &mv in group {
                representative.insert(mv, group[0]);
            }
        }
        CanonicalFrame {
            key: canonical.position.key().bits(),
            symmetry: canonical.symmetry,
            representative,
        }
    }

    fn map(&self, mv: Move) -> Move {
        let mapped = self.symmetry.apply_move(mv);
        self.representative.get(&mapped).copied().unwrap_or(mapped)
    }
}

/// Adds a row's counts under its representative move; rows that merge must not overflow.
fn add(table: &mut Table, mv: Move, counts: Counts) -> Result<(), InvalidResult> {
    table
        .entry(mv)
        .or_default()
        .add(counts)
        .map_err(|_| InvalidResult::CountsOverflow(mv))
}

/// `position` after `mv`, or why the move is illegal there.
fn play(position: &Position, mv: Move) -> Result<Position, InvalidResult> {
    position
        .play(mv)
        .map_err(|error| InvalidResult::IllegalMove {
            mv,
            position: *position,
            error,
        })
}

fn analyse_effect(
    position: &Position,
    playouts: u64,
    rows: &[pentagrid_model::Row],
    simulations: u64,
) -> Result<ResultEffect, InvalidResult> {
    if rows.is_empty() {
        // A side to move that wins at once gets a proven root and no playouts at all: the
        // analysis is that win, which the coordinator checks itself and stores as exact.
        return match position.winning_move() {
            Some(mv) => {
                let frame = CanonicalFrame::of(position);
                Ok(ResultEffect {
                    proven: Some((frame.key, ProvenTable::from([(frame.map(mv), Value::Win)]))),
                    ..ResultEffect::default()
                })
            }
            None => Err(InvalidResult::NoRows),
        };
    }
    if simulations > playouts {
        return Err(InvalidResult::SimulationsOverBudget {
            simulations,
            budget: playouts,
        });
    }
    let mut seen = std::collections::HashSet::new();
    let mut total = 0u64;
    let frame = CanonicalFrame::of(position);
    let mut delta = Table::new();
    for row in rows {
        if !seen.insert(row.mv) {
            return Err(InvalidResult::RepeatedMove(row.mv));
        }
        play(position, row.mv)?;
        let decided = row
            .wins
            .checked_add(row.draws)
            .ok_or(InvalidResult::Overflow {
                what: "wins + draws",
            })?;
        if decided > row.games {
            return Err(InvalidResult::DecidedOverGames {
                mv: row.mv,
                games: row.games,
                wins: row.wins,
                draws: row.draws,
            });
        }
        total = total
            .checked_add(row.games)
            .ok_or(InvalidResult::Overflow { what: "games" })?;
        add(
            &mut delta,
            frame.map(row.mv),
            Counts {
                games: row.games,
                wins: row.wins,
                draws: row.draws,
            },
        )?;
    }
    if total > playouts {
        return Err(InvalidResult::GamesOverBudget {
            games: total,
            budget: playouts,
        });
    }
    Ok(ResultEffect {
        playouts: BTreeMap::from([(frame.key, delta)]),
        playout_count: total,
        ..ResultEffect::default()
    })
}

/// Replays a finished game; returns each position before a move with the move played.
fn replay(
    start: &Position,
    moves: &[Move],
    result: Status,
) -> Result<Vec<(Position, Move)>, InvalidResult> {
    if moves.is_empty() || moves.len() > 36 {
        return Err(InvalidResult::GameLength(moves.len()));
    }
    let mut position = *start;
    let mut plies = Vec::with_capacity(moves.len());
    for (ply, &mv) in moves.iter().enumerate() {
        let next = position
            .play(mv)
            .map_err(|error| InvalidResult::IllegalGameMove {
                ply: ply + 1,
                mv,
                position,
                error,
            })?;
        plies.push((position, mv));
        position = next;
    }
    let final_status = position.status();
    if !final_status.is_over() {
        return Err(InvalidResult::GameNotOver(position));
    }
    if final_status != result {
        return Err(InvalidResult::WrongResult {
            found: final_status,
            reported: result,
        });
    }
    Ok(plies)
}

/// Plays `moves` (at most 36) from `start`, each on a game still in progress, as the moves of a
/// game that ended other than by its own play must be: the position reached, or the first
/// fault (`over` is the error for a move played after the game ended).
fn replay_unfinished(
    start: &Position,
    moves: &[Move],
    over: fn(Position) -> InvalidResult,
) -> Result<Position, InvalidResult> {
    if moves.len() > 36 {
        return Err(InvalidResult::GameLength(moves.len()));
    }
    let mut position = *start;
    for (ply, &mv) in moves.iter().enumerate() {
        if position.is_over() {
            return Err(over(position));
        }
        position = position
            .play(mv)
            .map_err(|error| InvalidResult::IllegalGameMove {
                ply: ply + 1,
                mv,
                position,
                error,
            })?;
    }
    Ok(position)
}

fn played_game(start: &Position, moves: &[Move], result: Status) -> Game {
    Game {
        start: start.to_string(),
        moves: moves.iter().map(ToString::to_string).collect(),
        result: result.to_string(),
        ..Game::default()
    }
}

fn selfplay_effect(
    start: &Position,
    moves: &[Move],
    result: Status,
) -> Result<ResultEffect, InvalidResult> {
    let plies = replay(start, moves, result)?;
    let mut games: BTreeMap<u64, Table> = BTreeMap::new();
    for (before, mv) in plies {
        let frame = CanonicalFrame::of(&before);
        let value = Value::of_status(result, before.side_to_move()).expect("the game is over");
        let counts = Counts {
            games: 1,
            wins: u64::from(value == Value::Win),
            draws: u64::from(value == Value::Draw),
        };
        add(games.entry(frame.key).or_default(), frame.map(mv), counts)?;
    }
    Ok(ResultEffect {
        games,
        game: Some(played_game(start, moves, result)),
        ..ResultEffect::default()
    })
}

/// Checks a pair's accuracy report against its games (A black first) and the job's stone
/// threshold: present exactly when asked, at that threshold, each player's `moves` equal to
/// its moves from positions with enough stones, and `drops` at most `moves`. (Which moves
/// dropped the value is the worker's claim: checking it would take solving.)
fn check_accuracy(
    opening: &Position,
    games: &[(Vec<Move>, Status); 2],
    asked: Option<u32>,
    accuracy: Option<&MatchAccuracy>,
) -> Result<(), InvalidResult> {
    let (min_stones, accuracy) = match (asked, accuracy) {
        (None, None) => return Ok(()),
        (Some(stones), Some(accuracy)) if accuracy.min_stones == stones => (stones, accuracy),
        (Some(stones), Some(accuracy)) => {
            return Err(InvalidResult::AccuracyStones {
                found: accuracy.min_stones,
                asked: stones,
            });
        }
        (Some(_), None) => return Err(InvalidResult::AccuracyMissing),
        (None, Some(_)) => return Err(InvalidResult::AccuracyNotAsked),
    };
    let mut judged = [0u32; 2];
    for ((moves, _), a_side) in games.iter().zip([0, 1]) {
        let [black, white] = judged_moves(opening, moves, min_stones);
        judged[a_side] += black;
        judged[1 - a_side] += white;
    }
    for ((player, side), judged) in ["A", "B"].into_iter().zip(accuracy.sides).zip(judged) {
        if side.moves != judged {
            return Err(InvalidResult::AccuracyMoves {
                player,
                reported: side.moves,
                judged,
                min_stones,
            });
        }
        if side.drops > side.moves {
            return Err(InvalidResult::AccuracyDrops {
                player,
                drops: side.drops,
                moves: side.moves,
            });
        }
    }
    Ok(())
}

/// A pair result: both games legal and finished from the opening (or, refereed, ended by an
/// external engine's forfeit), A black first, each with a time and a score per move or none
/// of them, with an
/// accuracy report exactly when the job asked for one.
fn pair_effect(
    task: &Task,
    job_id: u64,
    games: &[(Vec<Move>, Status); 2],
    accuracy: Option<&MatchAccuracy>,
    notes: &[GameNote; 2],
) -> Result<ResultEffect, InvalidResult> {
    let Task::Pair {
        match_id,
        pair,
        opening,
        a,
        b,
        accuracy_stones,
        time,
        adjudicate,
    } = task
    else {
        return Err(InvalidResult::WrongKind);
    };
    if time.is_none() && notes.iter().any(GameNote::is_refereed) {
        return Err(InvalidResult::NotesUnrefereed);
    }
    let mut played = Vec::with_capacity(2);
    let mut a_points = [0.0; 2];
    for (index, ((moves, result), a_color)) in
        games.iter().zip([Color::Black, Color::White]).enumerate()
    {
        let [black, white] = forfeit::players_of(index, a, b);
        let note = &notes[index];
        match (&note.forfeit, note.adjudicated) {
            (None, None) => replay(opening, moves, *result).map(drop),
            (Some(lost), None) => {
                forfeit::check_forfeited(opening, moves, *result, lost, [black, white])
            }
            (None, Some(source)) => {
                adjudicated::check_adjudicated(opening, moves, *result, source, *adjudicate)
            }
            (Some(_), Some(_)) => Err(InvalidResult::ForfeitedAndAdjudicated),
        }
        .and_then(|()| per_move::check_move_times(&note.move_times, moves.len()))
        .and_then(|()| per_move::check_move_scores(&note.move_scores, moves.len()))
        .map_err(|error| InvalidResult::PairGame {
            game: index + 1,
            error: Box::new(error),
        })?;
        a_points[index] = game_points(*result, a_color);
        let [stderr_black, stderr_white] = note.stderr.clone();
        played.push(Game {
            black: black.to_string(),
            white: white.to_string(),
            forfeit: note.forfeit.clone(),
            adjudicated: note.adjudicated,
            stderr_black,
            stderr_white,
            time_scale: note.time_scale,
            move_times: note.move_times.clone(),
            move_scores: note.move_scores.clone(),
            ..played_game(opening, moves, *result)
        });
    }
    check_accuracy(opening, games, *accuracy_stones, accuracy)?;
    Ok(ResultEffect {
        pair: Some(PairEffect {
            match_id: *match_id,
            pair: *pair,
            job_id,
            games: played,
            accuracy: accuracy.cloned(),
            game_points: a_points,
        }),
        ..ResultEffect::default()
    })
}

/// Exact move values of `position` from a trusted solver (the coordinator's own), mapped into
/// the canonical frame.
pub(crate) fn canonical_values(position: &Position, moves: &[(Move, Value)]) -> ProvenTable {
    let frame = CanonicalFrame::of(position);
    moves
        .iter()
        .map(|&(mv, value)| (frame.map(mv), value))
        .collect()
}

/// Exact move values of a solved position, mapped into the canonical frame. Moves reaching
/// the same position must agree. (The values themselves are the worker's claim: see
/// [`crate::crosscheck`] for how they are checked.)
fn solve_effect(
    position: &Position,
    moves: &[(Move, Value)],
) -> Result<ResultEffect, InvalidResult> {
    let frame = CanonicalFrame::of(position);
    let mut proven = ProvenTable::new();
    for &(mv, value) in moves {
        play(position, mv)?;
        if let Some(previous) = proven.insert(frame.map(mv), value)
            && previous != value
        {
            return Err(InvalidResult::ConflictingValues(mv));
        }
    }
    Ok(ResultEffect {
        proven: Some((frame.key, proven)),
        ..ResultEffect::default()
    })
}

/// Verdicts on puzzle candidates. A claimed puzzle must be about its candidate, and its proof
/// tree must hold by the rules; its length, reply groups and difficulty are recomputed here.
/// (That no other first move wins cannot be checked here: [`crate::crosscheck`] has a second
/// party confirm it before the puzzle is published.)
fn verify_effect(
    candidates: &[(Position, String)],
    max_moves: u32,
    verdicts: &[Verdict],
) -> Result<ResultEffect, InvalidResult> {
    if verdicts.len() != candidates.len() {
        return Err(InvalidResult::VerdictCount {
            verdicts: verdicts.len(),
            candidates: candidates.len(),
        });
    }
    let mut effect = ResultEffect::default();
    for (index, ((position, source), verdict)) in candidates.iter().zip(verdicts).enumerate() {
        let key = position.canonical_key().bits();
        let (state, json) = match verdict {
            Verdict::Rejected(kind) => (
                match kind {
                    RejectionKind::NoMate => CandidateState::NoMate,
                    RejectionKind::NotUnique => CandidateState::NotUnique,
                    RejectionKind::Undecided => CandidateState::Undecided,
                    RejectionKind::GameOver => CandidateState::GameOver,
                },
                None,
            ),
            Verdict::Puzzle(claimed) => {
                let candidate = index + 1;
                let proof = &claimed.proof;
                if claimed.position != *position || proof.position != *position {
                    return Err(InvalidResult::PuzzleOfAnotherPosition { candidate });
                }
                proof
                    .check()
                    .map_err(|why| InvalidResult::ProofFails { candidate, why })?;
                if proof.mate_in > max_moves || claimed.first_move != proof.first_move() {
                    return Err(InvalidResult::ProofDisagrees { candidate });
                }
                let reply_groups = proof.reply_groups();
                let puzzle = Puzzle {
                    side_to_move: position.side_to_move(),
                    mate_in: proof.mate_in,
                    reply_groups,
                    difficulty: difficulty(
                        proof.mate_in,
                        reply_groups,
                        claimed.uct_playouts,
                        claimed.tempting,
                    ),
                    themes: Theme::of(proof),
                    source: source.clone(),
                    ..(**claimed).clone()
                };
                let json =
                    serde_json::to_string(&puzzle).map_err(|e| InvalidResult::PuzzleEncoding {
                        candidate,
                        why: e.to_string(),
                    })?;
                (CandidateState::Puzzle, Some(json))
            }
        };
        effect.verdicts.push((key, state, json));
    }
    Ok(effect)
}

#[cfg(test)]
mod tests;
