//! Checking a slice: recounting its sections against `counts-N.npy`, and SHA-1 sums.

use std::collections::BTreeMap;

use crate::error::TablebaseError;
use crate::quadrant::Tables;
use crate::slice::{ENTRY_BYTES, SliceFile};

/// One section's totals: positions black wins, positions white wins, positions.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SectionCounts {
    /// Positions (distinct boards) in which black wins with perfect play.
    pub black_wins: u64,
    /// Positions in which white wins.
    pub white_wins: u64,
    /// Positions in the section.
    pub positions: u64,
}

/// Per section signature (Irving's: quadrant `q`'s black count in byte `2q`, white in
/// `2q + 1`), its counts.
pub type CountsTable = BTreeMap<u64, SectionCounts>;

/// Reads a `counts-N.npy` file: a NumPy array of little-endian `uint64`, shape `(sections, 4)`,
/// rows (signature, black wins, white wins, positions).
pub fn parse_npy(path: &str, bytes: &[u8]) -> Result<CountsTable, TablebaseError> {
    let fail = |what: &str| TablebaseError::Counts {
        path: path.to_owned(),
        what: what.to_owned(),
    };
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(fail("no NumPy magic"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(fail("unknown NumPy format version")),
    };
    let header = bytes
        .get(start..start + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| fail("truncated header"))?;
    let compact: String = header.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.contains("'descr':'<u8'") || !compact.contains("'fortran_order':False") {
        return Err(fail("not a C-ordered little-endian uint64 array"));
    }
    let shape = compact
        .split("'shape':(")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .ok_or_else(|| fail("no shape"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .filter(|d| !d.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| fail("unreadable shape"))?;
    let [rows, 4] = dims[..] else {
        return Err(fail("shape is not (sections, 4)"));
    };
    let body = &bytes[start + header_len..];
    if body.len() != rows * 32 {
        return Err(fail("data length does not match the shape"));
    }
    let mut table = CountsTable::new();
    for row in body.chunks_exact(32) {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&row[8 * i..8 * i + 8]);
            u64::from_le_bytes(w)
        };
        let counts = SectionCounts {
            black_wins: word(1),
            white_wins: word(2),
            positions: word(3),
        };
        if table.insert(word(0), counts).is_some() {
            return Err(fail("a section appears twice"));
        }
    }
    Ok(table)
}

/// Recounts every section of a slice: each distinct board once (a quadrant whose rotations
/// repeat after 1 or 2 turns counts only those). Also errs if an entry claims both colours win.
pub(crate) fn recount(slice: &SliceFile) -> Result<CountsTable, TablebaseError> {
    let tables = Tables::get();
    let mut table = CountsTable::new();
    for (number, section) in slice.sections.iter().enumerate() {
        let classes = section.counts().map(|(b, w)| tables.class(b, w));
        let mut counts = SectionCounts::default();
        for flat in 0..section.block_count() {
            let data = slice.read_block(number, flat)?;
            let b = section.block_coords(flat);
            let shape = section.block_shape(b);
            let mut entry = 0;
            for i0 in 0..shape[0] {
                for i1 in 0..shape[1] {
                    for i2 in 0..shape[2] {
                        for i3 in 0..shape[3] {
                            let local = [i0, i1, i2, i3];
                            let periods: [u8; 4] = std::array::from_fn(|k| {
                                tables.period(classes[k][b[k] * section.block_size + local[k]])
                            });
                            let bytes = &data[entry * ENTRY_BYTES..(entry + 1) * ENTRY_BYTES];
                            count_entry(bytes, periods, &mut counts).map_err(|r| {
                                TablebaseError::damaged(
                                    &slice.path,
                                    format!("section {number} block {flat} entry {entry}: both colours win at rotation {r}"),
                                )
                            })?;
                            entry += 1;
                        }
                    }
                }
            }
        }
        table.insert(section.sig, counts);
    }
    Ok(table)
}

/// Adds one entry's distinct boards to `counts`; errs with the rotation where both win.
fn count_entry(bytes: &[u8], periods: [u8; 4], counts: &mut SectionCounts) -> Result<(), usize> {
    for r3 in 0..usize::from(periods[3]) {
        for r2 in 0..usize::from(periods[2]) {
            for r1 in 0..usize::from(periods[1]) {
                for r0 in 0..usize::from(periods[0]) {
                    let r = r0 + 4 * (r1 + 4 * (r2 + 4 * r3));
                    let pair = bytes[r / 4] >> (2 * (r % 4)) & 3;
                    if pair == 3 {
                        return Err(r);
                    }
                    counts.black_wins += u64::from(pair & 1);
                    counts.white_wins += u64::from(pair >> 1);
                    counts.positions += 1;
                }
            }
        }
    }
    Ok(())
}

/// Reads a `sha1s` file (`<40 hex digits>  <file name>` per line) into a map by file name.
pub fn parse_sha1s(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let (sum, name) = line.trim().split_once(char::is_whitespace)?;
            let sum = sum.to_ascii_lowercase();
            (sum.len() == 40 && sum.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| (name.trim().to_owned(), sum))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(header: &str, body: &[u64]) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        for w in body {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    #[test]
    fn npy_is_read_and_checked() {
        let h = "{'descr': '<u8', 'fortran_order': False, 'shape': (1, 4), }";
        let t = parse_npy("c", &npy(h, &[1, 6, 0, 9])).unwrap();
        assert_eq!(t[&1].black_wins, 6);
        assert_eq!(t[&1].positions, 9);
        assert!(parse_npy("c", &npy(h, &[1, 6, 0])).is_err());
        assert!(parse_npy("c", &npy(&h.replace("<u8", ">u8"), &[1, 6, 0, 9])).is_err());
        assert!(parse_npy("c", &npy(&h.replace("(1, 4)", "(4,)"), &[1, 6, 0, 9])).is_err());
        assert!(parse_npy("c", b"\x93NUMPY").is_err());
        assert!(parse_npy("c", b"PK\x03\x04 a zip file, not numpy").is_err());
    }

    #[test]
    fn symmetric_quadrants_count_once() {
        // An all-black-wins entry over a section whose first quadrant is empty (period 1) and
        // others have period 4: 64 boards.
        let mut counts = SectionCounts::default();
        count_entry(&[0x55; 64], [1, 4, 4, 4], &mut counts).unwrap();
        assert_eq!(
            (counts.black_wins, counts.white_wins, counts.positions),
            (64, 0, 64)
        );
        assert_eq!(count_entry(&[0xff; 64], [1, 1, 1, 1], &mut counts), Err(0));
    }

    #[test]
    fn sha1s_lines() {
        let m =
            parse_sha1s("B2A878C45D70F39FCF39156397E88E3374092AC3  slice-0.pentago\nnonsense\n");
        assert_eq!(
            m["slice-0.pentago"],
            "b2a878c45d70f39fcf39156397e88e3374092ac3"
        );
        assert_eq!(m.len(), 1);
    }
}
