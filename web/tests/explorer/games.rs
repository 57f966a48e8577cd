//! A match's games over the API: the listing agrees with the games the client library reads
//! from the coordinator, every game replays (by the engine's rules, here) to the final
//! position the API gives, with each move's time as stored and both clocks under the match's
//! game control, and bad ids are refused with a 400 naming the parameter or a 404.

use pentago::Position;
use pentagrid_client::matches::MatchGame;
use serde_json::Value;

use crate::support::{FIXTURE_TIME_LIMIT, api, assert_bad, fixture};

/// The positions after each move of `game`, replayed here from its opening.
fn replay(game: &MatchGame) -> Vec<Position> {
    let mut position = game.opening;
    game.moves
        .iter()
        .map(|mv| {
            position = position.play(*mv).expect("a stored move plays");
            position
        })
        .collect()
}

#[tokio::test]
async fn a_match_lists_its_games_as_stored() {
    let fixture = fixture();
    let id = fixture.match_id;
    let list = api(&format!("matches/{id}/games")).await.json();
    assert_eq!(list["match_id"], id);
    assert_eq!(list["pairs"], fixture.match_pairs);
    assert_eq!(list["from_pair"], 0);
    assert!(
        list["next_from_pair"].is_null(),
        "one page holds 8 pairs: {list}"
    );
    assert_eq!(list["a"]["name"], "random");
    let listed = list["games"].as_array().unwrap();
    assert_eq!(listed.len(), fixture.match_games.len(), "{list}");
    for (index, (shown, stored)) in listed.iter().zip(&fixture.match_games).enumerate() {
        assert_eq!(shown["pair"], stored.pair, "{shown}");
        assert_eq!(shown["game"], index % 2 + 1, "{shown}");
        assert_eq!(shown["result"], stored.result.name(), "{shown}");
        assert_eq!(shown["moves"], stored.moves.len(), "{shown}");
        assert_eq!(shown["opening"], stored.opening.to_string(), "{shown}");
        assert_eq!(shown["black"]["spec"], stored.black, "{shown}");
        assert_eq!(shown["termination"]["kind"], "normal", "{shown}");
    }
    // A page from a later pair starts there.
    let last_pair = fixture.match_games.last().unwrap().pair;
    let later = api(&format!("matches/{id}/games?from_pair={last_pair}"))
        .await
        .json();
    let later_games = later["games"].as_array().unwrap();
    assert_eq!(later_games.len(), 2, "{later}");
    assert!(
        later_games.iter().all(|g| g["pair"] == last_pair),
        "{later}"
    );
}

