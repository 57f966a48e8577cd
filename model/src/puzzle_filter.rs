//! Which stored puzzles a listing shows: the bounds a client asks for and a coordinator
//! applies, with the one rule that decides whether a puzzle passes them.

use pentago::{Theme, difficulty_label};

/// Which stored puzzles to list (0 and `None`: no bound). The collection is ordered by mate
/// length, then difficulty.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PuzzleFilter {
    /// Shortest mate.
    pub min_moves: u32,
    /// Longest mate.
    pub max_moves: u32,
    /// Least difficulty.
    pub min_difficulty: f64,
    /// Most difficulty.
    pub max_difficulty: f64,
    /// Only puzzles with this theme.
    pub theme: Option<Theme>,
    /// Only puzzles of this difficulty level (one of [`pentago::DIFFICULTY_LABELS`], as
    /// [`difficulty_label`] names it).
    pub level: Option<&'static str>,
}

impl PuzzleFilter {
    /// Whether a puzzle that mates in `mate_in` moves, of difficulty `difficulty`, with
    /// `themes`, passes the filter.
    #[must_use]
    pub fn admits(&self, mate_in: u32, difficulty: f64, themes: &[Theme]) -> bool {
        let moves_ok = (self.min_moves == 0 || mate_in >= self.min_moves)
            && (self.max_moves == 0 || mate_in <= self.max_moves);
        let difficulty_ok = (self.min_difficulty <= 0.0 || difficulty >= self.min_difficulty)
            && (self.max_difficulty <= 0.0 || difficulty <= self.max_difficulty);
        let theme_ok = self.theme.is_none_or(|theme| themes.contains(&theme));
        let level_ok = self
            .level
            .is_none_or(|level| difficulty_label(difficulty) == level);
        moves_ok && difficulty_ok && theme_ok && level_ok
    }
}
