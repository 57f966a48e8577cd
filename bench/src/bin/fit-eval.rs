//! Fits the weights of the line-occupancy evaluation (`pentago::Evaluation`) by logistic
//! regression on the outcomes of safe-policy games: every position before a move is one sample,
//! its features `b_k − w_k` (k = 1..4, from the side to move's view), its target the final score
//! of the side to move (win 1, draw 1/2, loss 0).
//!
//! `cargo run --release -p pentagrid-bench --bin fit-eval -- [GAMES] [SEED]`

use std::process::ExitCode;

use pentago::{Color, LineOccupancy, Position, Status, seeded_rng};
use rand::RngExt;

/// Features of one position from its mover's view: 1 (the tempo) then `b_k − w_k`.
type Features = [f64; 5];

fn features(position: &Position) -> Features {
    let counts = LineOccupancy::of(position).counts();
    let sign = match position.side_to_move() {
        Color::Black => 1.0,
        Color::White => -1.0,
    };
    let mut x = [1.0; 5];
    for (k, feature) in x.iter_mut().enumerate().skip(1) {
        *feature = sign * (f64::from(counts.black[k]) - f64::from(counts.white[k]));
    }
    x
}

/// One safe-policy game from the start: its positions (before each move) and final status.
fn play_game(rng: &mut pentago::EngineRng) -> (Vec<Position>, Status) {
    let mut position = Position::START;
    let mut seen = Vec::new();
    while !position.is_over() {
        seen.push(position);
        let mv = match position.winning_move() {
            Some(mv) => mv,
            None => {
                let safe = position.safe_moves();
                let pool = if safe.is_empty() {
                    position.legal_moves()
                } else {
                    safe
                };
                pool[rng.random_range(0..pool.len())]
            }
        };
        position = position.play_unchecked(mv);
    }
    (seen, position.status())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Solves `a · x = b` for a small symmetric positive definite `a` (Gaussian elimination).
fn solve(mut a: [[f64; 5]; 5], mut b: [f64; 5]) -> [f64; 5] {
    for col in 0..5 {
        let pivot = (col..5)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col];
        for row in col + 1..5 {
            let f = a[row][col] / pivot_row[col];
            for (cell, &above) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                *cell -= f * above;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 5];
    for row in (0..5).rev() {
        let rest: f64 = (row + 1..5).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    x
}

/// Mean log-loss of `theta` on the samples.
fn log_loss(samples: &[(Features, f64)], theta: &Features) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|(x, y)| {
            let p =
                sigmoid(x.iter().zip(theta).map(|(a, b)| a * b).sum()).clamp(1e-12, 1.0 - 1e-12);
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len() as f64
}

/// Newton's method (iteratively reweighted least squares) with a tiny ridge for stability.
fn fit(samples: &[(Features, f64)]) -> Features {
    let mut theta = [0.0; 5];
    for _ in 0..25 {
        let mut gradient = [0.0; 5];
        let mut hessian = [[0.0; 5]; 5];
        for (x, y) in samples {
            let p = sigmoid(x.iter().zip(&theta).map(|(a, b)| a * b).sum());
            let w = p * (1.0 - p);
            for i in 0..5 {
                gradient[i] += (y - p) * x[i];
                for j in 0..5 {
                    hessian[i][j] += w * x[i] * x[j];
                }
            }
        }
        for (i, row) in hessian.iter_mut().enumerate() {
            row[i] += 1e-6 * samples.len() as f64;
        }
        let step = solve(hessian, gradient);
        for i in 0..5 {
            theta[i] += step[i];
        }
        if step.iter().map(|s| s.abs()).fold(0.0, f64::max) < 1e-7 {
            break;
        }
    }
    theta
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let parse = |text: Option<String>, default: u64| text.map_or(Ok(default), |t| t.parse());
    let (Ok(games), Ok(seed)) = (parse(args.next(), 50_000), parse(args.next(), 1)) else {
        eprintln!("usage: fit-eval [GAMES] [SEED] (whole numbers)");
        return ExitCode::FAILURE;
    };
    let mut rng = seeded_rng(seed, 0);
    let mut samples = Vec::new();
    for _ in 0..games {
        let (positions, status) = play_game(&mut rng);
        for position in positions {
            let y = match status {
                Status::Won(c) if c == position.side_to_move() => 1.0,
                Status::Won(_) => 0.0,
                _ => 0.5,
            };
            samples.push((features(&position), y));
        }
    }
    let theta = fit(&samples);
    let baseline = {
        let mean = samples.iter().map(|s| s.1).sum::<f64>() / samples.len() as f64;
        let logit = (mean / (1.0 - mean)).ln();
        log_loss(&samples, &[logit, 0.0, 0.0, 0.0, 0.0])
    };
    println!("games {games} seed {seed} positions {}", samples.len());
    println!(
        "tempo {:.4} a1 {:.4} a2 {:.4} a3 {:.4} a4 {:.4}",
        theta[0], theta[1], theta[2], theta[3], theta[4]
    );
    println!(
        "log-loss {:.4} (constant-only model {:.4})",
        log_loss(&samples, &theta),
        baseline
    );
    ExitCode::SUCCESS
}
