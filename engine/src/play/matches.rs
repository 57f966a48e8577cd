//! Engine matches: game pairs (one opening, colours swapped) between two players, random
//! openings from a fixed seed, and the running W/D/L and pentanomial statistics.

use std::fmt;
use std::str::FromStr;

use pentagrid_gamekit::{seeded_rng, splitmix64};
use pentagrid_rating::{Pentanomial, Sprt, SprtDecision, Trinomial};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::color::Color;
use crate::board::position::Position;
use crate::board::status::Status;
use crate::play::adjudication::Adjudicated;
use crate::play::player::Player;
use crate::play::selfplay::{GameRecord, GameWatch, Unwatched, play_game_judged};
use crate::search::value::Value;

/// An opening reached by `plies` uniformly random moves from the start with `seed`, avoiding
/// positions where the game is over or the side to move can win at once.
#[must_use]
pub fn random_opening(seed: u64, plies: u32) -> Position {
    let mut rng = seeded_rng(seed, 0x0BE7);
    let mut position = Position::START;
    for _ in 0..plies {
        let legal = position.legal_moves();
        // Bounded retries: a fair opening almost always takes the first try.
        let next = (0..64)
            .map(|_| position.play_unchecked(legal[rng.random_range(0..legal.len())]))
            .find(|p| !p.is_over() && !p.has_immediate_win());
        match next {
            Some(p) => position = p,
            None => break,
        }
    }
    position
}

/// Where a match's openings come from. Text form (stable): `random:plies=N`, `book:plies=N`,
/// `file:PATH` or `exact:stones=N,value=win|draw|loss`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// `plies` uniformly random moves ([`random_opening`]).
    Random {
        /// Moves played.
        plies: u32,
    },
    /// A walk of `plies` moves through an opening book, each move drawn in proportion to its
    /// games there (random moves where the book ends).
    Book {
        /// Moves played.
        plies: u32,
    },
    /// A suite of positions read from a file by the client (see [`crate::parse_suite`]); the
    /// positions travel with the match, which plays them in an order shuffled by its seed
    /// (see [`crate::suite_openings`]).
    File {
        /// The file as the user named it (for people: the match does not read it).
        path: String,
    },
    /// Positions of `stones` stones whose exact value for the side to move is `value`, drawn
    /// reproducibly from the match's seed among those an exact table covers.
    Exact {
        /// Stones on the board.
        stones: u32,
        /// The exact value for the side to move.
        value: Value,
    },
}

/// Most plies an opening may have.
pub const MAX_OPENING_PLIES: u32 = 20;

impl Default for OpeningSource {
    fn default() -> Self {
        OpeningSource::Random { plies: 2 }
    }
}

impl fmt::Display for OpeningSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningSource::Random { plies } => write!(f, "random:plies={plies}"),
            OpeningSource::Book { plies } => write!(f, "book:plies={plies}"),
            OpeningSource::File { path } => write!(f, "file:{path}"),
            OpeningSource::Exact { stones, value } => {
                write!(f, "exact:stones={stones},value={}", value.name())
            }
        }
    }
}

/// An opening source text that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "bad opening source {text:?}: {why} (expected random:plies=N, book:plies=N, file:PATH or \
     exact:stones=N,value=win|draw|loss)"
)]
pub struct ParseOpeningSourceError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub why: String,
}

impl FromStr for OpeningSource {
    type Err = ParseOpeningSourceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |why: &str| ParseOpeningSourceError {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let (kind, options) = text.split_once(':').unwrap_or((text, ""));
        if kind == "file" {
            return match options {
                "" => Err(error("file: needs a path")),
                path => Ok(OpeningSource::File {
                    path: path.to_owned(),
                }),
            };
        }
        let (mut plies, mut stones, mut value) = (None, None, None);
        for option in options.split(',').filter(|o| !o.is_empty()) {
            match option.split_once('=') {
                Some(("plies", n)) if kind != "exact" => {
                    plies = Some(
                        n.parse()
                            .ok()
                            .filter(|p| *p <= MAX_OPENING_PLIES)
                            .ok_or_else(|| error("plies must be a number from 0 to 20"))?,
                    );
                }
                Some(("stones", n)) if kind == "exact" => {
                    stones = Some(
                        n.parse()
                            .ok()
                            .filter(|s| *s < 36)
                            .ok_or_else(|| error("stones must be a number from 0 to 35"))?,
                    );
                }
                Some(("value", v)) if kind == "exact" => {
                    value = Some(match v {
                        "win" => Value::Win,
                        "draw" => Value::Draw,
                        "loss" => Value::Loss,
                        _ => return Err(error("value must be win, draw or loss")),
                    });
                }
                _ => return Err(error(&format!("unknown option {option:?}"))),
            }
        }
        let plies = plies.unwrap_or(2);
        match kind {
            "random" => Ok(OpeningSource::Random { plies }),
            "book" => Ok(OpeningSource::Book { plies }),
            "exact" => Ok(OpeningSource::Exact {
                stones: stones.ok_or_else(|| error("exact needs stones=N"))?,
                value: value.ok_or_else(|| error("exact needs value=win, draw or loss"))?,
            }),
            _ => Err(error(&format!("unknown source {kind:?}"))),
        }
    }
}

