//! Wire forms of what match games leave besides their moves: forfeits with their typed
//! reasons, the engines' standard error, the source of an adjudicating exact value, the time
//! scale, each move's time and its mover's score.

use pentago::{Color, SolveMethod};
use pentagrid_model::{
    GameForfeit, GameNote, LossReason, MAX_NOTE_BYTES, MoveScores, MoveTimes, TimeScale,
};

use crate::errors::ConversionError;
use crate::v2;

/// The wire form of a loss reason.
#[must_use]
pub fn loss_reason_to_wire(reason: LossReason) -> v2::LossReason {
    match reason {
        LossReason::Spawn => v2::LossReason::Spawn,
        LossReason::Crash => v2::LossReason::Crash,
        LossReason::Hang => v2::LossReason::Hang,
        LossReason::Time => v2::LossReason::Time,
        LossReason::Malformed => v2::LossReason::Malformed,
        LossReason::Illegal => v2::LossReason::Illegal,
        LossReason::Refused => v2::LossReason::Refused,
        LossReason::Resigned => v2::LossReason::Resigned,
    }
}

/// A loss reason from its wire number.
pub fn loss_reason_of_wire(number: i32) -> Result<LossReason, ConversionError> {
    Ok(match v2::LossReason::try_from(number) {
        Ok(v2::LossReason::Spawn) => LossReason::Spawn,
        Ok(v2::LossReason::Crash) => LossReason::Crash,
        Ok(v2::LossReason::Hang) => LossReason::Hang,
        Ok(v2::LossReason::Time) => LossReason::Time,
        Ok(v2::LossReason::Malformed) => LossReason::Malformed,
        Ok(v2::LossReason::Illegal) => LossReason::Illegal,
        Ok(v2::LossReason::Refused) => LossReason::Refused,
        Ok(v2::LossReason::Resigned) => LossReason::Resigned,
        Ok(v2::LossReason::Unspecified) | Err(_) => {
            return Err(ConversionError(format!("unknown loss reason {number}")));
        }
    })
}

/// The wire form of a forfeit.
#[must_use]
pub fn forfeit_to_wire(forfeit: &GameForfeit) -> v2::GameForfeit {
    v2::GameForfeit {
        loser: forfeit.loser.name().to_owned(),
        reason: loss_reason_to_wire(forfeit.reason) as i32,
        detail: forfeit.detail.clone(),
    }
}

/// A forfeit from the wire, checked.
pub fn forfeit_of_wire(forfeit: &v2::GameForfeit) -> Result<GameForfeit, ConversionError> {
    Ok(GameForfeit {
        loser: colour_of_wire(&forfeit.loser)?,
        reason: loss_reason_of_wire(forfeit.reason)?,
        detail: bounded("forfeit detail", &forfeit.detail)?,
    })
}

/// The wire form of a game's note.
#[must_use]
pub fn note_to_wire(note: &GameNote) -> v2::GameNote {
    let [stderr_black, stderr_white] = note.stderr.clone();
    v2::GameNote {
        forfeit: note.forfeit.as_ref().map(forfeit_to_wire),
        stderr_black,
        stderr_white,
        adjudicated: note
            .adjudicated
            .map(|source| source.name().to_owned())
            .unwrap_or_default(),
        time_scale: note.time_scale.get(),
        move_millis: note.move_times.millis().to_vec(),
        move_score_milli: note.move_scores.milli().to_vec(),
    }
}

/// A game's note from the wire, checked (texts within [`MAX_NOTE_BYTES`]).
pub fn note_of_wire(note: &v2::GameNote) -> Result<GameNote, ConversionError> {
    Ok(GameNote {
        forfeit: note.forfeit.as_ref().map(forfeit_of_wire).transpose()?,
        adjudicated: adjudication_source_of_wire(&note.adjudicated)?,
        stderr: [
            bounded("stderr", &note.stderr_black)?,
            bounded("stderr", &note.stderr_white)?,
        ],
        time_scale: time_scale_of_wire(note.time_scale)?,
        // Their count and range are checked against the game by the coordinator.
        move_times: MoveTimes::from_millis(note.move_millis.clone()),
        move_scores: MoveScores::from_milli(note.move_score_milli.clone()),
    })
}

