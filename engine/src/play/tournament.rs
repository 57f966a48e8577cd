//! Tournaments: which players meet. A round robin pairs everyone with everyone; a gauntlet
//! pairs its first player with each of the others. Each pairing is played as an ordinary match
//! of game pairs, so a tournament is the set of its matches (SPRT stays per pair of players).
//! Text forms (stable): `round-robin`, `gauntlet`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::play::named::NamedPlayer;

/// Most players in one tournament (a round robin of 32 is 496 matches).
pub const MAX_TOURNAMENT_PLAYERS: usize = 32;

/// How a tournament pairs its players.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum TournamentKind {
    /// Every player against every other.
    RoundRobin,
    /// The first player against each of the others.
    Gauntlet,
}

/// A tournament kind that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown tournament kind {0:?}: expected round-robin or gauntlet")]
pub struct ParseTournamentKindError(pub String);

impl fmt::Display for TournamentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TournamentKind::RoundRobin => "round-robin",
            TournamentKind::Gauntlet => "gauntlet",
        })
    }
}

impl FromStr for TournamentKind {
    type Err = ParseTournamentKindError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "round-robin" => Ok(TournamentKind::RoundRobin),
            "gauntlet" => Ok(TournamentKind::Gauntlet),
            _ => Err(ParseTournamentKindError(crate::excerpt(text))),
        }
    }
}

impl From<TournamentKind> for String {
    fn from(kind: TournamentKind) -> String {
        kind.to_string()
    }
}

impl TryFrom<String> for TournamentKind {
    type Error = ParseTournamentKindError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

/// Why a tournament's players were refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TournamentError {
    /// Fewer than two players, or more than [`MAX_TOURNAMENT_PLAYERS`].
    #[error("a tournament needs 2 to {MAX_TOURNAMENT_PLAYERS} players, not {0}")]
    PlayerCount(usize),
    /// The same player twice (by full text form, or two players under one label): its games
    /// against itself would rate nothing, or no table could tell the two apart.
    #[error("player {0:?} is named twice")]
    Duplicate(String),
}

impl TournamentKind {
    /// The matches of a tournament over `players`: index pairs `(a, b)`, player `a` as the
    /// match's A. A round robin in row order (0–1, 0–2, …, 1–2, …); a gauntlet 0–1, 0–2, ….
    ///
    /// # Errors
    ///
    /// A player count out of range or a player named twice.
    pub fn pairings(self, players: &[NamedPlayer]) -> Result<Vec<(usize, usize)>, TournamentError> {
        let n = players.len();
        if !(2..=MAX_TOURNAMENT_PLAYERS).contains(&n) {
            return Err(TournamentError::PlayerCount(n));
        }
        let specs: Vec<String> = players.iter().map(|p| p.player.to_string()).collect();
        let labels: Vec<String> = players.iter().map(NamedPlayer::label).collect();
        for i in 0..n {
            if labels[..i].contains(&labels[i]) {
                return Err(TournamentError::Duplicate(labels[i].clone()));
            }
            if players[i].name.is_none() && specs[..i].contains(&specs[i]) {
                return Err(TournamentError::Duplicate(labels[i].clone()));
            }
        }
        Ok(match self {
            TournamentKind::RoundRobin => (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect(),
            TournamentKind::Gauntlet => (1..n).map(|b| (0, b)).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn players(texts: &[&str]) -> Vec<NamedPlayer> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    #[test]
    fn kinds_parse_and_print() {
        for kind in [TournamentKind::RoundRobin, TournamentKind::Gauntlet] {
            assert_eq!(kind.to_string().parse(), Ok(kind));
        }
        for bad in ["", "roundrobin", "Gauntlet", "swiss"] {
            assert!(bad.parse::<TournamentKind>().is_err(), "{bad}");
        }
    }

    #[test]
    fn pairings_of_four_players() {
        let four = players(&["random", "flat:playouts=10", "flat:playouts=20", "uct"]);
        assert_eq!(
            TournamentKind::RoundRobin.pairings(&four),
            Ok(vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
        );
        assert_eq!(
            TournamentKind::Gauntlet.pairings(&four),
            Ok(vec![(0, 1), (0, 2), (0, 3)])
        );
    }

    #[test]
    fn bad_player_lists_are_refused() {
        let kind = TournamentKind::RoundRobin;
        assert_eq!(
            kind.pairings(&players(&["random"])),
            Err(TournamentError::PlayerCount(1))
        );
        let many = players(&["random"; MAX_TOURNAMENT_PLAYERS + 1]);
        assert_eq!(
            kind.pairings(&many),
            Err(TournamentError::PlayerCount(MAX_TOURNAMENT_PLAYERS + 1))
        );
        assert_eq!(
            kind.pairings(&players(&["random", "uct", "random"])),
            Err(TournamentError::Duplicate("random".to_owned()))
        );
        assert_eq!(
            kind.pairings(&players(&["x=random", "x=uct"])),
            Err(TournamentError::Duplicate("x".to_owned()))
        );
        // The same specification under two names is two players.
        assert!(kind.pairings(&players(&["x=random", "y=random"])).is_ok());
    }
}
