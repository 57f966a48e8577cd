//! Puzzle themes, worked out from a puzzle's proof tree (stable names, used as a filter).

use pentago::{AttackNode, MoveNotation, Puzzle};
use serde::Serialize;

/// A theme of a puzzle.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Theme {
    /// The mating move makes five by its placement alone; the twist does not matter.
    PlacementFinish,
    /// The mating move needs its twist to make five.
    TwistFinish,
    /// At every defender turn, all defences lead to one position: the line is forced.
    Forced,
    /// Somewhere the defender has several defences that need different answers.
    Branching,
}

impl Theme {
    /// Every theme, in the order they are listed.
    pub const ALL: [Theme; 4] = [
        Theme::PlacementFinish,
        Theme::TwistFinish,
        Theme::Forced,
        Theme::Branching,
    ];

    /// The theme's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Theme::PlacementFinish => "placement-finish",
            Theme::TwistFinish => "twist-finish",
            Theme::Forced => "forced",
            Theme::Branching => "branching",
        }
    }

    /// The theme called `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|theme| theme.name() == name)
    }
}

/// The themes of `puzzle`: how its main line finishes, and (for mates in 2 or more) whether the
/// defence is forced.
#[must_use]
pub fn themes(puzzle: &Puzzle) -> Vec<Theme> {
    let line = puzzle.proof.main_line();
    let mut position = puzzle.position;
    let mut themes = Vec::with_capacity(2);
    if let Some((last, before)) = line.split_last() {
        for mv in before {
            position = position.play_unchecked(*mv);
        }
        let placement = MoveNotation {
            square: last.square(),
            twist: None,
        };
        themes.push(if position.resolve(placement).is_ok() {
            Theme::PlacementFinish
        } else {
            Theme::TwistFinish
        });
    }
    if !puzzle.proof.tree.replies.is_empty() {
        themes.push(if forced(&puzzle.proof.tree) {
            Theme::Forced
        } else {
            Theme::Branching
        });
    }
    themes
}

fn forced(node: &AttackNode) -> bool {
    match node.replies.as_slice() {
        [] => true,
        [only] => only.then.as_ref().is_none_or(forced),
        _ => false,
    }
}