#[tokio::test]
async fn every_game_replays_to_its_final_position() {
    let fixture = fixture();
    let id = fixture.match_id;
    for (index, stored) in fixture.match_games.iter().enumerate() {
        let number = index % 2 + 1;
        let path = format!("matches/{id}/games/{}/{number}", stored.pair);
        let answer = api(&path).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        let game = answer.json();
        assert_eq!(
            (game["pair"].as_u64(), game["game"].as_u64()),
            (Some(stored.pair), Some(number as u64))
        );
        let positions = replay(stored);
        let plies = game["plies"].as_array().unwrap();
        assert_eq!(plies.len(), stored.moves.len(), "{path}");
        let mut before = stored.opening;
        assert!(
            stored.move_times.is_known(),
            "{path}: the worker timed the moves"
        );
        let clocks = stored
            .clocks(FIXTURE_TIME_LIMIT)
            .expect("a game control's clocks");
        for (index, ((ply, mv), after)) in
            plies.iter().zip(&stored.moves).zip(&positions).enumerate()
        {
            assert_eq!(ply["move"], mv.to_string(), "{path}");
            assert_eq!(ply["seconds"].as_f64(), stored.move_times.seconds(index));
            let [black, white] = clocks.after[index];
            assert_eq!(ply["clocks"]["black"].as_f64(), Some(black), "{path}");
            assert_eq!(ply["clocks"]["white"].as_f64(), Some(white), "{path}");
            // Random players take no time to speak of: the increment outruns what they use.
            assert!(black >= 60.0 && white >= 60.0, "{path}: {clocks:?}");
            assert_eq!(ply["mover"], before.side_to_move().name(), "{path}");
            assert_eq!(ply["position"], after.to_string(), "{path}");
            before = *after;
        }
        let last = positions.last().copied().unwrap_or(stored.opening);
        assert_eq!(game["final_position"], last.to_string(), "{path}");
        // Played out: the final position's own status is the result.
        assert_eq!(game["result"], last.status().name(), "{path}");
        assert_eq!(game["result"], stored.result.name(), "{path}");
        let record = game["record"].as_str().unwrap();
        assert!(
            record.contains(&format!("[Round \"pair {} game {number}\"]", stored.pair)),
            "{record}"
        );
        assert_eq!(game["time_limit"], FIXTURE_TIME_LIMIT, "{game}");
        assert_eq!(game["start_clocks"]["black"], 60.0, "{game}");
        assert_eq!(game["start_clocks"]["white"], 60.0, "{game}");
        let used = &game["time_used"];
        let total = used["black"].as_f64().unwrap() + used["white"].as_f64().unwrap();
        let stored_total: u64 = stored
            .move_times
            .millis()
            .iter()
            .map(|&ms| u64::from(ms))
            .sum();
        assert!((total * 1000.0 - stored_total as f64).abs() < 0.5, "{game}");
        for word in ["time=", "clock="] {
            assert_eq!(record.matches(word).count(), stored.moves.len(), "{record}");
        }
    }
}

#[tokio::test]
async fn bad_game_ids_are_refused_with_what_was_wrong() {
    let fixture = fixture();
    let id = fixture.match_id;
    let pairs = fixture.match_pairs;
    let pair = fixture.match_games[0].pair;
    for bad in ["x", "0", "-1"] {
        assert_bad(&api(&format!("matches/{bad}/games")).await, "id");
        assert_bad(&api(&format!("matches/{bad}/games/{pair}/1")).await, "id");
    }
    for bad in ["x", "-1", "1.5"] {
        let message = assert_bad(&api(&format!("matches/{id}/games/{bad}/1")).await, "pair");
        assert!(message.contains(&format!("{bad:?}")), "{message}");
    }
    let message = assert_bad(&api(&format!("matches/{id}/games/{pairs}/1")).await, "pair");
    assert!(message.contains(&format!("no pair {pairs}")), "{message}");
    for bad in ["0", "3", "x"] {
        assert_bad(
            &api(&format!("matches/{id}/games/{pair}/{bad}")).await,
            "game",
        );
    }
    for bad in ["x", "-2"] {
        assert_bad(
            &api(&format!("matches/{id}/games?from_pair={bad}")).await,
            "from_pair",
        );
    }
    let message = assert_bad(
        &api(&format!("matches/{id}/games?from_pair={pairs}")).await,
        "from_pair",
    );
    assert!(message.contains(&format!("has {pairs} pairs")), "{message}");
    for missing in [
        "matches/987654321/games".to_owned(),
        "matches/987654321/games/0/1".to_owned(),
    ] {
        let answer = api(&missing).await;
        assert_eq!(answer.status, 404, "{missing}: {}", answer.body);
        assert_eq!(answer.json()["error"]["code"], "not_found");
    }
    // A pair the SPRT cancelled before it was played, when there is one: a 404 that says so.
    let stored: Vec<u64> = fixture.match_games.iter().map(|g| g.pair).collect();
    if let Some(unplayed) = (0..pairs).find(|p| !stored.contains(p)) {
        let answer = api(&format!("matches/{id}/games/{unplayed}/1")).await;
        assert_eq!(answer.status, 404, "{}", answer.body);
        let json: Value = answer.json();
        assert!(
            json["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not stored"),
            "{json}"
        );
    }
}
