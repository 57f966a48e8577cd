//! The tablebase's speed: a probe answered from the block cache, a probe on a fresh cache
//! (the block decompressed), a probe of every move of a position, and opening the shipped
//! slices 0–6 (headers and block indexes read and checked).
//!
//! `cargo bench -p pentagrid-tablebase --bench probe -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use pentago::{ExactOracle, Position, splitmix64};
use pentagrid_tablebase::Tablebase;

/// Positions of `stones` stones from seeded random play.
fn positions(count: u64, stones: u32) -> Vec<Position> {
    (0..count)
        .map(|seed| {
            let mut position = Position::START;
            let mut state = seed;
            while position.stone_count() < stones {
                let moves = position.legal_moves();
                state = splitmix64(state);
                position = position.play_unchecked(moves[(state % moves.len() as u64) as usize]);
            }
            position
        })
        .collect()
}

fn probes(c: &mut Criterion) {
    let tablebase = Tablebase::shipped().unwrap();
    // Six stones: the largest shipped slice, with the most blocks.
    let sample = positions(64, 6);
    for position in &sample {
        tablebase.probe(position).unwrap();
    }
    let mut i = 0;
    c.bench_function("tablebase/probe cached (6 stones)", |b| {
        b.iter(|| {
            i = (i + 1) % sample.len();
            black_box(tablebase.probe(&sample[i]).unwrap())
        });
    });
    let mut j = 0;
    c.bench_function("tablebase/probe cold (fresh cache, 6 stones)", |b| {
        b.iter_batched(
            || {
                j = (j + 1) % sample.len();
                (Tablebase::shipped().unwrap(), sample[j])
            },
            |(fresh, position)| black_box(fresh.probe(&position).unwrap()),
            BatchSize::SmallInput,
        );
    });
    // Five stones: every move's child is a six-stone position.
    let five = positions(16, 5);
    for position in &five {
        tablebase.probe_moves(position).unwrap();
    }
    let mut k = 0;
    c.bench_function("tablebase/every move cached (5 stones)", |b| {
        b.iter(|| {
            k = (k + 1) % five.len();
            black_box(tablebase.probe_moves(&five[k]).unwrap())
        });
    });
    c.bench_function("tablebase/open slices 0-6", |b| {
        b.iter(|| black_box(Tablebase::shipped().unwrap()));
    });
}

criterion_group!(benches, probes);
criterion_main!(benches);
