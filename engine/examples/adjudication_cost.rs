//! `adjudication_cost`: what exact adjudication costs and proves on match positions, stone
//! count by stone count (the measurement behind its alpha-beta attempt and budget,
//! BENCHMARKS.md).
//!
//! ```text
//! adjudication_cost GAMES SEED A B JUDGE...
//! ```
//!
//! Plays GAMES games of player A against player B (colours alternating, one thread, seeds from
//! SEED), then judges every ongoing position of 12 stones or more of each game by each JUDGE:
//! an adjudication (e.g. `exact:stones=12`), as a worker would before each move, or `nodes=N`,
//! a plain alpha-beta attempt of N nodes (to choose the adjudication's), and prints per
//! stone count the positions, how many each judge valued and its mean wall time; per
//! judge the stone count at which each game would have ended, the wall time of judging
//! a game until then, and the CPU time of judging a position (all of them). One thread, as a
//! worker's: `cargo build --workspace --example adjudication_cost`, then
//! `RAYON_NUM_THREADS=1 target/debug/examples/adjudication_cost 40 3 uct:playouts=3000
//! uct:playouts=1500 nodes=500 nodes=2000 exact exact:stones=12` (the dev profile builds the
//! engine at opt-level 3).

use std::process::ExitCode;
use std::time::Instant;

use std::fmt;

use pentago::{
    Adjudication, NoOracle, Player, Position, SolveLimits, Solver, play_game, splitmix64,
};

/// Fewest stones judged.
const FROM_STONES: u32 = 12;

/// What values a position: an adjudication, or a plain alpha-beta attempt of so many nodes.
enum Judge {
    Rule(Adjudication),
    Nodes(u64),
}

impl Judge {
    fn parse(text: &str) -> Result<Judge, String> {
        match text.strip_prefix("nodes=") {
            Some(n) => n
                .parse()
                .map(Judge::Nodes)
                .map_err(|_| format!("nodes {n:?}")),
            None => text.parse().map(Judge::Rule).map_err(|e| format!("{e}")),
        }
    }

    /// Whether it values `position`.
    fn values(&self, position: &Position) -> bool {
        match self {
            Judge::Rule(adjudication) => adjudication.judge(position, &NoOracle).is_some(),
            Judge::Nodes(nodes) => {
                let limits = SolveLimits {
                    max_nodes: *nodes,
                    max_time: None,
                };
                Solver::new(14).alpha_beta(position, limits).value.is_some()
            }
        }
    }
}

impl fmt::Display for Judge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Judge::Rule(adjudication) => adjudication.fmt(f),
            Judge::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// Per stone count and judge: positions, valued, seconds.
type Tally = Vec<Vec<(u32, u32, f64)>>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("adjudication_cost: {e}");
            eprintln!("usage: adjudication_cost GAMES SEED A B JUDGE...");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [games, seed, a, b, judges @ ..] = args else {
        return Err("too few arguments".into());
    };
    let games: u64 = games.parse().map_err(|_| format!("GAMES {games:?}"))?;
    let seed: u64 = seed.parse().map_err(|_| format!("SEED {seed:?}"))?;
    let a: Player = a.parse().map_err(|e| format!("A: {e}"))?;
    let b: Player = b.parse().map_err(|e| format!("B: {e}"))?;
    let judges: Vec<Judge> = judges
        .iter()
        .map(|t| Judge::parse(t))
        .collect::<Result<_, _>>()?;
    let mut played = Vec::new();
    for game in 0..games {
        let (black, white) = if game % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let record = play_game(&Position::START, black, white, splitmix64(seed ^ game), 1);
        let mut positions = vec![record.start];
        for &mv in &record.moves {
            positions.push(positions[positions.len() - 1].play_unchecked(mv));
        }
        positions.retain(|p| p.stone_count() >= FROM_STONES && !p.is_over());
        played.push(positions);
    }
    let mut tally: Tally = vec![vec![(0, 0, 0.0); judges.len()]; 37];
    // Per judge: games ended at each stone count (36: never), seconds of judging until then,
    // and CPU seconds of judging every position.
    let mut ended = vec![(vec![0u32; 37], 0.0, 0.0); judges.len()];
    for (i, judge) in judges.iter().enumerate() {
        let cpu = cpu_seconds();
        for positions in &played {
            let mut done = false;
            for position in positions {
                let started = Instant::now();
                let valued = judge.values(position);
                let seconds = started.elapsed().as_secs_f64();
                let stones = position.stone_count() as usize;
                let entry = &mut tally[stones][i];
                entry.0 += 1;
                entry.1 += u32::from(valued);
                entry.2 += seconds;
                if !done {
                    ended[i].1 += seconds;
                    if valued {
                        ended[i].0[stones] += 1;
                        done = true;
                    }
                }
            }
            ended[i].0[36] += u32::from(!done);
        }
        ended[i].2 = cpu_seconds() - cpu;
    }
    print_tally(&judges, &tally, &ended, games);
    Ok(())
}

/// Per judge: games ended at each stone count, seconds until then, CPU seconds in all.
type Ended = Vec<(Vec<u32>, f64, f64)>;

/// CPU seconds this process has used (user + system, from `/proc/self/stat`, in ticks of
/// 10 ms; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // After the command name (which ends with the last ')'): utime is the 12th field, stime
    // the 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn print_tally(judges: &[Judge], tally: &Tally, ended: &Ended, games: u64) {
    let names: Vec<String> = judges.iter().map(ToString::to_string).collect();
    println!("stones positions | {}: valued, mean ms", names.join(" | "));
    for (stones, row) in tally.iter().enumerate().filter(|(_, row)| row[0].0 > 0) {
        let cells: Vec<String> = row
            .iter()
            .map(|(n, valued, seconds)| {
                format!("{valued:3} {:7.2}", 1000.0 * seconds / f64::from(*n))
            })
            .collect();
        println!("{stones:6} {:9} | {}", row[0].0, cells.join(" | "));
    }
    for (name, (at, seconds, cpu)) in names.iter().zip(ended) {
        let at: Vec<String> = at
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(stones, n)| match stones {
                36 => format!("not:{n}"),
                _ => format!("{stones}:{n}"),
            })
            .collect();
        let positions: u32 = tally.iter().map(|row| row[0].0).sum();
        println!(
            "{name}: games end at {}; {:.1} ms of judging a game until then; \
             {:.2} ms of CPU a position judged",
            at.join(" "),
            1000.0 * seconds / games as f64,
            1000.0 * cpu / f64::from(positions)
        );
    }
}
