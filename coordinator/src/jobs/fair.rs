//! Fair sharing of the workers in two levels (fishtest's rule, per user): the users with queued
//! game pairs share the workers equally, and each user's share goes to their running matches
//! by weight. Every match's queued pairs wait in a queue of their own; where a pair's turn
//! comes in the job queue, the pair leased is taken from the user who holds the fewest leases,
//! ties going to the user granted the fewest leases since they last joined (stride scheduling),
//! then from that user's match that holds the fewest leases for its weight, ties going to the
//! match granted the fewest leases for its weight (stride scheduling again), so that a single
//! worker taking one pair at a time is shared the same way. Matches of no user (tokens naming
//! none, matches stored before users existed) all belong to one user, the empty name: when
//! every match has the same owner this is the sharing by weight alone.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

pub use pentagrid_model::limits::MAX_MATCH_WEIGHT;

/// The weight of a match nobody gave one (and of matches stored before weights existed).
pub const DEFAULT_WEIGHT: u32 = 1;

/// What one lease adds to a match of weight 1's pass (and to every user's: users weigh the
/// same); a match of weight `w` adds `STRIDE / w` (within one part in 2^54 for every weight
/// allowed).
const STRIDE: u128 = 1 << 64;

/// One match's queued pairs and its place in its user's sharing.
#[derive(Debug)]
struct MatchQueue {
    /// Queued pair jobs, next first.
    queued: VecDeque<u64>,
    /// Leases granted so far, each counted `STRIDE / weight` (its "pass").
    pass: u128,
}

/// One user's place in the sharing among users (a user is here while one of their matches
/// has queued pairs).
#[derive(Debug)]
struct UserTurn {
    /// Leases granted since the user last joined, each counted `STRIDE`.
    pass: u128,
}

/// Who a match belongs to and its weight among that user's matches.
#[derive(Debug)]
struct Share {
    /// Its owner (empty: no user).
    owner: String,
    /// Its weight, 1 to [`MAX_MATCH_WEIGHT`].
    weight: u32,
}

/// The queued pairs of every match, with each match's owner and weight.
#[derive(Debug, Default)]
pub struct PairQueues {
    /// Matches with queued pairs, by id.
    queues: BTreeMap<u64, MatchQueue>,
    /// Owners and weights given (matches absent are no user's and weigh [`DEFAULT_WEIGHT`]).
    shares: HashMap<u64, Share>,
    /// Users with queued pairs, by name.
    users: BTreeMap<String, UserTurn>,
}

/// The match a user would lease from: its id, weight and pass.
#[derive(Copy, Clone, Debug)]
struct Candidate {
    match_id: u64,
    weight: u64,
    pass: u128,
}

impl PairQueues {
    /// Sets a match's owner and weight (clamped to 1 to [`MAX_MATCH_WEIGHT`]). A match with
    /// queued pairs (restored at start-up before its record was read) moves to its owner.
    pub fn set_share(&mut self, match_id: u64, owner: &str, weight: u32) {
        let before = self.owner(match_id).to_owned();
        self.shares.insert(
            match_id,
            Share {
                owner: owner.to_owned(),
                weight: weight.clamp(1, MAX_MATCH_WEIGHT),
            },
        );
        if before != owner && self.queues.contains_key(&match_id) {
            self.leave(&before);
            self.join(owner);
        }
    }

    /// A match's weight.
    #[must_use]
    pub fn weight(&self, match_id: u64) -> u32 {
        self.shares
            .get(&match_id)
            .map_or(DEFAULT_WEIGHT, |share| share.weight)
    }

    /// A match's owner (empty: no user).
    #[must_use]
    pub fn owner(&self, match_id: u64) -> &str {
        self.shares
            .get(&match_id)
            .map_or("", |share| share.owner.as_str())
    }

    /// Has `owner` join the sharing (when one of their matches gets queued pairs); a user who
    /// joins starts level with the user furthest behind, neither owed the leases they missed
    /// nor behind the others.
    fn join(&mut self, owner: &str) {
        let start = self.users.values().map(|u| u.pass).min().unwrap_or(0);
        self.users
            .entry(owner.to_owned())
            .or_insert(UserTurn { pass: start });
    }

