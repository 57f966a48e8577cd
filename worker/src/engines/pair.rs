//! A match's game pair under the referee: the worker's engine programs started for the job
//! (and killed with it), both games played under the match's time limit, each forfeit, each
//! move's time and the engines' standard error kept for the record, and accuracy judged as for
//! built-in players.

use std::time::Duration;

use pentago::{
    Adjudication, Color, PairResult, Player, Position, TimeLimit, game_points, splitmix64,
};
use pentagrid_proto::{
    GameForfeit, GameNote, LossReason, MoveScores, MoveTimes, Outcome, TimeScale, clip_note,
};
use thiserror::Error;

use super::{
    Contestant, EngineSpec, ExternalEngine, ForfeitReason, RefereeError, RefereeOptions,
    RefereedGame,
};

/// The external engines a worker runs (from its own configuration) and how it referees them.
#[derive(Clone, Debug)]
pub struct EngineSettings {
    /// The engines, by name.
    pub specs: Vec<EngineSpec>,
    /// Wall-clock time an engine may take past its limit before it loses on time.
    pub margin: Duration,
    /// Start every engine afresh for each game; otherwise reuse it after `clear_board`.
    pub restart: bool,
    /// The factor a refereed pair's time limit is multiplied by: the coordinator's reference
    /// speed over this worker's (its session sets it from each hello; 1 by default).
    pub time_scale: TimeScale,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            specs: Vec::new(),
            margin: RefereeOptions::default().margin,
            restart: false,
            time_scale: TimeScale::ONE,
        }
    }
}

/// Why an engine could not be set up at the worker's start.
#[derive(Debug, Error)]
pub enum EngineStartError {
    /// Two engines of one name.
    #[error("engine {0:?} is configured twice")]
    Twice(String),
    /// The program did not answer `name` and `version`.
    #[error("engine {name:?} does not work: {reason}")]
    Broken {
        /// The engine.
        name: String,
        /// What went wrong.
        reason: ForfeitReason,
    },
}

/// How long an engine may take to answer `name` and `version` at start-up.
pub const IDENTIFY_TIMEOUT: Duration = Duration::from_secs(10);

impl EngineSettings {
    /// Starts each engine once, asks its name and version, and stops it: the (name, version)
    /// pairs a worker announces. A broken engine is an error naming it.
    pub fn identify(&self) -> Result<Vec<(String, String)>, EngineStartError> {
        let mut found: Vec<(String, String)> = Vec::with_capacity(self.specs.len());
        for spec in &self.specs {
            if found.iter().any(|(name, _)| *name == spec.name) {
                return Err(EngineStartError::Twice(spec.name.clone()));
            }
            let mut engine = ExternalEngine::new(spec.clone());
            let version =
                engine
                    .identify(IDENTIFY_TIMEOUT)
                    .map_err(|reason| EngineStartError::Broken {
                        name: spec.name.clone(),
                        reason,
                    })?;
            found.push((spec.name.clone(), version));
        }
        Ok(found)
    }

    fn spec(&self, name: &str) -> Option<&EngineSpec> {
        self.specs.iter().find(|spec| spec.name == name)
    }
}

