//! A worker's speed, for time controls that mean the same on every machine (fishtest's speed
//! scaling): simulations per second of one thread of the default player ([`UctConfig`]'s
//! default) searching the empty board for [`SPEED_SIMULATIONS`] simulations, best of three — a
//! fraction of a second. The coordinator's reference speed over this one is the worker's time scale
//! ([`pentagrid_proto::TimeScale::from_speeds`]).

use pentago::{Budget, Position, SearchControl, SearchOptions, UctConfig, search};

/// Simulations the measurement runs (about a tenth of a second on a current core).
pub const SPEED_SIMULATIONS: u64 = 20_000;

/// The seed of the measurement's search (fixed: every worker searches the same tree).
const SPEED_SEED: u64 = 0x5eed;

/// Times the measurement is run; the fastest counts (the others lost time to whatever else
/// the machine did).
const SPEED_RUNS: usize = 3;

/// Measures this machine's speed: simulations per second of one thread of the default player,
/// the best of [`SPEED_RUNS`] searches (at least 1; 0 only if no search ran).
#[must_use]
pub fn measure_speed() -> u64 {
    (0..SPEED_RUNS).map(|_| measure_once()).max().unwrap_or(0)
}

fn measure_once() -> u64 {
    let config = UctConfig::default().with_budget(Budget::Playouts(SPEED_SIMULATIONS));
    let options = SearchOptions {
        seed: SPEED_SEED,
        threads: 1,
        tables_min_visits: None,
        oracle: None,
    };
    match search(&Position::START, &config, &options, &SearchControl::new()) {
        Ok(result) => speed_of(result.simulations, result.seconds),
        // The empty board is never a finished game; were it refused, the speed is unknown.
        Err(_) => 0,
    }
}

/// Simulations per second from a count and the seconds they took, at least 1 (a count done
/// in no measurable time reads as the count itself).
fn speed_of(simulations: u64, seconds: f64) -> u64 {
    let per_second = if seconds > 0.0 {
        simulations as f64 / seconds
    } else {
        simulations as f64
    };
    // `as` saturates: a huge or infinite quotient reads as u64::MAX.
    (per_second.round() as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_speed_is_simulations_per_second_of_a_real_search() {
        let speed = measure_speed();
        // Any machine that runs the tests does more than a thousand and less than a hundred
        // million simulations a second on one thread.
        assert!((1_000..100_000_000).contains(&speed), "{speed}");
        assert_eq!(speed_of(20_000, 0.1), 200_000);
        assert_eq!(speed_of(20_000, 0.0), 20_000);
        assert_eq!(speed_of(0, 1.0), 1);
        assert_eq!(speed_of(u64::MAX, 1e-300), u64::MAX);
    }
}
