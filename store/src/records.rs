//! Records kept in the database (matches and their pairs are in `match_records`): the store's
//! own types, encoded with protobuf (prost) field tags that never change meaning, so the format
//! is stable and evolves only by adding fields. They are deliberately separate from the wire
//! messages: the API can change version without migrating a database. (The job task layout
//! happens to equal the one `pentagrid.v1` job specs had, so databases written before the split
//! read unchanged.)

use pentago::{Adjudication, Player, Position, TimeLimit, UctConfig};
use pentagrid_model::{FieldError, MAX_SOLITAIRE_DEALS, Task, parse_field};
use thiserror::Error;

use crate::job::{Job, JobState};

/// A job as stored under its id in the `jobs` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredJob {
    /// What to do.
    #[prost(message, optional, tag = "1")]
    pub task: Option<StoredTask>,
    /// Where it stands: 0 queued, 1 leased, 2 done, 3 failed, 4 cancelled (see
    /// [`StoredJob::state`]).
    #[prost(uint32, tag = "2")]
    pub state: u32,
    /// Leases granted so far.
    #[prost(uint32, tag = "3")]
    pub attempts: u32,
    /// The current lease while leased.
    #[prost(uint64, tag = "4")]
    pub lease_id: u64,
    /// The worker holding the current lease.
    #[prost(string, tag = "5")]
    pub worker_id: String,
    /// The job's seed.
    #[prost(uint64, tag = "6")]
    pub seed: u64,
    /// The result applied, once done.
    #[prost(string, tag = "7")]
    pub result_id: String,
    /// The last failure a worker reported for it (kept when it fails for good).
    #[prost(string, tag = "8")]
    pub error: String,
    /// Playouts its result merged into tables, once done.
    #[prost(uint64, tag = "9")]
    pub playouts: u64,
    /// Games its result stored, once done.
    #[prost(uint64, tag = "10")]
    pub games: u64,
    /// Workers that may not lease it: the parties a cross-check must be independent of.
    #[prost(string, repeated, tag = "11")]
    pub excluded_workers: Vec<String>,
    /// The claim this job cross-checks (0: none; see [`super::claims`]).
    #[prost(uint64, tag = "12")]
    pub claim_id: u64,
}

impl StoredJob {
    /// The job's state. A number this version does not know reads as failed: such a job is
    /// never re-run blindly.
    #[must_use]
    pub fn state(&self) -> JobState {
        match self.state {
            0 => JobState::Queued,
            1 => JobState::Leased,
            2 => JobState::Done,
            4 => JobState::Cancelled,
            _ => JobState::Failed,
        }
    }
}

/// The stored number of a job's state (stable).
fn state_number(state: JobState) -> u32 {
    match state {
        JobState::Queued => 0,
        JobState::Leased => 1,
        JobState::Done => 2,
        JobState::Failed => 3,
        JobState::Cancelled => 4,
    }
}

impl From<&Job> for StoredJob {
    fn from(job: &Job) -> StoredJob {
        StoredJob {
            task: job.task.as_ref().map(StoredTask::from),
            state: state_number(job.state),
            attempts: job.attempts,
            lease_id: job.lease_id,
            worker_id: job.worker_id.clone(),
            seed: job.seed,
            result_id: job.result_id.clone(),
            error: job.error.clone(),
            playouts: job.playouts,
            games: job.games,
            excluded_workers: job.excluded_workers.clone(),
            claim_id: job.claim_id.unwrap_or(0),
        }
    }
}

/// Reads a stored job back. An unfinished job needs a task that reads back; a finished one
/// gets `None` for a task that is missing or does not read back (it is never run again).
impl TryFrom<StoredJob> for Job {
    type Error = UnreadableTask;