    /// Has `owner` leave the sharing once none of their matches has queued pairs.
    fn leave(&mut self, owner: &str) {
        if !self.queues.keys().any(|&id| self.owner(id) == owner) {
            self.users.remove(owner);
        }
    }

    /// Queues a pair job of `match_id`, last (or first, when it goes back to where it was).
    pub fn push(&mut self, match_id: u64, job_id: u64, front: bool) {
        if !self.queues.contains_key(&match_id) {
            let owner = self.owner(match_id).to_owned();
            // A match that joins starts level with its user's match furthest behind.
            let start = self
                .queues
                .iter()
                .filter(|(id, _)| self.owner(**id) == owner)
                .map(|(_, q)| q.pass)
                .min()
                .unwrap_or(0);
            self.queues.insert(
                match_id,
                MatchQueue {
                    queued: VecDeque::new(),
                    pass: start,
                },
            );
            self.join(&owner);
        }
        let queue = self.queues.get_mut(&match_id).expect("inserted above");
        if front {
            queue.queued.push_front(job_id);
        } else {
            queue.queued.push_back(job_id);
        }
    }

    /// Takes the jobs in `cancelled` out of the queues; returns how many were queued.
    pub fn remove(&mut self, cancelled: &HashSet<u64>) -> usize {
        let mut removed = 0;
        let mut emptied = Vec::new();
        for (&match_id, queue) in &mut self.queues {
            let before = queue.queued.len();
            queue.queued.retain(|job| !cancelled.contains(job));
            removed += before - queue.queued.len();
            if queue.queued.is_empty() {
                emptied.push(match_id);
            }
        }
        for match_id in emptied {
            self.queues.remove(&match_id);
            let owner = self.owner(match_id).to_owned();
            self.leave(&owner);
        }
        removed
    }

    /// Pairs of `match_id` queued.
    #[must_use]
    pub fn queued(&self, match_id: u64) -> usize {
        self.queues.get(&match_id).map_or(0, |q| q.queued.len())
    }

    /// Each user's best match to lease from among those whose next pair `eligible` accepts:
    /// the fewest leases held for its weight, ties to the smallest pass, then the smallest id.
    fn candidates(
        &self,
        held: &HashMap<u64, u64>,
        eligible: impl Fn(u64) -> bool,
    ) -> BTreeMap<&str, Candidate> {
        let mut best: BTreeMap<&str, Candidate> = BTreeMap::new();
        for (&match_id, queue) in &self.queues {
            let Some(&next) = queue.queued.front() else {
                continue;
            };
            if !eligible(next) {
                continue;
            }
            let mine = Candidate {
                match_id,
                weight: u64::from(self.weight(match_id)),
                pass: queue.pass,
            };
            let held_by = |id: u64| u128::from(held.get(&id).copied().unwrap_or(0));
            best.entry(self.owner(match_id))
                .and_modify(|other| {
                    let ours = held_by(match_id) * u128::from(other.weight);
                    let theirs = held_by(other.match_id) * u128::from(mine.weight);
                    let better = match ours.cmp(&theirs) {
                        Ordering::Less => true,
                        Ordering::Greater => false,
                        Ordering::Equal => mine.pass < other.pass,
                    };
                    if better {
                        *other = mine;
                    }
                })
                .or_insert(mine);
        }
        best
    }

