//! Reading positions from arguments or, for `-`, from standard input (one per line).

use std::io::BufRead;

use anyhow::{Context, Result, bail};
use pentago::Position;

/// The positions named by a command-line argument: one position, or the first word of every
/// non-empty line of standard input for `-`. All lines are read and checked before any is used, so a bad line
/// stops the command before it prints anything.
pub fn positions(argument: &str) -> Result<Vec<Position>> {
    if argument != "-" {
        return Ok(vec![parse_position(argument)?]);
    }
    let stdin = std::io::stdin();
    let mut out = Vec::new();
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = line.context("reading standard input")?;
        // A position is the line's first word: annotations after it (such as the values in
        // ../shared/data/solved-positions.txt) are ignored.
        let Some(text) = line.split_whitespace().next() else {
            continue;
        };
        if text.starts_with('#') {
            continue;
        }
        let position = text
            .parse()
            .with_context(|| format!("line {}: {:?}", number + 1, pentago::excerpt(text)))?;
        out.push(position);
    }
    if out.is_empty() {
        bail!("no positions on standard input");
    }
    Ok(out)
}

/// One position from an argument, with the text in the error.
pub fn parse_position(text: &str) -> Result<Position> {
    text.parse()
        .with_context(|| format!("bad position {:?}", pentago::excerpt(text)))
}
