//! Results a simulated worker hands in: cheap to make, but valid for their job by the
//! coordinator's own checks, so every one is applied.
//! - analyse: plausible move statistics — up to [`ANALYSIS_ROWS`] legal moves, the playouts
//!   spread over them as visits spread over a search's moves (the i-th gets a share in
//!   proportion to 1 / i), win rates between 30% and 60%, 2% draws;
//! - pair and selfplay: uniformly random games from the start given, played to the end;
//! - verify: "no mate" for every candidate (the soak does not search for mates; the
//!   coordinator takes rejections as the worker's claim);
//! - solve: not simulated (the soak's build solves nothing), so `None`;
//! - solitaire: not simulated (the soak queues none), so `None`.

use pentago::{Move, Position, Status, seeded_rng};
use pentagrid_proto::{Outcome, RejectionKind, Row, Task, Verdict};
use rand::{Rng, RngExt};

/// Most move rows of a simulated analysis.
pub const ANALYSIS_ROWS: usize = 24;

/// A result for `task`, drawn from `seed`; `None` for a kind the soak does not simulate.
#[must_use]
pub fn simulate(task: &Task, seed: u64) -> Option<Outcome> {
    let mut rng = seeded_rng(seed, 0x50a4);
    match task {
        Task::Analyse {
            position, playouts, ..
        } => Some(analysis(position, *playouts, &mut rng)),
        Task::Selfplay { start, .. } => {
            let (moves, result) = random_game(*start, &mut rng);
            Some(Outcome::Selfplay { moves, result })
        }
        Task::Pair { opening, .. } => Some(Outcome::Pair {
            games: [
                random_game(*opening, &mut rng),
                random_game(*opening, &mut rng),
            ],
            accuracy: None,
            notes: Default::default(),
        }),
        Task::Verify { candidates, .. } => Some(Outcome::Verify {
            verdicts: vec![Verdict::Rejected(RejectionKind::NoMate); candidates.len()],
        }),
        Task::Solve { .. } | Task::DeepLeaves { .. } | Task::Solitaire { .. } => None,
    }
}

/// The rows of a plausible analysis of `position` within `playouts`.
fn analysis(position: &Position, playouts: u64, rng: &mut impl Rng) -> Outcome {
    let mut legal: Vec<Move> = position.legal_moves().to_vec();
    // A partial shuffle: the first moves are a random choice of the legal ones.
    let rows = legal.len().min(ANALYSIS_ROWS);
    for i in 0..rows {
        let j = rng.random_range(i..legal.len());
        legal.swap(i, j);
    }
    // The i-th move gets a share of the playouts in proportion to 1 / (i + 1).
    // Rounding down leaves a few playouts over: the first move gets them (all of them when
    // the budget is too small to share).
    let harmonic: f64 = (1..=rows).map(|i| 1.0 / i as f64).sum();
    let mut games: Vec<u64> = (1..=rows)
        .map(|i| (playouts as f64 / (i as f64 * harmonic)) as u64)
        .collect();
    games[0] += playouts - games.iter().sum::<u64>();
    let mut out = Vec::with_capacity(rows);
    for (&mv, games) in legal[..rows].iter().zip(games) {
        if games == 0 {
            break;
        }
        let rate = rng.random_range(0.3..0.6);
        let wins = (games as f64 * rate) as u64;
        let draws = (games / 50).min(games - wins);
        out.push(Row {
            mv,
            games,
            wins,
            draws,
        });
    }
    let simulations = out.iter().map(|r| r.games).sum();
    Outcome::Analyse {
        rows: out,
        simulations,
        seconds: 0.0,
    }
}

/// A game of uniformly random moves from `start` (ongoing) to its end.
fn random_game(start: Position, rng: &mut impl Rng) -> (Vec<Move>, Status) {
    let mut position = start;
    let mut moves = Vec::new();
    while !position.is_over() {
        let legal = position.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        position = position.play_unchecked(mv);
        moves.push(mv);
    }
    (moves, position.status())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::{Player, UctConfig};
    use pentagrid_edge::check_result;
    use pentagrid_proto::v2;
    use prost::Message;

    /// A job and a submission of `outcome` as the wire carries them.
    fn encode(task: &Task, outcome: &Outcome) -> (Vec<u8>, Vec<u8>) {
        let job = v2::JobSpec::from(task).encode_to_vec();
        let submission = v2::SubmitRequest {
            job_id: 1,
            result: Some(outcome.into()),
            ..v2::SubmitRequest::default()
        }
        .encode_to_vec();
        (job, submission)
    }

    #[test]
    fn every_simulated_result_passes_the_coordinators_checks() {
        let opening: Position = "x.o.../.x..../....o./..x.../....../......".parse().unwrap();
        let tasks = [
            Task::Analyse {
                position: Position::START,
                config: UctConfig::default(),
                playouts: 1_000,
            },
            Task::Analyse {
                position: opening,
                config: UctConfig::default(),
                playouts: 3,
            },
            Task::Pair {
                match_id: 1,
                pair: 0,
                opening,
                a: Player::Random,
                b: Player::Random,
                accuracy_stones: None,
                time: None,
                adjudicate: None,
            },
            Task::Selfplay {
                start: opening,
                black: Player::Random,
                white: Player::Random,
            },
            Task::Verify {
                candidates: vec![(opening, "random".into()); 3],
                max_moves: 3,
            },
        ];
        for task in &tasks {
            for seed in 0..20 {
                let outcome = simulate(task, seed).expect("simulated");
                let (job, submission) = encode(task, &outcome);
                check_result(&job, &submission)
                    .unwrap_or_else(|e| panic!("{task:?}, seed {seed}: {e}"));
            }
        }
        assert!(simulate(&Task::Solve { position: opening }, 0).is_none());
    }
}