    fn try_from(stored: StoredJob) -> Result<Job, UnreadableTask> {
        let state = stored.state();
        let task = match &stored.task {
            Some(task) => Task::try_from(task).map(Some),
            None => Err(UnreadableTask::Missing),
        };
        let task = match task {
            Ok(task) => task,
            Err(why) if state.is_unfinished() => return Err(why),
            Err(_) => None,
        };
        Ok(Job {
            task,
            state,
            attempts: stored.attempts,
            lease_id: stored.lease_id,
            worker_id: stored.worker_id,
            seed: stored.seed,
            result_id: stored.result_id,
            error: stored.error,
            playouts: stored.playouts,
            games: stored.games,
            excluded_workers: stored.excluded_workers,
            claim_id: (stored.claim_id != 0).then_some(stored.claim_id),
        })
    }
}

/// A job's task as stored: positions, moves and players in their text notation.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredTask {
    /// Which task, with its parameters.
    #[prost(oneof = "StoredTaskKind", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub kind: Option<StoredTaskKind>,
}

/// The kinds of task (stable tags).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum StoredTaskKind {
    /// A UCT analysis.
    #[prost(message, tag = "1")]
    Analyse(StoredAnalyse),
    /// A self-play game.
    #[prost(message, tag = "2")]
    Selfplay(StoredSelfplay),
    /// A match game pair.
    #[prost(message, tag = "3")]
    Pair(StoredPairTask),
    /// Puzzle candidates to verify.
    #[prost(message, tag = "4")]
    Verify(StoredVerify),
    /// An exact solve.
    #[prost(message, tag = "5")]
    Solve(StoredSolve),
    /// Leaves of a deep solve to value.
    #[prost(message, tag = "7")]
    DeepLeaves(StoredDeepLeaves),
    /// Solitaire deals to play.
    #[prost(message, tag = "6")]
    Solitaire(StoredSolitaire),
}

/// Solitaire deals to play: variant and player in their text forms, the deals (half-open), the
/// players' seed.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredSolitaire {
    /// The variant.
    #[prost(string, tag = "1")]
    pub variant: String,
    /// The player.
    #[prost(string, tag = "2")]
    pub player: String,
    /// The first deal.
    #[prost(uint64, tag = "3")]
    pub first_deal: u64,
    /// One past the last deal.
    #[prost(uint64, tag = "4")]
    pub end_deal: u64,
    /// The players' seed.
    #[prost(uint64, tag = "5")]
    pub seed: u64,
}

/// An analysis: position, engine configuration, playout budget.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredAnalyse {
    /// The position.
    #[prost(string, tag = "1")]
    pub position: String,
    /// Engine configuration (text form).
    #[prost(string, tag = "2")]
    pub config: String,
    /// Playout budget.
    #[prost(uint64, tag = "3")]
    pub playouts: u64,
}

/// A self-play game: start position and players (text forms).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredSelfplay {
    /// Start position.
    #[prost(string, tag = "1")]
    pub start: String,
    /// Black's player.
    #[prost(string, tag = "2")]
    pub black: String,
    /// White's player.
    #[prost(string, tag = "3")]
    pub white: String,
}

/// A match pair: its match, index, opening and players.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredPairTask {
    /// The match.
    #[prost(uint64, tag = "1")]
    pub match_id: u64,
    /// The pair's index.
    #[prost(uint64, tag = "2")]
    pub pair: u64,
    /// The opening.
    #[prost(string, tag = "3")]
    pub opening: String,
    /// Player A.
    #[prost(string, tag = "4")]
    pub a: String,
    /// Player B.
    #[prost(string, tag = "5")]
    pub b: String,
    /// Judge moves from positions with at least this many stones against perfect play; absent:
    /// not (before 0 could be asked for, 0 meant not, and was never written: it reads absent).
    #[prost(uint32, optional, tag = "6")]
    pub accuracy_stones: Option<u32>,
    /// The wall-clock time limit (text form); empty: the players' own budgets (and pairs
    /// stored before time limits existed read so).
    #[prost(string, tag = "7")]
    pub time_limit: String,
    /// The adjudication of each game (text form: `exact:stones=N,budget=SECONDS`, or
    /// `exact:stones=N` as stored before budgets existed, which reads with the default
    /// budget); empty: none (and pairs stored before adjudication existed read so).
    #[prost(string, tag = "8")]
    pub adjudicate: String,
}

