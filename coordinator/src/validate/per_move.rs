//! Checks what a pair's game reports of each move besides the move: its time and its mover's
//! score, none at all or exactly one per move played, each within its range.

use pentagrid_model::{MAX_MOVE_MILLIS, MoveScores, MoveTimes};

use super::InvalidResult;

/// A game's move times: none (not measured), or one per move played, each at most
/// [`MAX_MOVE_MILLIS`].
pub(super) fn check_move_times(times: &MoveTimes, moves: usize) -> Result<(), InvalidResult> {
    let millis = times.millis();
    if !millis.is_empty() && millis.len() != moves {
        return Err(InvalidResult::MoveTimeCount {
            times: millis.len(),
            moves,
        });
    }
    match millis.iter().position(|&ms| ms > MAX_MOVE_MILLIS) {
        Some(index) => Err(InvalidResult::MoveTimeTooLong {
            ply: index + 1,
            millis: millis[index],
        }),
        None => Ok(()),
    }
}

/// A game's move scores: none (none known), or one per move played, each a score in
/// thousandths (0 to 1000) or [`pentagrid_model::UNKNOWN_SCORE`].
pub(super) fn check_move_scores(scores: &MoveScores, moves: usize) -> Result<(), InvalidResult> {
    let milli = scores.milli();
    if !milli.is_empty() && milli.len() != moves {
        return Err(InvalidResult::MoveScoreCount {
            scores: milli.len(),
            moves,
        });
    }
    match milli.iter().position(|&m| !MoveScores::valid(m)) {
        Some(index) => Err(InvalidResult::MoveScoreOutOfRange {
            ply: index + 1,
            milli: milli[index],
        }),
        None => Ok(()),
    }
}
