//! Engine matches from a client: on the cluster (queued as game pairs, followed until the
//! match ends) or in process (played here on a rayon pool). Both stop by the same SPRT rule,
//! [`pentago::sprt_stop`]. Stored matches read back as [`MatchRecord`]s, in the client's own
//! types.

use pentago::{
    Accuracy, Adjudication, Color, MatchAccuracy, MatchScore, Move, NamedPlayer, OpeningSource,
    PairResult, Player, Position, SolveMethod, Status, TimeLimit, game_points, opening_seed,
    pair_accuracy, play_pair, random_opening, sprt_stop, suite_openings,
};
use pentagrid_model::limits::{MAX_MATCH_PAIRS, MAX_MATCH_WEIGHT};
use pentagrid_proto::{
    Client, TimeScale, accuracy_of_wire, adjudication_source_of_wire, forfeit_of_wire,
    match_state_of_wire, match_state_to_wire, match_wait_of_wire, pentanomial_counts,
    sprt_decision_of_wire, time_scale_of_wire, v2,
};
use pentagrid_rating::{Sprt, SprtDecision};
use pentagrid_tablebase::Tablebase;

use crate::error::{ClientError, ProgressResult, Result, Stop};
use crate::jobs::poll;
use crate::judge::JudgeError;
use crate::parameter::{Parameter, ParameterError, Problem};
use crate::suites::suite_positions;

pub use pentagrid_model::{
    GameClocks, GameForfeit, LossReason, MatchState, MatchWait, MoveScores, MoveTimes,
};

/// A match to play.
#[derive(Clone, Debug)]
pub struct MatchPlan {
    /// Player A, with the name it is stored and shown under.
    pub a: NamedPlayer,
    /// Player B.
    pub b: NamedPlayer,
    /// Most game pairs.
    pub pairs: u64,
    /// The sequential test that may stop it early.
    pub sprt: Option<Sprt>,
    /// Where openings come from.
    pub openings: OpeningSource,
    /// Seed of the openings (and, in process, of the engines).
    pub seed: u64,
    /// Judge every move from positions with at least this many stones against perfect play
    /// (on the cluster, the workers judge each pair and the match keeps the totals).
    pub accuracy: Option<u32>,
    /// Every game's wall-clock time limit (the workers referee the games); `None`: the
    /// players' own budgets. Required with an external engine (`engine:NAME`).
    pub time: Option<TimeLimit>,
    /// Its share of the cluster's workers among running matches (1 to [`MAX_MATCH_WEIGHT`]):
    /// each running match holds leases in proportion to its weight.
    pub weight: u32,
    /// End each game as soon as its position's exact value is known (on a cluster only).
    pub adjudicate: Option<Adjudication>,
}

impl MatchPlan {
    /// Checks the pair count and weight, and that external engines play under a time limit.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_MATCH_PAIRS).contains(&self.pairs) {
            return Err(ParameterError::range(Parameter::Pairs, 1, MAX_MATCH_PAIRS, None).into());
        }
        if !(1..=MAX_MATCH_WEIGHT).contains(&self.weight) {
            let given: &dyn std::fmt::Display = &self.weight;
            return Err(
                ParameterError::range(Parameter::Weight, 1, MAX_MATCH_WEIGHT, Some(given)).into(),
            );
        }
        if self.time.is_none()
            && let Some(engine) = self.engine()
        {
            return Err(ParameterError::new(
                Parameter::Time,
                Problem::Needed {
                    why: format!("engine:{engine} plays only under a time limit"),
                    forms: vec!["move:SECONDS".into(), "game:BASE+INCREMENT".into()],
                },
            )
            .into());
        }
        Ok(())
    }

    /// The first external engine among the players.
    fn engine(&self) -> Option<&str> {
        [&self.a.player, &self.b.player]
            .into_iter()
            .find_map(Player::engine)
    }
}

/// Why a running match waits, from its status (`None` when it does not, or for a reason this
/// client does not know).
fn report_waiting(report: &v2::MatchStatusResponse) -> Option<MatchWait> {
    match_wait_of_wire(report.waiting.as_ref()?)
}

/// How a match ended.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchOutcome {
    /// A's score.
    pub score: MatchScore,
    /// The SPRT's decision (`Continue` without one or when undecided).
    pub decision: SprtDecision,
    /// Whether the match stopped before all pairs were played without a decision (failed or
    /// cancelled pairs; cluster matches only).
    pub stopped: bool,
    /// A's and B's accuracy against perfect play, when the plan asked for it.
    pub accuracy: Option<MatchAccuracy>,
}