/// Puzzle candidates (position, source) and the longest mate looked for.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredVerify {
    /// The candidates.
    #[prost(message, repeated, tag = "1")]
    pub candidates: Vec<StoredCandidate>,
    /// Longest mate.
    #[prost(uint32, tag = "2")]
    pub max_moves: u32,
}

/// One puzzle candidate.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredCandidate {
    /// The position.
    #[prost(string, tag = "1")]
    pub position: String,
    /// Where it came from.
    #[prost(string, tag = "2")]
    pub source: String,
}

/// An exact solve of a position.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredSolve {
    /// The position.
    #[prost(string, tag = "1")]
    pub position: String,
}

/// Leaves of a deep solve to value exactly.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredDeepLeaves {
    /// The deep solve.
    #[prost(uint64, tag = "1")]
    pub solve_id: u64,
    /// The leaves (text form).
    #[prost(string, repeated, tag = "2")]
    pub leaves: Vec<String>,
}

impl From<&Task> for StoredTask {
    fn from(task: &Task) -> StoredTask {
        let kind = match task {
            Task::Analyse {
                position,
                config,
                playouts,
            } => StoredTaskKind::Analyse(StoredAnalyse {
                position: position.to_string(),
                config: config.to_string(),
                playouts: *playouts,
            }),
            Task::Selfplay {
                start,
                black,
                white,
            } => StoredTaskKind::Selfplay(StoredSelfplay {
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
            } => StoredTaskKind::Pair(StoredPairTask {
                match_id: *match_id,
                pair: *pair,
                opening: opening.to_string(),
                a: a.to_string(),
                b: b.to_string(),
                accuracy_stones: *accuracy_stones,
                time_limit: time.map(|t| t.to_string()).unwrap_or_default(),
                adjudicate: adjudicate.map(|a| a.to_string()).unwrap_or_default(),
            }),
            Task::Verify {
                candidates,
                max_moves,
            } => StoredTaskKind::Verify(StoredVerify {
                candidates: candidates
                    .iter()
                    .map(|(position, source)| StoredCandidate {
                        position: position.to_string(),
                        source: source.clone(),
                    })
                    .collect(),
                max_moves: *max_moves,
            }),
            Task::Solve { position } => StoredTaskKind::Solve(StoredSolve {
                position: position.to_string(),
            }),
            Task::DeepLeaves { solve_id, leaves } => StoredTaskKind::DeepLeaves(StoredDeepLeaves {
                solve_id: *solve_id,
                leaves: leaves.iter().map(ToString::to_string).collect(),
            }),
            Task::Solitaire {
                variant,
                player,
                deals,
                seed,
            } => StoredTaskKind::Solitaire(StoredSolitaire {
                variant: variant.to_string(),
                player: player.to_string(),
                first_deal: deals.start,
                end_deal: deals.end,
                seed: *seed,
            }),
        };
        StoredTask { kind: Some(kind) }
    }
}

/// Why a stored task does not read back.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum UnreadableTask {
    /// The job has no task.
    #[error("the job has no task")]
    Missing,
    /// It has no kind.
    #[error("the task has no kind")]
    NoKind,
    /// A field does not hold what it should.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A solitaire task's deals are empty, reversed or too many.
    #[error("bad solitaire deals {first}..{end}: a job plays 1 to {MAX_SOLITAIRE_DEALS}")]
    Deals {
        /// The first deal.
        first: u64,
        /// One past the last.
        end: u64,
    },
}

impl TryFrom<&StoredTask> for Task {
    type Error = UnreadableTask;

