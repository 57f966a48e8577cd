//! Opening sources of matches (`random:plies=N`, `book:plies=N`, `file:PATH`,
//! `exact:stones=N,value=V`), opening suite files, adjudications and named openings of studies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{Adjudication, Opening, OpeningSource, parse_suite};
use pentagrid_fuzz::{as_text, check_round_trip};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = as_text(data) {
        check_round_trip::<OpeningSource>(text);
        check_round_trip::<Adjudication>(text);
        check_round_trip::<Opening>(text);
        if let Ok(suite) = parse_suite(text) {
            assert!(!suite.is_empty() && suite.iter().all(|p| !p.is_over()));
        }
    }
});
