//! Calculation (計算), the one-player card game of Nozaki's book: rules, notation, deals and
//! players — the second game of pentagrid's search tools.
//!
//! The layers: `card` (ranks, the foundations' arithmetic), `deal` (variants and the documented
//! shuffle), `moves` and `observation` (what a player may see, with its text form), `table`
//! (the full table with its hidden stock), `players` (random, rule-based, flat Monte Carlo and
//! UCT over sampled stocks) and `game` (playing deals and summarising them).

mod card;
mod deal;
mod game;
mod moves;
mod observation;
mod players;
mod table;

pub use card::{Card, DECK, FOUNDATIONS, ParseCardError};
pub use deal::{ParseVariantError, Variant};
pub use game::{BenchSummary, GameRecord, MAX_BENCH_DEALS, Mean, Step, bench, play_deal};
pub use moves::{Move, ParseMoveError};
pub use observation::{MAX_WASTES, MoveList, Observation, ParseObservationError};
pub use players::{
    DEFAULT_K, Decision, MAX_PLAYOUTS, ParsePlayerError, Player, Reward, SearchSettings,
};
pub use table::{IllegalMoveError, Outcome, Table};