/// The seed of pair `pair`'s opening in a match seeded with `match_seed`.
#[must_use]
pub fn opening_seed(match_seed: u64, pair: u64) -> u64 {
    splitmix64(match_seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The two games of a pair and what player A scored in them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The opening both games started from.
    #[serde(with = "crate::serde_text")]
    pub opening: Position,
    /// A as black, then A as white.
    pub games: [GameRecord; 2],
    /// A's points over the pair (0 to 2).
    pub a_points: f64,
}

/// The points `color` scores in a finished game: 1 for a win, ½ for a draw, 0 for a loss.
#[must_use]
pub fn game_points(status: Status, color: Color) -> f64 {
    match status {
        Status::Won(winner) if winner == color => 1.0,
        Status::Draw => 0.5,
        _ => 0.0,
    }
}

/// Plays a pair from `opening` (ongoing): A black then B black. Reproducible for a seed.
#[must_use]
pub fn play_pair(
    opening: &Position,
    a: &Player,
    b: &Player,
    seed: u64,
    threads: usize,
) -> PairResult {
    play_pair_judged(
        opening,
        a,
        b,
        seed,
        threads,
        [&mut Unwatched, &mut Unwatched],
    )
    .0
}

/// [`play_pair`] with each game watched by its own watch (A black first): stopped as soon as
/// it values a position, told each move (see [`play_game_judged`]); with each game's verdict.
#[must_use]
pub fn play_pair_judged(
    opening: &Position,
    a: &Player,
    b: &Player,
    seed: u64,
    threads: usize,
    watches: [&mut dyn GameWatch; 2],
) -> (PairResult, [Option<Adjudicated>; 2]) {
    let [first_watch, second_watch] = watches;
    let (first, first_verdict) =
        play_game_judged(opening, a, b, splitmix64(seed), threads, first_watch);
    let (second, second_verdict) =
        play_game_judged(opening, b, a, splitmix64(seed ^ 1), threads, second_watch);
    let a_points =
        game_points(first.result, Color::Black) + game_points(second.result, Color::White);
    let pair = PairResult {
        opening: *opening,
        games: [first, second],
        a_points,
    };
    (pair, [first_verdict, second_verdict])
}

/// A's results so far, by game and by pair.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchScore {
    /// A's wins, draws and losses over all games.
    pub games: Trinomial,
    /// A's pair totals.
    pub pairs: Pentanomial,
}

impl MatchScore {
    /// A score from its counts: A's wins, draws, losses, and pairs by points (0, ½, …, 2;
    /// missing entries count as none).
    #[must_use]
    pub fn from_counts(wins: u64, draws: u64, losses: u64, pentanomial: &[u64]) -> MatchScore {
        let mut counts = [0; 5];
        for (slot, count) in counts.iter_mut().zip(pentanomial) {
            *slot = *count;
        }
        MatchScore {
            games: Trinomial {
                wins,
                draws,
                losses,
            },
            pairs: Pentanomial { counts },
        }
    }

    /// Counts one pair from A's points in each of its games (see [`game_points`]).
    pub fn add_pair(&mut self, game_points: [f64; 2]) {
        for points in game_points {
            match points {
                1.0 => self.games.wins += 1,
                0.5 => self.games.draws += 1,
                _ => self.games.losses += 1,
            }
        }
        self.pairs.add_pair(game_points[0] + game_points[1]);
    }

    /// Counts one played pair.
    pub fn record(&mut self, pair: &PairResult) {
        self.add_pair([
            game_points(pair.games[0].result, Color::Black),
            game_points(pair.games[1].result, Color::White),
        ]);
    }

    /// The SPRT's log-likelihood ratio and decision on these pairs plus one lost and one won
    /// pair (see [`Pentanomial::regularized`]), so that a perfect score can decide too.
    #[must_use]
    pub fn test(&self, sprt: &Sprt) -> (f64, SprtDecision) {
        let stats = self
            .pairs
            .regularized()
            .stats()
            .expect("the prior adds two pairs");
        (sprt.llr(&stats), sprt.decide(&stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_reproducible_and_playable() {
        for seed in 0..50 {
            let opening = random_opening(seed, 4);
            assert_eq!(opening, random_opening(seed, 4));
            assert_eq!(opening.stone_count(), 4);
            assert!(!opening.is_over() && !opening.has_immediate_win());
        }
        assert_ne!(random_opening(1, 2), random_opening(2, 2));
    }

    #[test]
    fn opening_sources_parse_and_print() {
        for text in [
            "random:plies=0",
            "random:plies=2",
            "book:plies=20",
            "file:suites/a b.txt",
            "exact:stones=5,value=draw",
            "exact:stones=20,value=win",
        ] {
            let source: OpeningSource = text.parse().unwrap();
            assert_eq!(source.to_string(), text);
        }
        assert_eq!("book".parse(), Ok(OpeningSource::Book { plies: 2 }));
        for bad in [
            "",
            "random:plies=21",
            "random:plies=x",
            "book:depth=3",
            "tree:plies=2",
            "file:",
            "exact:stones=5",
            "exact:value=win",
            "exact:stones=36,value=win",
            "exact:stones=5,value=won",
            "exact:plies=2,stones=5,value=win",
            "random:stones=5",
        ] {
            assert!(bad.parse::<OpeningSource>().is_err(), "{bad}");
        }
    }

    #[test]
    fn pairs_swap_colours_and_score_from_a() {
        let a: Player = "uct:playouts=500".parse().unwrap();
        let pair = play_pair(&random_opening(3, 2), &a, &Player::Random, 7, 1);
        assert!(
            pair.games
                .iter()
                .all(|g| g.result.is_over() && g.start == pair.opening)
        );
        let mut score = MatchScore::default();
        score.record(&pair);
        assert_eq!(score.games.games(), 2);
        assert_eq!(score.pairs.pairs(), 1);
        assert_eq!(score.games.points(), pair.a_points);
    }
}
