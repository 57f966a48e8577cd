//! Stored matches, their pairs and stored self-play games: records, pages and scans.

use std::collections::BTreeSet;

use pentagrid_model::Task;
use prost::Message;

use crate::game::Game;
use crate::job::{Job, JobState};
use crate::match_record::MatchRecord;

use super::{
    Store, StoreError, StoredGame, StoredJob, StoredMatch, StoredPair, abort, all_records, corrupt,
    get_record, id_of, pair_key, put_record,
};

impl Store {
    /// Stores a match record as it is (durable at the next flush).
    pub fn put_match(&self, id: u64, record: &StoredMatch) -> Result<(), StoreError> {
        let _writing = self.writing();
        put_record(&self.matches, id, record)
    }

    /// Stores a new match: its settings, with every count at zero (durable at the next
    /// flush).
    pub fn create_match(&self, id: u64, record: &MatchRecord) -> Result<(), StoreError> {
        self.put_match(id, &StoredMatch::new_match(record))
    }

    /// Records that match `id` was stopped (in a transaction, so a pair result stored at the
    /// same moment keeps its counts); returns its record as stopped, `None` when there is no
    /// such match.
    pub fn stop_match(&self, id: u64) -> Result<Option<MatchRecord>, StoreError> {
        let _writing = self.writing();
        let key = id.to_be_bytes();
        let stopped = self.matches.transaction(|matches| {
            let Some(bytes) = matches.get(key)? else {
                return Ok(None);
            };
            let mut record = StoredMatch::decode(bytes.as_ref()).map_err(abort("match"))?;
            record.stop();
            matches.insert(&key, record.encode_to_vec())?;
            Ok(Some(MatchRecord::from(&record)))
        })?;
        Ok(stopped)
    }

    /// A match record.
    pub fn match_record(&self, id: u64) -> Result<Option<MatchRecord>, StoreError> {
        let stored: Option<StoredMatch> = get_record(&self.matches, id, "match")?;
        Ok(stored.as_ref().map(MatchRecord::from))
    }

    /// Stored matches with ids below `before` (every id when 0), newest first, at most `limit`.
    /// A match's record key (its id) sorts just before its pairs' keys (id ‖ pair), so each
    /// step back skips a whole match in one seek.
    pub fn matches_before(
        &self,
        before: u64,
        limit: usize,
    ) -> Result<Vec<(u64, MatchRecord)>, StoreError> {
        let mut found = Vec::new();
        let mut bound = if before == 0 { None } else { Some(before) };
        while found.len() < limit {
            let last = match bound {
                Some(id) => self.matches.range(..id.to_be_bytes()).next_back(),
                None => self.matches.iter().next_back(),
            };
            let Some(entry) = last else { break };
            let (key, _) = entry?;
            let id = id_of(&key[..8], "match")?;
            if let Some(record) = self.match_record(id)? {
                found.push((id, record));
            }
            bound = Some(id);
        }
        Ok(found)
    }

    /// How many matches are stored: one seek per match, past its pairs.
    pub(crate) fn match_count(&self) -> Result<u64, StoreError> {
        let mut count = 0;
        let mut from = Some(0u64);
        while let Some(id) = from {
            let Some(entry) = self.matches.range(id.to_be_bytes()..).next() else {
                break;
            };
            let (key, _) = entry?;
            let id = id_of(key.get(..8).unwrap_or(&key), "match")?;
            // A match's record key is its bare id; its pairs' keys are longer.
            count += u64::from(key.len() == 8);
            from = id.checked_add(1);
        }
        Ok(count)
    }

    /// The games of a match's stored pairs from pair index `from` on (A black first), by pair
    /// index, at most `limit` pairs.
    pub fn match_pairs(
        &self,
        id: u64,
        from: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<Game>)>, StoreError> {
        let mut pairs = Vec::new();
        let range = self
            .matches
            .range(pair_key(id, from)..=pair_key(id, u64::MAX));
        for entry in range.take(limit) {
            let (key, value) = entry?;
            let index = id_of(&key[8..], "pair")?;
            let pair = StoredPair::decode(value.as_ref()).map_err(|e| corrupt("pair", e))?;
            pairs.push((index, pair.games.into_iter().map(Game::from).collect()));
        }
        Ok(pairs)
    }

    /// The tasks of the cancelled pairs of `match_ids` that have no stored result: what a
    /// match whose SPRT decision a purge undid has left to play. Scans every job record (a
    /// purge is rare); a record that does not read is skipped.
    pub fn cancelled_pairs(&self, match_ids: &BTreeSet<u64>) -> Result<Vec<Task>, StoreError> {
        let mut tasks = Vec::new();
        for entry in self.jobs.iter() {
            let (_, bytes) = entry?;
            let Ok(stored) = StoredJob::decode(bytes.as_ref()) else {
                continue;
            };
            let Ok(Job {
                state: JobState::Cancelled,
                task: Some(task),
                ..
            }) = Job::try_from(stored)
            else {
                continue;
            };
            if let Task::Pair { match_id, pair, .. } = task
                && match_ids.contains(&match_id)
                && !self.matches.contains_key(pair_key(match_id, pair))?
            {
                tasks.push(task);
            }
        }
        Ok(tasks)
    }

    /// Every stored self-play game with its job id.
    pub fn games(&self) -> impl Iterator<Item = Result<(u64, Game), StoreError>> + '_ {
        all_records::<StoredGame>(&self.games, "game")
            .map(|entry| entry.map(|(id, game)| (id, Game::from(game))))
    }

    /// Up to `limit` stored games with their job ids, in job-id order from `from` on
    /// (inclusive): a page of [`Store::games`].
    pub fn games_from(&self, from: u64, limit: usize) -> Result<Vec<(u64, Game)>, StoreError> {
        self.games
            .range(from.to_be_bytes()..)
            .take(limit)
            .map(|entry| {
                let (key, bytes) = entry?;
                let game = StoredGame::decode(bytes.as_ref()).map_err(|e| corrupt("game", e))?;
                Ok((id_of(&key, "game")?, Game::from(game)))
            })
            .collect()
    }
}
