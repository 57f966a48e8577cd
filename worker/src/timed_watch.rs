//! The watch over each game of a built-in pair: it ends a game as soon as the job's
//! adjudication values its position, and times each move on the wall clock, from the moment
//! its position was judged to the moment its player chose it (the judging is not the mover's).

use std::time::Instant;

use pentago::{Adjudicated, Adjudication, GameWatch, Move, Position};

use crate::accuracy::adjudicate;

/// Adjudicates as the job asks and keeps each move's seconds.
pub(crate) struct TimedWatch {
    adjudication: Option<Adjudication>,
    since: Instant,
    move_seconds: Vec<f64>,
}

impl TimedWatch {
    /// A watch for one game, adjudicating by `adjudication` (`None`: play it out).
    pub(crate) fn new(adjudication: Option<Adjudication>) -> TimedWatch {
        TimedWatch {
            adjudication,
            since: Instant::now(),
            move_seconds: Vec::new(),
        }
    }

    /// The seconds each move took, in move order.
    pub(crate) fn into_move_seconds(self) -> Vec<f64> {
        self.move_seconds
    }
}

impl GameWatch for TimedWatch {
    fn judge(&mut self, position: &Position) -> Option<Adjudicated> {
        let verdict = self.adjudication.and_then(|adj| adjudicate(&adj, position));
        self.since = Instant::now();
        verdict
    }

    fn chosen(&mut self, _: Move) {
        self.move_seconds.push(self.since.elapsed().as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Player, play_pair_judged};

    #[test]
    fn each_move_of_both_games_gets_its_time() {
        let a: Player = "uct:playouts=300".parse().unwrap();
        let b = Player::Random;
        let opening: Position = "....../....../....../....../....../o.x...".parse().unwrap();
        let mut watches = [TimedWatch::new(None), TimedWatch::new(None)];
        let [first, second] = &mut watches;
        let (pair, verdicts) = play_pair_judged(&opening, &a, &b, 7, 1, [first, second]);
        assert_eq!(verdicts, [None, None]);
        for (game, watch) in pair.games.iter().zip(watches) {
            let seconds = watch.into_move_seconds();
            assert_eq!(seconds.len(), game.moves.len());
            assert!(
                seconds.iter().all(|s| (0.0..60.0).contains(s)),
                "{seconds:?}"
            );
        }
    }
}
