//! Game records (`pentagrid games`, `--games-out`): any text is read without a panic, and every
//! record that reads writes back to text that reads to the same record and replays the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{Record, parse_records};
use pentagrid_fuzz::as_text;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = as_text(data)
        && let Ok(records) = parse_records(text)
    {
        for record in records {
            let printed = record.to_string();
            match printed.parse::<Record>() {
                Ok(again) => assert_eq!(again, record, "{text:?} printed as {printed:?}"),
                Err(e) => panic!("{text:?} read, but its printed form {printed:?} does not: {e}"),
            }
            assert_eq!(record.replay(), again_replay(&printed));
        }
    }
});

/// The replay of a printed record, which must equal the original's.
fn again_replay(printed: &str) -> Result<pentago::Position, pentago::ReplayError> {
    printed.parse::<Record>().expect("checked above").replay()
}
