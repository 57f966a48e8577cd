//! Engine matches as stored: the match record with its running counts (and accuracy against
//! perfect play, when measured) and one record per played pair. Encoded with protobuf (prost)
//! field tags that never change meaning, so the format is stable and evolves only by adding
//! fields; records written before a field existed read it as its default.

use pentago::{Accuracy, MatchAccuracy, MatchScore};
use pentagrid_rating::{Sprt, SprtDecision};

use prost::Message;
use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::{StoreError, StoredGame, abort, pair_key};
use crate::match_record::{MatchControl, MatchRecord};

/// An engine match, stored under its id (8 bytes) in the `matches` tree. Its counts change in
/// the same transaction as each pair result, so they always equal the stored pairs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredMatch {
    /// Player A (text form: `NAME=SPEC` for a named player, `SPEC` otherwise — as every match
    /// stored before names existed; see `pentago::NamedPlayer`).
    #[prost(string, tag = "1")]
    pub a: String,
    /// Player B.
    #[prost(string, tag = "2")]
    pub b: String,
    /// Pairs asked for.
    #[prost(uint64, tag = "3")]
    pub pairs: u64,
    /// The SPRT (text form), empty for none.
    #[prost(string, tag = "4")]
    pub sprt: String,
    /// Where the openings came from (text form).
    #[prost(string, tag = "5")]
    pub openings: String,
    /// Seed of the openings.
    #[prost(uint64, tag = "6")]
    pub seed: u64,
    /// Pairs stored.
    #[prost(uint64, tag = "7")]
    pub pairs_done: u64,
    /// A's games won, drawn and lost.
    #[prost(uint64, tag = "8")]
    pub wins: u64,
    /// A's games won, drawn and lost.
    #[prost(uint64, tag = "9")]
    pub draws: u64,
    /// A's games won, drawn and lost.
    #[prost(uint64, tag = "10")]
    pub losses: u64,
    /// Pairs by A's points: 0, ½, 1, 1½, 2.
    #[prost(uint64, repeated, tag = "11")]
    pub pentanomial: Vec<u64>,
    /// Pairs stored when the SPRT decided; 0 while undecided.
    #[prost(uint64, tag = "12")]
    pub decided_after: u64,
    /// 1 when the SPRT accepted H1, 0 otherwise (meaningful once decided).
    #[prost(bool, tag = "13")]
    pub accepted_h1: bool,
    /// Moves from positions with at least this many stones are judged against perfect play;
    /// Absent: accuracy is not measured (and matches stored before it existed, or with the
    /// old 0 for not, read so).
    #[prost(uint32, optional, tag = "14")]
    pub accuracy_stones: Option<u32>,
    /// A's accuracy over the stored pairs (while `accuracy_stones` is set).
    #[prost(message, optional, tag = "15")]
    pub a_accuracy: Option<StoredAccuracy>,
    /// B's accuracy over the stored pairs.
    #[prost(message, optional, tag = "16")]
    pub b_accuracy: Option<StoredAccuracy>,
    /// The tournament the match belongs to: the id of its first match; 0 for none (and
    /// matches stored before tournaments existed read so).
    #[prost(uint64, tag = "17")]
    pub tournament: u64,
    /// The tournament's kind (text form: `round-robin`, `gauntlet`); empty for none.
    #[prost(string, tag = "18")]
    pub tournament_kind: String,
    /// The wall-clock time limit of every game (text form); empty: the players' own budgets
    /// (and matches stored before time limits existed read so).
    #[prost(string, tag = "19")]
    pub time_limit: String,
    /// A `file:` opening suite's positions (position notation), as the client sent them;
    /// empty for every other opening source (and matches stored before suites existed).
    #[prost(string, repeated, tag = "22")]
    pub opening_positions: Vec<String>,
    /// The adjudication of every game (text form: `exact:stones=N,budget=SECONDS`, or
    /// `exact:stones=N` as stored before budgets existed, which reads with the default
    /// budget); empty: none (and matches stored before adjudication existed read so).
    #[prost(string, tag = "23")]
    pub adjudicate: String,
    /// The match's share of the workers among running matches; 0 (and matches stored before
    /// weights existed) reads as 1.
    #[prost(uint32, tag = "20")]
    pub weight: u32,
    /// Whether it was stopped: the stable number of its [`MatchControl`] (see
    /// [`StoredMatch::control`]); 0, and matches stored before stops existed, read as open.
    #[prost(uint32, tag = "21")]
    pub control: u32,
    /// The tuning run whose iteration the match plays (see `store::tunes`); 0 for none (and
    /// matches stored before tuning runs existed read so).
    #[prost(uint64, tag = "24")]
    pub tune: u64,
    /// The user whose token created it (or whose tuning run it plays); empty for none: a
    /// token naming no user (and matches stored before users existed read so).
    #[prost(string, tag = "25")]
    pub owner: String,
}