/// Where an adjudicating value came from, from its wire name (`table`, `alpha-beta`,
/// `midsolver`; empty: not adjudicated).
pub fn adjudication_source_of_wire(text: &str) -> Result<Option<SolveMethod>, ConversionError> {
    match text {
        "" => Ok(None),
        "table" => Ok(Some(SolveMethod::Table)),
        "alpha-beta" => Ok(Some(SolveMethod::AlphaBeta)),
        "midsolver" => Ok(Some(SolveMethod::Midsolver)),
        other => Err(ConversionError(format!(
            "bad adjudication source {:?}: expected table, alpha-beta or midsolver",
            pentago::excerpt(other)
        ))),
    }
}

/// A game's time scale from the wire: finite and within the range; 0 (an older peer) reads
/// as 1.
pub fn time_scale_of_wire(value: f64) -> Result<TimeScale, ConversionError> {
    TimeScale::of_stored(value).map_err(|e| ConversionError(e.to_string()))
}

fn colour_of_wire(text: &str) -> Result<Color, ConversionError> {
    match text {
        "black" => Ok(Color::Black),
        "white" => Ok(Color::White),
        other => Err(ConversionError(format!(
            "bad colour {:?}: expected black or white",
            pentago::excerpt(other)
        ))),
    }
}

fn bounded(what: &str, text: &str) -> Result<String, ConversionError> {
    if text.len() > MAX_NOTE_BYTES {
        return Err(ConversionError(format!(
            "{what} of {} bytes is over the {MAX_NOTE_BYTES} bytes kept",
            text.len()
        )));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_round_trip_and_bad_ones_are_refused() {
        for reason in LossReason::ALL {
            let note = GameNote {
                forfeit: Some(GameForfeit {
                    loser: Color::White,
                    reason,
                    detail: "illegal move \"a1-1R\"".into(),
                }),
                adjudicated: None,
                stderr: [String::new(), "thinking\n".into()],
                time_scale: TimeScale::ONE,
                move_times: MoveTimes::from_millis(vec![12, 0, 950]),
                move_scores: MoveScores::from_points([Some(0.5), None, Some(1.0)]),
            };
            assert_eq!(note_of_wire(&note_to_wire(&note)), Ok(note));
        }
        let adjudicated = GameNote {
            adjudicated: Some(SolveMethod::Table),
            ..GameNote::default()
        };
        assert_eq!(note_of_wire(&note_to_wire(&adjudicated)), Ok(adjudicated));
        let scaled = GameNote {
            time_scale: TimeScale::from_speeds(3, 2),
            ..GameNote::default()
        };
        assert_eq!(note_of_wire(&note_to_wire(&scaled)), Ok(scaled));
        let timed = GameNote {
            move_times: MoveTimes::from_millis(vec![1, 86_400_000]),
            ..GameNote::default()
        };
        assert!(!timed.is_empty() && !timed.is_refereed());
        assert_eq!(note_of_wire(&note_to_wire(&timed)), Ok(timed));
        let scored = GameNote {
            move_scores: MoveScores::from_points([None, Some(0.25)]),
            ..GameNote::default()
        };
        assert!(!scored.is_empty() && !scored.is_refereed());
        assert_eq!(note_of_wire(&note_to_wire(&scored)), Ok(scored));
        let mut wire = note_to_wire(&GameNote::default());
        wire.time_scale = 0.0;
        assert_eq!(
            note_of_wire(&wire).map(|n| n.time_scale),
            Ok(TimeScale::ONE)
        );
        for bad in [f64::NAN, f64::INFINITY, -1.0, 0.01, 11.0] {
            wire.time_scale = bad;
            assert!(note_of_wire(&wire).is_err(), "{bad}");
        }
        let mut wire = note_to_wire(&GameNote::default());
        wire.adjudicated = "deep".into();
        assert!(note_of_wire(&wire).is_err());
        let mut wire = note_to_wire(&GameNote::default());
        wire.stderr_white = "x".repeat(MAX_NOTE_BYTES + 1);
        assert!(note_of_wire(&wire).is_err());
        let bad = v2::GameForfeit {
            loser: "white".into(),
            reason: 99,
            detail: String::new(),
        };
        assert!(forfeit_of_wire(&bad).is_err());
        let bad = v2::GameForfeit {
            loser: "green".into(),
            reason: v2::LossReason::Hang as i32,
            detail: String::new(),
        };
        assert!(forfeit_of_wire(&bad).is_err());
    }
}
