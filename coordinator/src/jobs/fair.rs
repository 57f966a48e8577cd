//! Weighted fair sharing of the workers among running matches (fishtest's rule: each match's
//! share of the workers follows its weight). Every match's queued game pairs wait in a queue of
//! their own; where a pair's turn comes in the job queue, the pair leased is taken from the
//! match that holds the fewest leases for its weight, ties going to the match granted the
//! fewest leases for its weight so far (stride scheduling), so that a single worker taking one
//! pair at a time is shared by weight too.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

pub use pentagrid_model::limits::MAX_MATCH_WEIGHT;

/// The weight of a match nobody gave one (and of matches stored before weights existed).
pub const DEFAULT_WEIGHT: u32 = 1;

/// What one lease adds to a match of weight 1's pass; a match of weight `w` adds `STRIDE / w`
/// (within one part in 2^54 for every weight allowed).
const STRIDE: u128 = 1 << 64;

/// One match's queued pairs and its place in the sharing.
#[derive(Debug)]
struct MatchQueue {
    /// Queued pair jobs, next first.
    queued: VecDeque<u64>,
    /// Leases granted so far, each counted `STRIDE / weight` (its "pass").
    pass: u128,
}

/// The queued pairs of every match, with each match's weight.
#[derive(Debug, Default)]
pub struct PairQueues {
    /// Matches with queued pairs, by id.
    queues: BTreeMap<u64, MatchQueue>,
    /// Weights given (matches absent weigh [`DEFAULT_WEIGHT`]).
    weights: HashMap<u64, u32>,
}

impl PairQueues {
    /// Sets a match's weight (clamped to 1 to [`MAX_MATCH_WEIGHT`]).
    pub fn set_weight(&mut self, match_id: u64, weight: u32) {
        self.weights
            .insert(match_id, weight.clamp(1, MAX_MATCH_WEIGHT));
    }

    /// A match's weight.
    #[must_use]
    pub fn weight(&self, match_id: u64) -> u32 {
        self.weights
            .get(&match_id)
            .copied()
            .unwrap_or(DEFAULT_WEIGHT)
    }

    /// Queues a pair job of `match_id`, last (or first, when it goes back to where it was).
    pub fn push(&mut self, match_id: u64, job_id: u64, front: bool) {
        let start = self.queues.values().map(|q| q.pass).min().unwrap_or(0);
        // A match that joins starts level with the match furthest behind, neither owed the
        // leases it missed nor behind those that ran before it.
        let queue = self.queues.entry(match_id).or_insert_with(|| MatchQueue {
            queued: VecDeque::new(),
            pass: start,
        });
        if front {
            queue.queued.push_front(job_id);
        } else {
            queue.queued.push_back(job_id);
        }
    }

    /// Takes the jobs in `cancelled` out of the queues; returns how many were queued.
    pub fn remove(&mut self, cancelled: &HashSet<u64>) -> usize {
        let mut removed = 0;
        self.queues.retain(|_, queue| {
            let before = queue.queued.len();
            queue.queued.retain(|job| !cancelled.contains(job));
            removed += before - queue.queued.len();
            !queue.queued.is_empty()
        });
        removed
    }

    /// Pairs of `match_id` queued.
    #[must_use]
    pub fn queued(&self, match_id: u64) -> usize {
        self.queues.get(&match_id).map_or(0, |q| q.queued.len())
    }

