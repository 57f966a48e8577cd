//! Game records of matches, tournaments and self-play (the format is [`pentago::Record`]'s,
//! documented in docs/game-records.md): a stored match game as a record (with each move's
//! time and, under a whole-game control, the mover's clock, where known), the games of a
//! running match that were not yet written (`--games-out`, streamed as pairs finish), and a
//! stored match's export.

use std::collections::{BTreeSet, HashMap};

use pentago::{
    GameRecord, MatchScore, MoveNote, NamedPlayer, Position, Record, RecordPlayer, RecordedMove,
    Termination,
};
use pentagrid_proto::Client;

use crate::error::{ClientError, ProgressResult, Result, Stop};
use crate::matches::{MatchGame, MatchOutcome, MatchRecord, follow_then};

/// A player as a record names it, from its stored text (`NAME=SPEC` or `SPEC`): the name (or
/// the short specification) and the full specification. Text that does not read as a player
/// is both.
#[must_use]
pub fn record_player(text: &str) -> RecordPlayer {
    match text.parse::<NamedPlayer>() {
        Ok(named) => RecordPlayer {
            name: named.label(),
            spec: named.spec(),
        },
        Err(_) => RecordPlayer {
            name: text.to_owned(),
            spec: text.to_owned(),
        },
    }
}

/// The record of game `game` of stored match `record` (`first`: the pair's first game, A
/// black), dated `date` (`YYYY.MM.DD`, or [`pentago::UNKNOWN_DATE`]).
#[must_use]
pub fn match_game_record(
    record: &MatchRecord,
    game: &MatchGame,
    first: bool,
    date: &str,
) -> Record {
    let (a, b) = (record_player(&record.a), record_player(&record.b));
    let (black, white) = if first { (a, b) } else { (b, a) };
    let mut out = Record::new(
        black,
        white,
        game.opening,
        timed_moves(record, game),
        game.result,
    );
    out.event = match record.tournament_id {
        0 => format!("match {}", record.id),
        t => format!("tournament {t} match {}", record.id),
    };
    out.round = format!("pair {} game {}", game.pair, if first { 1 } else { 2 });
    date.clone_into(&mut out.date);
    if !record.time_limit.is_empty() {
        out.time_control.clone_from(&record.time_limit);
    }
    if let Some(forfeit) = &game.forfeit {
        out.termination = Termination::Forfeit {
            loser: forfeit.loser,
            reason: forfeit.reason.name().to_owned(),
        };
        if !forfeit.detail.is_empty() {
            out.other_tags
                .push(("ForfeitDetail".into(), forfeit.detail.clone()));
        }
    }
    if let Some(source) = game.adjudicated {
        out.termination = Termination::Adjudicated {
            source: source.name().to_owned(),
        };
    }
    if !game.time_scale.is_one() {
        out.other_tags
            .push(("TimeScale".into(), game.time_scale.to_string()));
    }
    out
}

/// The moves of a stored match game, each with the time it took where known, under a
/// whole-game control the mover's clock after it, and the mover's score where its player gave
/// one.
fn timed_moves(record: &MatchRecord, game: &MatchGame) -> Vec<RecordedMove> {
    let clocks = game.clocks(&record.time_limit);
    let first = game.opening.side_to_move();
    game.moves
        .iter()
        .enumerate()
        .map(|(index, &mv)| RecordedMove {
            mv,
            note: MoveNote {
                time: game.move_times.seconds(index),
                clock: clocks.as_ref().and_then(|c| c.mover_after(first, index)),
                score: game.move_scores.points(index),
                ..MoveNote::default()
            },
        })
        .collect()
}

/// The record of a game played here (self-play): `event` and `round` name it.
#[must_use]
pub fn played_game_record(
    game: &GameRecord,
    black: &NamedPlayer,
    white: &NamedPlayer,
    event: &str,
    round: &str,
    date: &str,
) -> Record {
    let player = |p: &NamedPlayer| RecordPlayer {
        name: p.label(),
        spec: p.spec(),
    };
    let moves = game.moves.iter().copied().map(RecordedMove::from).collect();
    let mut out = Record::new(player(black), player(white), game.start, moves, game.result);
    event.clone_into(&mut out.event);
    round.clone_into(&mut out.round);
    date.clone_into(&mut out.date);
    out
}

/// Match `match_id` with the games of its pairs from `from_pair` on (read page by page).
async fn games_from(client: &Client, match_id: u64, from_pair: u64) -> Result<MatchRecord> {
    crate::matches::status_from_pair(client, match_id, (true, 0), from_pair).await
}

