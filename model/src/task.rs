//! A job: what a worker is asked to do, in engine types. Its stored and wire forms convert to
//! and from it (in the coordinator's store and in `pentagrid-proto`).

#[cfg(doc)]
use pentago::{ACCURACY_STONES, MAX_PUZZLE_MOVES};
use std::ops::Range;

use pentago::{Adjudication, Player, Position, TimeLimit, UctConfig};
use pentagrid_calculation::{Player as SolitairePlayer, Variant};

/// Most playouts one analyse job may ask for.
pub const MAX_JOB_PLAYOUTS: u64 = 1_000_000_000;

/// A job: what a worker is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Task {
    /// Search `position` with `config` for exactly `playouts` playouts.
    Analyse {
        /// The position (ongoing).
        position: Position,
        /// The engine configuration (its own budget is replaced by `playouts`).
        config: UctConfig,
        /// The playout budget, 1 to [`MAX_JOB_PLAYOUTS`].
        playouts: u64,
    },
    /// Play one game from `start`.
    Selfplay {
        /// The start position (ongoing).
        start: Position,
        /// Black's player.
        black: Player,
        /// White's player.
        white: Player,
    },
    /// Play game pair `pair` of match `match_id`: `opening` with A black, then with B black.
    /// Only a worker that runs every external engine among A and B may take it.
    Pair {
        /// The match.
        match_id: u64,
        /// The pair's index in its match.
        pair: u64,
        /// The opening (ongoing).
        opening: Position,
        /// Player A.
        a: Player,
        /// Player B.
        b: Player,
        /// Also judge both players' moves from positions with at least this many stones
        /// (within [`ACCURACY_STONES`]) against perfect play.
        accuracy_stones: Option<u32>,
        /// Play under this time limit on the wall clock, refereed (built-in UCT players
        /// search for the time their clock gives them); `None`: by the players' own budgets.
        /// Required when a player is an external engine.
        time: Option<TimeLimit>,
        /// End each game as soon as its position's exact value is known (see
        /// [`pentago::Adjudication`]); `None`: play every game out.
        adjudicate: Option<Adjudication>,
    },
    /// Solve `position` exactly: the value of every first move.
    Solve {
        /// The position (ongoing).
        position: Position,
    },
    /// Check candidate positions as checkmate puzzles.
    Verify {
        /// Positions (ongoing) with where each came from.
        candidates: Vec<(Position, String)>,
        /// Longest mate looked for, 1 to [`MAX_PUZZLE_MOVES`].
        max_moves: u32,
    },
    /// Value the leaves of deep solve `solve_id` exactly: each an ongoing position from the
    /// midsolver's stone count on.
    DeepLeaves {
        /// The deep solve that wants them.
        solve_id: u64,
        /// The leaves (canonical), 1 to [`MAX_DEEP_LEAVES`].
        leaves: Vec<Position>,
    },
    /// Play deals `deals` of the card solitaire Calculation with `player`.
    Solitaire {
        /// The rules' variant.
        variant: Variant,
        /// The player.
        player: SolitairePlayer,
        /// The deals, 1 to [`MAX_SOLITAIRE_DEALS`] of them.
        deals: Range<u64>,
        /// Seed of the player's own random choices (the same for every deal of a campaign,
        /// so that a deal's result does not depend on the job that played it).
        seed: u64,
    },
}

/// Most leaves one deep-leaves job may carry.
pub const MAX_DEEP_LEAVES: usize = 256;

/// Most deals one solitaire job may play.
pub const MAX_SOLITAIRE_DEALS: u64 = 1_000;

/// Most candidates one verify job may carry.
pub const MAX_VERIFY_CANDIDATES: usize = 256;

impl Task {
    /// The kind's stable name (`analyse`, `selfplay`, `pair`, `solve`, `verify`,
    /// `deep_leaves`, `solitaire`), as metrics label it.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Task::Analyse { .. } => "analyse",
            Task::Selfplay { .. } => "selfplay",
            Task::Pair { .. } => "pair",
            Task::Solve { .. } => "solve",
            Task::Verify { .. } => "verify",
            Task::Solitaire { .. } => "solitaire",
            Task::DeepLeaves { .. } => "deep_leaves",
        }
    }
}

impl Task {
    /// The external engines a worker needs to run this task (none for built-in players).
    #[must_use]
    pub fn engines(&self) -> Vec<&str> {
        match self {
            Task::Pair { a, b, .. } => {
                let mut names: Vec<&str> = [a, b].into_iter().filter_map(Player::engine).collect();
                names.dedup();
                names
            }
            _ => Vec::new(),
        }
    }
}
