//! `pentagrid-gamekit`: the little that both of pentagrid's games need — seeded random streams
//! ([`seeded_rng`], [`splitmix64`], [`EngineRng`]) and bounded quotes of bad input for parse
//! errors ([`excerpt`]).
//!
//! It sits below `pentago` (Pentago), `pentagrid-calculation` (the card solitaire) and
//! `pentagrid-rating`, so the games share these without depending on each other. Pure: no I/O.
//!
//! ```
//! use pentagrid_gamekit::{excerpt, seeded_rng};
//! use rand::RngExt;
//!
//! // The same seed and stream give the same draws, on any thread.
//! assert_eq!(seeded_rng(7, 0).random::<u32>(), seeded_rng(7, 0).random::<u32>());
//! assert_eq!(excerpt("c4-1R"), "c4-1R");
//! assert!(excerpt(&"z".repeat(100_000)).ends_with("… (100000 bytes)"));
//! ```

mod excerpt;
mod rng;

pub use excerpt::{EXCERPT_CHARS, excerpt};
pub use rng::{EngineRng, seeded_rng, splitmix64};
