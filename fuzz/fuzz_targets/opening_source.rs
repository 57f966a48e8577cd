//! Opening sources of matches (`random:plies=N`, `book:plies=N`) and named openings of studies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{Opening, OpeningSource};
use pentagrid_fuzz::{as_text, check_round_trip};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = as_text(data) {
        check_round_trip::<OpeningSource>(text);
        check_round_trip::<Opening>(text);
    }
});
