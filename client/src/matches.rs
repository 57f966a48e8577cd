//! Engine matches from a client: on the cluster (queued as game pairs, followed until the
//! match ends) or in process (played here on a rayon pool). Both stop by the same SPRT rule,
//! [`pentago::sprt_stop`].

use pentago::{
    Accuracy, MatchAccuracy, MatchScore, OpeningSource, PairResult, Player, Sprt, SprtDecision,
    opening_seed, pair_accuracy, play_pair, random_opening, sprt_stop,
};
use pentagrid_proto::limits::MAX_MATCH_PAIRS;
use pentagrid_proto::{Client, accuracy_of_wire, pentanomial_counts, sprt_decision_of_wire, v2};

use crate::error::{ClientError, Result};
use crate::jobs::poll;

pub use crate::match_record::{MatchRecord, MatchState, record, records};

/// A match to play.
#[derive(Clone, Debug)]
pub struct MatchPlan {
    /// Player A.
    pub a: Player,
    /// Player B.
    pub b: Player,
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
}

impl MatchPlan {
    /// Checks the pair count.
    pub fn validate(&self) -> Result<()> {
        if (1..=MAX_MATCH_PAIRS).contains(&self.pairs) {
            Ok(())
        } else {
            Err(ClientError::Invalid(format!(
                "--pairs must be from 1 to {MAX_MATCH_PAIRS}"
            )))
        }
    }
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
#[must_use]
pub fn report_score(report: &v2::MatchStatusResponse) -> MatchScore {
    let counts = pentanomial_counts(report.pentanomial.as_ref());
    MatchScore::from_counts(report.wins, report.draws, report.losses, &counts)
}

/// A's and B's accuracy in a match status, when the match measures it.
#[must_use]
pub fn report_accuracy(report: &v2::MatchStatusResponse) -> Option<MatchAccuracy> {
    report.accuracy.as_ref().map(accuracy_of_wire)
}

/// Where a stored match stands, with all its games if asked (read page by page; the counts
/// are those of the first page's answer).
pub async fn status(
    client: &Client,
    match_id: u64,
    include_games: bool,
) -> Result<v2::MatchStatusResponse> {
    status_in_pages(client, match_id, include_games, 0).await
}

/// [`status`] with pages of at most `page_pairs` pairs of games (0: the coordinator's
/// default).
pub async fn status_in_pages(
    client: &Client,
    match_id: u64,
    include_games: bool,
    page_pairs: u32,
) -> Result<v2::MatchStatusResponse> {
    let page = |games_from_pair| v2::MatchStatusRequest {
        match_id,
        include_games,
        games_from_pair,
        games_page_pairs: page_pairs,
    };
    let mut report = client.clone().match_status(page(0)).await?.into_inner();
    while report.next_games_from_pair != 0 {
        let next = client
            .clone()
            .match_status(page(report.next_games_from_pair))
            .await?
            .into_inner();
        report.games.extend(next.games);
        report.next_games_from_pair = next.next_games_from_pair;
    }
    Ok(report)
}

/// Every stored match, newest first, without games (read page by page).
pub async fn list(client: &Client) -> Result<Vec<v2::MatchStatusResponse>> {
    let mut all = Vec::new();
    let mut before_id = 0;
    loop {
        let request = v2::ListMatchesRequest {
            before_id,
            limit: 0,
        };
        let page = client.clone().list_matches(request).await?.into_inner();
        all.extend(page.matches);
        if page.next_before_id == 0 {
            return Ok(all);
        }
        before_id = page.next_before_id;
    }
}

/// Queues a match on the cluster; returns its id.
pub async fn create(client: &Client, plan: &MatchPlan) -> Result<u64> {
    plan.validate()?;
    let request = v2::CreateMatchRequest {
        a: plan.a.to_string(),
        b: plan.b.to_string(),
        pairs: plan.pairs,
        sprt: plan.sprt.map(|s| s.to_string()).unwrap_or_default(),
        openings: plan.openings.to_string(),
        seed: plan.seed,
        accuracy_stones: plan.accuracy.unwrap_or(0),
        ..v2::CreateMatchRequest::default()
    };
    Ok(client
        .clone()
        .create_match(request)
        .await?
        .into_inner()
        .match_id)
}

/// A progress report that could not be written, as the error that ends the match's following.
fn progress_failed(source: std::io::Error) -> ClientError {
    ClientError::Io {
        context: "writing the match's progress".into(),
        source,
    }
}

/// Follows a cluster match until it ends, telling `progress` each time more pairs are stored;
/// a failure of `progress` (the reader of the output went away) stops following at once.
pub async fn follow(
    client: &Client,
    match_id: u64,
    progress: &mut dyn FnMut(&MatchScore) -> std::io::Result<()>,
) -> Result<MatchOutcome> {
    let mut shown = 0;
    let report = poll(async || {
        let report = status(client, match_id, false).await?;
        if report.pairs_done != shown {
            shown = report.pairs_done;
            progress(&report_score(&report)).map_err(progress_failed)?;
        }
        Ok((report.state() != v2::MatchState::Running).then_some(report))
    })
    .await?;
    Ok(MatchOutcome {
        score: report_score(&report),
        decision: sprt_decision_of_wire(report.decision()),
        stopped: report.state() == v2::MatchState::Stopped,
        accuracy: report_accuracy(&report),
    })
}

/// Plays a match here, pair after pair on `pool`, telling `progress` after each pair; stops
/// as soon as the SPRT decides. Only random openings: book openings need a coordinator.
pub fn play_in_process(
    plan: &MatchPlan,
    pool: &rayon::ThreadPool,
    progress: &mut dyn FnMut(&PairResult, &MatchScore) -> std::io::Result<()>,
) -> Result<MatchOutcome> {
    plan.validate()?;
    let OpeningSource::Random { plies } = plan.openings else {
        return Err(ClientError::Invalid(
            "book openings need the coordinator's book: drop --in-process or use random:plies=N"
                .into(),
        ));
    };
    let threads = pool.current_num_threads();
    let mut score = MatchScore::default();
    let mut decision = SprtDecision::Continue;
    let mut accuracy = plan.accuracy.map(|min_stones| MatchAccuracy {
        min_stones,
        sides: [Accuracy::default(); 2],
    });
    for pair in 0..plan.pairs {
        let seed = opening_seed(plan.seed, pair);
        let opening = random_opening(seed, plies);
        let result = pool.install(|| play_pair(&opening, &plan.a, &plan.b, seed, threads));
        score.record(&result);
        if let Some(total) = accuracy.as_mut() {
            let sides = pool.install(|| pair_accuracy(&result, total.min_stones));
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
