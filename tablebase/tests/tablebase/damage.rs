//! Damaged, truncated, foreign, misnamed and missing slice files: each gives an error naming
//! the file, never a wrong value and never a panic.

use std::path::{Path, PathBuf};

use pentago::{ExactOracle, Position, Square};
use pentagrid_tablebase::{Tablebase, TablebaseError};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/irving");

fn shipped_bytes(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(DATA).join(name)).unwrap()
}

/// A folder holding `bytes` as `name`.
fn folder_with(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn open(folder: &Path) -> Result<Tablebase, TablebaseError> {
    let mut tablebase = Tablebase::empty();
    tablebase.add_folder(folder)?;
    Ok(tablebase)
}

/// Every position of two stones (black then white), as the tablebase must value them.
fn two_stone_positions() -> Vec<Position> {
    let squares: Vec<Square> = (0..36u8).filter_map(Square::new).collect();
    let mut out = Vec::new();
    for &b in &squares {
        for &w in &squares {
            if b != w {
                let text: String = (0..6u8)
                    .rev()
                    .map(|rank| {
                        (0..6u8)
                            .map(|file| {
                                let s = Square::from_coords(file, rank).unwrap();
                                if s == b {
                                    'x'
                                } else if s == w {
                                    'o'
                                } else {
                                    '.'
                                }
                            })
                            .collect::<String>()
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                out.push(text.parse().unwrap());
            }
        }
    }
    out
}

#[test]
fn every_flipped_byte_is_an_error_or_changes_no_value() {
    let original = shipped_bytes("slice-2.pentago");
    let positions = two_stone_positions();
    let truth = Tablebase::shipped().unwrap();
    let expected: Vec<_> = positions.iter().map(|p| truth.probe(p).unwrap()).collect();
    let (dir, path) = folder_with("slice-2.pentago", &original);
    let shown = path.display().to_string();
    let (mut refused, mut harmless) = (0, 0);
    for offset in 0..original.len() {
        let mut bytes = original.clone();
        bytes[offset] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let tablebase = match open(dir.path()) {
            Ok(t) => t,
            Err(e) => {
                assert!(e.to_string().contains(&shown), "{e}");
                refused += 1;
                continue;
            }
        };
        for (position, want) in positions.iter().zip(&expected) {
            match tablebase.probe(position) {
                Ok(value) => assert_eq!(value, *want, "byte {offset} flipped: {position}"),
                Err(e) => assert!(e.to_string().contains(&shown), "{e}"),
            }
        }
        // Whatever the flip, verification notices it (the SHA-1 at least).
        match tablebase.verify_slice(2).unwrap() {
            Ok(check) => assert!(check.failed(), "byte {offset} flipped, verify passed"),
            Err(e) => assert!(e.to_string().contains(&shown), "{e}"),
        }
        harmless += 1;
    }
    assert!(
        refused > 0 && harmless > 0,
        "refused {refused}, opened {harmless}"
    );
}

/// Where slice 4's last compressed stream ends: Irving's files carry about a kilobyte of
/// unused bytes after it.
const SLICE_4_DATA_END: usize = 16_731;

#[test]
fn truncated_files_are_refused() {
    let original = shipped_bytes("slice-4.pentago");
    for len in [0, 10, 31, 40, 200, original.len() / 2, SLICE_4_DATA_END - 1] {
        let (dir, path) = folder_with("slice-4.pentago", &original[..len]);
        let err = open(dir.path())
            .err()
            .unwrap_or_else(|| panic!("opened at {len} bytes"));
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        assert!(
            matches!(
                err,
                TablebaseError::Truncated { .. } | TablebaseError::Magic { .. }
            ),
            "{len} bytes: {err}"
        );
    }
    // Cut in the unused tail only: every value is still there and right, and verify's SHA-1
    // notices the change.
    let (dir, _) = folder_with("slice-4.pentago", &original[..SLICE_4_DATA_END]);
    let cut = open(dir.path()).unwrap();
    assert!(cut.verify_slice(4).unwrap().unwrap().sha1.failed());
}

#[test]
fn a_slice_under_another_name_is_refused() {
    let (dir, path) = folder_with("slice-4.pentago", &shipped_bytes("slice-3.pentago"));
    let err = open(dir.path()).err().unwrap();
    assert!(
        matches!(
            err,
            TablebaseError::WrongSlice {
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains(&path.display().to_string()));
}

#[test]
fn foreign_and_incomplete_files_are_refused() {
    let (dir, _) = folder_with("slice-2.pentago", b"GIF89a, certainly not a Pentago slice");
    assert!(matches!(
        open(dir.path()),
        Err(TablebaseError::Magic { .. })
    ));

    // Slice 2 claiming two sections instead of three: a class of positions has no data.
    let mut bytes = shipped_bytes("slice-2.pentago");
    bytes[24] = 2;
    let (dir, _) = folder_with("slice-2.pentago", &bytes);
    let err = open(dir.path()).err().unwrap();
    assert!(
        matches!(
            err,
            TablebaseError::MissingSections {
                missing: 1,
                total: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn missing_files_and_folders_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = open(dir.path()).err().unwrap();
    assert!(matches!(err, TablebaseError::NoSlices { .. }), "{err}");

    let gone = dir.path().join("no-such-folder");
    let err = open(&gone).err().unwrap();
    assert!(matches!(err, TablebaseError::Io { .. }), "{err}");
    assert!(err.to_string().contains("no-such-folder"));

    let mut tablebase = Tablebase::empty();
    let err = tablebase
        .add_slice_file(&dir.path().join("slice-5.pentago"))
        .err()
        .unwrap();
    assert!(matches!(err, TablebaseError::Io { .. }), "{err}");
    assert!(err.to_string().contains("slice-5.pentago"));
    assert_eq!(tablebase.probe(&Position::START).unwrap(), None);
}

#[test]
fn a_folder_adds_to_and_replaces_the_shipped_slices() {
    let (dir, path) = folder_with("slice-1.pentago", &shipped_bytes("slice-1.pentago"));
    std::fs::copy(
        Path::new(DATA).join("counts-1.npy"),
        dir.path().join("counts-1.npy"),
    )
    .unwrap();
    let mut tablebase = Tablebase::shipped().unwrap();
    assert_eq!(tablebase.add_folder(dir.path()).unwrap(), vec![1]);
    let info = tablebase.slices();
    assert_eq!(info.len(), 7);
    assert_eq!(info[1].path, path.display().to_string());
    assert!(!info[1].shipped && info[0].shipped);
    let check = tablebase.verify_slice(1).unwrap().unwrap();
    assert!(!check.failed() && check.counts == pentagrid_tablebase::Verdict::Match);
}
