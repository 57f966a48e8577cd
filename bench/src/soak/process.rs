//! The coordinator under test: the real `pentagrid coordinator` binary as a child process, with
//! one token file per role, its metrics on a loopback port, and its log in the soak directory.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::{SoakError, SoakOptions, Tokens};

/// Log lines of the coordinator kept for the report.
const LOG_LINES_KEPT: usize = 20;

/// A running coordinator; killed when dropped.
pub struct CoordinatorProcess {
    child: Child,
    /// Its gRPC URL.
    pub url: String,
    /// Its metrics address (`host:port`).
    pub metrics: String,
    log: std::path::PathBuf,
}

impl CoordinatorProcess {
    /// Starts `options.coordinator_bin coordinator` on the database `db`, on free loopback
    /// ports; returns once it printed its addresses (the database may still be opening).
    pub fn start(
        options: &SoakOptions,
        dir: &Path,
        db: &Path,
        tokens: &Tokens,
    ) -> Result<CoordinatorProcess, SoakError> {
        let mut token_args = Vec::new();
        for (role, token) in [
            ("worker", &tokens.worker),
            ("admin", &tokens.admin),
            ("read", &tokens.read),
        ] {
            let path = dir.join(format!("{role}-token"));
            std::fs::write(&path, format!("{token}\n"))
                .map_err(SoakError::io("writing a token file"))?;
            token_args.push(format!("--{role}-token-file"));
            token_args.push(path.display().to_string());
        }
        let log = dir.join("coordinator.log");
        let log_file = std::fs::File::create(&log).map_err(SoakError::io("the coordinator log"))?;
        let mut child = Command::new(&options.coordinator_bin)
            .arg("coordinator")
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"])
            .arg("--db")
            .arg(db)
            .args(["--lease-seconds", &options.lease_seconds.to_string()])
            // The soak's workers simulate their analyses instead of searching: the statistical
            // cross-check would rightly catch them (see the README's cross-checks).
            .args(["--check-analyses", "0"])
            // The soak measures builds walking a pre-filled book from the start; with the
            // tablebase the book's top would be proven leaves, and the build would stop there.
            .arg("--no-tablebase")
            .args(&token_args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(SoakError::io("starting the coordinator binary"))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let (mut url, mut metrics) = (None, None);
        while url.is_none() || metrics.is_none() {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SoakError::Coordinator(format!(
                    "exited before printing its addresses; log: {}",
                    tail(&log).join(" | ")
                )));
            };
            if let Some(address) = line.strip_prefix("coordinator listening on ") {
                url = Some(format!("http://{address}"));
            } else if let Some(rest) = line.strip_prefix("metrics at http://") {
                metrics = rest.strip_suffix("/metrics").map(str::to_owned);
            }
        }
        // Keep reading stdout so the child never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(CoordinatorProcess {
            child,
            url: url.expect("set above"),
            metrics: metrics.expect("set above"),
            log,
        })
    }

    /// The process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the coordinator; returns the last lines of its log (warnings and errors).
    pub fn stop(&mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        tail(&self.log)
    }
}

impl Drop for CoordinatorProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The last lines of the log.
fn tail(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[lines.len().saturating_sub(LOG_LINES_KEPT)..].to_vec()
}

/// The resident set size of process `pid` in bytes (`VmRSS` of `/proc/PID/status`).
#[must_use]
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// CPU time process `pid` has used so far, user and system, in seconds (`/proc/PID/stat`,
/// at the kernel's usual 100 ticks a second).
#[must_use]
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at the state, field 3;
    // utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: f64 = fields.next()?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// The machine's load average over the last minute (`/proc/loadavg`).
#[must_use]
pub fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_resident_set_and_cpu_time_and_the_load() {
        let me = std::process::id();
        let rss = rss_bytes(me).expect("VmRSS on Linux");
        assert!(rss > 1 << 20, "{rss}");
        let spin = std::time::Instant::now();
        while spin.elapsed() < std::time::Duration::from_millis(50) {}
        let cpu = cpu_seconds(me).expect("/proc/PID/stat on Linux");
        assert!(cpu > 0.0 && cpu < 3600.0, "{cpu}");
        assert!(load_average().expect("/proc/loadavg") >= 0.0);
    }
}
