//! A rating list over many players from their head-to-head results, as Ordo or BayesElo give:
//! maximum-likelihood Elo with 95% intervals, one player anchored, games and score per player,
//! and the pairwise table.
//!
//! The model (see `bradley_terry`) is Bradley–Terry on the Elo scale, `score_of_elo(rᵢ − rⱼ)`
//! expected of `i` against `j`, with a draw counted as half a win and half a loss, as Ordo does.
//! Counting draws that way gives each game the variance of a win-or-loss game, which a draw has
//! less of, so with many draws the intervals are a little wide rather than too narrow.
//!
//! A prior of virtual draws (default one per pair of players that met, as BayesElo's prior
//! does) keeps every rating finite: without it a player who won every game would be infinitely
//! strong. It pulls ratings toward each other by about as much as one more drawn game would;
//! after dozens of games it is negligible.
//!
//! Players who are not linked by a chain of games cannot be compared. Each such group is a
//! component: the anchor's is component 0, and the ratings in any other are relative to its
//! first player (in input order), set at the anchor's rating, with intervals relative to that
//! player. The list says which component each player is in and which player anchors each, and
//! ranks each component on its own.
//!
//! Intervals come from the observed information matrix (the negated Hessian of the
//! log-likelihood at its maximum, prior included) with the anchor fixed: a player's interval is
//! the uncertainty of its difference from the anchor, so the anchor's has zero width.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::bradley_terry::{FitError, Pairing, fit};
use super::elo::{EloEstimate, Trinomial};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_964;
/// Elo points per natural (logistic) unit: `400 / ln 10`.
const ELO_PER_UNIT: f64 = 400.0 / std::f64::consts::LN_10;
/// Most virtual draws per pair.
pub const MAX_PRIOR_DRAWS: f64 = 1000.0;

/// Results of `a` against `b`: `a`'s wins, draws and losses. Players are named by any text
/// (a player description, an engine name); the same name is the same player. Results of a
/// player against itself (a sanity match) say nothing about ratings: the player is listed, its
/// games against itself are not counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encounter {
    /// One player.
    pub a: String,
    /// The other.
    pub b: String,
    /// `a`'s results against `b`.
    pub score: Trinomial,
}

impl Encounter {
    /// `a`'s results `score` against `b`.
    #[must_use]
    pub fn new(a: &str, b: &str, score: Trinomial) -> Encounter {
        Encounter {
            a: a.to_owned(),
            b: b.to_owned(),
            score,
        }
    }
}

/// How to fit and present a rating list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingOptions {
    /// The player whose rating is fixed; `None` for the first player named in the results.
    pub anchor: Option<String>,
    /// The anchor's rating.
    pub anchor_rating: f64,
    /// Virtual draws added between every two players who met (positive; see the module notes).
    pub prior_draws: f64,
}

impl RatingOptions {
    /// The default options with `name`'s rating fixed.
    #[must_use]
    pub fn anchored(name: &str) -> RatingOptions {
        RatingOptions {
            anchor: Some(name.to_owned()),
            ..RatingOptions::default()
        }
    }
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions {
            anchor: None,
            anchor_rating: 0.0,
            prior_draws: 1.0,
        }
    }
}

/// Why no rating list could be made.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RatingError {
    /// There were no results at all.
    #[error("no players: a rating list needs at least one result between two players")]
    NoPlayers,
    /// The chosen anchor played no games in these results.
    #[error("the anchor {0:?} is not among the players")]
    UnknownAnchor(String),
    /// The prior is not a positive number of draws.
    #[error("the prior must be a number of virtual draws above 0 and at most 1000, not {0}")]
    BadPrior(f64),
    /// The anchor's rating is not finite.
    #[error("the anchor's rating must be a finite number, not {0}")]
    BadAnchorRating(f64),
    /// More games than a counter holds.
    #[error("too many games between {a:?} and {b:?} to count")]
    Overflow {
        /// One player.
        a: String,
        /// The other.
        b: String,
    },
    /// The fit failed numerically (not expected with a positive prior).
    #[error("the rating fit did not converge")]
    NotConverged,
}

/// One player's line in the list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedPlayer {
    /// Place in its component's list, from 1: players never linked by games are ranked
    /// apart, each component from 1.
    pub rank: usize,
    /// The player.
    pub name: String,
    /// Rating with its 95% interval (relative to the component's anchor).
    pub rating: EloEstimate,
    /// Games played.
    pub games: u64,
    /// Points scored (a draw is half a point).
    pub points: f64,
    /// The player's component (0: the anchor's).
    pub component: usize,
}