/// A's score in a match status.
fn report_score(report: &v2::MatchStatusResponse) -> MatchScore {
    let counts = pentanomial_counts(report.pentanomial.as_ref());
    MatchScore::from_counts(report.wins, report.draws, report.losses, &counts)
}

/// A's and B's accuracy in a match status, when the match measures it.
fn report_accuracy(report: &v2::MatchStatusResponse) -> Option<MatchAccuracy> {
    report.accuracy.as_ref().map(accuracy_of_wire)
}

/// Where a stored match stands, with all its games if asked (read page by page; the counts
/// are those of the first page's answer).
pub async fn status(client: &Client, match_id: u64, include_games: bool) -> Result<MatchRecord> {
    status_in_pages(client, match_id, include_games, 0).await
}

/// [`status`] with pages of at most `page_pairs` pairs of games (0: the coordinator's
/// default).
pub async fn status_in_pages(
    client: &Client,
    match_id: u64,
    include_games: bool,
    page_pairs: u32,
) -> Result<MatchRecord> {
    status_from_pair(client, match_id, (include_games, page_pairs), 0).await
}

/// Match `match_id` with (if `include_games`) the games of its pairs from `from_pair` on, read
/// in pages of at most `page_pairs` pairs (0: the coordinator's default).
pub(crate) async fn status_from_pair(
    client: &Client,
    match_id: u64,
    (include_games, page_pairs): (bool, u32),
    from_pair: u64,
) -> Result<MatchRecord> {
    let page = |games_from_pair| v2::MatchStatusRequest {
        match_id,
        include_games,
        games_from_pair,
        games_page_pairs: page_pairs,
    };
    let mut report = client
        .clone()
        .match_status(page(from_pair))
        .await?
        .into_inner();
    while report.next_games_from_pair != 0 {
        let next = client
            .clone()
            .match_status(page(report.next_games_from_pair))
            .await?
            .into_inner();
        report.games.extend(next.games);
        report.next_games_from_pair = next.next_games_from_pair;
    }
    match_record(report)
}

/// Every stored match, newest first, without games (read page by page).
pub async fn list(client: &Client) -> Result<Vec<MatchRecord>> {
    list_in(client, &[]).await
}

/// The stored matches in one of `states` (every one when empty), newest first, without games
/// (read page by page).
pub async fn list_in(client: &Client, states: &[MatchState]) -> Result<Vec<MatchRecord>> {
    let mut all = Vec::new();
    let mut before_id = 0;
    let states: Vec<i32> = states
        .iter()
        .map(|s| match_state_to_wire(*s) as i32)
        .collect();
    loop {
        let request = v2::ListMatchesRequest {
            before_id,
            limit: 0,
            states: states.clone(),
        };
        let page = client.clone().list_matches(request).await?.into_inner();
        for report in page.matches {
            all.push(match_record(report)?);
        }
        if page.next_before_id == 0 {
            return Ok(all);
        }
        before_id = page.next_before_id;
    }
}

/// Queues a match on the cluster; returns its id.
/// A `file:` suite is read here first: nothing is sent when it does not read.
pub async fn create(client: &Client, plan: &MatchPlan) -> Result<u64> {
    plan.validate()?;
    let request = create_request(plan, &suite_positions(&plan.openings)?);
    Ok(client
        .clone()
        .create_match(request)
        .await?
        .into_inner()
        .match_id)
}

/// What a stop did: the match as it stands, and how many of its pairs were cancelled.
#[derive(Clone, Debug, PartialEq)]
pub struct Stopped {
    /// The match after the stop (state [`MatchState::Stopped`]).
    pub record: MatchRecord,
    /// Its pairs that were queued or leased, now cancelled.
    pub cancelled_pairs: u64,
}

/// Stops running match `match_id` (admin): its unplayed pairs are cancelled, its played ones
/// kept. Refused (reason `Finished`) when it is not running, `NotFound` when there is none.
pub async fn stop(client: &Client, match_id: u64) -> Result<Stopped> {
    let answer = client
        .clone()
        .stop_match(v2::StopMatchRequest { match_id })
        .await?
        .into_inner();
    let report = answer
        .r#match
        .ok_or_else(|| ClientError::Unreadable("a stop's answer without its match".into()))?;
    Ok(Stopped {
        record: match_record(report)?,
        cancelled_pairs: answer.cancelled_pairs,
    })
}

