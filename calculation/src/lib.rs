//! `pentagrid-calculation`: Calculation (計算), the one-player card game of Nozaki's book —
//! rules, notation, deals and players; the second game of pentagrid's search tools (the cluster
//! runs it as the "solitaire" job kind).
//!
//! It shares only seeded random streams and bounded error quotes with Pentago
//! (`pentagrid-gamekit`) and the win-rate interval with the ratings (`pentagrid-rating`); its
//! `Move`, `Player`, `MoveList`, `Outcome` and `GameRecord` are this game's own. Pure: no I/O.
//!
//! The layers: `card` (ranks, the foundations' arithmetic), `deal` (variants and the documented
//! shuffle), `moves` and `observation` (what a player may see, with its text form), `table`
//! (the full table with its hidden stock), `players` (random, rule-based, flat Monte Carlo and
//! UCT over sampled stocks) and `game` (playing deals and summarising them).
//!
//! ```
//! use pentagrid_calculation::{Player, Variant, play_deal};
//!
//! // Deal 7 of the standard game, played by the rule-based player: the same deal, player and
//! // seed give the same game.
//! let player: Player = "strategy".parse().unwrap();
//! let game = play_deal(Variant::Standard, 7, &player, 1, 1);
//! assert!(game.end.is_over());
//! assert_eq!(game, play_deal(Variant::Standard, 7, &player, 1, 1));
//! ```

mod card;
mod deal;
mod game;
mod moves;
mod observation;
mod players;
mod table;

pub use card::{Card, DECK, FOUNDATIONS, MAX_WASTES, ParseCardError};
pub use deal::{ParseVariantError, Variant};
pub use game::{
    BenchSummary, GameRecord, MAX_BENCH_DEALS, Mean, Step, bench, play_deal, summarise,
};
pub use moves::{Move, ParseMoveError};
pub use observation::{MoveList, Observation, ParseObservationError};
pub use players::{
    DEFAULT_K, Decision, MAX_PLAYOUTS, ParsePlayerError, Player, Reward, SearchSettings,
};
pub use table::{IllegalMoveError, Outcome, Table};
