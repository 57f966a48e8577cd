//! `integrity-cost [POSITIONS]`: what the integrity manifest costs at open and per commit on a
//! database of POSITIONS book positions (default 10^6). Run in release:
//! `cargo run --release -p pentagrid-bench --bin integrity-cost`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use pentagrid_bench::{book_positions, book_table, fill_book};
use pentagrid_store::manifest;
use pentagrid_store::{BookEntry, Store, StoreError};

const OPENS: usize = 5;
const CALLS: usize = 1_000;
const COMMITS: usize = 200;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed())
}

/// Opens the store, waiting while a store just dropped still holds sled's lock (its threads let
/// go of it a moment later); returns the store and the time of the open that succeeded.
fn open(dir: &std::path::Path) -> Result<(Store, Duration), StoreError> {
    let started = Instant::now();
    loop {
        match timed(|| Store::open(dir)) {
            (Err(StoreError::Sled(_)), _) if started.elapsed() < Duration::from_secs(30) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            (opened, took) => return opened.map(|store| (store, took)),
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = match std::env::args().nth(1) {
        Some(text) => text.parse()?,
        None => 1_000_000,
    };
    let dir = tempfile::tempdir()?;
    let positions = book_positions(count + COMMITS);
    let (stored, extra) = positions.split_at(count);
    let (filled, fill) = timed(|| fill_book(dir.path(), stored));
    filled?;
    println!("filled {count} positions in {:.1} s", fill.as_secs_f64());

    let mut recorded = manifest::Manifest::default();
    let mut opens = Vec::new();
    let mut reads = Vec::new();
    for _ in 0..OPENS {
        let (read, took) = timed(|| manifest::read(dir.path()));
        recorded = read?.ok_or("no manifest")?;
        reads.push(took);
        let (store, took) = open(dir.path())?;
        drop(store);
        opens.push(took);
    }
    let (store, _) = open(dir.path())?;
    let mut facts_times = Vec::new();
    let mut facts = store.facts()?;
    for _ in 0..CALLS {
        let (read, took) = timed(|| store.facts());
        facts = read?;
        facts_times.push(took);
    }
    let mut writes = Vec::new();
    for _ in 0..COMMITS {
        recorded.facts = facts;
        let (written, took) = timed(|| manifest::write(dir.path(), &recorded));
        written?;
        writes.push(took);
    }
    let mut commits = Vec::new();
    for position in extra {
        let entry = BookEntry {
            playouts: book_table(position),
            ..BookEntry::default()
        };
        let entries = BTreeMap::from([(position.key().bits(), entry)]);
        let (committed, took) = timed(|| {
            store.import(&entries, None)?;
            store.flush_blocking()
        });
        committed?;
        commits.push(took);
    }
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let (open, read, fact, write, commit) = (
        median(opens),
        median(reads),
        median(facts_times),
        median(writes),
        median(commits),
    );
    println!(
        "open (Store::open, check included), median of {OPENS}: {:.1} ms",
        open.as_secs_f64() * 1e3
    );
    println!("  manifest read + decode: {:.1} µs", micros(read));
    println!(
        "  facts (totals, four last keys, counters), median of {CALLS}: {:.1} µs",
        micros(fact)
    );
    println!(
        "per commit: manifest write (temp, fsync, rename, fsync dir), median of {COMMITS}: {:.1} µs",
        micros(write)
    );
    println!(
        "per commit: import of one position + flush, manifest included, median of {COMMITS}: {:.1} µs",
        micros(commit)
    );
    println!(
        "  the manifest's share of a commit: {:.0}%",
        100.0 * (micros(fact) + micros(write)) / micros(commit)
    );
    Ok(())
}
