//! UCT searching with the shipped tablebase as its oracle: positions of up to 5 stones (every
//! child within slice 6) are decided without playouts, and the move played keeps the exact
//! value, where the same search without the table often does not.

use pentago::{
    ExactOracle, Player, Position, SearchControl, SearchOptions, SharedOracle, Value, play_game,
    search,
};
use pentagrid_tablebase::Tablebase;

#[test]
fn early_positions_are_decided_by_the_table_and_keep_their_value() {
    let table = Tablebase::shipped().unwrap();
    let oracle = SharedOracle::new(Tablebase::shipped().unwrap());
    let config = "uct:playouts=2000".parse().unwrap();
    for seed in 0..12 {
        let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
        let stones = 3 + (seed as usize % 3);
        let position = game.moves[..stones]
            .iter()
            .fold(game.start, |position, mv| position.play(*mv).unwrap());
        let options = SearchOptions {
            seed,
            oracle: Some(oracle.clone()),
            ..SearchOptions::default()
        };
        let result = search(&position, &config, &options, &SearchControl::new()).unwrap();
        let value = table.probe(&position).unwrap().unwrap();
        assert_eq!(result.value, Some(value), "{position}");
        assert_eq!(result.simulations, 0, "{position}");
        let best = result.best.unwrap();
        let kept = table
            .probe(&position.play(best).unwrap())
            .unwrap()
            .unwrap()
            .negate();
        assert_eq!(kept, value, "{position}: {best} gives the value away");
        if value != Value::Loss {
            assert_eq!(result.best_stats().unwrap().proven, Some(value));
        }
    }
}
