//! Conversions between the wire's jobs and results and their domain values
//! ([`pentagrid_model::Task`], [`pentagrid_model::Outcome`]), checked on the way in.

use pentago::{
    ACCURACY_STONES, MAX_PUZZLE_MOVES, MID_MIN_STONES, Move, Player, Position, Puzzle, Status,
};

use pentagrid_model::{
    DealResult, GameNote, MAX_DEEP_LEAVES, MAX_JOB_PLAYOUTS, MAX_SOLITAIRE_DEALS,
    MAX_VERIFY_CANDIDATES, Outcome, RejectionKind, Row, Task, Verdict, parse_field,
};

use crate::errors::ConversionError;
use crate::notes::{note_of_wire, note_to_wire};
use crate::states::{accuracy_of_wire, accuracy_to_wire, value_of_wire, value_to_wire};
use crate::v2;

impl TryFrom<&v2::JobSpec> for Task {
    type Error = ConversionError;

    fn try_from(spec: &v2::JobSpec) -> Result<Self, Self::Error> {
        let task = match &spec.kind {
            Some(v2::job_spec::Kind::Analyse(a)) => {
                let playouts = a.playouts;
                if !(1..=MAX_JOB_PLAYOUTS).contains(&playouts) {
                    return Err(ConversionError(format!(
                        "playout budget {playouts} is outside 1..={MAX_JOB_PLAYOUTS}"
                    )));
                }
                Task::Analyse {
                    position: parse_field("position", &a.position)?,
                    config: parse_field("engine config", &a.config)?,
                    playouts,
                }
            }
            Some(v2::job_spec::Kind::Selfplay(s)) => Task::Selfplay {
                start: parse_field("position", &s.start)?,
                black: built_in(parse_field("player", &s.black)?)?,
                white: built_in(parse_field("player", &s.white)?)?,
            },
            Some(v2::job_spec::Kind::Pair(p)) => Task::Pair {
                match_id: p.match_id,
                pair: p.pair,
                opening: parse_field("opening", &p.opening)?,
                a: parse_field("player", &p.a)?,
                b: parse_field("player", &p.b)?,
                accuracy_stones: match p.accuracy_stones {
                    None => None,
                    Some(n) if ACCURACY_STONES.contains(&n) => Some(n),
                    Some(n) => {
                        return Err(ConversionError(format!(
                            "accuracy_stones {n} is outside {}..={}",
                            ACCURACY_STONES.start(),
                            ACCURACY_STONES.end()
                        )));
                    }
                },
                time: match p.time_limit.as_str() {
                    "" => None,
                    text => Some(parse_field("time limit", text)?),
                },
                adjudicate: match p.adjudicate.as_str() {
                    "" => None,
                    text => Some(parse_field("adjudication", text)?),
                },
            },
            Some(v2::job_spec::Kind::Verify(v)) => {
                if !(1..=MAX_PUZZLE_MOVES).contains(&v.max_moves) {
                    return Err(ConversionError(format!(
                        "max_moves {} is outside 1..={MAX_PUZZLE_MOVES}",
                        v.max_moves
                    )));
                }
                if v.candidates.is_empty() || v.candidates.len() > MAX_VERIFY_CANDIDATES {
                    return Err(ConversionError(format!(
                        "a verify job has 1 to {MAX_VERIFY_CANDIDATES} candidates, not {}",
                        v.candidates.len()
                    )));
                }
                Task::Verify {
                    candidates: v
                        .candidates
                        .iter()
                        .map(|c| Ok((parse_field("position", &c.position)?, c.source.clone())))
                        .collect::<Result<_, ConversionError>>()?,
                    max_moves: v.max_moves,
                }
            }
            Some(v2::job_spec::Kind::Solve(v)) => Task::Solve {
                position: parse_field("position", &v.position)?,
            },
            Some(v2::job_spec::Kind::DeepLeaves(d)) => deep_leaves_of_wire(d)?,
            Some(v2::job_spec::Kind::Solitaire(s)) => solitaire_of_wire(s)?,
            None => return Err(ConversionError("job has no kind".into())),
        };
        if let Task::Pair { time: None, .. } = &task
            && let Some(engine) = task.engines().first()
        {
            return Err(ConversionError(format!(
                "a pair with engine:{engine} needs a time limit"
            )));
        }
        let positions: Vec<&Position> = match &task {
            Task::Analyse { position, .. } | Task::Solve { position } => vec![position],
            Task::Selfplay { start, .. } => vec![start],
            Task::Pair { opening, .. } => vec![opening],
            Task::Verify { candidates, .. } => candidates.iter().map(|(p, _)| p).collect(),
            Task::DeepLeaves { leaves, .. } => leaves.iter().collect(),
            Task::Solitaire { .. } => vec![],
        };
        if let Some(over) = positions.into_iter().find(|p| p.is_over()) {
            return Err(ConversionError(format!(
                "the game is already over in {over}"
            )));
        }
        Ok(task)
    }
}

