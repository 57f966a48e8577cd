//! Position text: `start`, or six ranks of `x`, `o`, `.` joined by `/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{Position, Status};
use pentagrid_fuzz::{as_text, check_round_trip};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = as_text(data) {
        check_round_trip::<Position>(text);
        check_round_trip::<Status>(text);
        // Whatever parses is a position the rules can play on without panicking.
        if let Ok(position) = text.parse::<Position>() {
            if position.status() == Status::Ongoing {
                for mv in position.legal_moves().iter() {
                    let _ = position.play(*mv);
                }
            }
        }
    }
});
