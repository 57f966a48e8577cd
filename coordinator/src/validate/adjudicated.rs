//! Checks a game of a pair that was adjudicated: the job asked for adjudication, the moves are
//! legal up to a position still in progress with at least the job's stone count, the value came
//! from a source that values such a position, and the result is a finished game's. The value
//! itself is the worker's claim, as the moves of every game are.

use pentago::{ADJUDICATION_MIDSOLVE_STONES, Adjudication, Move, Position, SolveMethod, Status};

use super::InvalidResult;

/// Checks an adjudicated game from `start` whose value came from `source`, under the job's
/// `adjudication` (`None`: the job did not ask for it).
pub(super) fn check_adjudicated(
    start: &Position,
    moves: &[Move],
    result: Status,
    source: SolveMethod,
    adjudication: Option<Adjudication>,
) -> Result<(), InvalidResult> {
    let adjudication = adjudication.ok_or(InvalidResult::AdjudicationNotAsked)?;
    let position = super::replay_unfinished(start, moves, InvalidResult::AdjudicatedGameOver)?;
    let stones = position.stone_count();
    let least = match source {
        SolveMethod::Midsolver => adjudication.min_stones.max(ADJUDICATION_MIDSOLVE_STONES),
        _ => adjudication.min_stones,
    };
    if position.is_over()
        || !matches!(source, SolveMethod::Table | SolveMethod::Midsolver)
        || stones < least
    {
        return Err(InvalidResult::BadAdjudication {
            position,
            by: source,
        });
    }
    if !result.is_over() {
        return Err(InvalidResult::AdjudicatedOngoing);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjudications_must_be_asked_for_late_enough_and_end_the_game() {
        let won: Position = "o...oo/.o..xo/.x.xo./.ox.../x.xx.x/oxoo.x".parse().unwrap();
        let exact = Some(Adjudication::default());
        let black = Status::Won(pentago::Color::Black);
        let midsolver = SolveMethod::Midsolver;
        assert_eq!(
            check_adjudicated(&won, &[], black, midsolver, exact),
            Ok(())
        );
        assert_eq!(
            check_adjudicated(&won, &[], black, midsolver, None),
            Err(InvalidResult::AdjudicationNotAsked)
        );
        assert_eq!(
            check_adjudicated(&won, &[], Status::Ongoing, midsolver, exact),
            Err(InvalidResult::AdjudicatedOngoing)
        );
        let late = Some(Adjudication { min_stones: 21 });
        assert!(matches!(
            check_adjudicated(&won, &[], black, midsolver, late),
            Err(InvalidResult::BadAdjudication { .. })
        ));
        let early = Some(Adjudication { min_stones: 0 });
        assert!(matches!(
            check_adjudicated(&Position::START, &[], black, midsolver, early),
            Err(InvalidResult::BadAdjudication { .. })
        ));
        assert_eq!(
            check_adjudicated(&Position::START, &[], black, SolveMethod::Table, early),
            Ok(())
        );
        assert!(matches!(
            check_adjudicated(&Position::START, &[], black, SolveMethod::AlphaBeta, early),
            Err(InvalidResult::BadAdjudication { .. })
        ));
    }
}
