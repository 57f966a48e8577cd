//! Engine hot paths: playouts (beside a plain C random-game loop), play, five detection, move
//! generation, immediate wins, safe moves, symmetry, UCT simulations.
//!
//! Run with `cargo bench -p pentagrid-bench --bench engine`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pentago::{
    Policy, Position, SearchControl, SearchOptions, SolveLimits, Solver, UctConfig, playout,
    search, seeded_rng,
};
use pentagrid_bench::{c_random_games, sample_positions};

/// Games per measured iteration of the random-game loops.
const GAMES: u64 = 1_000;

/// Uniform random games from the empty board: the engine's playout and the plain C loop of
/// `bench/c/random_games.c`, measured in the same run (the ratio is the figure that matters);
/// then the safe policy's games.
fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("playout");
    group.throughput(Throughput::Elements(GAMES));
    let mut seed = 0;
    group.bench_function("c-loop/start", |b| {
        b.iter(|| {
            seed += 1;
            c_random_games(GAMES, seed)
        })
    });
    for policy in [Policy::Uniform, Policy::Safe] {
        let mut rng = seeded_rng(1, 0);
        group.bench_function(format!("{policy}/start"), |b| {
            b.iter(|| {
                (0..GAMES)
                    .map(|_| playout(black_box(&Position::START), policy, &mut rng).stones)
                    .sum::<u32>()
            })
        });
    }
    group.finish();
}

fn rules(c: &mut Criterion) {
    let positions = sample_positions(256, 16, 3);
    let moves: Vec<_> = positions.iter().map(|p| p.legal_moves()[5]).collect();
    let mut group = c.benchmark_group("rules");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("play_unchecked", |b| {
        b.iter(|| {
            positions
                .iter()
                .zip(&moves)
                .map(|(p, &m)| p.play_unchecked(m).black().bits())
                .fold(0, |a, x| a ^ x)
        })
    });
    group.bench_function("status", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter(|p| black_box(p).status().is_over())
                .count()
        })
    });
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).legal_moves().len())
                .sum::<usize>()
        })
    });
    group.bench_function("has_immediate_win", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter(|p| black_box(p).has_immediate_win())
                .count()
        })
    });
    group.bench_function("safe_moves", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).safe_moves().len())
                .sum::<usize>()
        })
    });
    group.bench_function("canonical", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).canonical_key().bits())
                .fold(0, |a, x| a ^ x)
        })
    });
    group.finish();
}

/// UCT simulations from the empty board: 100,000 per search, on one and on two trees with
/// uniform playouts, and on one tree with the default configuration.
fn uct(c: &mut Criterion) {
    const SIMULATIONS: u64 = 100_000;
    let config: UctConfig = format!("uct:policy=uniform,playouts={SIMULATIONS}")
        .parse()
        .expect("valid config");
    let default = UctConfig::default().with_budget(pentago::Budget::Playouts(SIMULATIONS));
    let mut group = c.benchmark_group("uct");
    group.throughput(Throughput::Elements(SIMULATIONS));
    group.sample_size(10);
    let options = SearchOptions {
        seed: 1,
        threads: 1,
        tables_min_visits: None,
        oracle: None,
    };
    group.bench_function("start/default-config/1-threads", |b| {
        b.iter(|| {
            search(&Position::START, &default, &options, &SearchControl::new())
                .expect("ongoing position")
                .simulations
        })
    });
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let options = SearchOptions {
            seed: 1,
            threads,
            tables_min_visits: None,
            oracle: None,
        };
        group.bench_function(format!("start/{threads}-threads"), |b| {
            b.iter(|| {
                pool.install(|| search(&Position::START, &config, &options, &SearchControl::new()))
                    .expect("ongoing position")
                    .simulations
            })
        });
    }
    group.finish();
}

/// Solver nodes: a fresh solve of a 24-stone reference position (a draw),
/// throughput in searched nodes.
fn solver(c: &mut Criterion) {
    let position: Position = "xo.xox/ooxoxx/.x.ooo/..oo../xoxx../...xxo"
        .parse()
        .expect("valid position");
    let nodes = Solver::new(18)
        .solve(&position, SolveLimits::default())
        .nodes;
    let mut group = c.benchmark_group("solver");
    group.throughput(Throughput::Elements(nodes));
    group.sample_size(20);
    group.bench_function("nodes/24-stones", |b| {
        b.iter(|| {
            Solver::new(18)
                .solve(&position, SolveLimits::default())
                .value
        })
    });
    group.finish();
}

criterion_group!(benches, playouts, rules, uct, solver);
criterion_main!(benches);
