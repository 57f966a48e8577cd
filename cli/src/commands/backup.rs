//! `pentagrid backup`, `pentagrid verify-backup` and `pentagrid restore`: a consistent backup
//! of a running coordinator into a file, reading a backup file through to check it, and
//! restoring one into a new database directory.

use std::path::PathBuf;

use crate::output::outln;
use anyhow::Result;
use clap::Args;
use pentagrid_embedded::backup::{BackupSummary, fetch, restore, verify};
use serde_json::json;

use super::cluster::Connection;

/// Take a consistent backup of a running coordinator (admin token) into a file. The file is
/// written beside FILE, checked whole, then renamed to FILE.
#[derive(Args)]
pub struct BackupArgs {
    /// The backup file to write (replaced if it exists, only once the new one checks out).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Print what the backup holds as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    connection: Connection,
}

/// Read a backup file through and check everything (checksums, counts, structure); print
/// what it holds. Exit 1 with the damage found otherwise.
#[derive(Args)]
pub struct VerifyBackupArgs {
    /// The backup file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print what the backup holds as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Restore a backup file into a new database directory, checking the backup as it goes. DIR
/// must not exist or be empty; a failed restore leaves nothing behind.
#[derive(Args)]
pub struct RestoreArgs {
    /// The backup file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The database directory to create.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// Print what was restored as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn backup(args: &BackupArgs) -> Result<()> {
    let (rt, client) = args.connection.client()?;
    let summary = rt.block_on(fetch(&client, &args.out))?;
    print(
        &summary,
        args.json,
        &format!("backup written to {}", args.out.display()),
    )
}

pub fn verify_backup(args: &VerifyBackupArgs) -> Result<()> {
    let summary = verify(&args.file)?;
    print(
        &summary,
        args.json,
        &format!("{}: the backup checks out", args.file.display()),
    )
}

pub fn restore_backup(args: &RestoreArgs) -> Result<()> {
    let summary = restore(&args.file, &args.db)?;
    let done = format!(
        "restored {} into {}",
        args.file.display(),
        args.db.display()
    );
    print(&summary, args.json, &done)
}

/// Prints what a backup holds, as text under `headline` or as JSON.
fn print(summary: &BackupSummary, as_json: bool, headline: &str) -> Result<()> {
    if as_json {
        let value = json!({
            "created_unix_ms": summary.header.created_unix_ms,
            "created": utc(summary.header.created_unix_ms),
            "coordinator_version": summary.header.coordinator_version,
            "next_id": summary.header.next_id,
            "trees": summary.trees,
            "records": summary.records,
            "chunks": summary.chunks,
            "bytes": summary.bytes,
        });
        outln!("{value}");
        return Ok(());
    }
    outln!("{headline}");
    outln!(
        "taken {} by coordinator {}",
        utc(summary.header.created_unix_ms),
        summary.header.coordinator_version.escape_debug()
    );
    for (tree, records) in &summary.trees {
        outln!("  {:<16} {records:>12}", tree.escape_debug().to_string());
    }
    outln!(
        "  {:<16} {:>12}  ({} chunks, {} bytes)",
        "total",
        summary.records,
        summary.chunks,
        summary.bytes
    );
    Ok(())
}

/// A time in milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub(super) fn utc(unix_ms: u64) -> String {
    let seconds = unix_ms / 1000;
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Days to a civil date (H. Hinnant's algorithm), on the proleptic Gregorian calendar.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn times_print_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_764_038_096_123), "2025-11-25T02:34:56Z");
        // No overflow at the far end.
        assert!(utc(u64::MAX).ends_with('Z'));
    }
}
