//! Book imports: bytes → `BookImportRequest` → row conversion → the coordinator's checks (as
//! `BookImport` runs them before it writes), and the same bytes as a CSV or JSON-lines file
//! (as `pentagrid book import` reads one).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentagrid_client::book::{RowFormat, parse_rows};
use pentagrid_edge::check_book_import;

fuzz_target!(|data: &[u8]| {
    let _ = check_book_import(data);
    for format in [RowFormat::Csv, RowFormat::Jsonl] {
        let _ = parse_rows(data, format);
    }
});
