//! The puzzle listing's filter ([`PuzzleFilter`]) on the wire: a list request carries it beside
//! its paging fields.

use pentago::{DIFFICULTY_LABELS, Theme};
use pentagrid_model::{PuzzleFilter, parse_field, quote};

use crate::errors::ConversionError;
use crate::v2;

/// A list request for `filter`'s puzzles; its paging fields (`page`, `page_size`, `limit`,
/// `cursor`) are left at their defaults for the caller to set.
#[must_use]
pub fn puzzle_filter_to_wire(filter: &PuzzleFilter) -> v2::ListPuzzlesRequest {
    v2::ListPuzzlesRequest {
        min_moves: filter.min_moves,
        max_moves: filter.max_moves,
        min_difficulty: filter.min_difficulty,
        max_difficulty: filter.max_difficulty,
        theme: filter
            .theme
            .map(|t| t.name().to_owned())
            .unwrap_or_default(),
        level: filter.level.unwrap_or_default().to_owned(),
        ..v2::ListPuzzlesRequest::default()
    }
}

/// The filter of a list request: an unknown theme or level is refused, naming it.
pub fn puzzle_filter_of_wire(
    request: &v2::ListPuzzlesRequest,
) -> Result<PuzzleFilter, ConversionError> {
    let theme = match request.theme.as_str() {
        "" => None,
        text => Some(parse_field::<Theme>("theme", text)?),
    };
    let level = match request.level.as_str() {
        "" => None,
        level => Some(
            DIFFICULTY_LABELS
                .into_iter()
                .find(|label| *label == level)
                .ok_or_else(|| {
                    ConversionError(format!(
                        "bad level {}: expected easy, medium, hard or expert",
                        quote(level)
                    ))
                })?,
        ),
    };
    Ok(PuzzleFilter {
        min_moves: request.min_moves,
        max_moves: request.max_moves,
        min_difficulty: request.min_difficulty,
        max_difficulty: request.max_difficulty,
        theme,
        level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_go_and_come_back_and_unknown_levels_are_refused() {
        let filter = PuzzleFilter {
            min_moves: 2,
            max_moves: 3,
            min_difficulty: 0.5,
            max_difficulty: 2.5,
            theme: None,
            level: Some("hard"),
        };
        assert_eq!(
            puzzle_filter_of_wire(&puzzle_filter_to_wire(&filter)).unwrap(),
            filter
        );
        let bad = v2::ListPuzzlesRequest {
            level: "impossible".into(),
            ..v2::ListPuzzlesRequest::default()
        };
        assert_eq!(
            puzzle_filter_of_wire(&bad).unwrap_err().0,
            "bad level \"impossible\": expected easy, medium, hard or expert"
        );
    }
}
