//! A deliberately naive second implementation of the rules (a 6×6 array, no bit tricks),
//! played move by move against the fast engine over many random games.

use pentago::{Color, Move, Position, Square, Status, Twist, seeded_rng};
use rand::RngExt;

/// `cells[row][file]`, row 0 = rank 6 (the top).
#[derive(Clone, PartialEq, Eq, Debug)]
struct NaiveBoard {
    cells: [[Option<Color>; 6]; 6],
}

impl NaiveBoard {
    fn from_position(position: &Position) -> NaiveBoard {
        let mut cells = [[None; 6]; 6];
        for square in Square::all() {
            cells[5 - square.rank() as usize][square.file() as usize] = position.stone_at(square);
        }
        NaiveBoard { cells }
    }

    fn text(&self) -> String {
        let ranks: Vec<String> = self
            .cells
            .iter()
            .map(|row| {
                row.iter()
                    .map(|c| match c {
                        Some(Color::Black) => 'x',
                        Some(Color::White) => 'o',
                        None => '.',
                    })
                    .collect()
            })
            .collect();
        ranks.join("/")
    }

    fn count(&self, color: Color) -> usize {
        self.cells
            .iter()
            .flatten()
            .filter(|&&c| c == Some(color))
            .count()
    }

    fn to_move(&self) -> Color {
        if self.count(Color::Black) == self.count(Color::White) {
            Color::Black
        } else {
            Color::White
        }
    }

    fn has_five(&self, color: Color) -> bool {
        let directions = [(0i32, 1i32), (1, 0), (1, 1), (1, -1)];
        for row in 0..6i32 {
            for col in 0..6i32 {
                for (dr, dc) in directions {
                    let inside = (0..5).all(|k| {
                        let (r, c) = (row + k * dr, col + k * dc);
                        (0..6).contains(&r)
                            && (0..6).contains(&c)
                            && self.cells[r as usize][c as usize] == Some(color)
                    });
                    if inside {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn full(&self) -> bool {
        self.cells.iter().flatten().all(|c| c.is_some())
    }

    fn status(&self) -> Status {
        match (self.has_five(Color::Black), self.has_five(Color::White)) {
            (true, true) => Status::Draw,
            (true, false) => Status::Won(Color::Black),
            (false, true) => Status::Won(Color::White),
            _ if self.full() => Status::Draw,
            _ => Status::Ongoing,
        }
    }

    fn turn(&mut self, quadrant: usize, clockwise: bool) {
        let (r0, c0) = ((quadrant / 2) * 3, (quadrant % 2) * 3);
        let old = self.cells;
        for i in 0..3 {
            for j in 0..3 {
                let (si, sj) = if clockwise { (2 - j, i) } else { (j, 2 - i) };
                self.cells[r0 + i][c0 + j] = old[r0 + si][c0 + sj];
            }
        }
    }

    /// DESIGN §3 read literally. `(row, col)` of the placement, quadrant 0-3, clockwise.
    fn play(
        &self,
        row: usize,
        col: usize,
        quadrant: usize,
        clockwise: bool,
    ) -> (NaiveBoard, Status) {
        let mover = self.to_move();
        let mut next = self.clone();
        assert!(next.cells[row][col].is_none());
        next.cells[row][col] = Some(mover);
        if next.has_five(mover) {
            return (next, Status::Won(mover));
        }
        next.turn(quadrant, clockwise);
        let status = match (next.has_five(mover), next.has_five(mover.opponent())) {
            (true, true) => Status::Draw,
            (true, false) => Status::Won(mover),
            (false, true) => Status::Won(mover.opponent()),
            _ if next.full() => Status::Draw,
            _ => Status::Ongoing,
        };
        (next, status)
    }

    fn play_move(&self, mv: Move) -> (NaiveBoard, Status) {
        let square = mv.square();
        let twist = mv.twist();
        self.play(
            5 - square.rank() as usize,
            square.file() as usize,
            twist.quadrant().index(),
            twist.direction() == pentago::Direction::Right,
        )
    }

    fn moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        for square in Square::all() {
            if self.cells[5 - square.rank() as usize][square.file() as usize].is_none() {
                for twist in Twist::ALL {
                    out.push(Move::new(square, twist));
                }
            }
        }
        out
    }

    fn has_immediate_win(&self) -> bool {
        let mover = self.to_move();
        self.moves()
            .into_iter()
            .any(|mv| self.play_move(mv).1 == Status::Won(mover))
    }
}

#[test]
fn fast_rules_match_naive_rules_move_by_move() {
    let mut rng = seeded_rng(2024, 0);
    let mut moves_compared = 0u64;
    let mut endings = [0u32; 3];
    for _game in 0..20_000 {
        let mut position = Position::START;
        let mut naive = NaiveBoard::from_position(&position);
        loop {
            let legal = position.legal_moves();
            assert_eq!(legal.to_vec(), naive.moves());
            let mv = legal[rng.random_range(0..legal.len())];
            let (next_naive, naive_status) = naive.play_move(mv);
            position = position.play(mv).expect("legal move");
            moves_compared += 1;
            assert_eq!(position.to_string(), next_naive.text(), "after {mv}");
            assert_eq!(position.status(), naive_status, "after {mv}");
            assert_eq!(next_naive.status(), naive_status);
            naive = next_naive;
            if naive_status.is_over() {
                endings[match naive_status {
                    Status::Won(Color::Black) => 0,
                    Status::Won(Color::White) => 1,
                    _ => 2,
                }] += 1;
                break;
            }
        }
    }
    assert!(moves_compared > 400_000);
    assert!(endings.iter().all(|&n| n > 100), "{endings:?}");
}

#[test]
fn immediate_wins_and_safe_moves_match_naive_search() {
    let mut rng = seeded_rng(77, 0);
    let (mut wins_seen, mut unsafe_seen) = (0, 0);
    for _game in 0..150 {
        let mut position = Position::START;
        while !position.is_over() {
            let naive = NaiveBoard::from_position(&position);
            let naive_win = naive.has_immediate_win();
            assert_eq!(position.has_immediate_win(), naive_win, "{position}");
            wins_seen += usize::from(naive_win);
            if position.stone_count() >= 14 && position.stone_count() % 3 == 0 {
                let safe = position.safe_moves();
                let naive_safe: Vec<Move> = naive
                    .moves()
                    .into_iter()
                    .filter(|&mv| match naive.play_move(mv) {
                        (after, Status::Ongoing) => !after.has_immediate_win(),
                        (_, status) => status != Status::Won(naive.to_move().opponent()),
                    })
                    .collect();
                unsafe_seen += naive.moves().len() - naive_safe.len();
                assert_eq!(safe.to_vec(), naive_safe, "{position}");
            }
            let legal = position.legal_moves();
            position = position.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
    }
    assert!(
        wins_seen > 200 && unsafe_seen > 200,
        "{wins_seen} {unsafe_seen}"
    );
}
