//! Pages of bulk answers: how a requested page size is read (0: the default, above the most:
//! refused) and the one refusal every paged call gives for a bad page, so that no single
//! message comes near the message size cap.

use thiserror::Error;

/// Why a page request was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PageError {
    /// More items per page than the call allows.
    #[error("{what} must be at most {max}, not {asked}")]
    TooLarge {
        /// The field that asked.
        what: &'static str,
        /// What it asked for.
        asked: u64,
        /// The most allowed.
        max: u64,
    },
    /// The page starts past the end of what there is.
    #[error("{what} {at} is past the end ({end})")]
    PastEnd {
        /// The field that asked.
        what: &'static str,
        /// Where the page would start.
        at: u64,
        /// The last valid start.
        end: u64,
    },
}

/// The page size a caller asked for as `asked` in field `what`: 0 means `default`; more than
/// `max` is refused.
pub fn page_size(what: &'static str, asked: u64, default: u64, max: u64) -> Result<u64, PageError> {
    match asked {
        0 => Ok(default),
        n if n > max => Err(PageError::TooLarge {
            what,
            asked: n,
            max,
        }),
        n => Ok(n),
    }
}

/// Checks that a page starting at `at` (field `what`) does not start past `end`.
pub fn check_start(what: &'static str, at: u64, end: u64) -> Result<(), PageError> {
    if at > end {
        return Err(PageError::PastEnd { what, at, end });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_means_the_default_and_too_large_is_named() {
        assert_eq!(page_size("page_size", 0, 20, 100), Ok(20));
        assert_eq!(page_size("page_size", 100, 20, 100), Ok(100));
        let error = page_size("page_size", 101, 20, 100).unwrap_err();
        assert_eq!(error.to_string(), "page_size must be at most 100, not 101");
    }

    #[test]
    fn a_start_past_the_end_is_refused() {
        assert_eq!(check_start("offset", 5, 5), Ok(()));
        let error = check_start("offset", 6, 5).unwrap_err();
        assert_eq!(error.to_string(), "offset 6 is past the end (5)");
    }
}