/// The games of running matches not yet handed out, pair by pair: pairs finish in any order
/// on a cluster, so it remembers which pairs of each match it has written.
#[derive(Debug, Default)]
pub struct NewGames {
    written: HashMap<u64, BTreeSet<u64>>,
}

impl NewGames {
    /// The records of match `match_id`'s pairs stored since the last call, dated `date`, in
    /// pair order (each pair's two games together).
    ///
    /// # Errors
    /// The coordinator could not be asked, or answered what does not read.
    pub async fn poll(
        &mut self,
        client: &Client,
        match_id: u64,
        date: &str,
    ) -> Result<Vec<Record>> {
        let written = self.written.entry(match_id).or_default();
        // Every pair below the first gap was written before: ask from the gap on.
        let from = (0..).find(|p| !written.contains(p)).unwrap_or(0);
        let record = games_from(client, match_id, from).await?;
        let mut out = Vec::new();
        for pair in record.games.chunks(2) {
            let [first, second] = pair else { continue };
            if first.pair != second.pair || !written.insert(first.pair) {
                continue;
            }
            out.push(match_game_record(&record, first, true, date));
            out.push(match_game_record(&record, second, false, date));
        }
        Ok(out)
    }
}

/// A failed write of records, as the error that ends the following.
fn writing_failed(source: Stop) -> ClientError {
    ClientError::Stopped {
        context: "writing the match's games".into(),
        source,
    }
}

/// [`crate::matches::follow`], handing `games` the records of the games of each newly stored
/// pair (pairs finish in any order; each is handed once), dated `date`. A failure of `games`
/// stops following at once, as one of `progress` does.
///
/// # Errors
/// As [`crate::matches::follow`], or `games` failed.
pub async fn follow_match(
    client: &Client,
    match_id: u64,
    progress: &mut dyn FnMut(&MatchScore) -> ProgressResult,
    date: &str,
    games: &mut dyn FnMut(&[Record]) -> ProgressResult,
) -> Result<MatchOutcome> {
    let mut new_games = NewGames::default();
    let outcome = follow_then(client, match_id, progress, async || {
        let records = new_games.poll(client, match_id, date).await?;
        games(&records).map_err(writing_failed)
    })
    .await?;
    // Pairs stored between the last progress report and the end.
    let records = new_games.poll(client, match_id, date).await?;
    games(&records).map_err(writing_failed)?;
    Ok(outcome)
}

/// Every stored game of match `match_id` as records (their day is not stored: unknown).
///
/// # Errors
/// The coordinator could not be asked (no such match among them), or answered what does not
/// read.
pub async fn export_match(client: &Client, match_id: u64) -> Result<Vec<Record>> {
    let record = games_from(client, match_id, 0).await?;
    Ok(record
        .games
        .chunks(2)
        .flat_map(|pair| {
            pair.iter()
                .enumerate()
                .map(|(i, game)| match_game_record(&record, game, i == 0, pentago::UNKNOWN_DATE))
        })
        .collect())
}