/// A refereed pair that could not be played (the job fails; nobody forfeits).
#[derive(Debug, Error)]
pub enum PairError {
    /// The pair names an engine this worker does not run.
    #[error("this worker does not run engine:{0}")]
    NotRun(String),
    /// The referee could not start a game.
    #[error(transparent)]
    Referee(#[from] RefereeError),
    /// The pair's accuracy could not be judged.
    #[error(transparent)]
    Accuracy(#[from] pentago::AccuracyError),
}

/// A game pair to referee.
pub struct RefereedPair<'a> {
    /// The opening (ongoing).
    pub opening: &'a Position,
    /// Player A, black in the first game.
    pub a: &'a Player,
    /// Player B.
    pub b: &'a Player,
    /// The match's time limit (before the worker's time scale).
    pub time: TimeLimit,
    /// Judge moves from positions with this many stones on against perfect play.
    pub accuracy_stones: Option<u32>,
    /// End each game as soon as its position's exact value is known.
    pub adjudicate: Option<Adjudication>,
}

/// One side of the pair: a built-in player or this job's process of an engine.
enum Side<'a> {
    BuiltIn(&'a Player),
    Engine(ExternalEngine),
}

impl<'a> Side<'a> {
    fn new(player: &'a Player, settings: &EngineSettings) -> Result<Side<'a>, PairError> {
        match player.engine() {
            None => Ok(Side::BuiltIn(player)),
            Some(name) => settings
                .spec(name)
                .map(|spec| Side::Engine(ExternalEngine::new(spec.clone())))
                .ok_or_else(|| PairError::NotRun(name.to_owned())),
        }
    }

    fn contestant(&mut self) -> Contestant<'_> {
        match self {
            Side::BuiltIn(player) => Contestant::BuiltIn(player),
            Side::Engine(engine) => Contestant::Engine(engine),
        }
    }
}

impl RefereedPair<'_> {
    /// Plays both games (A black first) with `seed` under the time limit multiplied by the
    /// settings' time scale; built-in players search on `threads` trees. The engines'
    /// processes end with this call.
    pub fn play(
        &self,
        settings: &EngineSettings,
        seed: u64,
        threads: usize,
    ) -> Result<Outcome, PairError> {
        let referee = RefereeOptions {
            time: self.time.scaled(settings.time_scale.get()),
            margin: settings.margin,
            restart: settings.restart,
            // An engine gets the job's threads where its dialect can be told them.
            engine_threads: Some(threads),
            adjudicate: self.adjudicate,
            ..RefereeOptions::default()
        };
        // Each side its own process, even when A and B are the same engine.
        let mut a = Side::new(self.a, settings)?;
        let mut b = Side::new(self.b, settings)?;
        let first = referee.play_game(
            self.opening,
            [a.contestant(), b.contestant()],
            splitmix64(seed),
            threads,
        )?;
        let second = referee.play_game(
            self.opening,
            [b.contestant(), a.contestant()],
            splitmix64(seed ^ 1),
            threads,
        )?;
        self.outcome([first, second], settings.time_scale)
    }

    fn outcome(
        &self,
        games: [RefereedGame; 2],
        time_scale: TimeScale,
    ) -> Result<Outcome, PairError> {
        let notes = games.clone().map(|game| GameNote {
            forfeit: game.forfeit.map(|f| GameForfeit {
                loser: f.loser,
                reason: loss_reason(&f.reason),
                detail: clip_note(f.reason.to_string()),
            }),
            adjudicated: game.adjudicated.map(|v| v.source),
            stderr: game.stderr.map(clip_note),
            time_scale,
            move_times: MoveTimes::from_seconds(game.move_seconds),
            move_scores: MoveScores::from_points(game.move_scores),
        });
        let records = games.map(|game| game.record);
        let accuracy = self
            .accuracy_stones
            .map(|min_stones| {
                let pair = PairResult {
                    opening: *self.opening,
                    a_points: game_points(records[0].result, Color::Black)
                        + game_points(records[1].result, Color::White),
                    games: records.clone(),
                };
                crate::accuracy::judge(&pair, min_stones)
            })
            .transpose()?;
        Ok(Outcome::Pair {
            games: records.map(|record| (record.moves, record.result)),
            accuracy,
            notes: Box::new(notes),
        })
    }
}

/// The typed reason of a referee's forfeit.
fn loss_reason(reason: &ForfeitReason) -> LossReason {
    match reason {
        ForfeitReason::Spawn(_) => LossReason::Spawn,
        ForfeitReason::Crashed(_) => LossReason::Crash,
        ForfeitReason::Hung { .. } => LossReason::Hang,
        ForfeitReason::TimeForfeit { .. } => LossReason::Time,
        ForfeitReason::Malformed { .. } => LossReason::Malformed,
        ForfeitReason::IllegalMove { .. } => LossReason::Illegal,
        ForfeitReason::Refused { .. } => LossReason::Refused,
        ForfeitReason::Resigned => LossReason::Resigned,
    }
}
