//! Engine hot paths: playouts, play, five detection, move generation, immediate wins, symmetry.
//!
//! Run with `cargo bench -p pentagrid-bench --bench engine`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pentago::{Policy, Position, playout, seeded_rng};
use pentagrid_bench::sample_positions;

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("playout");
    group.throughput(Throughput::Elements(1));
    for policy in [Policy::Uniform, Policy::Safe] {
        let mut rng = seeded_rng(1, 0);
        group.bench_function(format!("{policy}/start"), |b| {
            b.iter(|| playout(black_box(&Position::START), policy, &mut rng))
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

criterion_group!(benches, playouts, rules);
criterion_main!(benches);
