//! Engine configurations: `uct:k=0.3,policy=safe,...`, player texts, policies, SPRT bounds and
//! tuning parameter ranges (`k=0.1..1.0`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{ParamRange, Player, Policy, UctConfig};
use pentagrid_rating::Sprt;
use pentagrid_fuzz::{as_text, check_round_trip};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = as_text(data) {
        check_round_trip::<UctConfig>(text);
        check_round_trip::<Player>(text);
        check_round_trip::<Policy>(text);
        check_round_trip::<Sprt>(text);
        check_round_trip::<ParamRange>(text);
    }
});