    fn try_from(stored: &StoredTask) -> Result<Task, UnreadableTask> {
        Ok(match stored.kind.as_ref().ok_or(UnreadableTask::NoKind)? {
            StoredTaskKind::Analyse(a) => Task::Analyse {
                position: parse_field::<Position>("position", &a.position)?,
                config: parse_field::<UctConfig>("engine config", &a.config)?,
                playouts: a.playouts,
            },
            StoredTaskKind::Selfplay(s) => Task::Selfplay {
                start: parse_field("position", &s.start)?,
                black: parse_field::<Player>("player", &s.black)?,
                white: parse_field::<Player>("player", &s.white)?,
            },
            StoredTaskKind::Pair(p) => Task::Pair {
                match_id: p.match_id,
                pair: p.pair,
                opening: parse_field("opening", &p.opening)?,
                a: parse_field::<Player>("player", &p.a)?,
                b: parse_field::<Player>("player", &p.b)?,
                accuracy_stones: p.accuracy_stones,
                time: match p.time_limit.as_str() {
                    "" => None,
                    text => Some(parse_field::<TimeLimit>("time limit", text)?),
                },
                adjudicate: match p.adjudicate.as_str() {
                    "" => None,
                    text => Some(parse_field::<Adjudication>("adjudication", text)?),
                },
            },
            StoredTaskKind::Verify(v) => Task::Verify {
                candidates: v
                    .candidates
                    .iter()
                    .map(|c| Ok((parse_field("position", &c.position)?, c.source.clone())))
                    .collect::<Result<_, FieldError>>()?,
                max_moves: v.max_moves,
            },
            StoredTaskKind::Solve(s) => Task::Solve {
                position: parse_field("position", &s.position)?,
            },
            StoredTaskKind::DeepLeaves(d) => Task::DeepLeaves {
                solve_id: d.solve_id,
                leaves: d
                    .leaves
                    .iter()
                    .map(|leaf| parse_field("leaf", leaf))
                    .collect::<Result<_, FieldError>>()?,
            },
            StoredTaskKind::Solitaire(s) => Task::Solitaire {
                variant: parse_field("variant", &s.variant)?,
                player: parse_field("solitaire player", &s.player)?,
                deals: match s.end_deal.checked_sub(s.first_deal) {
                    Some(n) if (1..=MAX_SOLITAIRE_DEALS).contains(&n) => s.first_deal..s.end_deal,
                    _ => {
                        return Err(UnreadableTask::Deals {
                            first: s.first_deal,
                            end: s.end_deal,
                        });
                    }
                },
                seed: s.seed,
            },
        })
    }
}

/// Where a puzzle candidate stands. Stable numbers (stored).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CandidateState {
    /// Queued in a verify job.
    Pending = 0,
    /// Became a puzzle.
    Puzzle = 1,
    /// No checkmate within the limit.
    NoMate = 2,
    /// Another first move wins too.
    NotUnique = 3,
    /// The solver could not settle it.
    Undecided = 4,
    /// The game was over.
    GameOver = 5,
    /// Found a puzzle by one worker, waiting for a second party to confirm its uniqueness.
    Unconfirmed = 6,
    /// Its parties disagree about its uniqueness, waiting for a third.
    Disputed = 7,
}

impl CandidateState {
    /// Every state, in stored order.
    pub const ALL: [CandidateState; 8] = [
        CandidateState::Pending,
        CandidateState::Puzzle,
        CandidateState::NoMate,
        CandidateState::NotUnique,
        CandidateState::Undecided,
        CandidateState::GameOver,
        CandidateState::Unconfirmed,
        CandidateState::Disputed,
    ];
}