/// The request that creates `plan`'s match, whose `file:` suite holds `suite` (read by
/// [`suite_positions`]; empty for other sources).
pub(crate) fn create_request(plan: &MatchPlan, suite: &[Position]) -> v2::CreateMatchRequest {
    v2::CreateMatchRequest {
        a: plan.a.to_string(),
        b: plan.b.to_string(),
        pairs: plan.pairs,
        sprt: plan.sprt.map(|s| s.to_string()).unwrap_or_default(),
        openings: plan.openings.to_string(),
        opening_positions: suite.iter().map(ToString::to_string).collect(),
        seed: plan.seed,
        accuracy_stones: plan.accuracy,
        time_limit: plan.time.map(|t| t.to_string()).unwrap_or_default(),
        adjudicate: plan.adjudicate.map(|a| a.to_string()).unwrap_or_default(),
        weight: plan.weight,
        ..v2::CreateMatchRequest::default()
    }
}

/// A progress report that could not be written, as the error that ends the match's following.
fn progress_failed(source: Stop) -> ClientError {
    ClientError::Stopped {
        context: "writing the match's progress".into(),
        source,
    }
}

/// Follows a cluster match until it ends, telling `progress` each time more pairs are stored;
/// a failure of `progress` (the reader of the output went away) stops following at once.
pub async fn follow(
    client: &Client,
    match_id: u64,
    progress: &mut dyn FnMut(&MatchScore) -> ProgressResult,
) -> Result<MatchOutcome> {
    follow_then(client, match_id, progress, async || Ok(())).await
}

/// [`follow`], calling `stored` after each progress report (when more pairs are stored); a
/// failure of `stored` stops following at once.
pub(crate) async fn follow_then(
    client: &Client,
    match_id: u64,
    progress: &mut dyn FnMut(&MatchScore) -> ProgressResult,
    mut stored: impl AsyncFnMut() -> Result<()>,
) -> Result<MatchOutcome> {
    let mut shown = 0;
    let mut told_wait = None;
    let record = poll(async || {
        let record = status(client, match_id, false).await?;
        if record.waiting != told_wait {
            if let Some(wait) = &record.waiting {
                tracing::warn!(match_id, "{wait}");
            }
            told_wait.clone_from(&record.waiting);
        }
        if record.pairs_done != shown {
            shown = record.pairs_done;
            progress(&record.score).map_err(progress_failed)?;
            stored().await?;
        }
        Ok((record.state != MatchState::Running).then_some(record))
    })
    .await?;
    Ok(MatchOutcome {
        score: record.score,
        decision: record.decision,
        stopped: record.state == MatchState::Stopped,
        accuracy: record.accuracy,
    })
}

/// Plays a match here, pair after pair on `pool`, telling `progress` after each pair; stops
/// `--in-process` refused because `other` asks for a cluster.
fn excludes(other: Parameter, why: &str) -> ClientError {
    ParameterError::new(
        Parameter::InProcess,
        Problem::Excludes {
            other,
            why: why.into(),
        },
    )
    .into()
}

/// Playing in process refused (`why`), with what else would do.
fn in_process_refused(why: String, otherwise: Option<String>) -> ClientError {
    ParameterError::new(Parameter::InProcess, Problem::Drop { why, otherwise }).into()
}