/// The stored number of a match's control (stable).
fn control_number(control: MatchControl) -> u32 {
    match control {
        MatchControl::Open => 0,
        MatchControl::Stopped => 1,
    }
}

/// One player's moves judged against perfect play and, of those, the moves that dropped the
/// exact value.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct StoredAccuracy {
    /// Moves judged.
    #[prost(uint32, tag = "1")]
    pub moves: u32,
    /// Of those, drops.
    #[prost(uint32, tag = "2")]
    pub drops: u32,
}

impl From<Accuracy> for StoredAccuracy {
    fn from(accuracy: Accuracy) -> StoredAccuracy {
        StoredAccuracy {
            moves: accuracy.moves,
            drops: accuracy.drops,
        }
    }
}

impl From<StoredAccuracy> for Accuracy {
    fn from(stored: StoredAccuracy) -> Accuracy {
        Accuracy {
            moves: stored.moves,
            drops: stored.drops,
        }
    }
}

/// A's and B's accuracy as stored in a match or pair record (absent sides read as nothing
/// judged); `None` when the match does not measure it.
fn accuracy_of(
    min_stones: Option<u32>,
    a: Option<StoredAccuracy>,
    b: Option<StoredAccuracy>,
) -> Option<MatchAccuracy> {
    min_stones.map(|min_stones| MatchAccuracy {
        min_stones,
        sides: [a, b].map(|side| side.map(Accuracy::from).unwrap_or_default()),
    })
}

impl StoredMatch {
    /// A's results so far.
    #[must_use]
    pub fn score(&self) -> MatchScore {
        MatchScore::from_counts(self.wins, self.draws, self.losses, &self.pentanomial)
    }

    /// The match's SPRT, if it has one (and it reads back).
    #[must_use]
    pub fn sprt(&self) -> Option<Sprt> {
        self.sprt.parse().ok()
    }

    /// The SPRT's decision as recorded (`Continue` while undecided or without an SPRT).
    #[must_use]
    pub fn decision(&self) -> SprtDecision {
        match (self.decided_after, self.accepted_h1) {
            (0, _) => SprtDecision::Continue,
            (_, true) => SprtDecision::AcceptH1,
            (_, false) => SprtDecision::AcceptH0,
        }
    }

    /// A's and B's accuracy over the stored pairs, when the match measures it.
    #[must_use]
    pub fn accuracy(&self) -> Option<MatchAccuracy> {
        accuracy_of(self.accuracy_stones, self.a_accuracy, self.b_accuracy)
    }

    /// Whether the match was stopped. A number this version does not know (a later version's)
    /// reads as open.
    #[must_use]
    pub fn control(&self) -> MatchControl {
        match self.control {
            1 => MatchControl::Stopped,
            _ => MatchControl::Open,
        }
    }

    /// Records a stop.
    pub fn stop(&mut self) {
        self.control = control_number(MatchControl::Stopped);
    }

    /// Its weight (1 for matches stored before weights existed).
    #[must_use]
    pub fn weight(&self) -> u32 {
        self.weight.max(1)
    }

