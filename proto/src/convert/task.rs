//! Jobs between the wire and their domain value ([`pentagrid_model::Task`]), checked on the
//! way in: every field read, every count within its limit.

use pentago::{ACCURACY_STONES, MAX_PUZZLE_MOVES, MID_MIN_STONES, Player, Position};

use pentagrid_model::{
    MAX_DEEP_LEAVES, MAX_JOB_PLAYOUTS, MAX_SOLITAIRE_DEALS, MAX_VERIFY_CANDIDATES, Task,
    parse_field,
};

use crate::errors::ConversionError;
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

/// A self-play player must be built in: external engines play only in matches.
fn built_in(player: Player) -> Result<Player, ConversionError> {
    match player.engine() {
        Some(name) => Err(ConversionError(format!(
            "engine:{name} plays only in matches, not in self-play"
        ))),
        None => Ok(player),
    }
}

#[cfg(test)]
mod tests {
    use pentagrid_model::Outcome;

    use super::*;

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
}
