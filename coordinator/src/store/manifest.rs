//! The integrity manifest: what the store has made durable, kept outside sled so that a
//! database sled recovers short (a torn or damaged log, which sled silently cuts at the damage)
//! is caught on open instead of served.
//!
//! The manifest is the file [`FILE_NAME`] inside the database directory, so a copy of the
//! directory carries it. It lists monotonic [`Facts`] (results applied, running totals, stored
//! puzzles, the highest job, match and build ids, the highest id handed out), read from the
//! store just before each flush and written only after that flush returned: it never claims
//! more than sled made durable, and it covers every acknowledgement, since results, submissions
//! and imports are acknowledged only after a flush. It is replaced atomically (temporary file,
//! fsync, rename, fsync of the directory).
//!
//! Its format is stable: UTF-8 lines `pentagrid-manifest 1`, then one `NAME VALUE` line per fact
//! in the order of [`Fact::ALL`], then `crc32 HEX`, the CRC-32 (IEEE) of every byte before that
//! line. A later version writes a new version number; this one refuses any other.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Store, StoreError, id_of};

/// The manifest's file name inside the database directory.
pub const FILE_NAME: &str = "pentagrid.manifest";
const MAGIC: &str = "pentagrid-manifest";
const VERSION: u32 = 1;
/// A manifest is a few hundred bytes; anything much larger is not one.
const MAX_BYTES: u64 = 64 * 1024;

/// How [`Store::open_checked`] treats what it finds against the manifest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenCheck {
    /// Refuse any shortfall against the manifest, and a damaged manifest. A database with data
    /// but no manifest (from a version before manifests) is adopted with a warning.
    #[default]
    Verify,
    /// Compare and log every shortfall, then go on with what sled recovered and rewrite the
    /// manifest from it: what was lost stays lost.
    AcceptDataLoss,
    /// Take what sled recovered as the truth without comparing (a freshly restored directory)
    /// and write the manifest from it.
    Adopt,
}

/// One fact the manifest records; each only grows while nothing is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fact {
    /// Results applied.
    Results,
    /// Self-play games stored.
    Games,
    /// Playouts merged into tables.
    Playouts,
    /// Positions with a playout table (book positions).
    PlayoutPositions,
    /// Positions with a game table.
    GamePositions,
    /// Puzzles stored.
    Puzzles,
    /// The highest job id stored (quarantined jobs included).
    LastJob,
    /// The highest match id stored.
    LastMatch,
    /// The highest book build id stored.
    LastBuild,
    /// The highest id handed out.
    LastId,
}

impl Fact {
    /// Every fact, in the manifest's order.
    pub const ALL: [Fact; 10] = [
        Fact::Results,
        Fact::Games,
        Fact::Playouts,
        Fact::PlayoutPositions,
        Fact::GamePositions,
        Fact::Puzzles,
        Fact::LastJob,
        Fact::LastMatch,
        Fact::LastBuild,
        Fact::LastId,
    ];

    /// Its name in the manifest.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Fact::Results => "results",
            Fact::Games => "games",
            Fact::Playouts => "playouts",
            Fact::PlayoutPositions => "playout_positions",
            Fact::GamePositions => "game_positions",
            Fact::Puzzles => "puzzles",
            Fact::LastJob => "last_job",
            Fact::LastMatch => "last_match",
            Fact::LastBuild => "last_build",
            Fact::LastId => "last_id",
        }
    }

    /// `value` of this fact in words.
    fn describe(self, value: u64) -> String {
        match self {
            Fact::Results => format!("{value} applied results"),
            Fact::Games => format!("{value} stored games"),
            Fact::Playouts => format!("{value} playouts"),
            Fact::PlayoutPositions => format!("{value} positions with a playout table"),
            Fact::GamePositions => format!("{value} positions with a game table"),
            Fact::Puzzles => format!("{value} puzzles"),
            Fact::LastJob => format!("jobs up to id {value}"),
            Fact::LastMatch => format!("matches up to id {value}"),
            Fact::LastBuild => format!("book builds up to id {value}"),
            Fact::LastId => format!("ids handed out up to {value}"),
        }
    }
}

/// The facts of a store at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts([u64; Fact::ALL.len()]);

impl Facts {
    /// The value of one fact.
    #[must_use]
    pub fn get(&self, fact: Fact) -> u64 {
        self.0[fact as usize]
    }

    /// Sets one fact.
    pub fn set(&mut self, fact: Fact, value: u64) {
        self.0[fact as usize] = value;
    }

