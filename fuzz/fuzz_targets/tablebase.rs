//! Irving's slice files and `counts-N.npy` arrays: any bytes under a slice's name open with a
//! clear error or as a slice whose probes answer (a value, "not covered", or an error), never a
//! panic, and a `.npy` parses or is refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pentago::{ExactOracle, Position};
use pentagrid_tablebase::{Tablebase, parse_npy};

/// Positions of `stones` stones: the first legal moves in a fixed walk from the start.
fn positions_of(stones: u32) -> Vec<Position> {
    (0..4usize)
        .map(|walk| {
            (0..stones as usize).fold(Position::START, |position, ply| {
                let moves = position.legal_moves();
                position.play_unchecked(moves[(walk * 31 + ply * 7) % moves.len()])
            })
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let _ = parse_npy(data);
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let stones = u32::from(first % 7);
    let folder = std::env::temp_dir().join(format!("pentagrid-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a scratch folder");
    let path = folder.join(format!("slice-{stones}.pentago"));
    std::fs::write(&path, bytes).expect("a scratch slice file");
    let mut tablebase = Tablebase::empty();
    if tablebase.add_slice_file(&path).is_ok() {
        for position in positions_of(stones) {
            let _ = tablebase.probe(&position);
        }
    }
});