/// A finished self-play game, stored under its job id in the `games` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredGame {
    /// Start position.
    #[prost(string, tag = "1")]
    pub start: String,
    /// Moves in order.
    #[prost(string, repeated, tag = "2")]
    pub moves: Vec<String>,
    /// Final status.
    #[prost(string, tag = "3")]
    pub result: String,
    /// The players.
    #[prost(string, tag = "4")]
    pub black: String,
    /// The players.
    #[prost(string, tag = "5")]
    pub white: String,
    /// Refereed games that ended by a forfeit: who lost and why (absent otherwise, and in
    /// games stored before forfeits existed).
    #[prost(message, optional, tag = "6")]
    pub forfeit: Option<StoredForfeit>,
    /// The end of black's external engine's standard error (empty for built-in players).
    #[prost(string, tag = "7")]
    pub stderr_black: String,
    /// The end of white's.
    #[prost(string, tag = "8")]
    pub stderr_white: String,
    /// Adjudicated games: where the exact value came from (`table`, `alpha-beta`,
    /// `midsolver`); empty for games played out or forfeited (and games stored before
    /// adjudication existed).
    #[prost(string, tag = "9")]
    pub adjudicated: String,
    /// Refereed games: the factor the worker multiplied the match's time limit by (its
    /// reference speed over its own, 0.1 to 10); 0 (games stored before time scales existed,
    /// and unscaled ones) reads as 1.
    #[prost(double, tag = "10")]
    pub time_scale: f64,
    /// Match games: the whole milliseconds each move took, in move order, one per move (each
    /// at most [`pentagrid_model::MAX_MOVE_MILLIS`]); empty (self-play games, games stored
    /// before times were kept) means unknown.
    #[prost(uint32, repeated, packed = "true", tag = "11")]
    pub move_millis: Vec<u32>,
    /// Match games: the mover's score of each move in thousandths (0 to 1000), or
    /// [`pentagrid_model::UNKNOWN_SCORE`] for a move whose player keeps none, in move order,
    /// one per move; empty (self-play games, games without a scoring player, games stored
    /// before scores were kept) means unknown.
    #[prost(uint32, repeated, packed = "true", tag = "12")]
    pub move_score_milli: Vec<u32>,
}

/// A stored game's adjudication source (`table`, `midsolver`); anything else (empty: not
/// adjudicated) reads as none.
fn adjudication_source(text: &str) -> Option<pentago::SolveMethod> {
    [pentago::SolveMethod::Table, pentago::SolveMethod::Midsolver]
        .into_iter()
        .find(|method| method.name() == text)
}

impl From<StoredGame> for crate::game::Game {
    fn from(stored: StoredGame) -> crate::game::Game {
        crate::game::Game {
            forfeit: stored.forfeit.as_ref().and_then(StoredForfeit::read),
            // A source that no longer reads back reads as none, as a forfeit does.
            adjudicated: adjudication_source(&stored.adjudicated),
            // A scale that no longer reads back reads as 1, as a lost source does.
            time_scale: pentagrid_model::TimeScale::of_stored(stored.time_scale)
                .unwrap_or_default(),
            move_times: pentagrid_model::MoveTimes::from_millis(stored.move_millis),
            move_scores: pentagrid_model::MoveScores::from_milli(stored.move_score_milli),
            start: stored.start,
            moves: stored.moves,
            result: stored.result,
            black: stored.black,
            white: stored.white,
            stderr_black: stored.stderr_black,
            stderr_white: stored.stderr_white,
        }
    }
}

impl From<&crate::game::Game> for StoredGame {
    fn from(game: &crate::game::Game) -> StoredGame {
        StoredGame {
            start: game.start.clone(),
            moves: game.moves.clone(),
            result: game.result.clone(),
            black: game.black.clone(),
            white: game.white.clone(),
            forfeit: game.forfeit.as_ref().map(StoredForfeit::from),
            adjudicated: game
                .adjudicated
                .map(|source| source.name().to_owned())
                .unwrap_or_default(),
            stderr_black: game.stderr_black.clone(),
            stderr_white: game.stderr_white.clone(),
            time_scale: if game.time_scale.is_one() {
                0.0
            } else {
                game.time_scale.get()
            },
            move_millis: game.move_times.millis().to_vec(),
            move_score_milli: game.move_scores.milli().to_vec(),
        }
    }
}

/// A forfeit as stored with its game.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredForfeit {
    /// `black` or `white`.
    #[prost(string, tag = "1")]
    pub loser: String,
    /// The reason's stable name (see [`pentagrid_model::LossReason`]).
    #[prost(string, tag = "2")]
    pub reason: String,
    /// What happened, for people.
    #[prost(string, tag = "3")]
    pub detail: String,
}