/// as soon as the SPRT decides. Only random openings: book openings need a coordinator.
pub fn play_in_process(
    plan: &MatchPlan,
    pool: &rayon::ThreadPool,
    progress: &mut dyn FnMut(&PairResult, &MatchScore) -> ProgressResult,
) -> Result<MatchOutcome> {
    plan.validate()?;
    if let Some(engine) = plan.engine() {
        return Err(in_process_refused(
            format!("engine:{engine} plays only on a cluster, whose workers run it"),
            None,
        ));
    }
    if plan.time.is_some() {
        return Err(excludes(
            Parameter::Time,
            "a time limit is kept by a cluster's referee",
        ));
    }
    if plan.adjudicate.is_some() {
        return Err(excludes(
            Parameter::Adjudicate,
            "adjudication is done by a cluster's workers",
        ));
    }
    let openings: Vec<Position> = match &plan.openings {
        OpeningSource::Random { plies } => (0..plan.pairs)
            .map(|pair| random_opening(opening_seed(plan.seed, pair), *plies))
            .collect(),
        OpeningSource::File { .. } => {
            suite_openings(&suite_positions(&plan.openings)?, plan.seed, plan.pairs)
        }
        OpeningSource::Book { .. } | OpeningSource::Exact { .. } => {
            return Err(in_process_refused(
                "book and exact openings need the coordinator's book or tablebase".into(),
                Some("use random:plies=N or file:PATH".into()),
            ));
        }
    };
    let threads = pool.current_num_threads();
    let mut score = MatchScore::default();
    let mut decision = SprtDecision::Continue;
    let mut accuracy = plan.accuracy.map(|min_stones| MatchAccuracy {
        min_stones,
        sides: [Accuracy::default(); 2],
    });
    // The shipped slices only: the positions judged are the same everywhere (see
    // `pentago::TABLE_STONES`), whatever folder of slices this machine has.
    let table = match accuracy {
        Some(_) => Some(
            Tablebase::shipped().map_err(|e| ClientError::Judge(JudgeError::Exact(Box::new(e))))?,
        ),
        None => None,
    };
    for (pair, opening) in (0..plan.pairs).zip(openings) {
        let seed = opening_seed(plan.seed, pair);
        let (a, b) = (&plan.a.player, &plan.b.player);
        let result = pool.install(|| play_pair(&opening, a, b, seed, threads));
        score.record(&result);
        if let (Some(total), Some(table)) = (accuracy.as_mut(), table.as_ref()) {
            let sides = pool
                .install(|| pair_accuracy(&result, total.min_stones, table))
                .map_err(|e| ClientError::Judge(JudgeError::Exact(Box::new(e))))?;
            total.sides[0] += sides[0];
            total.sides[1] += sides[1];
        }
        decision = sprt_stop(&score, plan.sprt.as_ref());
        progress(&result, &score).map_err(progress_failed)?;
        if decision != SprtDecision::Continue {
            break;
        }
    }
    Ok(MatchOutcome {
        score,
        decision,
        stopped: false,
        accuracy,
    })
}

/// A match state from its wire number, unreadable when this version does not know it.
fn state_of_wire(number: i32) -> Result<MatchState> {
    match_state_of_wire(number)
        .ok_or_else(|| unreadable("match state", &number.to_string(), "unknown"))
}

/// One stored game of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchGame {
    /// The pair it belongs to.
    pub pair: u64,
    /// The opening it was played from.
    pub opening: Position,
    /// Black's player (text form).
    pub black: String,
    /// White's player.
    pub white: String,
    /// The moves from the opening, in order.
    pub moves: Vec<Move>,
    /// How it ended.
    pub result: Status,
    /// Set when it ended by an external engine's forfeit (its moves stop there).
    pub forfeit: Option<GameForfeit>,
    /// Set when it was adjudicated: where the exact value of its last position came from
    /// (the result is that value's).
    pub adjudicated: Option<SolveMethod>,
    /// The end of black's engine's standard error in this game (empty: none).
    pub stderr_black: String,
    /// The same for white's engine.
    pub stderr_white: String,
    /// The factor the worker multiplied the match's time limit by (its coordinator's
    /// reference speed over its own; 1: none).
    pub time_scale: TimeScale,
    /// The time each move took on its worker's wall clock (unknown for games stored before
    /// times were kept).
    pub move_times: MoveTimes,
    /// The mover's score of each move, as its player saw it (unknown for moves of players that
    /// keep none, and for games stored before scores were kept).
    pub move_scores: MoveScores,
}

impl MatchGame {
    /// Both clocks through the game under `time_limit` (the match's, in its stored text form)
    /// and the game's time scale: `None` unless it is a whole-game control (`game:BASE+INC`)
    /// and the move times are known.
    #[must_use]
    pub fn clocks(&self, time_limit: &str) -> Option<GameClocks> {
        let limit: TimeLimit = time_limit.parse().ok()?;
        let first = self.opening.side_to_move();
        self.move_times.clocks(limit, self.time_scale, first)
    }

    /// Seconds each side (black, white) spent on its moves, when the times are known.
    #[must_use]
    pub fn side_seconds(&self) -> Option<[f64; 2]> {
        let first = self.opening.side_to_move();
        self.move_times
            .is_known()
            .then(|| self.move_times.totals(first))
    }