/// A solitaire job from the wire: a known variant and player, 1 to [`MAX_SOLITAIRE_DEALS`]
/// deals that do not run past the last deal number.
fn solitaire_of_wire(s: &v2::SolitaireSpec) -> Result<Task, ConversionError> {
    let count = u64::from(s.deals);
    if !(1..=MAX_SOLITAIRE_DEALS).contains(&count) {
        return Err(ConversionError(format!(
            "a solitaire job plays 1 to {MAX_SOLITAIRE_DEALS} deals, not {count}"
        )));
    }
    let end = s.first_deal.checked_add(count).ok_or_else(|| {
        ConversionError(format!(
            "deals {} + {count} run past the last deal number {}",
            s.first_deal,
            u64::MAX
        ))
    })?;
    Ok(Task::Solitaire {
        variant: parse_field("variant", &s.variant)?,
        player: parse_field("solitaire player", &s.player)?,
        deals: s.first_deal..end,
        seed: s.seed,
    })
}

impl From<&Task> for v2::JobSpec {
    fn from(task: &Task) -> v2::JobSpec {
        let kind = match task {
            Task::Analyse {
                position,
                config,
                playouts,
            } => v2::job_spec::Kind::Analyse(v2::AnalyseSpec {
                position: position.to_string(),
                config: config.to_string(),
                playouts: *playouts,
            }),
            Task::Selfplay {
                start,
                black,
                white,
            } => v2::job_spec::Kind::Selfplay(v2::SelfplaySpec {
                start: start.to_string(),
                black: black.to_string(),
                white: white.to_string(),
            }),
            Task::Pair {
                match_id,
                pair,
                opening,
                a,
                b,
                accuracy_stones,
                time,
                adjudicate,
            } => v2::job_spec::Kind::Pair(v2::PairSpec {
                match_id: *match_id,
                pair: *pair,
                opening: opening.to_string(),
                a: a.to_string(),
                b: b.to_string(),
                accuracy_stones: *accuracy_stones,
                time_limit: time.map(|t| t.to_string()).unwrap_or_default(),
                adjudicate: adjudicate.map(|a| a.to_string()).unwrap_or_default(),
            }),
            Task::Solve { position } => v2::job_spec::Kind::Solve(v2::SolveSpec {
                position: position.to_string(),
            }),
            Task::Verify {
                candidates,
                max_moves,
            } => v2::job_spec::Kind::Verify(v2::VerifySpec {
                candidates: candidates
                    .iter()
                    .map(|(position, source)| v2::PuzzleCandidate {
                        position: position.to_string(),
                        source: source.clone(),
                    })
                    .collect(),
                max_moves: *max_moves,
            }),
            Task::DeepLeaves { solve_id, leaves } => {
                v2::job_spec::Kind::DeepLeaves(v2::DeepLeavesSpec {
                    solve_id: *solve_id,
                    leaves: leaves.iter().map(ToString::to_string).collect(),
                })
            }
            Task::Solitaire {
                variant,
                player,
                deals,
                seed,
            } => v2::job_spec::Kind::Solitaire(v2::SolitaireSpec {
                variant: variant.to_string(),
                player: player.to_string(),
                first_deal: deals.start,
                // Saturating: a task built in code with more deals is refused on the way in.
                deals: u32::try_from(deals.end.saturating_sub(deals.start)).unwrap_or(u32::MAX),
                seed: *seed,
            }),
        };
        v2::JobSpec { kind: Some(kind) }
    }
}

