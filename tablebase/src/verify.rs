//! `verify`: a slice recounted against its counts file and hashed against its known SHA-1.

use crate::counts::{CountsTable, SectionCounts, parse_npy, recount};
use crate::error::TablebaseError;
use crate::slice::counts_of;
use crate::tablebase::Tablebase;

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The slice agrees.
    Match,
    /// The slice disagrees: how.
    Mismatch(String),
    /// Nothing to check against (no counts file, no known sum).
    Unchecked,
}

impl Verdict {
    /// Whether the check failed.
    #[must_use]
    pub fn failed(&self) -> bool {
        matches!(self, Verdict::Mismatch(_))
    }
}

/// What verifying one slice found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceCheck {
    /// The slice's stone count.
    pub stones: u32,
    /// Its file.
    pub path: String,
    /// Sections recounted.
    pub sections: usize,
    /// The recount's totals over all sections.
    pub totals: SectionCounts,
    /// The recount against the counts file.
    pub counts: Verdict,
    /// The file's SHA-1 against the published one.
    pub sha1: Verdict,
}

impl SliceCheck {
    /// Whether any check failed.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.counts.failed() || self.sha1.failed()
    }
}

impl Tablebase {
    /// Recounts every section of slice `stones` (decompressing every block) and compares with
    /// its counts file when there is one, and hashes the file against its published SHA-1 when
    /// known. `None` when the slice is not loaded; `Err` when a block cannot be read.
    pub fn verify_slice(&self, stones: u32) -> Option<Result<SliceCheck, TablebaseError>> {
        let parts = self.slice_parts(stones)?;
        Some((|| {
            let recounted = recount(parts.file)?;
            let counts = match parts.counts {
                None => Verdict::Unchecked,
                Some((name, bytes)) => compare(&recounted, &parse_npy(name, &bytes?)?),
            };
            let sha1 = match parts.known_sha1 {
                None => Verdict::Unchecked,
                Some(known) => {
                    let actual = sha1_of(parts.file)?;
                    if actual == known {
                        Verdict::Match
                    } else {
                        Verdict::Mismatch(format!("SHA-1 {actual}, published {known}"))
                    }
                }
            };
            let totals = recounted
                .values()
                .fold(SectionCounts::default(), |t, c| SectionCounts {
                    black_wins: t.black_wins + c.black_wins,
                    white_wins: t.white_wins + c.white_wins,
                    positions: t.positions + c.positions,
                });
            Ok(SliceCheck {
                stones,
                path: parts.file.path.clone(),
                sections: recounted.len(),
                totals,
                counts,
                sha1,
            })
        })())
    }
}

/// The recount against the published counts: the same sections with the same numbers.
fn compare(recounted: &CountsTable, published: &CountsTable) -> Verdict {
    for (sig, counts) in recounted {
        match published.get(sig) {
            None => {
                return Verdict::Mismatch(format!(
                    "section {:?} is not in the counts file",
                    counts_of(*sig)
                ));
            }
            Some(p) if p != counts => {
                return Verdict::Mismatch(format!(
                    "section {:?}: recounted {}/{}/{} (black wins/white wins/positions), published {}/{}/{}",
                    counts_of(*sig),
                    counts.black_wins,
                    counts.white_wins,
                    counts.positions,
                    p.black_wins,
                    p.white_wins,
                    p.positions
                ));
            }
            Some(_) => {}
        }
    }
    if published.len() != recounted.len() {
        return Verdict::Mismatch(format!(
            "the counts file has {} sections, the slice {}",
            published.len(),
            recounted.len()
        ));
    }
    Verdict::Match
}

/// The SHA-1 of the whole file, read a mebibyte at a time.
fn sha1_of(file: &crate::slice::SliceFile) -> Result<String, TablebaseError> {
    const CHUNK: u64 = 1 << 20;
    let mut hasher = sha1_smol::Sha1::new();
    let len = file.source.len();
    let mut at = 0;
    while at < len {
        let n = CHUNK.min(len - at);
        hasher.update(&file.source.read(&file.path, "file contents", at, n)?);
        at += n;
    }
    Ok(hasher.digest().to_string())
}
