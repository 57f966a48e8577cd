//! The shipped tablebase (slices 0–6, embedded in the binary), opened once per process: for
//! judging played pairs against perfect play, and as the exact values a built-in player uses
//! in refereed games.

use std::sync::OnceLock;

use pentago::{AccuracyError, SharedOracle};
use pentagrid_tablebase::Tablebase;

/// The shipped tablebase, or why it did not open (never expected: its data are compiled in
/// and checked by the tablebase's tests).
pub(crate) fn shipped() -> Result<&'static Tablebase, AccuracyError> {
    static TABLE: OnceLock<Result<Tablebase, String>> = OnceLock::new();
    TABLE
        .get_or_init(|| Tablebase::shipped().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|why| AccuracyError::Table {
            stones: 0,
            why: why.clone(),
        })
}

/// The shipped tablebase as a search's exact values (a shared instance of its own), or `None`
/// when it did not open: a built-in player then plays without it, as it would without slices.
pub(crate) fn shipped_oracle() -> Option<SharedOracle> {
    static ORACLE: OnceLock<Option<SharedOracle>> = OnceLock::new();
    ORACLE
        .get_or_init(|| Tablebase::shipped().ok().map(SharedOracle::new))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Position;

    #[test]
    fn the_shipped_slices_value_the_first_moves() {
        let oracle = shipped_oracle().expect("the shipped slices open");
        let moves = oracle.0.exact_moves(&Position::START).expect("covered");
        assert_eq!(moves.len(), Position::START.legal_moves().len());
        assert!(shipped().is_ok());
    }
}
