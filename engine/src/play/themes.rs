//! Puzzle themes: what a checkmate asks of the solver, computed from its position and proof tree.
//!
//! The theme names are stable (they are exported with each puzzle and filtered on):
//!
//! - `quiet-first-move`: a mate in 2 or more whose first move makes no open four — after it the
//!   attacker has no five-line holding four of its stones and no defender stone, so every
//!   threat it makes needs a twist to line up.
//! - `double-threat`: a mate in 2 or more whose first move makes two open fours at once: two or
//!   more squares on which a placement alone would complete a five, so no single stone blocks
//!   them all.
//! - `counter-five`: along the main line, a defence gives the defender an immediate win of its
//!   own (a placement, or a placement and twist, that would make its five) and the attacker
//!   cannot simply win at once: its answer must check again and stop that five too.
//! - `long-forced-line`: a mate in 4 or more.
//! - `twist-finale`: the main line's last move makes five only with its twist (the placement
//!   alone does not).
//! - `placement-finale`: the main line's last move makes five by the placement alone.
//!
//! Exactly one of the two finales applies to every puzzle.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::bitboard::Bitboard;
use crate::board::movegen::has_winning_move;
use crate::board::moves::Move;
use crate::search::solver::ProofTree;

/// A puzzle theme (see the module docs for the definitions).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Theme {
    /// The first move makes no open four.
    QuietFirstMove,
    /// The first move makes two open fours.
    DoubleThreat,
    /// A defence on the main line threatens a five of the defender's own.
    CounterFive,
    /// A mate in 4 or more.
    LongForcedLine,
    /// The last move needs its twist to make five.
    TwistFinale,
    /// The last move makes five by its placement.
    PlacementFinale,
}

impl Theme {
    /// Every theme, in the order they are listed.
    pub const ALL: [Theme; 6] = [
        Theme::QuietFirstMove,
        Theme::DoubleThreat,
        Theme::CounterFive,
        Theme::LongForcedLine,
        Theme::TwistFinale,
        Theme::PlacementFinale,
    ];

    /// The stable name, e.g. `quiet-first-move`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Theme::QuietFirstMove => "quiet-first-move",
            Theme::DoubleThreat => "double-threat",
            Theme::CounterFive => "counter-five",
            Theme::LongForcedLine => "long-forced-line",
            Theme::TwistFinale => "twist-finale",
            Theme::PlacementFinale => "placement-finale",
        }
    }

    /// The themes of a checkmate, in [`Theme::ALL`] order.
    #[must_use]
    pub fn of(proof: &ProofTree) -> Vec<Theme> {
        let position = proof.position;
        let first = position.play_unchecked(proof.first_move());
        let attacker = position.side_to_move();
        let (own, other) = (first.stones(attacker), first.stones(attacker.opponent()));
        let continues = proof.mate_in >= 2;
        let finale = finale_needs_twist(proof);
        Theme::ALL
            .into_iter()
            .filter(|theme| match theme {
                Theme::QuietFirstMove => continues && !own.has_four_open(other),
                Theme::DoubleThreat => continues && placement_fives(own, other).count() >= 2,
                Theme::CounterFive => has_counter_five(proof),
                Theme::LongForcedLine => proof.mate_in >= 4,
                Theme::TwistFinale => finale,
                Theme::PlacementFinale => !finale,
            })
            .collect()
    }
}

