//! UCT against known answers and weaker players: solved positions with short forced wins, and
//! short matches against flat Monte Carlo and a random player at equal playouts.

use pentago::{Color, Move, Player, Position, SearchControl, SearchOptions, Status, search};

/// `(position, value)` pairs from `../shared/data/solved-positions.txt`.
fn solved_positions() -> Vec<(Position, i8)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    let text = std::fs::read_to_string(path).expect("shared/data beside the repository");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (position, value) = line.split_once(' ').expect("position and value");
            (position.parse().unwrap(), value.trim().parse().unwrap())
        })
        .collect()
}

/// Whether `mv` wins within two of the mover's moves, checked with nothing but the rules.
fn wins_within_two(position: &Position, mv: Move) -> bool {
    let mover = position.side_to_move();
    let after = position.play(mv).unwrap();
    if after.status().is_over() {
        return after.status() == Status::Won(mover);
    }
    after.legal_moves().iter().all(|&reply| {
        let next = after.play_unchecked(reply);
        match next.status() {
            Status::Ongoing => next.has_immediate_win(),
            status => status == Status::Won(mover),
        }
    })
}

#[test]
fn uct_finds_short_forced_wins_in_solved_positions() {
    let mut checked = 0;
    for (position, value) in solved_positions() {
        let winning: Vec<Move> = position
            .legal_moves()
            .iter()
            .copied()
            .filter(|&mv| wins_within_two(&position, mv))
            .collect();
        if winning.is_empty() {
            continue;
        }
        assert_eq!(value, 1, "a forced win in {position} must be a solved win");
        let config = "uct:playouts=60000,policy=safe".parse().unwrap();
        let options = SearchOptions {
            seed: 11,
            threads: 2,
            tables_min_visits: None,
        };
        let result = search(&position, &config, &options, &SearchControl::new()).unwrap();
        let best = result.best.unwrap();
        assert!(
            wins_within_two(&position, best),
            "{position}: played {best}, a forced win is {}",
            winning[0]
        );
        checked += 1;
    }
    assert!(
        checked >= 3,
        "only {checked} positions with a short forced win"
    );
}

/// Score of `a` against `b` over `pairs` game pairs (each side plays black once).
fn match_score(a: &Player, b: &Player, pairs: u64) -> f64 {
    let mut score = 0.0;
    for pair in 0..pairs {
        for (black, white, a_color) in [(a, b, Color::Black), (b, a, Color::White)] {
            let game = pentago::play_game(&Position::START, black, white, 1000 + pair, 1);
            score += match game.result {
                Status::Won(color) if color == a_color => 1.0,
                Status::Draw => 0.5,
                _ => 0.0,
            };
        }
    }
    score / (2 * pairs) as f64
}

#[test]
fn uct_beats_flat_monte_carlo_and_random_at_equal_playouts() {
    let uct: Player = "uct:playouts=3000".parse().unwrap();
    let flat: Player = "flat:playouts=3000".parse().unwrap();
    let against_flat = match_score(&uct, &flat, 8);
    assert!(
        against_flat >= 0.65,
        "UCT scored {against_flat} against flat Monte Carlo"
    );
    let against_random = match_score(&uct, &Player::Random, 4);
    assert!(
        against_random >= 0.9,
        "UCT scored {against_random} against random"
    );
}