impl RatedPlayer {
    /// Points per game (0 to 1); `None` without games.
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        (self.games > 0).then(|| self.points / self.games as f64)
    }
}

/// Two players' results against each other, with their fitted rating difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    /// The player higher in the list.
    pub a: String,
    /// The other.
    pub b: String,
    /// `a`'s results against `b`.
    pub score: Trinomial,
    /// `a`'s rating minus `b`'s, with its 95% interval from the whole fit.
    pub difference: EloEstimate,
}

/// A fitted rating list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingList {
    /// The anchored player.
    pub anchor: String,
    /// Its rating.
    pub anchor_rating: f64,
    /// Virtual draws per pair of players that met.
    pub prior_draws: f64,
    /// Players by component, then by rating, strongest first.
    pub players: Vec<RatedPlayer>,
    /// Every pair of players that met, in list order.
    pub pairs: Vec<HeadToHead>,
    /// Components' players in list order; more than one means some ratings cannot be compared.
    pub components: Vec<Vec<String>>,
    /// Each component's fixed player, by component: `anchor` first, then each other
    /// component's first player in input order.
    #[serde(default)]
    pub component_anchors: Vec<String>,
    /// Newton steps the fit took.
    pub iterations: u32,
}

impl RatingList {
    /// A player's line.
    #[must_use]
    pub fn player(&self, name: &str) -> Option<&RatedPlayer> {
        self.players.iter().find(|p| p.name == name)
    }
}

/// The players (in order of first appearance) and each pair's results, from the lower index's
/// side.
struct Table {
    names: Vec<String>,
    pairs: BTreeMap<(usize, usize), Trinomial>,
}

fn tabulate(encounters: &[Encounter]) -> Result<Table, RatingError> {
    let mut names = Vec::new();
    let mut index = HashMap::new();
    let mut pairs: BTreeMap<(usize, usize), Trinomial> = BTreeMap::new();
    let mut id = |name: &str, names: &mut Vec<String>| {
        *index.entry(name.to_owned()).or_insert_with(|| {
            names.push(name.to_owned());
            names.len() - 1
        })
    };
    for e in encounters {
        let (a, b) = (id(&e.a, &mut names), id(&e.b, &mut names));
        if a == b {
            continue;
        }
        let (key, score) = if a < b {
            ((a, b), e.score)
        } else {
            ((b, a), e.score.flipped())
        };
        let entry = pairs.entry(key).or_default();
        let overflow = || RatingError::Overflow {
            a: e.a.clone(),
            b: e.b.clone(),
        };
        let sum = |x: u64, y: u64| x.checked_add(y).ok_or_else(overflow);
        *entry = Trinomial {
            wins: sum(entry.wins, score.wins)?,
            draws: sum(entry.draws, score.draws)?,
            losses: sum(entry.losses, score.losses)?,
        };
        entry
            .wins
            .checked_add(entry.draws)
            .and_then(|n| n.checked_add(entry.losses))
            .ok_or_else(overflow)?;
    }
    Ok(Table { names, pairs })
}