impl fmt::Display for Theme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A theme name that is not one of [`Theme::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "unknown theme {0:?}: expected one of quiet-first-move, double-threat, counter-five, long-forced-line, twist-finale, placement-finale"
)]
pub struct ParseThemeError(pub String);

impl FromStr for Theme {
    type Err = ParseThemeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Theme::ALL
            .into_iter()
            .find(|theme| theme.name() == s)
            .ok_or_else(|| ParseThemeError(s.to_owned()))
    }
}

impl From<Theme> for String {
    fn from(theme: Theme) -> String {
        theme.name().to_owned()
    }
}

impl TryFrom<String> for Theme {
    type Error = ParseThemeError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// The empty squares on which a stone of the side owning `own` completes a five by itself.
fn placement_fives(own: Bitboard, other: Bitboard) -> Bitboard {
    let empty = own.union(other).complement();
    let mut squares = Bitboard::EMPTY;
    for square in empty.squares() {
        if own.with(square).has_five() {
            squares = squares.with(square);
        }
    }
    squares
}

/// Whether the last attacker move of the main line makes its five only through the twist.
fn finale_needs_twist(proof: &ProofTree) -> bool {
    let line = proof.main_line();
    let mut position = proof.position;
    for &mv in &line[..line.len() - 1] {
        position = position.play_unchecked(mv);
    }
    let last: Move = line[line.len() - 1];
    !position
        .stones(position.side_to_move())
        .with(last.square())
        .has_five()
}

/// Whether a defender reply on the main line, other than the last, leaves the defender an
/// immediate win of its own (after the last one the attacker just wins).
fn has_counter_five(proof: &ProofTree) -> bool {
    let mut position = proof.position;
    let defender = position.side_to_move().opponent();
    let line = proof.main_line();
    for (ply, &mv) in line.iter().enumerate() {
        position = position.play_unchecked(mv);
        let defended = ply % 2 == 1 && ply + 2 < line.len();
        if defended
            && !position.is_over()
            && has_winning_move(
                position.stones(defender),
                position.stones(defender.opponent()),
            )
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::color::Color;
    use crate::board::position::Position;
    use crate::search::solver::MateSearch;

    fn themes_of(text: &str, max_moves: u32) -> Vec<Theme> {
        let position: Position = text.parse().unwrap();
        let proof = MateSearch::new()
            .find(&position, max_moves)
            .expect("a mate");
        Theme::of(&proof)
    }

    #[test]
    fn names_round_trip() {
        for theme in Theme::ALL {
            assert_eq!(theme.name().parse::<Theme>(), Ok(theme));
        }
        assert!("quiet".parse::<Theme>().is_err());
    }

    #[test]
    fn a_placement_five_is_a_placement_finale() {
        // Black completes a1–e1 by placing on e1.
        let themes = themes_of("....../....../....../....../oooo../xxxx..", 1);
        assert_eq!(themes, vec![Theme::PlacementFinale]);
    }

    #[test]
    fn a_five_lined_up_by_the_twist_is_a_twist_finale() {
        // Black c3 c2 + c1, then quadrant 3 clockwise: the c-column becomes a1 b1 c1 beside
        // d1 e1. No placement alone makes five.
        let themes = themes_of("o.o.o./....../o...../..x.../..x.../...xx.", 1);
        assert_eq!(themes, vec![Theme::TwistFinale]);
    }

    /// Mates from the reference positions (independent random play), one or more per theme.
    const EXAMPLES: &[(&str, u32, &[Theme])] = &[
        (
            "oox.o./x.xoxo/.xxooo/ox.x.x/o...../xo.oxx",
            2,
            &[Theme::DoubleThreat, Theme::PlacementFinale],
        ),
        (
            "xooxo./o..ox./.oxo.x/oxxoxx/xo.xoo/.xxox.",
            2,
            &[Theme::DoubleThreat, Theme::TwistFinale],
        ),
        (
            "xxoxo./..x.ox/ooo..o/.ox.oo/.xxoxx/xoxxox",
            3,
            &[Theme::QuietFirstMove, Theme::TwistFinale],
        ),
        (
            "..xoox/x..oxo/.xo.xx/oo..oo/.xxoxx/ox..o.",
            3,
            &[
                Theme::QuietFirstMove,
                Theme::CounterFive,
                Theme::TwistFinale,
            ],
        ),
        (
            "oxoxoo/...ox./..xox./o.oxx./.xxooo/xo.xx.",
            4,
            &[
                Theme::CounterFive,
                Theme::LongForcedLine,
                Theme::PlacementFinale,
            ],
        ),
    ];

    #[test]
    fn reference_mates_have_their_themes() {
        for &(text, mate_in, expected) in EXAMPLES {
            let position: Position = text.parse().unwrap();
            let proof = MateSearch::new().find(&position, 4).expect("a mate");
            assert_eq!(proof.mate_in, mate_in, "{text}");
            assert_eq!(Theme::of(&proof), expected, "{text}");
        }
    }

    #[test]
    fn a_quiet_first_move_makes_no_open_four() {
        let position: Position = "xxoxo./..x.ox/ooo..o/.ox.oo/.xxoxx/xoxxox".parse().unwrap();
        let proof = MateSearch::new().find(&position, 4).unwrap();
        let after = position.play_unchecked(proof.first_move());
        let (own, other) = (after.stones(Color::White), after.stones(Color::Black));
        assert_eq!(position.side_to_move(), Color::White);
        assert!(!own.has_four_open(other));
        // Yet it is a check: white would win at once, with a twist.
        assert!(has_winning_move(own, other));
    }

    #[test]
    fn placement_fives_are_open_fours_only() {
        let position: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let (black, white) = (position.black(), position.white());
        let squares: Vec<String> = placement_fives(black, white)
            .squares()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(squares, vec!["e1".to_owned()]);
        assert!(has_winning_move(black, white));
        assert!(has_winning_move(white, black));
        assert!(!has_winning_move(Bitboard::EMPTY, black));
    }
}
