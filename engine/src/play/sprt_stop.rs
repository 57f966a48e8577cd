//! The one rule that stops a match early, used by matches on the cluster and by matches played
//! in process: after each pair the match's SPRT (if it has one) is asked, and its first
//! decision ends the match.

use pentagrid_rating::{Sprt, SprtDecision};

use super::matches::MatchScore;

/// The SPRT's decision on `score`; [`SprtDecision::Continue`] without an SPRT. A match stops
/// at the first pair after which this is not `Continue`.
#[must_use]
pub fn sprt_stop(score: &MatchScore, sprt: Option<&Sprt>) -> SprtDecision {
    sprt.map_or(SprtDecision::Continue, |sprt| score.test(sprt).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lopsided_score_stops_and_no_sprt_never_does() {
        let sprt: Sprt = "elo0=0,elo1=50".parse().unwrap();
        let mut score = MatchScore::default();
        for _ in 0..40 {
            score.add_pair([1.0, 1.0]);
        }
        assert_eq!(sprt_stop(&score, Some(&sprt)), SprtDecision::AcceptH1);
        assert_eq!(sprt_stop(&score, None), SprtDecision::Continue);
        assert_eq!(
            sprt_stop(&MatchScore::default(), Some(&sprt)),
            SprtDecision::Continue
        );
    }
}
