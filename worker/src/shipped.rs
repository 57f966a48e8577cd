//! The shipped tablebase (slices 0–6, embedded in the binary), opened once per process: for
//! judging played pairs against perfect play, and as the exact values a built-in player uses
//! in refereed games.

use std::sync::{Arc, OnceLock};

use pentago::{AccuracyError, SharedOracle};
use pentagrid_tablebase::Tablebase;

/// The shipped tablebase, opened once for both uses below, or why it did not open.
fn table() -> &'static Result<Arc<Tablebase>, String> {
    static TABLE: OnceLock<Result<Arc<Tablebase>, String>> = OnceLock::new();
    TABLE.get_or_init(|| {
        Tablebase::shipped()
            .map(Arc::new)
            .map_err(|e| e.to_string())
    })
}

/// The shipped tablebase, or why it did not open (never expected: its data are compiled in
/// and checked by the tablebase's tests).
pub(crate) fn shipped() -> Result<&'static Tablebase, AccuracyError> {
    table().as_deref().map_err(|why| AccuracyError::Table {
        stones: 0,
        why: why.clone(),
    })
}

/// The shipped tablebase as a search's exact values, or `None` when it did not open: a
/// built-in player then plays without it, as it would without slices.
pub(crate) fn shipped_oracle() -> Option<SharedOracle> {
    let table: Arc<Tablebase> = table().as_ref().ok()?.clone();
    Some(SharedOracle(table))
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