    /// Each fact the larger of the two.
    #[must_use]
    pub fn max(self, other: Facts) -> Facts {
        Facts(std::array::from_fn(|i| self.0[i].max(other.0[i])))
    }

    /// Every fact of `recorded` that `self` falls short of.
    #[must_use]
    pub fn shortfalls(&self, recorded: &Facts) -> Vec<Shortfall> {
        Fact::ALL
            .into_iter()
            .filter(|fact| self.get(*fact) < recorded.get(*fact))
            .map(|fact| Shortfall {
                fact,
                recorded: recorded.get(fact),
                found: self.get(fact),
            })
            .collect()
    }

    /// Whether every fact is zero: a database that holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|v| *v == 0)
    }
}

/// A fact the recovered database holds less of than the manifest recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shortfall {
    /// Which fact.
    pub fact: Fact,
    /// What the manifest recorded.
    pub recorded: u64,
    /// What the database holds.
    pub found: u64,
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the manifest records {}, the database holds {}",
            self.fact.describe(self.recorded),
            self.fact.describe(self.found)
        )
    }
}

/// Shortfalls as one `; `-separated list.
pub(super) fn list(shortfalls: &[Shortfall]) -> String {
    let parts: Vec<String> = shortfalls.iter().map(ToString::to_string).collect();
    parts.join("; ")
}

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file exists but could not be read.
    #[error("unreadable: {0}")]
    Io(#[from] io::Error),
    /// The file is larger than any manifest.
    #[error("{0} bytes, far larger than a manifest")]
    TooLarge(u64),
    /// The checksum does not match the content.
    #[error("its checksum does not match its content")]
    Checksum,
    /// A later pentagrid wrote it.
    #[error("format version {0}, this pentagrid reads version {VERSION}")]
    Version(u32),
    /// It is not laid out as a manifest.
    #[error("not a pentagrid manifest ({0})")]
    Format(&'static str),
}

/// The manifest's text for `facts`.
#[must_use]
pub fn encode(facts: &Facts) -> String {
    let mut text = format!("{MAGIC} {VERSION}\n");
    for fact in Fact::ALL {
        text.push_str(&format!("{} {}\n", fact.name(), facts.get(fact)));
    }
    let checksum = crc32fast::hash(text.as_bytes());
    text.push_str(&format!("crc32 {checksum:08x}\n"));
    text
}

/// The facts of a manifest's text.
pub fn decode(bytes: &[u8]) -> Result<Facts, ManifestError> {
    let text = std::str::from_utf8(bytes).map_err(|_| ManifestError::Format("not UTF-8"))?;
    let body_end = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map(|i| i + 1)
        .ok_or(ManifestError::Format("too few lines"))?;
    let (body, last) = text.split_at(body_end);
    let checksum = last
        .strip_suffix('\n')
        .and_then(|line| line.strip_prefix("crc32 "))
        // Lower case only, as written: an upper-case digit would read as the same number, so a
        // flipped case bit would go unnoticed.
        .filter(|hex| hex.len() == 8 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .ok_or(ManifestError::Format("no checksum line"))?;
    if crc32fast::hash(body.as_bytes()) != checksum {
        return Err(ManifestError::Checksum);
    }
    let mut lines = body.lines();
    let version = lines
        .next()
        .and_then(|line| line.strip_prefix(MAGIC))
        .and_then(|rest| rest.strip_prefix(' '))
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or(ManifestError::Format("no header line"))?;
    if version != VERSION {
        return Err(ManifestError::Version(version));
    }
    let mut facts = Facts::default();
    for fact in Fact::ALL {
        let value = lines
            .next()
            .and_then(|line| line.strip_prefix(fact.name()))
            .and_then(|rest| rest.strip_prefix(' '))
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or(ManifestError::Format("a fact is missing or malformed"))?;
        facts.set(fact, value);
    }
    if lines.next().is_some() {
        return Err(ManifestError::Format("lines after the last fact"));
    }
    Ok(facts)
}

/// The manifest in `dir`, or `None` where there is none.
pub fn read(dir: &Path) -> Result<Option<Facts>, ManifestError> {
    let path = dir.join(FILE_NAME);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let length = file.metadata()?.len();
    if length > MAX_BYTES {
        return Err(ManifestError::TooLarge(length));
    }
    decode(&fs::read(&path)?).map(Some)
}

/// Replaces the manifest in `dir` with `facts`, atomically and durably.
pub fn write(dir: &Path, facts: &Facts) -> io::Result<()> {
    let path = dir.join(FILE_NAME);
    let temporary = dir.join(format!("{FILE_NAME}.tmp"));
    let mut file = File::create(&temporary)?;
    file.write_all(encode(facts).as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, &path)?;
    // The rename is durable only once the directory is.
    File::open(dir)?.sync_all()
}

/// The store's side of the manifest: where it lives, what it last recorded, and the highest id
/// handed out (sled does not say).
pub(super) struct Keeper {
    dir: PathBuf,
    recorded: Mutex<Facts>,
    last_id: AtomicU64,
}

impl Keeper {
    pub(super) fn new(dir: &Path) -> Keeper {
        Keeper {
            dir: dir.to_owned(),
            recorded: Mutex::new(Facts::default()),
            last_id: AtomicU64::new(0),
        }
    }

    /// Notes an id handed out.
    pub(super) fn handed_out(&self, id: u64) {
        self.last_id.fetch_max(id, Ordering::AcqRel);
    }

    /// Records `facts`, read before a flush that has since returned. Facts only grow, so a
    /// flush that finishes after a later one cannot lower the manifest; unchanged facts write
    /// nothing.
    pub(super) fn record(&self, facts: Facts) -> Result<(), StoreError> {
        let mut recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        let merged = recorded.max(facts);
        if merged == *recorded {
            return Ok(());
        }
        self.replace(&mut recorded, merged)
    }

    /// Writes `facts` as they are, even below what was recorded (after accepted data loss).
    fn rewrite(&self, facts: Facts) -> Result<(), StoreError> {
        let mut recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        self.replace(&mut recorded, facts)
    }

    fn replace(&self, recorded: &mut Facts, facts: Facts) -> Result<(), StoreError> {
        write(&self.dir, &facts).map_err(|e| {
            StoreError::Durability(format!(
                "could not write the integrity manifest {}: {e}",
                self.dir.join(FILE_NAME).display()
            ))
        })?;
        *recorded = facts;
        Ok(())
    }
}

impl Store {
    /// The facts as the store holds them now, as the manifest would record them; cheap (one
    /// read, four last keys, two counters), so that it runs before every flush.
    pub fn facts(&self) -> Result<Facts, StoreError> {
        let totals = self.totals()?;
        let mut facts = Facts::default();
        facts.set(Fact::Results, totals.results);
        facts.set(Fact::Games, totals.games);
        facts.set(Fact::Playouts, totals.playouts);
        facts.set(Fact::PlayoutPositions, totals.playout_positions);
        facts.set(Fact::GamePositions, totals.game_positions);
        facts.set(Fact::Puzzles, self.stored_puzzles());
        let jobs = last_id(&self.jobs, "job")?.max(last_id(&self.quarantine, "job")?);
        facts.set(Fact::LastJob, jobs);
        facts.set(Fact::LastMatch, last_id(&self.matches, "match")?);
        facts.set(Fact::LastBuild, last_id(&self.builds, "build")?);
        facts.set(Fact::LastId, self.manifest.last_id.load(Ordering::Acquire));
        Ok(facts)
    }

    /// Compares what sled recovered with the manifest as `check` says, then writes the
    /// manifest from what the store holds. `recorded` is the manifest as read before sled
    /// opened.
    pub(super) fn check_integrity(
        &self,
        check: OpenCheck,
        recorded: Result<Option<Facts>, ManifestError>,
    ) -> Result<(), StoreError> {
        // The first id sled hands out now bounds every id it handed out before.
        let next = self.generate_id()?;
        let mut found = self.facts()?;
        found.set(Fact::LastId, next - 1);
        let dir = &self.manifest.dir;
        let path = dir.join(FILE_NAME);
        match (check, recorded) {
            (OpenCheck::Adopt, _) => {
                tracing::info!(db = %dir.display(), "adopting the database as it is: its integrity manifest is written from what it holds");
            }
            (OpenCheck::Verify, Err(error)) => {
                return Err(StoreError::Manifest { path, error });
            }
            (OpenCheck::AcceptDataLoss, Err(error)) => {
                tracing::warn!(manifest = %path.display(), %error, "the integrity manifest is damaged; --accept-data-loss: going on with what the database holds and rewriting the manifest");
            }
            (_, Ok(None)) if found.is_empty() => {}
            (_, Ok(None)) => {
                tracing::warn!(db = %dir.display(), "the database has no integrity manifest (written by a pentagrid from before integrity manifests, or the manifest was deleted): adopting it as it is; from now on data loss is caught");
            }
            (check, Ok(Some(recorded))) => {
                let shortfalls = found.shortfalls(&recorded);
                if shortfalls.is_empty() {
                    // The manifest may stay below what sled holds (written before a crash
                    // that came after a flush); the next flush raises it.
                    *self
                        .manifest
                        .recorded
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = recorded;
                    return self.manifest.record(found);
                }
                if check == OpenCheck::Verify {
                    return Err(StoreError::DataLoss {
                        dir: dir.clone(),
                        shortfalls,
                    });
                }
                tracing::warn!(db = %dir.display(), lost = %list(&shortfalls), "--accept-data-loss: going on with what the database holds; the rest is lost for good and the manifest is rewritten");
            }
        }
        found.set(Fact::LastId, next);
        self.manifest.rewrite(found)
    }
}

/// The id of the last key of a tree keyed by id (or by id and more), 0 when it is empty.
fn last_id(tree: &sled::Tree, what: &'static str) -> Result<u64, StoreError> {
    match tree.last()? {
        Some((key, _)) => id_of(key.get(..8).unwrap_or(&key), what),
        None => Ok(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Facts {
        let mut facts = Facts::default();
        for (i, fact) in Fact::ALL.into_iter().enumerate() {
            facts.set(fact, (i as u64 + 1) * 1000 + 7);
        }
        facts
    }

    #[test]
    fn the_format_is_stable() {
        let mut facts = Facts::default();
        facts.set(Fact::Results, 70);
        facts.set(Fact::LastId, u64::MAX);
        let text = encode(&facts);
        assert!(text.starts_with("pentagrid-manifest 1\nresults 70\ngames 0\n"));
        assert!(text.contains("\nlast_id 18446744073709551615\ncrc32 "));
        assert_eq!(decode(text.as_bytes()).unwrap(), facts);
    }

    #[test]
    fn every_damage_is_refused() {
        let text = encode(&sample());
        let edited = text.replace("results 1007", "results 1008");
        assert!(matches!(
            decode(edited.as_bytes()),
            Err(ManifestError::Checksum)
        ));
        assert!(decode(b"").is_err());
        assert!(decode(&text.as_bytes()[..text.len() - 3]).is_err());
        assert!(decode(&[0xff; 40]).is_err());
        let later = "pentagrid-manifest 2\n";
        let later = format!("{later}crc32 {:08x}\n", crc32fast::hash(later.as_bytes()));
        assert!(matches!(
            decode(later.as_bytes()),
            Err(ManifestError::Version(2))
        ));
        let short = "pentagrid-manifest 1\nresults 5\n";
        let short = format!("{short}crc32 {:08x}\n", crc32fast::hash(short.as_bytes()));
        assert!(matches!(
            decode(short.as_bytes()),
            Err(ManifestError::Format(_))
        ));
    }

    #[test]
    fn read_and_write_go_through_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_none());
        write(dir.path(), &sample()).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(sample()));
        assert!(!dir.path().join(format!("{FILE_NAME}.tmp")).exists());
        fs::write(dir.path().join(FILE_NAME), vec![b'x'; 100_000]).unwrap();
        assert!(matches!(
            read(dir.path()),
            Err(ManifestError::TooLarge(100_000))
        ));
    }

    #[test]
    fn shortfalls_name_each_fact_that_went_down() {
        let recorded = sample();
        let mut found = recorded;
        found.set(Fact::Results, 66);
        found.set(Fact::Puzzles, 9999);
        let shortfalls = found.shortfalls(&recorded);
        assert_eq!(shortfalls.len(), 1);
        assert_eq!(
            shortfalls[0].to_string(),
            "the manifest records 1007 applied results, the database holds 66 applied results"
        );
        assert!(recorded.shortfalls(&recorded).is_empty());
    }

    #[test]
    fn the_keeper_never_lowers_what_it_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = Keeper::new(dir.path());
        keeper.record(sample()).unwrap();
        let mut lower = sample();
        lower.set(Fact::Games, 1);
        lower.set(Fact::Results, 5000);
        keeper.record(lower).unwrap();
        let written = read(dir.path()).unwrap().unwrap();
        assert_eq!(written.get(Fact::Games), sample().get(Fact::Games));
        assert_eq!(written.get(Fact::Results), 5000);
    }

    proptest! {
        #[test]
        fn any_facts_read_back(values in proptest::array::uniform10(any::<u64>())) {
            let facts = Facts(values);
            prop_assert_eq!(decode(encode(&facts).as_bytes()).unwrap(), facts);
        }
    }

    #[test]
    fn every_flipped_bit_is_refused() {
        let bytes = encode(&sample()).into_bytes();
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(
                decode(&flipped).is_err(),
                "bit {bit} flipped went unnoticed"
            );
        }
    }
}
