//! One worker as a coordinator's status shows it: what the coordinator knows of it now (its
//! leases, its results, when it was last heard from, its flags and engines).

use serde::Serialize;

/// One worker as the coordinator sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkerInfo {
    /// Its id (unique per worker process).
    pub id: String,
    /// The name it gave.
    pub name: String,
    /// Its threads.
    pub threads: u32,
    /// Leases it holds.
    pub leases: u64,
    /// Results it handed in.
    pub results: u64,
    /// Seconds since it was last heard from.
    pub seconds_since_seen: f64,
    /// Times a cross-check showed one of its exact claims wrong.
    pub flags: u32,
    /// Caught by a cross-check: its results are refused and it gets no jobs.
    pub quarantined: bool,
    /// The external engines it runs: name and the version the program reported.
    pub engines: Vec<(String, String)>,
}