    /// Counts one pair with A's points in each game (and A's and B's accuracy in it, when
    /// measured), and records the SPRT's decision the first time it decides (see
    /// [`pentago::sprt_stop`]).
    pub fn add_pair(&mut self, game_points: [f64; 2], accuracy: Option<&MatchAccuracy>) {
        if let (Some(mut total), Some(pair)) = (self.accuracy(), accuracy) {
            for (side, add) in total.sides.iter_mut().zip(pair.sides) {
                side.moves = side.moves.saturating_add(add.moves);
                side.drops = side.drops.saturating_add(add.drops);
            }
            self.a_accuracy = Some(total.sides[0].into());
            self.b_accuracy = Some(total.sides[1].into());
        }
        let mut score = self.score();
        score.add_pair(game_points);
        self.wins = score.games.wins;
        self.draws = score.games.draws;
        self.losses = score.games.losses;
        self.pentanomial = score.pairs.counts.to_vec();
        self.pairs_done += 1;
        if self.decided_after == 0 {
            let decision = pentago::sprt_stop(&score, self.sprt().as_ref());
            if decision != SprtDecision::Continue {
                self.decided_after = self.pairs_done;
                self.accepted_h1 = decision == SprtDecision::AcceptH1;
            }
        }
    }
}

/// A match pair as a worker's result recorded it on its word (see [`super::word`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordPair {
    /// The match.
    pub match_id: u64,
    /// The pair's index.
    pub pair: u64,
    /// A's points in each game, doubled (0 loss, 1 draw, 2 win).
    pub a_half_points: Vec<u32>,
}

/// A pair a purge took out of its match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PurgedPair {
    /// The match.
    pub match_id: u64,
    /// The pair's index.
    pub pair: u64,
    /// The job that played it (its task is what to play again).
    pub job_id: u64,
    /// Whether the match's SPRT had decided and no longer does without the pair: its pairs
    /// cancelled at the decision are to be played too.
    pub undecided: bool,
    /// The tuning run the match is an iteration of (0: none).
    pub tune: u64,
    /// A's points in each of the pair's games, doubled, as the score had them.
    pub a_half_points: Vec<u32>,
    /// Whether the pair is to be played again as far as its match's owner goes: always for an
    /// ordinary match; for a tuning run's, only while its iteration's step is not taken (see
    /// [`super::tune_purge`]).
    pub replay: bool,
}

impl StoredMatch {
    /// Takes one stored pair back out of the score: its games (A's points in each, doubled),
    /// its pair total and its accuracy. An SPRT that had decided is judged again on the pairs
    /// kept, so that no decision rests on a purged pair.
    pub fn remove_pair(&mut self, a_half_points: &[u32], accuracy: Option<&MatchAccuracy>) {
        if let (Some(mut total), Some(pair)) = (self.accuracy(), accuracy) {
            for (side, taken) in total.sides.iter_mut().zip(pair.sides) {
                side.moves = side.moves.saturating_sub(taken.moves);
                side.drops = side.drops.saturating_sub(taken.drops);
            }
            self.a_accuracy = Some(total.sides[0].into());
            self.b_accuracy = Some(total.sides[1].into());
        }
        for &half in a_half_points {
            let count = match half {
                2 => &mut self.wins,
                1 => &mut self.draws,
                _ => &mut self.losses,
            };
            *count = count.saturating_sub(1);
        }
        let slot = a_half_points.iter().sum::<u32>() as usize;
        if let Some(count) = self.pentanomial.get_mut(slot) {
            *count = count.saturating_sub(1);
        }
        self.pairs_done = self.pairs_done.saturating_sub(1);
        if self.decided_after > 0 {
            let decision = pentago::sprt_stop(&self.score(), self.sprt().as_ref());
            self.decided_after = match decision {
                SprtDecision::Continue => 0,
                _ => self.pairs_done.max(1),
            };
            self.accepted_h1 = decision == SprtDecision::AcceptH1;
        }
    }
}

