//! Move text (`c4-1R`, or a bare placement `c4`) and square text, resolved against a position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{Move, MoveNotation, Position, Square};
use pentagrid_fuzz::{as_text, check_round_trip};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = as_text(data) {
        check_round_trip::<Move>(text);
        check_round_trip::<Square>(text);
        // A bare placement is resolved against a position; it must answer, never panic.
        if let Ok(notation) = text.parse::<MoveNotation>() {
            let position = Position::START;
            let _ = position.resolve(notation);
        }
    }
});