/// Component of each player over the pairs that played at least one game, numbered from the
/// anchor's (0), then in order of each component's first player.
fn components(table: &Table, anchor: usize) -> Vec<usize> {
    let n = table.names.len();
    let mut neighbours = vec![Vec::new(); n];
    for (&(a, b), score) in &table.pairs {
        if score.games() > 0 {
            neighbours[a].push(b);
            neighbours[b].push(a);
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut next = 0;
    for start in std::iter::once(anchor).chain(0..n) {
        if component[start] != usize::MAX {
            continue;
        }
        let mut stack = vec![start];
        component[start] = next;
        while let Some(p) = stack.pop() {
            for &q in &neighbours[p] {
                if component[q] == usize::MAX {
                    component[q] = next;
                    stack.push(q);
                }
            }
        }
        next += 1;
    }
    component
}

fn check_options(options: &RatingOptions) -> Result<(), RatingError> {
    let prior = options.prior_draws;
    if !prior.is_finite() || prior <= 0.0 || prior > MAX_PRIOR_DRAWS {
        return Err(RatingError::BadPrior(prior));
    }
    if !options.anchor_rating.is_finite() {
        return Err(RatingError::BadAnchorRating(options.anchor_rating));
    }
    Ok(())
}

/// Fits the rating list of the players in `encounters` (results of the same two players in
/// several encounters add up, in either order).
///
/// # Errors
///
/// No results, an anchor that is not a player, a prior or anchor rating out of range, or
/// counts that overflow.
pub fn rating_list(
    encounters: &[Encounter],
    options: &RatingOptions,
) -> Result<RatingList, RatingError> {
    check_options(options)?;
    let table = tabulate(encounters)?;
    let n = table.names.len();
    if n == 0 {
        return Err(RatingError::NoPlayers);
    }
    let anchor = match &options.anchor {
        None => 0,
        Some(name) => table
            .names
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| RatingError::UnknownAnchor(name.clone()))?,
    };
    let component = components(&table, anchor);
    // The first player met of each component is held fixed: the anchor for component 0.
    let mut fixed = vec![false; n];
    let mut seen = vec![false; n];
    for p in std::iter::once(anchor).chain(0..n) {
        if !seen[component[p]] {
            seen[component[p]] = true;
            fixed[p] = true;
        }
    }
    let prior = options.prior_draws;
    let pairings: Vec<Pairing> = table
        .pairs
        .iter()
        .filter(|(_, s)| s.games() > 0)
        .map(|(&(i, j), s)| Pairing {
            i,
            j,
            games: s.games() as f64 + prior,
            points_i: s.points() + prior / 2.0,
        })
        .collect();
    let fit = fit(n, &pairings, &fixed).map_err(|e| match e {
        FitError::Singular | FitError::NotConverged => RatingError::NotConverged,
    })?;
    Ok(assemble(
        &table,
        options,
        (anchor, &fixed),
        &component,
        &fit,
    ))
}

fn assemble(
    table: &Table,
    options: &RatingOptions,
    (anchor, fixed): (usize, &[bool]),
    component: &[usize],
    fit: &super::bradley_terry::Fit,
) -> RatingList {
    let n = table.names.len();
    let covariance = |i: usize, j: usize| fit.covariance[i * n + j];
    let estimate = |value: f64, variance: f64| {
        let half = Z95 * variance.max(0.0).sqrt() * ELO_PER_UNIT;
        EloEstimate::new(value, value - half, value + half)
    };
    let rating = |i: usize| options.anchor_rating + fit.strengths[i] * ELO_PER_UNIT;
    let mut games = vec![0u64; n];
    let mut points = vec![0.0; n];
    for (&(a, b), s) in &table.pairs {
        // Each pair's total fitted in u64 when tabulated; a player's total is at most the sum
        // over its pairs, so saturating only matters beyond any real count.
        games[a] = games[a].saturating_add(s.games());
        games[b] = games[b].saturating_add(s.games());
        points[a] += s.points();
        points[b] += s.games() as f64 - s.points();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&p, &q| {
        component[p]
            .cmp(&component[q])
            .then(rating(q).total_cmp(&rating(p)))
            .then(p.cmp(&q))
    });
    let mut place = vec![0; n];
    for (rank, &p) in order.iter().enumerate() {
        place[p] = rank;
    }
    // `order` is by component first; each component is ranked from 1.
    let mut rank = vec![0; n];
    for (index, &p) in order.iter().enumerate() {
        let first = index == 0 || component[order[index - 1]] != component[p];
        rank[p] = if first { 1 } else { rank[order[index - 1]] + 1 };
    }
    let players = order
        .iter()
        .map(|&p| RatedPlayer {
            rank: rank[p],
            name: table.names[p].clone(),
            rating: estimate(rating(p), covariance(p, p)),
            games: games[p],
            points: points[p],
            component: component[p],
        })
        .collect();
    let mut pairs: Vec<(usize, usize, Trinomial)> = table
        .pairs
        .iter()
        .filter(|(_, s)| s.games() > 0)
        .map(|(&(i, j), &s)| {
            if place[i] < place[j] {
                (i, j, s)
            } else {
                (j, i, s.flipped())
            }
        })
        .collect();
    pairs.sort_by_key(|&(a, b, _)| (place[a], place[b]));
    let pairs = pairs
        .into_iter()
        .map(|(a, b, score)| HeadToHead {
            a: table.names[a].clone(),
            b: table.names[b].clone(),
            score,
            difference: estimate(
                rating(a) - rating(b),
                covariance(a, a) + covariance(b, b) - 2.0 * covariance(a, b),
            ),
        })
        .collect();
    let count = component.iter().max().map_or(0, |c| c + 1);
    let mut components = vec![Vec::new(); count];
    for &p in &order {
        components[component[p]].push(table.names[p].clone());
    }
    let mut component_anchors = vec![String::new(); count];
    for p in (0..n).filter(|&p| fixed[p]) {
        component_anchors[component[p]].clone_from(&table.names[p]);
    }
    RatingList {
        anchor: table.names[anchor].clone(),
        anchor_rating: options.anchor_rating,
        prior_draws: options.prior_draws,
        players,
        pairs,
        components,
        component_anchors,
        iterations: fit.iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elo(list: &RatingList, name: &str) -> f64 {
        list.player(name).unwrap().rating.elo
    }

    #[test]
    fn two_players_worked_example() {
        // 25 wins, 10 draws, 5 losses and one virtual draw: 30.5 points of 41, so the rating
        // is 400·log10(30.5 / 10.5) = 185.244 above the anchor; the variance in natural units is
        // 1 / (41·p·(1 − p)), p = 30.5 / 41.
        let list = rating_list(
            &[Encounter::new("a", "b", Trinomial::new(25, 10, 5))],
            &RatingOptions::anchored("b"),
        )
        .unwrap();
        let p: f64 = 30.5 / 41.0;
        let half = Z95 * ELO_PER_UNIT / (41.0 * p * (1.0 - p)).sqrt();
        let a = list.player("a").unwrap();
        assert!((a.rating.elo - 185.244).abs() < 0.001, "{list:?}");
        assert!(
            (a.rating.high - a.rating.elo - half).abs() < 1e-6,
            "{list:?}"
        );
        assert_eq!(
            (a.rank, a.games, a.points, a.score()),
            (1, 40, 30.0, Some(0.75))
        );
        let b = list.player("b").unwrap();
        assert_eq!(
            b.rating,
            EloEstimate {
                elo: 0.0,
                low: 0.0,
                high: 0.0
            }
        );
        assert_eq!((b.rank, b.points), (2, 10.0));
        assert_eq!(list.pairs.len(), 1);
        let pair = &list.pairs[0];
        assert_eq!(
            (pair.a.as_str(), pair.b.as_str(), pair.score),
            ("a", "b", Trinomial::new(25, 10, 5))
        );
        assert_eq!(pair.difference, a.rating);
        assert_eq!(list.components, vec![vec!["a".to_owned(), "b".to_owned()]]);
    }

    #[test]
    fn games_against_oneself_are_left_out() {
        let encounters = [
            Encounter::new("a", "a", Trinomial::new(5, 0, 0)),
            Encounter::new("a", "b", Trinomial::new(1, 0, 1)),
        ];
        let list = rating_list(&encounters, &RatingOptions::default()).unwrap();
        let a = list.player("a").unwrap();
        assert_eq!((a.games, a.points, a.rating.elo), (2, 1.0, 0.0));
        assert_eq!(list.pairs.len(), 1);
        let alone = rating_list(
            &[Encounter::new("x", "x", Trinomial::new(3, 0, 0))],
            &RatingOptions::default(),
        );
        let alone = alone.unwrap();
        assert_eq!(alone.players.len(), 1);
        assert_eq!((alone.players[0].games, alone.pairs.len()), (0, 0));
    }

    #[test]
    fn perfect_scores_stay_finite_and_ordered() {
        let encounters = [
            Encounter::new("a", "b", Trinomial::new(10, 0, 0)),
            Encounter::new("b", "c", Trinomial::new(10, 0, 0)),
        ];
        let list = rating_list(&encounters, &RatingOptions::anchored("b")).unwrap();
        let names: Vec<&str> = list.players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let (a, c) = (elo(&list, "a"), elo(&list, "c"));
        // 10.5 points of 11 games: 400·log10(21) = 528.9 each way.
        assert!(
            (a - 528.9).abs() < 0.1 && (c + 528.9).abs() < 0.1,
            "{list:?}"
        );
        assert!(
            list.players
                .iter()
                .all(|p| p.rating.low.is_finite() && p.rating.high.is_finite())
        );
    }

    #[test]
    fn separate_groups_are_separate_components() {
        let encounters = [
            Encounter::new("a", "b", Trinomial::new(6, 0, 4)),
            Encounter::new("c", "d", Trinomial::new(2, 0, 8)),
            Encounter::new("e", "a", Trinomial::new(0, 0, 0)),
        ];
        let options = RatingOptions {
            anchor: Some("b".to_owned()),
            anchor_rating: 100.0,
            ..RatingOptions::default()
        };
        let list = rating_list(&encounters, &options).unwrap();
        assert_eq!(list.components, [vec!["a", "b"], vec!["d", "c"], vec!["e"]]);
        assert_eq!(list.component_anchors, ["b", "c", "e"]);
        // The second group is anchored at its first player, c, at the anchor's rating.
        assert_eq!(list.player("c").unwrap().rating.elo, 100.0);
        assert!(elo(&list, "d") > 100.0);
        let e = list.player("e").unwrap();
        assert_eq!(
            (e.component, e.games, e.score(), e.rating.elo),
            (2, 0, None, 100.0)
        );
        assert_eq!(list.pairs.len(), 2);
        // Each group is ranked on its own.
        let ranks: Vec<usize> = list.players.iter().map(|p| p.rank).collect();
        assert_eq!(ranks, [1, 2, 1, 2, 1]);
    }

    #[test]
    fn bad_input_is_refused() {
        let one = [Encounter::new("a", "b", Trinomial::new(1, 0, 0))];
        let default = RatingOptions::default();
        assert_eq!(rating_list(&[], &default), Err(RatingError::NoPlayers));
        assert_eq!(
            rating_list(&one, &RatingOptions::anchored("z")),
            Err(RatingError::UnknownAnchor("z".to_owned()))
        );
        for prior in [0.0, -1.0, f64::NAN, f64::INFINITY, 1000.5] {
            let options = RatingOptions {
                prior_draws: prior,
                ..RatingOptions::default()
            };
            assert!(matches!(
                rating_list(&one, &options),
                Err(RatingError::BadPrior(_))
            ));
        }
        let options = RatingOptions {
            anchor_rating: f64::NAN,
            ..RatingOptions::default()
        };
        assert!(matches!(
            rating_list(&one, &options),
            Err(RatingError::BadAnchorRating(_))
        ));
        let huge = [
            Encounter::new("a", "b", Trinomial::new(u64::MAX, 0, 0)),
            Encounter::new("b", "a", Trinomial::new(0, 0, 1)),
        ];
        assert!(matches!(
            rating_list(&huge, &default),
            Err(RatingError::Overflow { .. })
        ));
        let wide = [Encounter::new("a", "b", Trinomial::new(u64::MAX, 1, 0))];
        assert!(matches!(
            rating_list(&wide, &default),
            Err(RatingError::Overflow { .. })
        ));
    }

    fn no_negative_zero(e: &EloEstimate) -> bool {
        [e.elo, e.low, e.high]
            .iter()
            .all(|x| !(*x == 0.0 && x.is_sign_negative()))
    }

    proptest::proptest! {
        /// Only a component's fixed player has a zero-wide interval (its rating is set, not
        /// measured); every other player's and every pair's has width, even from one game;
        /// no estimate holds a negative zero; each component is ranked from 1.
        #[test]
        fn only_fixed_players_have_zero_wide_intervals(
            results in proptest::collection::vec(
                (0usize..5, 0usize..5, 0u64..4, 0u64..4, 0u64..4),
                1..8,
            ),
            anchor_rating in proptest::sample::select(vec![0.0, -0.0, 100.0]),
        ) {
            let names = ["a", "b", "c", "d", "e"];
            let encounters: Vec<Encounter> = results
                .iter()
                .map(|&(a, b, w, d, l)| Encounter::new(names[a], names[b], Trinomial::new(w, d, l)))
                .collect();
            let options = RatingOptions { anchor_rating, ..RatingOptions::default() };
            let list = rating_list(&encounters, &options).unwrap();
            for p in &list.players {
                let fixed = list.component_anchors[p.component] == p.name;
                proptest::prop_assert!(no_negative_zero(&p.rating), "{list:?}");
                proptest::prop_assert_eq!(p.rating.low == p.rating.high, fixed, "{:?}", list);
                let first = list.players.iter().position(|q| q.component == p.component).unwrap();
                let place = list.players.iter().position(|q| q.name == p.name).unwrap();
                proptest::prop_assert_eq!(p.rank, place - first + 1);
            }
            for pair in &list.pairs {
                proptest::prop_assert!(no_negative_zero(&pair.difference), "{list:?}");
                proptest::prop_assert!(pair.difference.low < pair.difference.high, "{list:?}");
            }
        }
    }
}