    fn of_wire(game: &v2::MatchGame) -> Result<MatchGame> {
        let times = game.move_millis.len();
        if times != 0 && times != game.moves.len() {
            return Err(ClientError::Unreadable(format!(
                "move_millis: {times} times for the {} moves of pair {}",
                game.moves.len(),
                game.pair
            )));
        }
        let scores = &game.move_score_milli;
        if !scores.is_empty() && scores.len() != game.moves.len()
            || !scores.iter().all(|&m| MoveScores::valid(m))
        {
            return Err(ClientError::Unreadable(format!(
                "move_score_milli: {} scores, not one per move from 0 to 1000 or unknown, for the \
                 {} moves of pair {}",
                scores.len(),
                game.moves.len(),
                game.pair
            )));
        }
        Ok(MatchGame {
            pair: game.pair,
            opening: game
                .opening
                .parse()
                .map_err(|e| unreadable("opening", &game.opening, e))?,
            black: game.black.clone(),
            white: game.white.clone(),
            moves: game
                .moves
                .iter()
                .map(|text| text.parse().map_err(|e| unreadable("move", text, e)))
                .collect::<Result<_>>()?,
            result: game
                .result
                .parse()
                .map_err(|e| unreadable("result", &game.result, e))?,
            forfeit: game
                .forfeit
                .as_ref()
                .map(|f| forfeit_of_wire(f).map_err(|e| unreadable("forfeit", &f.detail, e)))
                .transpose()?,
            adjudicated: adjudication_source_of_wire(&game.adjudicated)
                .map_err(|e| unreadable("adjudication", &game.adjudicated, e))?,
            stderr_black: game.stderr_black.clone(),
            stderr_white: game.stderr_white.clone(),
            time_scale: time_scale_of_wire(game.time_scale)
                .map_err(|e| unreadable("time scale", &game.time_scale.to_string(), e))?,
            move_times: MoveTimes::from_millis(game.move_millis.clone()),
            move_scores: MoveScores::from_milli(scores.clone()),
        })
    }
}

/// A match with its counts and, per stored pair in pair order, A's points in its two games.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The match id.
    pub id: u64,
    /// Player A (text form).
    pub a: String,
    /// Player B.
    pub b: String,
    /// Pairs asked for.
    pub pairs: u64,
    /// The sequential test, if any.
    pub sprt: Option<Sprt>,
    /// Where the openings come from.
    pub openings: String,
    /// The seed of the openings.
    pub seed: u64,
    /// Pairs stored so far.
    pub pairs_done: u64,
    /// Where it stands.
    pub state: MatchState,
    /// The SPRT's decision (`Continue` without one or while undecided).
    pub decision: SprtDecision,
    /// Pairs stored when the SPRT decided (0 while undecided).
    pub decided_after: u64,
    /// A's results.
    pub score: MatchScore,
    /// A's points in each game of each stored pair (A black first), by pair index (empty in
    /// a listing).
    pub pair_points: Vec<(u64, [f64; 2])>,
    /// A's and B's accuracy against perfect play, when the match measures it.
    pub accuracy: Option<MatchAccuracy>,
    /// The tournament the match belongs to (0: none; see [`crate::tournaments`]).
    pub tournament_id: u64,
    /// The tournament's kind (empty: none).
    pub tournament_kind: String,
    /// Every game's wall-clock time limit (text form; empty: the players' own budgets).
    pub time_limit: String,
    /// The adjudication of its games (text form; empty: none).
    pub adjudicate: String,
    /// With a `file:` opening source, how many positions its suite holds (0 otherwise).
    pub suite_openings: u32,
    /// Why it waits, while it is running but cannot go on.
    pub waiting: Option<MatchWait>,
    /// Its share of the workers among running matches (1 for matches created before weights).
    pub weight: u32,
    /// The user whose token created it (empty: none; see the README's "Users").
    pub owner: String,
    /// Its pairs leased to workers now.
    pub pairs_leased: u64,
    /// Games that ended by an external engine's forfeit: pair, game (1 or 2) and forfeit.
    pub forfeits: Vec<(u64, usize, GameForfeit)>,
    /// Every stored game, two per pair in pair order (empty unless asked for).
    pub games: Vec<MatchGame>,
}

/// Match `id` with its games and per-pair points.
pub async fn record(client: &Client, id: u64) -> Result<MatchRecord> {
    status(client, id, true).await
}

/// Every match, newest first, without games (the same as [`list`]).
pub async fn records(client: &Client) -> Result<Vec<MatchRecord>> {
    list(client).await
}