/// The final positions of every record, replayed under the rules, or the first that does not
/// replay (its index and why).
///
/// # Errors
/// A record whose moves break the rules or do not give its result.
pub fn replay_all(
    records: &[Record],
) -> std::result::Result<Vec<Position>, (usize, pentago::ReplayError)> {
    records
        .iter()
        .enumerate()
        .map(|(i, r)| r.replay().map_err(|e| (i, e)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Color, Move, Status};
    use pentagrid_proto::v2;

    use crate::matches::match_record;

    fn stored(a: &str, b: &str) -> MatchRecord {
        match_record(v2::MatchStatusResponse {
            match_id: 3,
            a: a.into(),
            b: b.into(),
            pairs: 4,
            time_limit: "move:0.5".into(),
            state: v2::MatchState::Running as i32,
            ..v2::MatchStatusResponse::default()
        })
        .unwrap()
    }

    #[test]
    fn match_games_become_records_with_names_and_specs() {
        let record = stored("fast=random", "flat:playouts=10");
        let moves: Vec<Move> = ["a1-1R", "b1-1R"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let game = MatchGame {
            pair: 4,
            opening: Position::START,
            black: "flat:playouts=10".into(),
            white: "random".into(),
            moves,
            result: Status::Won(Color::Black),
            forfeit: Some(crate::matches::GameForfeit {
                loser: Color::White,
                reason: crate::matches::LossReason::Time,
                detail: "answered after 0.9 s".into(),
            }),
            adjudicated: None,
            stderr_black: String::new(),
            stderr_white: String::new(),
            time_scale: crate::TimeScale::from_speeds(100_000, 40_000),
            move_times: crate::matches::MoveTimes::from_millis(vec![120, 5]),
            move_scores: crate::matches::MoveScores::from_points([Some(0.712), None]),
        };
        let out = match_game_record(&record, &game, false, "2026.11.27");
        let text = out.to_string();
        assert!(text.contains("[TimeScale \"2.5\"]"), "{text}");
        // A per-move limit: each move's time, no clock.
        assert!(
            text.contains("a1-1R {time=0.12 score=0.712} 1... b1-1R {time=0.005}"),
            "{text}"
        );
        assert_eq!(out.black.name, "flat:playouts=10");
        assert_eq!(out.white.name, "fast");
        assert_eq!(out.white.spec, "random");
        assert_eq!(out.round, "pair 4 game 2");
        assert_eq!(out.time_control, "move:0.5");
        assert_eq!(out.to_string().parse::<Record>(), Ok(out.clone()));
        assert!(out.replay().is_ok());
        assert_eq!(out.moves[0].note.score, Some(0.712));
        assert_eq!(out.moves[1].note.score, None);
    }

    #[test]
    fn a_game_control_records_each_movers_clock_after_its_move() {
        let mut record = stored("a=random", "b=random");
        record.time_limit = "game:2+0.5".into();
        let game = MatchGame {
            pair: 1,
            opening: Position::START,
            black: "random".into(),
            white: "random".into(),
            moves: ["a1-1R", "b1-1R", "c1-1R"]
                .iter()
                .map(|m| m.parse().unwrap())
                .collect(),
            result: Status::Ongoing,
            forfeit: None,
            adjudicated: None,
            stderr_black: String::new(),
            stderr_white: String::new(),
            time_scale: crate::TimeScale::ONE,
            move_times: crate::matches::MoveTimes::from_millis(vec![500, 1000, 2500]),
            move_scores: crate::matches::MoveScores::default(),
        };
        let out = match_game_record(&record, &game, true, pentago::UNKNOWN_DATE);
        let text = out.to_string();
        // Black ran out on its second move: its clock stopped at 0 before the increment. (The
        // writer wraps at 80 columns.)
        assert!(
            text.replace('\n', " ").contains(
                "1. a1-1R {time=0.5 clock=2} 1... b1-1R {time=1 clock=1.5} \
                 2. c1-1R {time=2.5 clock=0.5} ongoing"
            ),
            "{text}"
        );
        assert_eq!(text.parse::<Record>(), Ok(out.clone()));
        assert!(out.replay().is_ok());
        assert_eq!(game.side_seconds(), Some([3.0, 1.0]));
        // The same game without times: plain moves.
        let untimed = MatchGame {
            move_times: crate::matches::MoveTimes::default(),
            ..game
        };
        let text = match_game_record(&record, &untimed, true, pentago::UNKNOWN_DATE).to_string();
        assert!(!text.contains('{'), "{text}");
        assert_eq!(untimed.side_seconds(), None);
    }

    #[test]
    fn an_adjudicated_game_is_recorded_with_its_source_and_value() {
        let record = stored("a=random", "b=random");
        // 20 stones, black to move and winning.
        let won: Position = "o...oo/.o..xo/.x.xo./.ox.../x.xx.x/oxoo.x".parse().unwrap();
        let game = MatchGame {
            pair: 0,
            opening: won,
            black: "random".into(),
            white: "random".into(),
            moves: Vec::new(),
            result: Status::Won(Color::Black),
            forfeit: None,
            adjudicated: Some(pentago::SolveMethod::Midsolver),
            stderr_black: String::new(),
            stderr_white: String::new(),
            time_scale: crate::TimeScale::ONE,
            move_times: crate::matches::MoveTimes::default(),
            move_scores: crate::matches::MoveScores::default(),
        };
        let out = match_game_record(&record, &game, true, "2026.11.27");
        assert_eq!(
            out.termination,
            Termination::Adjudicated {
                source: "midsolver".into()
            }
        );
        let text = out.to_string();
        assert!(
            text.contains("[Termination \"adjudicated midsolver\"]"),
            "{text}"
        );
        assert!(!text.contains("TimeScale"), "{text}");
        assert_eq!(text.parse::<Record>(), Ok(out.clone()));
    }
}