/// Takes each of `pairs` out of its match inside a purge's transaction: the pair's record goes
/// and the match's score loses it. A pair no longer stored (purged already) is skipped.
pub(super) fn take_back_pairs(
    matches: &TransactionalTree,
    pairs: &[WordPair],
) -> ConflictableTransactionResult<Vec<PurgedPair>, StoreError> {
    let mut taken = Vec::new();
    for word in pairs {
        let pair_at = pair_key(word.match_id, word.pair);
        let Some(bytes) = matches.get(pair_at)? else {
            continue;
        };
        let stored = StoredPair::decode(bytes.as_ref()).map_err(abort("pair"))?;
        let match_at = word.match_id.to_be_bytes();
        let Some(bytes) = matches.get(match_at)? else {
            continue;
        };
        let mut record = StoredMatch::decode(bytes.as_ref()).map_err(abort("match"))?;
        let decided = record.decided_after > 0;
        record.remove_pair(&word.a_half_points, stored.accuracy().as_ref());
        matches.remove(&pair_at)?;
        matches.insert(&match_at, record.encode_to_vec())?;
        taken.push(PurgedPair {
            match_id: word.match_id,
            pair: word.pair,
            job_id: stored.job_id,
            undecided: decided && record.decided_after == 0,
            tune: record.tune,
            a_half_points: word.a_half_points.clone(),
            replay: record.tune == 0,
        });
    }
    Ok(taken)
}

impl From<&StoredMatch> for MatchRecord {
    fn from(stored: &StoredMatch) -> MatchRecord {
        MatchRecord {
            a: stored.a.clone(),
            b: stored.b.clone(),
            pairs: stored.pairs,
            sprt: stored.sprt.clone(),
            openings: stored.openings.clone(),
            seed: stored.seed,
            pairs_done: stored.pairs_done,
            score: stored.score(),
            decision: stored.decision(),
            decided_after: stored.decided_after,
            accuracy: stored.accuracy(),
            tournament: stored.tournament,
            tournament_kind: stored.tournament_kind.clone(),
            time_limit: stored.time_limit.clone(),
            weight: stored.weight(),
            control: stored.control(),
            opening_positions: stored.opening_positions.clone(),
            adjudicate: stored.adjudicate.clone(),
            tune: stored.tune,
            owner: stored.owner.clone(),
        }
    }
}

impl StoredMatch {
    /// The stored form of a new match: its settings, with every count at zero (whatever
    /// `record` counts) and the accuracy threshold, when measured.
    #[must_use]
    pub fn new_match(record: &MatchRecord) -> StoredMatch {
        StoredMatch {
            a: record.a.clone(),
            b: record.b.clone(),
            pairs: record.pairs,
            sprt: record.sprt.clone(),
            openings: record.openings.clone(),
            seed: record.seed,
            pentanomial: vec![0; 5],
            accuracy_stones: record.accuracy.as_ref().map(|a| a.min_stones),
            tournament: record.tournament,
            tournament_kind: record.tournament_kind.clone(),
            time_limit: record.time_limit.clone(),
            weight: record.weight,
            control: control_number(record.control),
            opening_positions: record.opening_positions.clone(),
            adjudicate: record.adjudicate.clone(),
            tune: record.tune,
            owner: record.owner.clone(),
            ..StoredMatch::default()
        }
    }
}

/// One played pair, stored under match id ‖ pair index (16 bytes) in the `matches` tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredPair {
    /// The job that played it.
    #[prost(uint64, tag = "1")]
    pub job_id: u64,
    /// A's points (0 to 4 half points).
    #[prost(uint32, tag = "2")]
    pub a_half_points: u32,
    /// A black, then B black.
    #[prost(message, repeated, tag = "3")]
    pub games: Vec<StoredGame>,
    /// The stone threshold of the accuracy below; absent: not measured.
    #[prost(uint32, optional, tag = "4")]
    pub accuracy_stones: Option<u32>,
    /// A's accuracy in the pair's games.
    #[prost(message, optional, tag = "5")]
    pub a_accuracy: Option<StoredAccuracy>,
    /// B's accuracy in the pair's games.
    #[prost(message, optional, tag = "6")]
    pub b_accuracy: Option<StoredAccuracy>,
}

