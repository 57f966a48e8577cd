//! The commands `pentagrid gtp` knows and the words its arguments use.

use crate::board::color::Color;

/// Every command, in the order `list_commands` prints them. Stable: controllers ask for them.
pub const COMMANDS: [&str; 19] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "play",
    "genmove",
    "time_settings",
    "time_left",
    "showboard",
    "final_score",
    "pentagrid-set_position",
    "pentagrid-position",
    "pentagrid-time_settings",
    "pentagrid-tree_visits",
    "pentagrid-last_search",
];

/// A colour as GTP writes it: `black`/`b` or `white`/`w`, any case. Black is the first player
/// (`x`).
#[must_use]
pub fn parse_colour(text: &str) -> Option<Color> {
    match text.to_ascii_lowercase().as_str() {
        "black" | "b" => Some(Color::Black),
        "white" | "w" => Some(Color::White),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_read_both_ways() {
        assert_eq!(parse_colour("B"), Some(Color::Black));
        assert_eq!(parse_colour("white"), Some(Color::White));
        assert_eq!(parse_colour("x"), None);
    }
}
