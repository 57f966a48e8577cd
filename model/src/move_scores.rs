//! A game's move scores: for each move, the mover's expected points from it (0 to 1) as its
//! player saw them when it chose it, in thousandths, or unknown. Stored and sent with each match
//! game (stable: a list of whole thousandths, 0 to 1000 each, or [`UNKNOWN_SCORE`] for a move
//! whose player keeps no score; an empty list means no move's score is known, as in games
//! stored before scores were kept).

/// The score of a move whose player gave none (random and flat players, external engines).
pub const UNKNOWN_SCORE: u32 = u32::MAX;

/// The largest known score, in thousandths: a whole point (a win).
pub const MAX_SCORE_MILLI: u32 = 1000;

/// The mover's score of each move of a game, in thousandths, in move order (empty: unknown).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveScores(Vec<u32>);

impl MoveScores {
    /// Scores as they were stored or sent (checked where they are received, not here).
    #[must_use]
    pub fn from_milli(milli: Vec<u32>) -> MoveScores {
        MoveScores(milli)
    }

    /// Scores in points, each rounded to thousandths and kept within 0..=1 (one that is not a
    /// number is unknown); empty when no move has one.
    #[must_use]
    pub fn from_points(points: impl IntoIterator<Item = Option<f64>>) -> MoveScores {
        let milli: Vec<u32> = points
            .into_iter()
            .map(|score| match score.map(|s| (s * 1000.0).round()) {
                // Whole and in range: the cast is exact.
                Some(m) if !m.is_nan() => m.clamp(0.0, f64::from(MAX_SCORE_MILLI)) as u32,
                _ => UNKNOWN_SCORE,
            })
            .collect();
        if milli.iter().all(|&m| m == UNKNOWN_SCORE) {
            return MoveScores::default();
        }
        MoveScores(milli)
    }

    /// The thousandths as stored, [`UNKNOWN_SCORE`] for unknown, in move order.
    #[must_use]
    pub fn milli(&self) -> &[u32] {
        &self.0
    }

    /// Whether any move's score is known.
    #[must_use]
    pub fn is_known(&self) -> bool {
        !self.0.is_empty()
    }

    /// Whether `milli` is a value a move's score may have: 0 to [`MAX_SCORE_MILLI`], or
    /// [`UNKNOWN_SCORE`].
    #[must_use]
    pub fn valid(milli: u32) -> bool {
        milli <= MAX_SCORE_MILLI || milli == UNKNOWN_SCORE
    }

    /// The score of move `index` (from 0) in points, if known.
    #[must_use]
    pub fn points(&self, index: usize) -> Option<f64> {
        self.0
            .get(index)
            .filter(|&&m| m <= MAX_SCORE_MILLI)
            .map(|&m| f64::from(m) / 1000.0)
    }

    /// Each move's score in points, `None` where unknown; empty when none is known.
    #[must_use]
    pub fn all_points(&self) -> Vec<Option<f64>> {
        (0..self.0.len()).map(|index| self.points(index)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_round_to_thousandths_within_the_range() {
        let scores = MoveScores::from_points([
            Some(0.7124),
            None,
            Some(1.0),
            Some(-0.5),
            Some(f64::NAN),
            Some(2.0),
        ]);
        assert_eq!(
            scores.milli(),
            &[712, UNKNOWN_SCORE, 1000, 0, UNKNOWN_SCORE, 1000]
        );
        assert_eq!(scores.points(0), Some(0.712));
        assert_eq!(scores.points(1), None);
        assert_eq!(scores.points(6), None);
        assert_eq!(scores.all_points()[2], Some(1.0));
        assert!(scores.is_known());
    }

    #[test]
    fn no_known_score_is_no_scores() {
        assert_eq!(MoveScores::from_points([None, None]), MoveScores::default());
        assert!(!MoveScores::default().is_known());
        assert!(
            MoveScores::valid(0) && MoveScores::valid(1000) && MoveScores::valid(UNKNOWN_SCORE)
        );
        assert!(!MoveScores::valid(1001));
    }
}