/// A deep-leaves job from the wire: 1 to [`MAX_DEEP_LEAVES`] positions, each with at least the
/// midsolver's stone count.
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

fn deep_leaves_of_wire(d: &v2::DeepLeavesSpec) -> Result<Task, ConversionError> {
    if d.leaves.is_empty() || d.leaves.len() > MAX_DEEP_LEAVES {
        return Err(ConversionError(format!(
            "a deep-leaves job has 1 to {MAX_DEEP_LEAVES} leaves, not {}",
            d.leaves.len()
        )));
    }
    let leaves = d
        .leaves
        .iter()
        .map(|text| {
            let leaf: Position = parse_field("leaf", text)?;
            if leaf.stone_count() < MID_MIN_STONES {
                return Err(ConversionError(format!(
                    "leaf {leaf} has {} stones, fewer than {MID_MIN_STONES}",
                    leaf.stone_count()
                )));
            }
            Ok(leaf)
        })
        .collect::<Result<_, ConversionError>>()?;
    Ok(Task::DeepLeaves {
        solve_id: d.solve_id,
        leaves,
    })
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

/// A self-play player must be built in: external engines play only in matches.
fn built_in(player: Player) -> Result<Player, ConversionError> {
    match player.engine() {
        Some(name) => Err(ConversionError(format!(
            "engine:{name} plays only in matches, not in self-play"
        ))),
        None => Ok(player),
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
    fn tasks_round_trip_through_the_wire() {
        let tasks = [
            Task::Analyse {
                position: Position::START,
                config: "uct:k=0.7".parse().unwrap(),
                playouts: 5000,
            },
            Task::Selfplay {
                start: Position::START,
                black: Player::Random,
                white: "uct:playouts=100".parse().unwrap(),
            },
            Task::Pair {
                match_id: 3,
                pair: 9,
                opening: "b5-1R"
                    .parse::<pentago::Move>()
                    .map(|m| Position::START.play(m).unwrap())
                    .unwrap(),
                a: "uct:k=0.3".parse().unwrap(),
                b: Player::Random,
                accuracy_stones: Some(0),
                time: None,
                adjudicate: Some("exact:stones=22".parse().unwrap()),
            },
            Task::Pair {
                match_id: 3,
                pair: 10,
                opening: Position::START,
                a: "engine:pg".parse().unwrap(),
                b: Player::Random,
                accuracy_stones: None,
                time: Some("game:10+0.5".parse().unwrap()),
                adjudicate: None,
            },
            Task::DeepLeaves {
                solve_id: 4,
                leaves: vec![leaf()],
            },
            Task::Solitaire {
                variant: pentagrid_calculation::Variant::Superman,
                player: "uct:playouts=100,k=1".parse().unwrap(),
                deals: 7..1007,
                seed: 3,
            },
        ];
        for task in tasks {
            let wire = v2::JobSpec::from(&task);
            assert_eq!(Task::try_from(&wire).unwrap(), task);
        }
    }

    /// An ongoing 18-stone position.
    fn leaf() -> Position {
        "xoxoxo/oxoxox/xoxoxo/....../....../......".parse().unwrap()
    }

    #[test]
    fn deep_leaves_jobs_and_results_are_checked_on_the_way_in() {
        let spec = |leaves: Vec<String>| v2::JobSpec {
            kind: Some(v2::job_spec::Kind::DeepLeaves(v2::DeepLeavesSpec {
                solve_id: 1,
                leaves,
            })),
        };
        assert!(Task::try_from(&spec(vec![])).is_err());
        assert!(Task::try_from(&spec(vec![Position::START.to_string()])).is_err());
        assert!(Task::try_from(&spec(vec![leaf().to_string(); MAX_DEEP_LEAVES + 1])).is_err());
        assert!(Task::try_from(&spec(vec![leaf().to_string(); MAX_DEEP_LEAVES])).is_ok());
        let mut family = vec![Some(pentago::Value::Draw); pentago::ROTATED_VARIANTS];
        family[3] = None;
        let outcome = Outcome::DeepLeaves {
            values: vec![pentago::Value::Win, pentago::Value::Loss],
            rotated: vec![Vec::new(), family],
        };
        let wire = v2::submit_request::Result::from(&outcome);
        assert_eq!(Outcome::try_from(&wire).unwrap(), outcome);
        let unvalued = v2::submit_request::Result::DeepLeaves(v2::DeepLeavesResult {
            values: vec![v2::Value::Unspecified as i32],
            rotated: Vec::new(),
        });
        assert!(Outcome::try_from(&unvalued).is_err());
        let short_family = v2::submit_request::Result::DeepLeaves(v2::DeepLeavesResult {
            values: vec![v2::Value::Win as i32],
            rotated: vec![v2::RotatedValues {
                values: vec![v2::Value::Win as i32; 5],
            }],
        });
        assert!(Outcome::try_from(&short_family).is_err());
    }

    fn pair_asking_accuracy(stones: u32) -> v2::JobSpec {
        v2::JobSpec {
            kind: Some(v2::job_spec::Kind::Pair(v2::PairSpec {
                opening: "start".into(),
                a: "random".into(),
                b: "random".into(),
                accuracy_stones: Some(stones),
                ..v2::PairSpec::default()
            })),
        }
    }

    fn engine_pair(time_limit: &str) -> v2::JobSpec {
        v2::JobSpec {
            kind: Some(v2::job_spec::Kind::Pair(v2::PairSpec {
                opening: "start".into(),
                a: "engine:pg".into(),
                b: "random".into(),
                time_limit: time_limit.into(),
                ..v2::PairSpec::default()
            })),
        }
    }

    fn engine_selfplay() -> v2::JobSpec {
        v2::JobSpec {
            kind: Some(v2::job_spec::Kind::Selfplay(v2::SelfplaySpec {
                start: "start".into(),
                black: "engine:pg".into(),
                white: "random".into(),
            })),
        }
    }

    fn solitaire(variant: &str, player: &str, first_deal: u64, deals: u32) -> v2::JobSpec {
        v2::JobSpec {
            kind: Some(v2::job_spec::Kind::Solitaire(v2::SolitaireSpec {
                variant: variant.into(),
                player: player.into(),
                first_deal,
                deals,
                seed: 1,
            })),
        }
    }

    #[test]
    fn bad_jobs_are_refused_with_a_reason() {
        let analyse = |position: &str, config: &str, playouts| v2::JobSpec {
            kind: Some(v2::job_spec::Kind::Analyse(v2::AnalyseSpec {
                position: position.into(),
                config: config.into(),
                playouts,
            })),
        };
        for (spec, needle) in [
            (analyse("start", "uct", 0), "playout budget"),
            (analyse("start", "uct", u64::MAX), "playout budget"),
            (analyse("xx", "uct", 10), "bad position"),
            (analyse("start", "uct:k=oops", 10), "bad engine config"),
            (
                analyse("....../....../....../....../oooo../xxxxx.", "uct", 10),
                "over",
            ),
            (v2::JobSpec { kind: None }, "no kind"),
            (pair_asking_accuracy(36), "accuracy_stones"),
            (engine_pair(""), "needs a time limit"),
            (engine_pair("move:0"), "bad time limit"),
            (engine_selfplay(), "only in matches"),
            (solitaire("standard", "strategy", 0, 0), "1 to 1000 deals"),
            (
                solitaire("standard", "strategy", 0, 1001),
                "1 to 1000 deals",
            ),
            (
                solitaire("standard", "strategy", u64::MAX, 1),
                "past the last",
            ),
            (solitaire("classic", "strategy", 0, 1), "bad variant"),
            (
                solitaire("standard", "uct:playouts=0", 0, 1),
                "bad solitaire player",
            ),
            (solitaire("standard", "bogo", 0, 1), "bad solitaire player"),
        ] {
            let error = Task::try_from(&spec).unwrap_err();
            assert!(error.0.contains(needle), "{error} lacks {needle}");
        }
    }

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
