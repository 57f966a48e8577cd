//! Checks a game of a pair that was adjudicated: the job asked for adjudication, the moves are
//! legal up to a position still in progress, the value came from a source the job's
//! adjudication lets value such a position (its stone count and budget: the rule depends on
//! the stone count alone, `Adjudication::allows`), and the result is a finished game's. The
//! value itself is the worker's claim, as the moves of every game are.

use pentago::{Adjudication, Move, Position, SolveMethod, Status};

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
    if position.is_over() || !adjudication.allows(source, position.stone_count()) {
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
        let exact = Some("exact:budget=1".parse().unwrap());
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
        let late = Some("exact:stones=21,budget=1".parse().unwrap());
        assert!(matches!(
            check_adjudicated(&won, &[], black, midsolver, late),
            Err(InvalidResult::BadAdjudication { .. })
        ));
        let early = Some("exact:stones=0".parse().unwrap());
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
        assert!(matches!(
            check_adjudicated(&Position::START, &[], black, SolveMethod::Deep, early),
            Err(InvalidResult::BadAdjudication { .. })
        ));
    }

    #[test]
    fn the_budget_bounds_the_solvers_an_adjudication_may_come_from() {
        let won: Position = "o...oo/.o..xo/.x.xo./.ox.../x.xx.x/oxoo.x".parse().unwrap();
        let black = Status::Won(pentago::Color::Black);
        // The default budget (0.1 s) pays for the attempt at 20 stones, not the midsolver.
        let exact = Some(Adjudication::default());
        assert_eq!(
            check_adjudicated(&won, &[], black, SolveMethod::AlphaBeta, exact),
            Ok(())
        );
        assert!(matches!(
            check_adjudicated(&won, &[], black, SolveMethod::Midsolver, exact),
            Err(InvalidResult::BadAdjudication { .. })
        ));
        // Two moves on (22 stones) it pays for the midsolver.
        let moves: Vec<Move> = ["b6-1R", "d6-1L"].map(|m| m.parse().unwrap()).to_vec();
        assert_eq!(
            check_adjudicated(&won, &moves, black, SolveMethod::Midsolver, exact),
            Ok(())
        );
        // No budget: tables only.
        let tables = Some("exact:budget=0".parse().unwrap());
        assert!(matches!(
            check_adjudicated(&won, &[], black, SolveMethod::AlphaBeta, tables),
            Err(InvalidResult::BadAdjudication { .. })
        ));
        assert_eq!(
            check_adjudicated(&won, &[], black, SolveMethod::Table, tables),
            Ok(())
        );
    }
}
