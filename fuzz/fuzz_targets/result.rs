//! A worker's result against its job: bytes → `JobSpec` and `SubmitRequest` → decode →
//! conversion → validation, exactly as the coordinator's `Submit` runs before it stores anything.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentagrid_edge::check_result;

fuzz_target!(|data: &[u8]| {
    // The first byte says how many of the rest are the job; the remainder is the submission.
    if let Some((&split, rest)) = data.split_first() {
        let (job, submission) = rest.split_at(usize::from(split).min(rest.len()));
        let _ = check_result(job, submission);
    }
});
