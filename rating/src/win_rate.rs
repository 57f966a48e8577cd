//! Win rates with their 95% intervals, as book tables, studies and the explorer show them.

use serde::Serialize;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// A win rate `(wins + draws / 2) / games` with its 95% interval.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct WinRate {
    /// The rate, 0 to 1.
    pub rate: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// The win rate of `games` with `wins` and `draws`, with its Wilson score interval (draws count
/// as half a win; a draw's score varies less than a win-or-loss, so the interval is, if anything,
/// a little wide). `None` without games.
#[must_use]
pub fn win_rate(games: u64, wins: u64, draws: u64) -> Option<WinRate> {
    if games == 0 {
        return None;
    }
    let n = games as f64;
    let rate = ((wins as f64 + draws as f64 / 2.0) / n).clamp(0.0, 1.0);
    let z2 = Z95 * Z95;
    let centre = (rate + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (rate * (1.0 - rate) / n + z2 / (4.0 * n * n)).sqrt();
    // The interval always holds the rate; the min/max only absorb rounding at 0 and 1.
    Some(WinRate {
        rate,
        low: (centre - half).clamp(0.0, rate),
        high: (centre + half).clamp(rate, 1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_games_no_rate() {
        assert_eq!(win_rate(0, 0, 0), None);
    }

    #[test]
    fn known_wilson_intervals() {
        // 50 of 100: 0.5 ± 0.0962 (the Wilson interval is symmetric at one half).
        let r = win_rate(100, 50, 0).unwrap();
        assert!((r.rate - 0.5).abs() < 1e-12);
        assert!(
            (r.low - 0.4038).abs() < 1e-4 && (r.high - 0.5962).abs() < 1e-4,
            "{r:?}"
        );
        // 10 of 10: the interval ends at 1 and starts near 0.7225.
        let r = win_rate(10, 10, 0).unwrap();
        assert!((r.low - 0.7225).abs() < 1e-4 && r.high == 1.0, "{r:?}");
    }

    #[test]
    fn intervals_hold_the_rate_and_shrink_with_games() {
        for (games, wins, draws) in [(1, 0, 1), (7, 3, 2), (1000, 400, 100), (5, 0, 0)] {
            let r = win_rate(games, wins, draws).unwrap();
            assert!(0.0 <= r.low && r.low <= r.rate && r.rate <= r.high && r.high <= 1.0);
            let more = win_rate(games * 100, wins * 100, draws * 100).unwrap();
            assert!(more.high - more.low < r.high - r.low);
        }
    }
}
