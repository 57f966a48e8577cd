//! Opening-book scale: query latency (`book show` through the coordinator, canonical mapping
//! included) and bytes on disk per stored position, at 10^4, 10^5 and 10^6 stored positions.
//! Run with `cargo bench -p pentagrid-bench --bench book` (several minutes for 10^6; pass
//! sizes as arguments to run fewer, e.g. `-- 10000 100000`).

use std::time::Instant;

use pentagrid_bench::{book_positions, fill_book};
use pentagrid_coordinator::{Coordinator, CoordinatorSettings};

fn directory_bytes(path: &std::path::Path) -> u64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => directory_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn run(count: usize, runtime: &tokio::runtime::Runtime) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let stored = book_positions(count);
    let started = Instant::now();
    fill_book(dir.path(), &stored).expect("fill the book");
    let load_seconds = started.elapsed().as_secs_f64();
    let bytes = directory_bytes(dir.path());
    let coordinator = runtime.block_on(async {
        Coordinator::open(dir.path(), CoordinatorSettings::default()).expect("reopen")
    });
    // Queries in another orientation than stored, so every query maps frames. The first pass
    // finds the pages cold (just reopened), the second warm.
    let queries = 20_000.min(count * 2);
    let mut passes = Vec::new();
    for _ in 0..2 {
        let mut latencies = Vec::with_capacity(queries);
        for i in 0..queries {
            let position = stored[(i * 7919) % stored.len()];
            let asked = pentago::Symmetry::ALL[i % 8].apply(&position);
            let started = Instant::now();
            let reply = coordinator.book.show(&asked).expect("query");
            latencies.push(started.elapsed().as_secs_f64() * 1e6);
            assert!(!reply.playouts.is_empty());
        }
        latencies.sort_by(f64::total_cmp);
        passes.push(format!(
            "p50 {:6.1} µs, p99 {:7.1} µs, max {:7.1} µs",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            latencies[latencies.len() - 1],
        ));
    }
    println!(
        "book {count:>8} positions: load {load_seconds:6.1} s, {:>6.0} bytes/position on disk; {queries} queries cold: {}; warm: {}",
        bytes as f64 / count as f64,
        passes[0],
        passes[1],
    );
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    for count in sizes {
        run(count, &runtime);
    }
}
