//! Workers' results between the wire and their domain value ([`pentagrid_model::Outcome`]),
//! checked on the way in.

use pentago::{Move, Puzzle, Status};

use pentagrid_model::{DealResult, GameNote, Outcome, RejectionKind, Row, Verdict, parse_field};

use crate::errors::ConversionError;
use crate::notes::{note_of_wire, note_to_wire};
use crate::states::{accuracy_of_wire, accuracy_to_wire, value_of_wire, value_to_wire};
use crate::v2;

/// A deep-leaves result: a value per leaf, and rotated values in lists of
/// [`pentago::ROTATED_VARIANTS`] (or empty) that the coordinator checks against the leaves.
fn deep_leaves_result_of_wire(d: &v2::DeepLeavesResult) -> Result<Outcome, ConversionError> {
    let values = d
        .values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            value_of_wire(v)?.ok_or_else(|| ConversionError(format!("leaf {} has no value", i + 1)))
        })
        .collect::<Result<_, ConversionError>>()?;
    let rotated = d
        .rotated
        .iter()
        .enumerate()
        .map(|(i, family)| {
            if !family.values.is_empty() && family.values.len() != pentago::ROTATED_VARIANTS {
                return Err(ConversionError(format!(
                    "leaf {} has {} rotated values, not 0 or {}",
                    i + 1,
                    family.values.len(),
                    pentago::ROTATED_VARIANTS
                )));
            }
            family.values.iter().map(|&v| value_of_wire(v)).collect()
        })
        .collect::<Result<_, ConversionError>>()?;
    Ok(Outcome::DeepLeaves { values, rotated })
}

fn rejection_to_wire(kind: RejectionKind) -> v2::CandidateVerdict {
    match kind {
        RejectionKind::NoMate => v2::CandidateVerdict::NoMate,
        RejectionKind::NotUnique => v2::CandidateVerdict::NotUnique,
        RejectionKind::Undecided => v2::CandidateVerdict::Undecided,
        RejectionKind::GameOver => v2::CandidateVerdict::GameOver,
    }
}

fn verdict_of_wire(verdict: &v2::Verdict) -> Result<Verdict, ConversionError> {
    let kind = match verdict.outcome() {
        v2::CandidateVerdict::Puzzle => {
            let puzzle: Puzzle = serde_json::from_str(&verdict.puzzle_json)
                .map_err(|e| ConversionError(format!("bad puzzle JSON: {e}")))?;
            return Ok(Verdict::Puzzle(Box::new(puzzle)));
        }
        v2::CandidateVerdict::NoMate => RejectionKind::NoMate,
        v2::CandidateVerdict::NotUnique => RejectionKind::NotUnique,
        v2::CandidateVerdict::Undecided => RejectionKind::Undecided,
        v2::CandidateVerdict::GameOver => RejectionKind::GameOver,
        v2::CandidateVerdict::Unspecified => {
            return Err(ConversionError(format!(
                "unknown verdict {}",
                verdict.outcome
            )));
        }
    };
    Ok(Verdict::Rejected(kind))
}

fn verdict_to_wire(verdict: &Verdict) -> v2::Verdict {
    match verdict {
        Verdict::Puzzle(puzzle) => v2::Verdict {
            outcome: v2::CandidateVerdict::Puzzle as i32,
            puzzle_json: serde_json::to_string(puzzle).expect("puzzles serialize"),
        },
        Verdict::Rejected(kind) => v2::Verdict {
            outcome: rejection_to_wire(*kind) as i32,
            puzzle_json: String::new(),
        },
    }
}

fn game_of_wire(game: &v2::SelfplayResult) -> Result<(Vec<Move>, Status), ConversionError> {
    let moves = game
        .moves
        .iter()
        .map(|m| parse_field("move", m))
        .collect::<Result<_, _>>()?;
    Ok((moves, parse_field("result", &game.result)?))
}

fn game_to_wire(moves: &[Move], result: Status) -> v2::SelfplayResult {
    v2::SelfplayResult {
        moves: moves.iter().map(ToString::to_string).collect(),
        result: result.to_string(),
    }
}