impl StoredPair {
    /// A's and B's accuracy in this pair, when measured.
    #[must_use]
    pub fn accuracy(&self) -> Option<MatchAccuracy> {
        accuracy_of(self.accuracy_stones, self.a_accuracy, self.b_accuracy)
    }

    /// The record with A's and B's accuracy set.
    #[must_use]
    pub fn with_accuracy(self, accuracy: Option<&MatchAccuracy>) -> StoredPair {
        StoredPair {
            accuracy_stones: accuracy.map(|a| a.min_stones),
            a_accuracy: accuracy.map(|a| a.sides[0].into()),
            b_accuracy: accuracy.map(|a| a.sides[1].into()),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    /// A match record as stored before opening suites and adjudication existed (tags 1 to
    /// 19; these four are all it set), written out byte by byte: the bytes such a coordinator left on disk.
    #[test]
    fn a_match_stored_before_suites_and_adjudication_still_opens() {
        let mut old = Vec::new();
        for (tag, text) in [
            (1u8, "uct:playouts=50"),
            (2, "random"),
            (5, "random:plies=2"),
        ] {
            old.extend([tag << 3 | 2, text.len() as u8]);
            old.extend(text.as_bytes());
        }
        old.extend([3 << 3, 4]); // pairs 4
        let record = MatchRecord::from(&StoredMatch::decode(old.as_slice()).unwrap());
        assert_eq!((record.a.as_str(), record.pairs), ("uct:playouts=50", 4));
        assert_eq!(record.openings, "random:plies=2");
        assert!(record.opening_positions.is_empty());
        assert_eq!(record.adjudicate, "");

        let suite = MatchRecord {
            openings: "file:s.txt".into(),
            opening_positions: vec![
                "start".into(),
                "....../....../..x.../....../....../......".into(),
            ],
            adjudicate: "exact:stones=20".into(),
            ..record
        };
        let stored = StoredMatch::new_match(&suite);
        let read =
            MatchRecord::from(&StoredMatch::decode(stored.encode_to_vec().as_slice()).unwrap());
        assert_eq!(read.opening_positions, suite.opening_positions);
        assert_eq!(read.adjudicate, suite.adjudicate);
    }

    #[test]
    fn a_match_adds_up_accuracy_and_one_stored_without_it_reads_as_unmeasured() {
        // A match record as stored before accuracy existed: tags 1 to 13 only.
        let old = StoredMatch {
            a: "random".into(),
            pairs: 4,
            pentanomial: vec![0; 5],
            ..StoredMatch::default()
        };
        let mut read = StoredMatch::decode(old.encode_to_vec().as_slice()).unwrap();
        assert_eq!(read.accuracy(), None);
        read.add_pair([1.0, 0.0], None);
        assert_eq!((read.pairs_done, read.accuracy()), (1, None));

        let pair = |a: (u32, u32), b: (u32, u32)| MatchAccuracy {
            min_stones: 22,
            sides: [a, b].map(|(moves, drops)| Accuracy { moves, drops }),
        };
        let mut measured = StoredMatch {
            accuracy_stones: Some(22),
            ..old
        };
        assert_eq!(measured.accuracy(), Some(pair((0, 0), (0, 0))));
        measured.add_pair([0.5, 0.5], Some(&pair((5, 1), (4, 0))));
        measured.add_pair([1.0, 1.0], Some(&pair((3, 0), (6, 2))));
        let read = StoredMatch::decode(measured.encode_to_vec().as_slice()).unwrap();
        assert_eq!(read.accuracy(), Some(pair((8, 1), (10, 2))));

        let stored = StoredPair::default().with_accuracy(Some(&pair((5, 1), (4, 0))));
        let read = StoredPair::decode(stored.encode_to_vec().as_slice()).unwrap();
        assert_eq!(read.accuracy(), Some(pair((5, 1), (4, 0))));
        assert_eq!(StoredPair::default().accuracy(), None);
        // Judged from 0 stones on: present, not "not measured".
        let from_zero = MatchAccuracy {
            min_stones: 0,
            sides: [
                Accuracy { moves: 7, drops: 2 },
                Accuracy { moves: 6, drops: 0 },
            ],
        };
        let stored = StoredPair::default().with_accuracy(Some(&from_zero));
        let read = StoredPair::decode(stored.encode_to_vec().as_slice()).unwrap();
        assert_eq!(read.accuracy(), Some(from_zero));
    }

    #[test]
    fn a_removed_pair_leaves_the_score_as_if_never_played_and_the_sprt_is_judged_again() {
        let pair = |moves: u32| MatchAccuracy {
            min_stones: 0,
            sides: [Accuracy { moves, drops: 1 }, Accuracy { moves, drops: 0 }],
        };
        let mut record = StoredMatch {
            pairs: 100,
            pentanomial: vec![0; 5],
            accuracy_stones: Some(0),
            sprt: "elo0=0,elo1=200,alpha=0.05,beta=0.05".into(),
            ..StoredMatch::default()
        };
        for _ in 0..3 {
            record.add_pair([1.0, 0.5], Some(&pair(4)));
        }
        let before = record.clone();
        record.add_pair([0.0, 0.0], Some(&pair(9)));
        record.remove_pair(&[0, 0], Some(&pair(9)));
        assert_eq!(record, before, "as if the pair had never been played");
        // Wins all along decide H1; without enough of them the decision is taken back.
        let mut decided = before.clone();
        while decided.decided_after == 0 {
            decided.add_pair([1.0, 1.0], None);
        }
        assert!(decided.accepted_h1);
        let at = decided.decided_after;
        decided.remove_pair(&[2, 2], None);
        assert_eq!(
            decided.decided_after,
            0,
            "decided on {at} pairs, not on {}",
            at - 1
        );
        assert!(!decided.accepted_h1);
        decided.add_pair([1.0, 1.0], None);
        assert_eq!(decided.decided_after, at);
        // Nothing underflows on a record that holds less than the pair.
        let mut empty = StoredMatch::default();
        empty.remove_pair(&[2, 1], Some(&pair(3)));
        assert_eq!((empty.pairs_done, empty.wins, empty.draws), (0, 0, 0));
    }

    #[test]
    fn a_match_stored_before_weights_and_stops_reads_open_with_weight_one() {
        // Tags 1 to 19 only, as every match stored before weights and stops.
        let old = StoredMatch {
            a: "random".into(),
            pairs: 4,
            time_limit: "move:1".into(),
            ..StoredMatch::default()
        };
        let read = StoredMatch::decode(old.encode_to_vec().as_slice()).unwrap();
        let record = MatchRecord::from(&read);
        assert_eq!((record.weight, record.control), (1, MatchControl::Open));

        let mut stopped = StoredMatch::new_match(&MatchRecord {
            weight: 7,
            ..record
        });
        stopped.stop();
        let read = StoredMatch::decode(stopped.encode_to_vec().as_slice()).unwrap();
        let record = MatchRecord::from(&read);
        assert_eq!((record.weight, record.control), (7, MatchControl::Stopped));
        assert_eq!(record.time_limit, "move:1", "other fields kept");
        // A later version's control this one does not know reads as open.
        let later = StoredMatch { control: 9, ..read };
        assert_eq!(later.control(), MatchControl::Open);
    }

    #[test]
    fn a_match_stored_before_users_reads_as_no_users_and_an_owner_is_kept() {
        // Tags 1 to 24 only, as every match stored before users.
        let old = StoredMatch {
            a: "random".into(),
            weight: 2,
            tune: 5,
            ..StoredMatch::default()
        };
        let read = StoredMatch::decode(old.encode_to_vec().as_slice()).unwrap();
        let record = MatchRecord::from(&read);
        assert_eq!((record.owner.as_str(), record.weight), ("", 2));
        let owned = StoredMatch::new_match(&MatchRecord {
            owner: "ann".into(),
            ..record
        });
        let read = StoredMatch::decode(owned.encode_to_vec().as_slice()).unwrap();
        let record = MatchRecord::from(&read);
        assert_eq!((record.owner.as_str(), record.tune), ("ann", 5));
    }
}
