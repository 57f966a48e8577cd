//! The soak benchmark's driver at a small scale, so that it cannot rot: the real `pentagrid
//! coordinator` binary, 20 simulated workers for a few seconds, a book build through a small
//! pre-filled book, a match, puzzle mining and a campaign. Every lease must be kept, every
//! result applied, and every part must have done something. (The figures are measured at full
//! scale by `cargo bench -p pentagrid-bench --bench soak`; nothing here is timed.)

use std::path::PathBuf;
use std::time::Duration;

use pentagrid_bench::soak::{SoakOptions, run};

#[test]
fn a_small_soak_keeps_every_lease_and_applies_every_result() {
    let options = SoakOptions {
        workers: 20,
        book: 2_000,
        match_pairs: 20,
        mine_every: Duration::from_secs(2),
        mine_candidates: 100,
        campaign_queue: 40,
        ..SoakOptions::full(
            PathBuf::from(env!("CARGO_BIN_EXE_pentagrid")),
            Duration::from_secs(4),
        )
    };
    let report = run(&options).expect("the soak runs");
    let table = report.table();
    eprintln!("{table}");
    assert_eq!(report.errors, 0, "{:?}", report.error_texts);
    assert_eq!((report.spurious, report.late, report.expired), (0, 0, 0.0));
    assert!(
        report.results > 0 && report.rows_per_second > 0.0,
        "{table}"
    );
    assert!(
        report.heartbeat.count > 0 && report.probe.count > 0,
        "{table}"
    );
    assert!(report.lease.count as u64 >= report.granted && report.granted > 0);
    assert!(report.build_jobs > 0.0, "the build queued nothing: {table}");
    assert!(report.book().1 >= 2_000.0, "{table}");
    assert!(report.admin.match_pairs_done > 0, "{table}");
    assert!(!report.admin.mining.is_empty(), "{table}");
    assert!(report.admin.campaign_jobs > 0, "{table}");
    assert!(report.samples.iter().all(|s| s.rss > 0), "{table}");
    assert_eq!(report.unsupported, 0);
    let svg = report.svg();
    assert!(svg.starts_with("<svg ") && svg.contains("heartbeat p99"));
}
