//! Which of a position's two book tables a row belongs to: the design keeps playout statistics
//! of UCT analyses and results of self-play games apart.

/// Which table a row belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TableSource {
    /// The playout table: playout statistics of UCT analyses.
    Playouts,
    /// The game table: results of self-play games.
    Games,
}

impl TableSource {
    /// The stable name in the row formats: `playouts` or `games`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TableSource::Playouts => "playouts",
            TableSource::Games => "games",
        }
    }

    /// The table a row format names (`playouts` or `games`); `None` for any other name.
    #[must_use]
    pub fn of_name(name: &str) -> Option<TableSource> {
        match name {
            "playouts" => Some(TableSource::Playouts),
            "games" => Some(TableSource::Games),
            _ => None,
        }
    }
}
