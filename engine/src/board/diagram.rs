//! The text diagram of a position, as the CLI's `show` and GTP's `showboard` print it.

use super::color::Color;
use super::position::Position;
use super::square::Square;

/// The line between the quadrant rows (and above and below the board).
const BORDER: &str = "  +-------+-------+\n";
/// The files, above and below the board.
const FILES: &str = "    a b c   d e f\n";

impl Position {
    /// The board with files and ranks labelled and the four quadrants boxed, one rank a line
    /// (rank 6 first), `x` for black, `o` for white and `.` for empty; every line ends with a
    /// line break.
    ///
    /// ```
    /// use pentago::Position;
    ///
    /// let position: Position = "....../....../....../..x.../....../......".parse().unwrap();
    /// let diagram = position.diagram();
    /// assert!(diagram.starts_with("    a b c   d e f\n  +-------+-------+\n6 | . . . |"));
    /// assert!(diagram.contains("3 | . . x | . . . | 3\n"));
    /// ```
    #[must_use]
    pub fn diagram(&self) -> String {
        let mut out = String::from(FILES);
        out.push_str(BORDER);
        for rank in (0..6u8).rev() {
            out.push_str(&format!("{} |", rank + 1));
            for file in 0..6u8 {
                let square = Square::from_coords(file, rank).expect("coordinates below 6");
                out.push(' ');
                out.push(self.stone_at(square).map_or('.', Color::stone_char));
                if file == 2 || file == 5 {
                    out.push_str(" |");
                }
            }
            out.push_str(&format!(" {}\n", rank + 1));
            if rank == 3 || rank == 0 {
                out.push_str(BORDER);
            }
        }
        out.push_str(FILES);
        out
    }
}
