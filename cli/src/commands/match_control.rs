//! `pentagrid match list` and `pentagrid match stop`: the stored matches by state (with each
//! one's progress and share of the workers), and stopping a running match. The calls are
//! [`pentagrid_client::matches`]; this module parses and prints.

use anyhow::Result;
use clap::ValueEnum;
use pentagrid_client::matches::{self, MatchRecord, MatchState};
use serde_json::json;

use super::matchplay::state_name;
use super::target::Target;
use crate::output::{self, outln};

/// Which matches `match list` shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum StateFilter {
    /// Pairs still queued or being played.
    Running,
    /// Every match that is over: decided, complete or stopped.
    Finished,
    /// Stopped (by `match stop`, or by failed or cancelled pairs).
    Stopped,
    /// Every pair played without a decision.
    Complete,
    /// The SPRT accepted H0.
    H0,
    /// The SPRT accepted H1.
    H1,
}

impl StateFilter {
    /// The states it lets through.
    fn states(self) -> Vec<MatchState> {
        match self {
            StateFilter::Running => vec![MatchState::Running],
            StateFilter::Finished => MatchState::ALL
                .into_iter()
                .filter(|s| s.finished())
                .collect(),
            StateFilter::Stopped => vec![MatchState::Stopped],
            StateFilter::Complete => vec![MatchState::Complete],
            StateFilter::H0 => vec![MatchState::AcceptedH0],
            StateFilter::H1 => vec![MatchState::AcceptedH1],
        }
    }
}

/// A match's line in `match list`: id, state, pairs done of total, leased, weight, owner (`-`:
/// none), players.
fn line(record: &MatchRecord) -> String {
    format!(
        "{:>6}  {:<8}  {:>7} of {:<7}  {:>6}  {:>6}  {:<12}  {} vs {}",
        record.id,
        state_name(record.state),
        record.pairs_done,
        record.pairs,
        record.pairs_leased,
        record.weight,
        owner_text(&record.owner),
        output::player(&record.a),
        output::player(&record.b)
    )
}

/// A match's owner as text: its user, or `-` for none.
fn owner_text(owner: &str) -> &str {
    if owner.is_empty() { "-" } else { owner }
}

/// Adds `"owner"` to a match's JSON object when it has one (matches of no user print as they
/// did before users existed).
pub(super) fn with_owner(mut value: serde_json::Value, owner: &str) -> serde_json::Value {
    if !owner.is_empty()
        && let Some(object) = value.as_object_mut()
    {
        object.insert("owner".into(), owner.into());
    }
    value
}

/// A match as `match list --json` and `match stop --json` print it.
fn json_of(record: &MatchRecord) -> serde_json::Value {
    let value = json!({
        "match_id": record.id, "state": state_name(record.state),
        "a_name": pentago::player_label(&record.a), "b_name": pentago::player_label(&record.b),
        "a": output::player_spec(&record.a), "b": output::player_spec(&record.b),
        "pairs": record.pairs, "pairs_done": record.pairs_done,
        "pairs_leased": record.pairs_leased, "weight": record.weight,
        "tournament_id": record.tournament_id,
    });
    with_owner(value, &record.owner)
}

/// `match list`: the stored matches (in the states `state` lets through), newest first.
pub fn list(state: Option<StateFilter>, as_json: bool, target: &Target) -> Result<()> {
    let states = state.map(StateFilter::states).unwrap_or_default();
    let records = target.read(async |client| Ok(matches::list_in(client, &states).await?))?;
    if as_json {
        let all: Vec<_> = records.iter().map(json_of).collect();
        outln!("{}", json!({ "matches": all }));
        return Ok(());
    }
    if records.is_empty() {
        outln!("no matches");
        return Ok(());
    }
    outln!(
        "{:>6}  {:<8}  {:>18}  {:>6}  {:>6}  {:<12}  players",
        "match",
        "state",
        "pairs done",
        "leased",
        "weight",
        "owner"
    );
    for record in &records {
        outln!("{}", line(record));
    }
    Ok(())
}

/// `match stop ID`: stops a running match; its played pairs are kept.
pub fn stop(id: u64, as_json: bool, target: &Target) -> Result<()> {
    let stopped = target.read(async |client| Ok(matches::stop(client, id).await?))?;
    let record = &stopped.record;
    if as_json {
        let mut answer = json_of(record);
        answer["cancelled_pairs"] = stopped.cancelled_pairs.into();
        outln!("{answer}");
    } else {
        outln!(
            "match {id} stopped: {} unplayed pairs cancelled, {} of {} pairs played and kept",
            stopped.cancelled_pairs,
            record.pairs_done,
            record.pairs
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_lets_through_every_state_but_running() {
        let finished = StateFilter::Finished.states();
        assert_eq!(finished.len(), MatchState::ALL.len() - 1);
        assert!(!finished.contains(&MatchState::Running));
        assert_eq!(StateFilter::Running.states(), [MatchState::Running]);
    }
}
