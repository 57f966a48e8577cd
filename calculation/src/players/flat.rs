//! Flat Monte Carlo: the same number of playouts after every legal move, each from a fresh
//! sample of the unseen cards, then the move with the best mean reward (ties: the most cards on
//! the foundations, then the first legal move).

use pentagrid_gamekit::seeded_rng;
use rayon::prelude::*;

use super::super::moves::Move;
use super::super::observation::Observation;
use super::super::table::Table;
use super::{Decision, Reward, SearchSettings};

/// Wins and foundation cards summed over one move's playouts.
#[derive(Copy, Clone, Default)]
struct Tally {
    wins: u64,
    cards: u64,
}

impl Tally {
    /// The comparison key: the reward's sum first, the cards' sum to break ties (every move
    /// gets the same number of playouts, so sums compare like means).
    fn key(self, reward: Reward) -> (u64, u64) {
        match reward {
            Reward::Win => (self.wins, self.cards),
            Reward::Cards => (self.cards, self.wins),
        }
    }
}

/// The flat Monte Carlo move; move `i`'s playouts use random stream `i`, so the result does not
/// depend on the number of threads.
pub(super) fn choose(seen: &Observation, settings: &SearchSettings, seed: u64) -> Decision {
    let legal = seen.legal_moves();
    let per_move = (settings.playouts / legal.len() as u64).max(1);
    let tallies: Vec<Tally> = legal
        .par_iter()
        .enumerate()
        .map(|(i, &mv)| tally(seen, mv, per_move, seed, i as u64))
        .collect();
    let mut best = 0;
    for (i, t) in tallies.iter().enumerate() {
        if t.key(settings.reward) > tallies[best].key(settings.reward) {
            best = i;
        }
    }
    Decision {
        mv: legal[best],
        playouts: per_move * legal.len() as u64,
    }
}

fn tally(seen: &Observation, mv: Move, playouts: u64, seed: u64, stream: u64) -> Tally {
    let mut rng = seeded_rng(seed, stream);
    let mut tally = Tally::default();
    for _ in 0..playouts {
        let mut table = Table::sample(seen, &mut rng);
        table.play_legal(mv);
        let (outcome, _) = table.random_playout(&mut rng);
        tally.wins += u64::from(outcome.won);
        tally.cards += u64::from(outcome.foundation_cards);
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::Player;

    #[test]
    fn flat_frees_the_buried_card_first() {
        // Only the K is face down; foundation 1 wants J, Q, K. Moving the waste's J up first
        // keeps every card free (random play then wins 84% of the time); placing the Q on a
        // waste pile first risks burying the J or the Q under the K (well under half win).
        let seen: Observation = "f=10,K,K,K w=J,-,-,- t=Q s=1".parse().unwrap();
        let player: Player = "flat:playouts=200".parse().unwrap();
        let decision = player.decide(&seen, 9, 1);
        assert_eq!(decision.mv.to_string(), "w1>f1");
        assert_eq!(decision.playouts, 200);
    }

    #[test]
    fn flat_does_not_depend_on_the_thread_count() {
        let seen = *Table::deal(crate::Variant::Standard, 4).observation();
        let player: Player = "flat:playouts=300".parse().unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(
            one.install(|| player.decide(&seen, 1, 1)),
            two.install(|| player.decide(&seen, 1, 1))
        );
    }
}
