//! Opening suites on the client's side: a `file:PATH` opening source names a file only this
//! machine can read, so the client reads and checks it (see [`pentago::parse_suite`]) and sends
//! its positions with the match; nothing is sent when it does not read.

use std::path::Path;

use pentago::{OpeningSource, Position, parse_suite};

use crate::error::{ClientError, Result};

/// The positions a match with `openings` sends: a `file:` suite's, read and checked here;
/// none for every other source.
pub fn suite_positions(openings: &OpeningSource) -> Result<Vec<Position>> {
    match openings {
        OpeningSource::File { path } => read_suite(Path::new(path)),
        _ => Ok(Vec::new()),
    }
}

/// Reads the opening suite at `path`; errors name the file, and the line and reason.
pub fn read_suite(path: &Path) -> Result<Vec<Position>> {
    let text = std::fs::read_to_string(path).map_err(|source| ClientError::Io {
        context: format!("reading the opening suite {}", path.display()),
        source,
    })?;
    parse_suite(&text).map_err(|error| ClientError::Suite {
        path: path.display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_file_reads_and_a_bad_one_names_the_file_line_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.txt");
        std::fs::write(&good, "# suite\nstart\nc4-1R\n").unwrap();
        let source = OpeningSource::File {
            path: good.display().to_string(),
        };
        assert_eq!(suite_positions(&source).unwrap().len(), 2);
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "start\n\nc4-2R c4-2L\n").unwrap();
        let error = read_suite(&bad).unwrap_err().to_string();
        assert!(
            error.contains("bad.txt") && error.contains("line 3"),
            "{error}"
        );
        assert!(error.contains("illegal"), "{error}");
        let missing = read_suite(&dir.path().join("none.txt")).unwrap_err();
        assert!(missing.to_string().contains("none.txt"), "{missing}");
        assert!(
            suite_positions(&OpeningSource::default())
                .unwrap()
                .is_empty()
        );
    }
}
