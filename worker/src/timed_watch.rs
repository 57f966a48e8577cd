//! The watch over each game of a built-in pair: it ends a game as soon as the job's
//! adjudication values its position, times each move on the wall clock, from the moment
//! its position was judged to the moment its player chose it (the judging is not the mover's),
//! and keeps the score its player gave each move.

use std::time::Instant;

use pentago::{Adjudicated, Adjudication, GameWatch, Move, Position};

use crate::accuracy::adjudicate;

/// Adjudicates as the job asks and keeps each move's seconds and score.
pub(crate) struct TimedWatch {
    adjudication: Option<Adjudication>,
    since: Instant,
    move_seconds: Vec<f64>,
    move_scores: Vec<Option<f64>>,
}

impl TimedWatch {
    /// A watch for one game, adjudicating by `adjudication` (`None`: play it out).
    pub(crate) fn new(adjudication: Option<Adjudication>) -> TimedWatch {
        TimedWatch {
            adjudication,
            since: Instant::now(),
            move_seconds: Vec::new(),
            move_scores: Vec::new(),
        }
    }

    /// The seconds each move took and the mover's score of each (where its player gave one),
    /// in move order.
    pub(crate) fn into_moves(self) -> (Vec<f64>, Vec<Option<f64>>) {
        (self.move_seconds, self.move_scores)
    }
}

impl GameWatch for TimedWatch {
    fn judge(&mut self, position: &Position) -> Option<Adjudicated> {
        let verdict = self.adjudication.and_then(|adj| adjudicate(&adj, position));
        self.since = Instant::now();
        verdict
    }

    fn chosen(&mut self, _: Move, score: Option<f64>) {
        self.move_seconds.push(self.since.elapsed().as_secs_f64());
        self.move_scores.push(score);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Color, Player, play_pair_judged};

    #[test]
    fn each_move_of_both_games_gets_its_time_and_the_searchers_moves_their_score() {
        let a: Player = "uct:playouts=300".parse().unwrap();
        let b = Player::Random;
        let opening: Position = "....../....../....../....../....../o.x...".parse().unwrap();
        let mut watches = [TimedWatch::new(None), TimedWatch::new(None)];
        let [first, second] = &mut watches;
        let (pair, verdicts) = play_pair_judged(&opening, &a, &b, 7, 1, [first, second]);
        assert_eq!(verdicts, [None, None]);
        for ((game, watch), uct) in pair
            .games
            .iter()
            .zip(watches)
            .zip([Color::Black, Color::White])
        {
            let (seconds, scores) = watch.into_moves();
            assert_eq!(seconds.len(), game.moves.len());
            assert!(
                seconds.iter().all(|s| (0.0..60.0).contains(s)),
                "{seconds:?}"
            );
            assert_eq!(scores.len(), game.moves.len());
            let first = game.start.side_to_move();
            for (index, score) in scores.iter().enumerate() {
                let mover = if index % 2 == 0 {
                    first
                } else {
                    first.opponent()
                };
                if mover == uct {
                    assert!(
                        score.is_some_and(|s| (0.0..=1.0).contains(&s)),
                        "{scores:?}"
                    );
                } else {
                    assert_eq!(*score, None, "the random player keeps no score");
                }
            }
        }
    }
}