impl From<&pentagrid_model::GameForfeit> for StoredForfeit {
    fn from(forfeit: &pentagrid_model::GameForfeit) -> StoredForfeit {
        StoredForfeit {
            loser: forfeit.loser.name().to_owned(),
            reason: forfeit.reason.name().to_owned(),
            detail: forfeit.detail.clone(),
        }
    }
}

impl StoredForfeit {
    /// The forfeit, if it reads back.
    #[must_use]
    pub fn read(&self) -> Option<pentagrid_model::GameForfeit> {
        let loser = match self.loser.as_str() {
            "black" => pentago::Color::Black,
            "white" => pentago::Color::White,
            _ => return None,
        };
        Some(pentagrid_model::GameForfeit {
            loser,
            reason: self.reason.parse().ok()?,
            detail: self.detail.clone(),
        })
    }
}

/// Running totals, in the `meta` tree under `totals`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Totals {
    /// Positions with a playout table.
    #[prost(uint64, tag = "1")]
    pub playout_positions: u64,
    /// Positions with a game table.
    #[prost(uint64, tag = "2")]
    pub game_positions: u64,
    /// Stored games.
    #[prost(uint64, tag = "3")]
    pub games: u64,
    /// Playouts merged into tables by results, ever (purges do not lower it: see
    /// `purged_playouts`).
    #[prost(uint64, tag = "4")]
    pub playouts: u64,
    /// Results applied.
    #[prost(uint64, tag = "5")]
    pub results: u64,
    /// Of `playouts`, those taken back out of the tables by purges of caught workers (see
    /// [`super::contributions`]).
    #[prost(uint64, tag = "6")]
    pub purged_playouts: u64,
    /// Playout tables purges left without rows and removed (no longer in
    /// `playout_positions`).
    #[prost(uint64, tag = "7")]
    pub purged_positions: u64,
    /// Self-play games through moves taken back out of the game tables by purges (the
    /// game tables' counterpart of `purged_playouts`; `games` counts stored game records,
    /// which purges keep).
    #[prost(uint64, tag = "8")]
    pub purged_games: u64,
    /// Game tables purges left without rows and removed (no longer in `game_positions`).
    #[prost(uint64, tag = "9")]
    pub purged_game_positions: u64,
}

impl Totals {
    /// Playouts the tables hold from results: those merged less those purged.
    #[must_use]
    pub fn kept_playouts(&self) -> u64 {
        self.playouts.saturating_sub(self.purged_playouts)
    }
}

/// A book build, stored under its id in the `builds` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredBuild {
    /// Canonical root positions.
    #[prost(string, repeated, tag = "1")]
    pub roots: Vec<String>,
    /// Deepest ply below a root that gets analysed.
    #[prost(uint32, tag = "2")]
    pub depth: u32,
    /// Most positions to queue.
    #[prost(uint64, tag = "3")]
    pub max_positions: u64,
    /// Most playouts to spend.
    #[prost(uint64, tag = "4")]
    pub budget: u64,
    /// Playouts per analysed position.
    #[prost(uint64, tag = "5")]
    pub playouts_per_position: u64,
    /// Engine configuration (text form).
    #[prost(string, tag = "6")]
    pub config: String,
    /// Positions with at least this many stones are solved (0: never).
    #[prost(uint32, tag = "7")]
    pub solve_stones: u32,
    /// Positions queued so far (analyses and solves).
    #[prost(uint64, tag = "8")]
    pub positions: u64,
    /// Of those, solves.
    #[prost(uint64, tag = "9")]
    pub solved: u64,
    /// Playouts queued so far.
    #[prost(uint64, tag = "10")]
    pub playouts: u64,
    /// Whether the build has finished.
    #[prost(bool, tag = "11")]
    pub done: bool,
    /// Deep-solve positions from this many stones on (0: never).
    #[prost(uint32, tag = "12")]
    pub deep_from: u32,
    /// Most deep solves running at once.
    #[prost(uint32, tag = "13")]
    pub deep_window: u32,
    /// Stones of the deep solves' leaves.
    #[prost(uint32, tag = "14")]
    pub deep_leaf_stones: u32,
    /// Deep solves started or joined.
    #[prost(uint64, tag = "15")]
    pub deep_started: u64,
    /// Of those, finished.
    #[prost(uint64, tag = "16")]
    pub deep_finished: u64,
    /// Ids of the deep solves still running.
    #[prost(uint64, repeated, tag = "17")]
    pub deep_running: Vec<u64>,
}

