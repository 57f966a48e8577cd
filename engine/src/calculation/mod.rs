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
pub use game::{
    BenchSummary, GameRecord, MAX_BENCH_DEALS, Mean, Step, bench, play_deal, summarise,
};
pub use moves::{Move, ParseMoveError};
pub use observation::{MAX_WASTES, MoveList, Observation, ParseObservationError};
pub use players::{
    DEFAULT_K, Decision, MAX_PLAYOUTS, ParsePlayerError, Player, Reward, SearchSettings,
};
pub use table::{IllegalMoveError, Outcome, Table};

#[cfg(test)]
mod tests {
    use std::fmt::{Debug, Display};
    use std::str::FromStr;

    use proptest::prelude::*;

    use super::*;

    /// What parses prints back to itself, and nothing panics.
    fn round_trips<T: FromStr + Display + PartialEq + Debug>(
        text: &str,
    ) -> Result<(), TestCaseError> {
        if let Ok(value) = text.parse::<T>() {
            let printed = value.to_string();
            prop_assert_eq!(
                printed.parse::<T>().ok(),
                Some(value),
                "{:?} as {:?}",
                text,
                printed
            );
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn parsers_never_panic_and_round_trip(text in "\\PC{0,40}") {
            round_trips::<Card>(&text)?;
            round_trips::<Move>(&text)?;
            round_trips::<Variant>(&text)?;
            round_trips::<Player>(&text)?;
            round_trips::<Observation>(&text)?;
        }

        #[test]
        fn near_miss_texts_round_trip(
            tops in prop::collection::vec("(-|A|[2-9]|10|J|Q|K)", 4),
            piles in prop::collection::vec("(-|[2-9AJQK](\\.[2-9AJQK]){0,3})", 3..=4),
            turned in "(-|[2-9AJQK])",
            stock in 0u8..60,
            player in "(uct|flat):(playouts=[0-9]{1,4}|k=[0-9]\\.[0-9]{1,3}|value=(win|cards))(,(playouts=[0-9]{1,4}|k=[0-9]|value=cards)){0,2}",
            mv in "[swf][0-5]?>[swf][0-5]",
        ) {
            let table = format!("f={} w={} t={turned} s={stock}", tops.join(","), piles.join(","));
            round_trips::<Observation>(&table)?;
            round_trips::<Player>(&player)?;
            round_trips::<Move>(&mv)?;
        }
    }
}