fn unreadable(what: &str, text: &str, error: impl std::fmt::Display) -> ClientError {
    ClientError::Unreadable(format!("{what} {text:?}: {error}"))
}

pub(crate) fn match_record(report: v2::MatchStatusResponse) -> Result<MatchRecord> {
    let sprt = match report.sprt.as_str() {
        "" => None,
        text => Some(text.parse().map_err(|e| unreadable("SPRT", text, e))?),
    };
    let games = report
        .games
        .iter()
        .map(MatchGame::of_wire)
        .collect::<Result<Vec<_>>>()?;
    let forfeits = games
        .iter()
        .enumerate()
        .filter_map(|(index, game)| Some((game.pair, index % 2 + 1, game.forfeit.clone()?)))
        .collect();
    Ok(MatchRecord {
        id: report.match_id,
        waiting: report_waiting(&report),
        // A coordinator older than weights sends none: every match weighs 1 there.
        weight: report.weight.max(1),
        pairs_leased: report.pairs_leased,
        forfeits,
        pair_points: pair_points(&report.games)?,
        score: report_score(&report),
        accuracy: report_accuracy(&report),
        state: state_of_wire(report.state)?,
        decision: sprt_decision_of_wire(report.decision()),
        seed: report.seed,
        pairs_done: report.pairs_done,
        games,
        a: report.a,
        b: report.b,
        pairs: report.pairs,
        sprt,
        openings: report.openings,
        decided_after: report.decided_after,
        tournament_id: report.tournament_id,
        tournament_kind: report.tournament_kind,
        time_limit: report.time_limit,
        adjudicate: report.adjudicate,
        suite_openings: report.suite_openings,
        owner: report.owner,
    })
}

/// A's points per stored pair: each pair's first game has A black, its second B black.
fn pair_points(games: &[v2::MatchGame]) -> Result<Vec<(u64, [f64; 2])>> {
    let mut pairs: Vec<(u64, [f64; 2])> = Vec::with_capacity(games.len() / 2);
    for pair in games.chunks(2) {
        let [first, second] = pair else {
            return Err(ClientError::Unreadable("a pair with one game".into()));
        };
        if first.pair != second.pair {
            return Err(ClientError::Unreadable(format!(
                "pair {} and pair {} mixed",
                first.pair, second.pair
            )));
        }
        let status = |game: &v2::MatchGame| {
            game.result
                .parse()
                .map_err(|e| unreadable("result", &game.result, e))
        };
        pairs.push((
            first.pair,
            [
                game_points(status(first)?, Color::Black),
                game_points(status(second)?, Color::White),
            ],
        ));
    }
    pairs.sort_by_key(|(pair, _)| *pair);
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(pair: u64, result: &str) -> v2::MatchGame {
        v2::MatchGame {
            pair,
            result: result.into(),
            ..v2::MatchGame::default()
        }
    }

    #[test]
    fn pair_points_score_a_as_black_then_white() {
        let games = [
            game(1, "white"),
            game(1, "white"),
            game(0, "black"),
            game(0, "draw"),
        ];
        assert_eq!(
            pair_points(&games).unwrap(),
            vec![(0, [1.0, 0.5]), (1, [0.0, 1.0])]
        );
    }

    #[test]
    fn broken_pairs_are_unreadable_not_panics() {
        for games in [
            vec![game(0, "black")],
            vec![game(0, "black"), game(1, "white")],
            vec![game(0, "black"), game(0, "nobody")],
        ] {
            assert!(matches!(
                pair_points(&games),
                Err(ClientError::Unreadable(_))
            ));
        }
    }

    #[test]
    fn states_read_back_and_unknown_ones_are_unreadable() {
        let cases = [
            (v2::MatchState::Running, MatchState::Running),
            (v2::MatchState::AcceptedH0, MatchState::AcceptedH0),
            (v2::MatchState::AcceptedH1, MatchState::AcceptedH1),
            (v2::MatchState::Complete, MatchState::Complete),
            (v2::MatchState::Stopped, MatchState::Stopped),
        ];
        for (wire, state) in cases {
            assert_eq!(state_of_wire(wire as i32).unwrap(), state);
        }
        for number in [v2::MatchState::Unspecified as i32, 99, -1] {
            assert!(matches!(
                state_of_wire(number),
                Err(ClientError::Unreadable(_))
            ));
        }
    }
}