    /// Takes the next pair to lease: from the user holding the fewest leases (`held`: leases
    /// by match, counted up here), ties to the smallest user pass, then the first name; within
    /// that user from the match with the fewest leases held for its weight, ties to the
    /// smallest pass, then the smallest id; only matches whose next pair `eligible` accepts
    /// count. Returns the match and job.
    pub fn take(
        &mut self,
        held: &mut HashMap<u64, u64>,
        eligible: impl Fn(u64) -> bool,
    ) -> Option<(u64, u64)> {
        let mut user_held: HashMap<&str, u64> = HashMap::new();
        for (&match_id, &leases) in held.iter() {
            *user_held.entry(self.owner(match_id)).or_default() += leases;
        }
        let mut best: Option<(&str, u64, u128, Candidate)> = None; // (user, held, pass, match)
        for (user, candidate) in self.candidates(held, eligible) {
            let leases = user_held.get(user).copied().unwrap_or(0);
            let pass = self.users.get(user).map_or(0, |turn| turn.pass);
            let better = best.is_none_or(|(_, other_leases, other_pass, _)| {
                (leases, pass) < (other_leases, other_pass)
            });
            if better {
                best = Some((user, leases, pass, candidate));
            }
        }
        let (user, _, _, chosen) = best?;
        let user = user.to_owned();
        let queue = self.queues.get_mut(&chosen.match_id)?;
        let job_id = queue.queued.pop_front()?;
        queue.pass += STRIDE / u128::from(chosen.weight);
        if let Some(turn) = self.users.get_mut(&user) {
            turn.pass += STRIDE;
        }
        if queue.queued.is_empty() {
            self.queues.remove(&chosen.match_id);
            self.leave(&user);
        }
        *held.entry(chosen.match_id).or_default() += 1;
        Some((chosen.match_id, job_id))
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
            queues.set_share(m, "", w);
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
        queues.set_share(7, "", 0);
        assert_eq!(queues.weight(7), 1);
        queues.set_share(7, "", u32::MAX);
        assert_eq!(queues.weight(7), MAX_MATCH_WEIGHT);
    }

    /// Queues `pairs` pairs of each `(match, owner, weight)`.
    fn owned(matches: &[(u64, &str, u32)], pairs: u64) -> PairQueues {
        let mut queues = PairQueues::default();
        for &(m, owner, w) in matches {
            queues.set_share(m, owner, w);
            for p in 0..pairs {
                queues.push(m, m * 1000 + p, false);
            }
        }
        queues
    }

    #[test]
    fn users_share_equally_then_their_matches_by_weight() {
        // User a has two matches of weight 1, user b one: b gets half, a's two a quarter each.
        let mut queues = owned(&[(1, "a", 1), (2, "a", 1), (3, "b", 1)], 500);
        let granted = one_at_a_time(&mut queues, 400);
        assert_eq!((granted[&1], granted[&2], granted[&3]), (100, 100, 200));
        // Within a user weights count; across users they do not.
        let mut queues = owned(&[(1, "a", 3), (2, "a", 1), (3, "b", 1)], 500);
        let granted = one_at_a_time(&mut queues, 400);
        assert_eq!((granted[&1], granted[&2], granted[&3]), (150, 50, 200));
    }

    #[test]
    fn one_owner_for_every_match_is_the_sharing_by_weight() {
        for owner in ["", "a"] {
            let mut queues = owned(&[(1, owner, 3), (2, owner, 1)], 500);
            let granted = one_at_a_time(&mut queues, 400);
            assert_eq!((granted[&1], granted[&2]), (300, 100), "{owner:?}");
        }
    }

    #[test]
    fn a_users_held_leases_count_over_all_their_matches() {
        let mut queues = owned(&[(1, "a", 1), (2, "a", 1), (3, "b", 1)], 100);
        // User a holds 4 leases (3 on match 1, 1 on match 2), b none: b catches up first,
        // then the users alternate, a's turns going to match 2 until it is level with 1.
        let mut held = HashMap::from([(1, 3), (2, 1)]);
        let order: Vec<u64> = (0..8)
            .map(|_| queues.take(&mut held, |_| true).unwrap().0)
            .collect();
        assert_eq!(order, [3, 3, 3, 3, 2, 3, 2, 3]);
        assert_eq!(held, HashMap::from([(1, 3), (2, 3), (3, 6)]));
    }

    #[test]
    fn a_late_user_starts_level_and_leaves_when_their_pairs_are_gone() {
        let mut queues = owned(&[(1, "a", 1)], 100);
        one_at_a_time(&mut queues, 50);
        for p in 0..10 {
            queues.push(2, 2000 + p, false);
        }
        queues.set_share(2, "b", 1);
        // Restored pairs move to their owner once the record is read; b is not owed 50.
        let granted = one_at_a_time(&mut queues, 20);
        assert_eq!((granted[&1], granted[&2]), (10, 10));
        assert!(queues.users.keys().eq(["a"]));
        assert_eq!((queues.owner(2), queues.weight(2)), ("b", 1));
        let cancelled: HashSet<u64> = (1000..1100).collect();
        assert_eq!(queues.remove(&cancelled), 40);
        assert!(queues.users.is_empty() && queues.queues.is_empty());
    }
}
