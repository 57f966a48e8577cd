//! A deliberately naive implementation of the rules: a 6×6 array, `docs/DESIGN.md` §3 read
//! literally.

use pentago::{Color, Move, Position, Square, Status, Twist};

/// `cells[row][file]`, row 0 = rank 6 (the top).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NaiveBoard {
    cells: [[Option<Color>; 6]; 6],
}

impl NaiveBoard {
    pub fn from_position(position: &Position) -> NaiveBoard {
        let mut cells = [[None; 6]; 6];
        for square in Square::all() {
            cells[5 - square.rank() as usize][square.file() as usize] = position.stone_at(square);
        }
        NaiveBoard { cells }
    }

    pub fn text(&self) -> String {
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

    pub fn count(&self, color: Color) -> usize {
        self.cells
            .iter()
            .flatten()
            .filter(|&&c| c == Some(color))
            .count()
    }

    pub fn to_move(&self) -> Color {
        if self.count(Color::Black) == self.count(Color::White) {
            Color::Black
        } else {
            Color::White
        }
    }

    pub fn has_five(&self, color: Color) -> bool {
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

    pub fn full(&self) -> bool {
        self.cells.iter().flatten().all(|c| c.is_some())
    }

    pub fn status(&self) -> Status {
        match (self.has_five(Color::Black), self.has_five(Color::White)) {
            (true, true) => Status::Draw,
            (true, false) => Status::Won(Color::Black),
            (false, true) => Status::Won(Color::White),
            _ if self.full() => Status::Draw,
            _ => Status::Ongoing,
        }
    }

    pub fn turn(&mut self, quadrant: usize, clockwise: bool) {
        let (r0, c0) = ((quadrant / 2) * 3, (quadrant % 2) * 3);
        let old = self.cells;
        for i in 0..3 {
            for j in 0..3 {
                let (si, sj) = if clockwise { (2 - j, i) } else { (j, 2 - i) };
                self.cells[r0 + i][c0 + j] = old[r0 + si][c0 + sj];
            }
        }
    }

    /// `docs/DESIGN.md` §3 read literally: `mover` places at `(row, col)`, then turns quadrant 0-3.
    /// The mover is normally the side to move; threat checks let the other side move again.
    pub fn play_by(
        &self,
        mover: Color,
        row: usize,
        col: usize,
        quadrant: usize,
        clockwise: bool,
    ) -> (NaiveBoard, Status) {
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

    pub fn play_move(&self, mv: Move) -> (NaiveBoard, Status) {
        self.play_as(mv, self.to_move())
    }

    pub fn play_as(&self, mv: Move, mover: Color) -> (NaiveBoard, Status) {
        let square = mv.square();
        let twist = mv.twist();
        self.play_by(
            mover,
            5 - square.rank() as usize,
            square.file() as usize,
            twist.quadrant().index(),
            twist.direction() == pentago::Direction::Right,
        )
    }

    pub fn moves(&self) -> Vec<Move> {
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

    pub fn has_immediate_win(&self) -> bool {
        let mover = self.to_move();
        self.moves()
            .into_iter()
            .any(|mv| self.play_move(mv).1 == Status::Won(mover))
    }
}