impl From<&crate::build_record::Build> for StoredBuild {
    fn from(build: &crate::build_record::Build) -> StoredBuild {
        StoredBuild {
            roots: build.roots.clone(),
            depth: build.depth,
            max_positions: build.max_positions,
            budget: build.budget,
            playouts_per_position: build.playouts_per_position,
            config: build.config.clone(),
            solve_stones: build.solve_stones,
            positions: build.positions,
            solved: build.solved,
            playouts: build.playouts,
            done: build.done,
            deep_from: build.deep_from,
            deep_window: build.deep_window,
            deep_leaf_stones: build.deep_leaf_stones,
            deep_started: build.deep_started,
            deep_finished: build.deep_finished,
            deep_running: build.deep_running.clone(),
        }
    }
}

impl From<StoredBuild> for crate::build_record::Build {
    fn from(stored: StoredBuild) -> crate::build_record::Build {
        crate::build_record::Build {
            roots: stored.roots,
            depth: stored.depth,
            max_positions: stored.max_positions,
            budget: stored.budget,
            playouts_per_position: stored.playouts_per_position,
            config: stored.config,
            solve_stones: stored.solve_stones,
            positions: stored.positions,
            solved: stored.solved,
            playouts: stored.playouts,
            done: stored.done,
            deep_from: stored.deep_from,
            deep_window: stored.deep_window,
            deep_leaf_stones: stored.deep_leaf_stones,
            deep_started: stored.deep_started,
            deep_finished: stored.deep_finished,
            deep_running: stored.deep_running,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn tasks_round_trip_through_their_stored_form() {
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
            Task::Verify {
                candidates: vec![(Position::START, "game 3 ply 0".into())],
                max_moves: 3,
            },
            Task::Pair {
                match_id: 4,
                pair: 1,
                opening: Position::START,
                a: "engine:pg".parse().unwrap(),
                b: Player::Random,
                accuracy_stones: None,
                time: Some("move:0.5".parse().unwrap()),
                adjudicate: Some("exact:stones=24".parse().unwrap()),
            },
            Task::Solve {
                position: Position::START,
            },
            Task::DeepLeaves {
                solve_id: 5,
                leaves: vec![Position::START, Position::START],
            },
            Task::Solitaire {
                variant: pentagrid_calculation::Variant::Computer,
                player: "flat:playouts=50,value=cards".parse().unwrap(),
                deals: 10..20,
                seed: 4,
            },
        ];
        for task in tasks {
            let bytes = StoredTask::from(&task).encode_to_vec();
            let stored = StoredTask::decode(bytes.as_slice()).unwrap();
            assert_eq!(Task::try_from(&stored).unwrap(), task);
        }
        let empty = StoredTask { kind: None };
        assert!(Task::try_from(&empty).is_err());
    }

    #[test]
    fn solitaire_tasks_with_bad_deals_do_not_read_back() {
        for (first_deal, end_deal) in [(5, 5), (6, 5), (0, 1001), (u64::MAX, 0)] {
            let stored = StoredTask {
                kind: Some(StoredTaskKind::Solitaire(StoredSolitaire {
                    variant: "standard".into(),
                    player: "random".into(),
                    first_deal,
                    end_deal,
                    seed: 1,
                })),
            };
            assert_eq!(
                Task::try_from(&stored),
                Err(UnreadableTask::Deals {
                    first: first_deal,
                    end: end_deal
                })
            );
        }
    }

    #[test]
    fn games_keep_their_time_scale_and_old_records_read_as_unscaled() {
        let game = crate::game::Game {
            result: "black".into(),
            time_scale: pentagrid_model::TimeScale::from_speeds(5, 2),
            ..crate::game::Game::default()
        };
        let bytes = StoredGame::from(&game).encode_to_vec();
        let back = crate::game::Game::from(StoredGame::decode(bytes.as_slice()).unwrap());
        assert_eq!(back.time_scale.get(), 2.5);
        // A record written before time scales (no field 10) and an unscaled one read as 1.
        let old = StoredGame {
            result: "draw".into(),
            ..StoredGame::default()
        };
        let unscaled = StoredGame::from(&crate::game::Game::default());
        assert_eq!(unscaled.time_scale, 0.0);
        for stored in [old, unscaled] {
            let bytes = stored.encode_to_vec();
            let back = crate::game::Game::from(StoredGame::decode(bytes.as_slice()).unwrap());
            assert!(back.time_scale.is_one());
        }
        // A stored scale out of range (a damaged record) reads as 1 rather than failing.
        let damaged = StoredGame {
            time_scale: f64::NAN,
            ..StoredGame::default()
        };
        assert!(crate::game::Game::from(damaged).time_scale.is_one());
    }

    #[test]
    fn games_keep_their_move_times_packed_and_old_records_read_as_unknown() {
        let game = crate::game::Game {
            moves: vec!["a1-1R".into(), "b2-2L".into(), "c3-3R".into()],
            result: "ongoing".into(),
            move_times: pentagrid_model::MoveTimes::from_millis(vec![12, 86_400_000, 0]),
            ..crate::game::Game::default()
        };
        let bytes = StoredGame::from(&game).encode_to_vec();
        // Packed: field 11 as one length-delimited run (tag byte 0x5a), not a tag per time.
        let packed = [0x5a, 6, 12, 0x80, 0xb8, 0x99, 0x29, 0];
        assert!(
            bytes.windows(packed.len()).any(|w| w == packed),
            "{bytes:x?}"
        );
        let back = crate::game::Game::from(StoredGame::decode(bytes.as_slice()).unwrap());
        assert_eq!(back, game);
        // A record written before move times (no field 11): its times are unknown.
        let old = StoredGame {
            moves: game.moves.clone(),
            result: "ongoing".into(),
            ..StoredGame::default()
        }
        .encode_to_vec();
        let back = crate::game::Game::from(StoredGame::decode(old.as_slice()).unwrap());
        assert_eq!(back.moves, game.moves);
        assert!(!back.move_times.is_known());
    }

    #[test]
    fn games_keep_their_move_scores_packed_and_old_records_read_as_unknown() {
        let game = crate::game::Game {
            moves: vec!["a1-1R".into(), "b2-2L".into(), "c3-3R".into()],
            result: "ongoing".into(),
            move_times: pentagrid_model::MoveTimes::from_millis(vec![5, 6, 7]),
            move_scores: pentagrid_model::MoveScores::from_points([Some(0.712), None, Some(1.0)]),
            ..crate::game::Game::default()
        };
        let bytes = StoredGame::from(&game).encode_to_vec();
        // Packed: field 12 as one length-delimited run (tag byte 0x62): 712, the unknown
        // sentinel (u32::MAX, five bytes), 1000.
        let packed = [
            0x62, 9, 0xc8, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xe8, 0x07,
        ];
        assert!(
            bytes.windows(packed.len()).any(|w| w == packed),
            "{bytes:x?}"
        );
        let back = crate::game::Game::from(StoredGame::decode(bytes.as_slice()).unwrap());
        assert_eq!(back, game);
        assert_eq!(back.move_scores.points(0), Some(0.712));
        assert_eq!(back.move_scores.points(1), None);
        // A record written with times but before scores (no field 12): its scores are unknown.
        let old = StoredGame {
            moves: game.moves.clone(),
            result: "ongoing".into(),
            move_millis: vec![5, 6, 7],
            ..StoredGame::default()
        }
        .encode_to_vec();
        let back = crate::game::Game::from(StoredGame::decode(old.as_slice()).unwrap());
        assert_eq!(back.move_times, game.move_times);
        assert!(!back.move_scores.is_known());
    }
}