impl TryFrom<&v2::submit_request::Result> for Outcome {
    type Error = ConversionError;

    fn try_from(result: &v2::submit_request::Result) -> Result<Self, Self::Error> {
        Ok(match result {
            v2::submit_request::Result::Analyse(a) => Outcome::Analyse {
                rows: a
                    .rows
                    .iter()
                    .map(|r| {
                        Ok(Row {
                            mv: parse_field("move", &r.r#move)?,
                            games: r.games,
                            wins: r.wins,
                            draws: r.draws,
                        })
                    })
                    .collect::<Result<_, ConversionError>>()?,
                simulations: a.simulations,
                seconds: a.seconds,
            },
            v2::submit_request::Result::Selfplay(s) => {
                let (moves, result) = game_of_wire(s)?;
                Outcome::Selfplay { moves, result }
            }
            v2::submit_request::Result::Pair(p) => match p.games.as_slice() {
                [first, second] => Outcome::Pair {
                    games: [game_of_wire(first)?, game_of_wire(second)?],
                    accuracy: p.accuracy.as_ref().map(accuracy_of_wire),
                    notes: match p.notes.as_slice() {
                        [] => Default::default(),
                        [first, second] => Box::new([note_of_wire(first)?, note_of_wire(second)?]),
                        notes => {
                            return Err(ConversionError(format!(
                                "a pair has 0 or 2 game notes, not {}",
                                notes.len()
                            )));
                        }
                    },
                },
                games => {
                    return Err(ConversionError(format!(
                        "a pair has 2 games, not {}",
                        games.len()
                    )));
                }
            },
            v2::submit_request::Result::Solve(v) => Outcome::Solve {
                moves: v
                    .moves
                    .iter()
                    .map(|m| {
                        let value = value_of_wire(m.value)?
                            .ok_or_else(|| ConversionError(format!("{} has no value", m.r#move)))?;
                        Ok((parse_field("move", &m.r#move)?, value))
                    })
                    .collect::<Result<_, ConversionError>>()?,
            },
            v2::submit_request::Result::Verify(v) => Outcome::Verify {
                verdicts: v
                    .verdicts
                    .iter()
                    .map(verdict_of_wire)
                    .collect::<Result<_, _>>()?,
            },
            v2::submit_request::Result::DeepLeaves(d) => deep_leaves_result_of_wire(d)?,
            v2::submit_request::Result::Solitaire(v) => Outcome::Solitaire {
                deals: v
                    .deals
                    .iter()
                    .map(|d| DealResult {
                        won: d.won,
                        foundation_cards: d.foundation_cards,
                    })
                    .collect(),
            },
            // Read by the coordinator's edge before conversion: a failure carries no result.
            v2::submit_request::Result::Failure(_) => {
                return Err(ConversionError("a job failure is not a result".into()));
            }
        })
    }
}

impl From<&Outcome> for v2::submit_request::Result {
    fn from(outcome: &Outcome) -> Self {
        match outcome {
            Outcome::Analyse {
                rows,
                simulations,
                seconds,
            } => v2::submit_request::Result::Analyse(v2::AnalyseResult {
                rows: rows.iter().map(v2::MoveRow::from).collect(),
                simulations: *simulations,
                seconds: *seconds,
            }),
            Outcome::Selfplay { moves, result } => {
                v2::submit_request::Result::Selfplay(game_to_wire(moves, *result))
            }
            Outcome::Pair {
                games,
                accuracy,
                notes,
            } => v2::submit_request::Result::Pair(v2::PairResult {
                games: games.iter().map(|(m, r)| game_to_wire(m, *r)).collect(),
                accuracy: accuracy.as_ref().map(accuracy_to_wire),
                notes: if notes.iter().all(GameNote::is_empty) {
                    Vec::new()
                } else {
                    notes.iter().map(note_to_wire).collect()
                },
            }),
            Outcome::Solve { moves } => v2::submit_request::Result::Solve(v2::SolveResult {
                moves: moves
                    .iter()
                    .map(|(mv, value)| v2::ProvenMove {
                        r#move: mv.to_string(),
                        value: value_to_wire(Some(*value)) as i32,
                    })
                    .collect(),
            }),
            Outcome::Verify { verdicts } => v2::submit_request::Result::Verify(v2::VerifyResult {
                verdicts: verdicts.iter().map(verdict_to_wire).collect(),
            }),
            Outcome::DeepLeaves { values, rotated } => {
                v2::submit_request::Result::DeepLeaves(v2::DeepLeavesResult {
                    values: values
                        .iter()
                        .map(|v| value_to_wire(Some(*v)) as i32)
                        .collect(),
                    rotated: rotated
                        .iter()
                        .map(|family| v2::RotatedValues {
                            values: family.iter().map(|v| value_to_wire(*v) as i32).collect(),
                        })
                        .collect(),
                })
            }
            Outcome::Solitaire { deals } => {
                v2::submit_request::Result::Solitaire(v2::SolitaireResult {
                    deals: deals
                        .iter()
                        .map(|d| v2::SolitaireDeal {
                            won: d.won,
                            foundation_cards: d.foundation_cards,
                        })
                        .collect(),
                })
            }
        }
    }
}

impl From<&Row> for v2::MoveRow {
    fn from(row: &Row) -> v2::MoveRow {
        v2::MoveRow {
            r#move: row.mv.to_string(),
            games: row.games,
            wins: row.wins,
            draws: row.draws,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Color, MatchAccuracy};
    use pentagrid_model::{GameForfeit, LossReason};

    #[test]
    fn outcomes_round_trip_and_bad_moves_are_refused() {
        let outcome = Outcome::Selfplay {
            moves: vec!["c4-1R".parse().unwrap()],
            result: Status::Ongoing,
        };
        let wire = v2::submit_request::Result::from(&outcome);
        assert_eq!(Outcome::try_from(&wire).unwrap(), outcome);
        let bad = v2::submit_request::Result::Selfplay(v2::SelfplayResult {
            moves: vec!["z9-1R".into()],
            result: "black".into(),
        });
        assert!(Outcome::try_from(&bad).is_err());
        let pair = Outcome::Pair {
            games: [
                (vec!["c4-1R".parse().unwrap()], Status::Draw),
                (vec![], Status::Ongoing),
            ],
            accuracy: Some(MatchAccuracy {
                min_stones: 20,
                sides: [pentago::Accuracy { moves: 1, drops: 1 }; 2],
            }),
            notes: Box::new([
                GameNote::default(),
                GameNote {
                    forfeit: Some(GameForfeit {
                        loser: Color::Black,
                        reason: LossReason::Hang,
                        detail: "hung: no answer to genmove in 3100 ms".into(),
                    }),
                    adjudicated: Some(pentago::SolveMethod::Midsolver),
                    stderr: ["boom".into(), String::new()],
                    time_scale: pentagrid_model::TimeScale::from_speeds(5, 2),
                    move_times: pentagrid_model::MoveTimes::from_millis(vec![40, 7]),
                    move_scores: pentagrid_model::MoveScores::from_points([Some(0.9), None]),
                },
            ]),
        };
        let wire = v2::submit_request::Result::from(&pair);
        assert_eq!(Outcome::try_from(&wire).unwrap(), pair);
        let one_game = v2::submit_request::Result::Pair(v2::PairResult {
            games: vec![v2::SelfplayResult::default()],
            accuracy: None,
            notes: Vec::new(),
        });
        assert!(
            Outcome::try_from(&one_game)
                .unwrap_err()
                .0
                .contains("2 games")
        );
        let deals = Outcome::Solitaire {
            deals: vec![
                DealResult {
                    won: true,
                    foundation_cards: 52,
                },
                DealResult {
                    won: false,
                    foundation_cards: 17,
                },
            ],
        };
        let wire = v2::submit_request::Result::from(&deals);
        assert_eq!(Outcome::try_from(&wire).unwrap(), deals);
    }
}