    /// Takes the next pair to lease: from the match with the fewest leases held for its weight
    /// (`held`: leases by match, counted up here), ties to the smallest pass, then the smallest
    /// id, among the matches whose next pair `eligible` accepts. Returns the match and job.
    pub fn take(
        &mut self,
        held: &mut HashMap<u64, u64>,
        eligible: impl Fn(u64) -> bool,
    ) -> Option<(u64, u64)> {
        let mut best: Option<(u64, u64, u128)> = None; // (match, weight, pass)
        for (&match_id, queue) in &self.queues {
            let Some(&next) = queue.queued.front() else {
                continue;
            };
            if !eligible(next) {
                continue;
            }
            let weight = u64::from(self.weight(match_id));
            let better = best.is_none_or(|(other, other_weight, other_pass)| {
                let mine = u128::from(held.get(&match_id).copied().unwrap_or(0))
                    * u128::from(other_weight);
                let theirs =
                    u128::from(held.get(&other).copied().unwrap_or(0)) * u128::from(weight);
                match mine.cmp(&theirs) {
                    Ordering::Less => true,
                    Ordering::Greater => false,
                    Ordering::Equal => queue.pass < other_pass,
                }
            });
            if better {
                best = Some((match_id, weight, queue.pass));
            }
        }
        let (match_id, weight, _) = best?;
        let queue = self.queues.get_mut(&match_id)?;
        let job_id = queue.queued.pop_front()?;
        queue.pass += STRIDE / u128::from(weight);
        if queue.queued.is_empty() {
            self.queues.remove(&match_id);
        }
        *held.entry(match_id).or_default() += 1;
        Some((match_id, job_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Leases `rounds` pairs one at a time with nothing held (one worker taking one pair at a
    /// time); returns the count per match.
    fn one_at_a_time(queues: &mut PairQueues, rounds: usize) -> HashMap<u64, u64> {
        let mut granted = HashMap::new();
        for _ in 0..rounds {
            let (m, _) = queues.take(&mut HashMap::new(), |_| true).unwrap();
            *granted.entry(m).or_default() += 1;
        }
        granted
    }

    fn filled(weights: &[(u64, u32)], pairs: u64) -> PairQueues {
        let mut queues = PairQueues::default();
        for &(m, w) in weights {
            queues.set_weight(m, w);
            for p in 0..pairs {
                queues.push(m, m * 1000 + p, false);
            }
        }
        queues
    }

    #[test]
    fn one_worker_is_shared_by_weight() {
        let mut queues = filled(&[(1, 3), (2, 1)], 500);
        let granted = one_at_a_time(&mut queues, 400);
        assert_eq!((granted[&1], granted[&2]), (300, 100));
    }

    #[test]
    fn held_leases_are_balanced_by_weight_first() {
        let mut queues = filled(&[(1, 2), (2, 1)], 100);
        // Match 2 already holds 4 leases, match 1 none: match 1 catches up before 2 gets one.
        let mut held = HashMap::from([(2, 4)]);
        let order: Vec<u64> = (0..9)
            .map(|_| queues.take(&mut held, |_| true).unwrap().0)
            .collect();
        // Then 8 for weight 2 against 4 for weight 1: level, and match 2's pass is smaller.
        assert_eq!(order, [1, 1, 1, 1, 1, 1, 1, 1, 2]);
        assert_eq!(held, HashMap::from([(1, 8), (2, 5)]));
    }

    #[test]
    fn ineligible_matches_are_skipped_and_keep_their_pairs() {
        let mut queues = filled(&[(1, 1), (2, 1)], 2);
        let (m, job) = queues.take(&mut HashMap::new(), |job| job >= 2000).unwrap();
        assert_eq!((m, job), (2, 2000));
        assert_eq!((queues.queued(1), queues.queued(2)), (2, 1));
        assert!(queues.take(&mut HashMap::new(), |_| false).is_none());
    }

    #[test]
    fn a_late_match_starts_level_and_cancelled_pairs_leave() {
        let mut queues = filled(&[(1, 1)], 100);
        one_at_a_time(&mut queues, 50);
        for p in 0..100 {
            queues.push(2, 2000 + p, false);
        }
        // Not owed the 50 leases it missed: the two alternate.
        let granted = one_at_a_time(&mut queues, 20);
        assert_eq!((granted[&1], granted[&2]), (10, 10));
        let cancelled: HashSet<u64> = (2000..2100).collect();
        assert_eq!(queues.remove(&cancelled), 90);
        assert_eq!(queues.queued(2), 0);
        assert_eq!(one_at_a_time(&mut queues, 5)[&1], 5);
    }

    #[test]
    fn weights_are_clamped_and_default_to_one() {
        let mut queues = PairQueues::default();
        assert_eq!(queues.weight(7), DEFAULT_WEIGHT);
        queues.set_weight(7, 0);
        assert_eq!(queues.weight(7), 1);
        queues.set_weight(7, u32::MAX);
        assert_eq!(queues.weight(7), MAX_MATCH_WEIGHT);
    }
}
