//! The integrity manifest: what the store has made durable, kept outside sled so that a
//! database sled recovers short (a torn or damaged log, which sled silently cuts at the damage)
//! is caught on open instead of served.
//!
//! The manifest is the file [`FILE_NAME`] inside the database directory, so a copy of the
//! directory carries it. It records the database's [`Identity`] (random, made with the
//! database and stored in it), its write generation (raised by every flush, stored in the
//! database before the flush and in the manifest after it, so it covers every acknowledged
//! write of any kind: results, cancellations, imports, proven values, builds, claims...), and
//! monotonic [`Facts`] (results applied, running totals, stored puzzles, the highest job,
//! match and build ids, the highest id handed out) read just before each flush. It never
//! claims more than sled made durable. It is replaced atomically (temporary file, fsync,
//! rename, fsync of the directory), and read only from a regular file, at most
//! [`MAX_BYTES`] bytes of it.
//!
//! Its format is stable and versioned: UTF-8 lines `pentagrid-manifest 2`, `identity HEX` (32
//! lower-case hex digits, never all zero), `generation N` (never 0), then one `NAME VALUE`
//! line per fact in the order of [`Fact::ALL`], then `crc32 HEX`, the CRC-32 (IEEE) of every
//! byte before that line. Version 1 (written before identities and generations) has no
//! identity or generation line and is still read, so that older databases open; the first
//! open upgrades it. A later version writes a new version number; this one refuses any other.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The manifest's file name inside the database directory.
pub const FILE_NAME: &str = "pentagrid.manifest";
const MAGIC: &str = "pentagrid-manifest";
const VERSION: u32 = 2;
/// A manifest is a few hundred bytes; anything larger is not one, and is not read past this.
pub const MAX_BYTES: u64 = 64 * 1024;

/// A database's identity: random, made with the database (or at the first open of one made
/// before identities), stored in it and in its manifest, so that another database's manifest
/// is told apart. Never zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity(pub u128);

impl Identity {
    /// A new random identity, from the operating system's random source (the hasher keys of
    /// the standard library and the clock where that cannot be read).
    #[must_use]
    pub fn random() -> Identity {
        let mut bytes = [0u8; 16];
        let from_os = File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
        let mut value = u128::from_be_bytes(bytes);
        if from_os.is_err() || value == 0 {
            use std::hash::{BuildHasher, Hasher};
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let mut halves = [0u64; 2];
            for (i, half) in halves.iter_mut().enumerate() {
                let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
                hasher.write_u128(nanos);
                hasher.write_usize(i);
                hasher.write_u32(std::process::id());
                *half = hasher.finish();
            }
            value = (u128::from(halves[0]) << 64) | u128::from(halves[1]) | 1;
        }
        Identity(value)
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

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
    /// Positions with a playout table (book positions), counting those a purge of a caught
    /// worker's analyses removed since.
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

/// A manifest: the database it belongs to, its write generation and its facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The database's identity; `None` only in a version-1 manifest.
    pub identity: Option<Identity>,
    /// The write generation; 0 only in a version-1 manifest.
    pub generation: u64,
    /// The facts.
    pub facts: Facts,
}

impl Manifest {
    /// The value of one fact.
    #[must_use]
    pub fn get(&self, fact: Fact) -> u64 {
        self.facts.get(fact)
    }

    /// Sets one fact.
    pub fn set(&mut self, fact: Fact, value: u64) {
        self.facts.set(fact, value);
    }
}

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file exists but could not be read.
    #[error("unreadable: {0}")]
    Io(#[from] io::Error),
    /// It is not a regular file (a FIFO, a device, a directory...), so it is not read at all.
    #[error("not a regular file but {0}")]
    NotAFile(&'static str),
    /// The file is larger than any manifest.
    #[error("{0} bytes or more, far larger than a manifest (at most {MAX_BYTES})")]
    TooLarge(u64),
    /// The checksum does not match the content.
    #[error("its checksum does not match its content")]
    Checksum,
    /// A later pentagrid wrote it.
    #[error("format version {0}, this pentagrid reads versions 1 and {VERSION}")]
    Version(u32),
    /// It is not laid out as a manifest.
    #[error("not a pentagrid manifest ({0})")]
    Format(&'static str),
}

/// The manifest's text: version 2, or version 1 where it has no identity (written only to
/// check that older manifests still read).
#[must_use]
pub fn encode(manifest: &Manifest) -> String {
    let mut text = match manifest.identity {
        Some(identity) => format!(
            "{MAGIC} {VERSION}\nidentity {identity}\ngeneration {}\n",
            manifest.generation
        ),
        None => format!("{MAGIC} 1\n"),
    };
    for fact in Fact::ALL {
        text.push_str(&format!("{} {}\n", fact.name(), manifest.get(fact)));
    }
    let checksum = crc32fast::hash(text.as_bytes());
    text.push_str(&format!("crc32 {checksum:08x}\n"));
    text
}

/// Lower-case hex digits only, as written: an upper-case digit would read as the same number,
/// so a flipped case bit would go unnoticed.
fn lower_hex(hex: &str, digits: usize) -> bool {
    hex.len() == digits && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The value of line `NAME VALUE`.
fn field<'a>(line: Option<&'a str>, name: &str) -> Option<&'a str> {
    line?.strip_prefix(name)?.strip_prefix(' ')
}

/// A decimal number as written: no sign, no leading zero (so that no two texts read alike).
fn number(text: &str) -> Option<u64> {
    let canonical =
        text == "0" || (!text.starts_with('0') && text.bytes().all(|b| b.is_ascii_digit()));
    canonical.then(|| text.parse().ok()).flatten()
}

/// The manifest of a text.
pub fn decode(bytes: &[u8]) -> Result<Manifest, ManifestError> {
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
        .filter(|hex| lower_hex(hex, 8))
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .ok_or(ManifestError::Format("no checksum line"))?;
    if crc32fast::hash(body.as_bytes()) != checksum {
        return Err(ManifestError::Checksum);
    }
    let mut lines = body.lines();
    let version = field(lines.next(), MAGIC)
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or(ManifestError::Format("no header line"))?;
    let mut manifest = Manifest::default();
    match version {
        1 => {}
        VERSION => {
            let identity = field(lines.next(), "identity")
                .filter(|hex| lower_hex(hex, 32))
                .and_then(|hex| u128::from_str_radix(hex, 16).ok())
                .ok_or(ManifestError::Format("no identity line"))?;
            if identity == 0 {
                return Err(ManifestError::Format("its database identity is zero"));
            }
            manifest.identity = Some(Identity(identity));
            manifest.generation = field(lines.next(), "generation")
                .and_then(number)
                .ok_or(ManifestError::Format("no generation line"))?;
            if manifest.generation == 0 {
                return Err(ManifestError::Format("its write generation is zero"));
            }
        }
        other => return Err(ManifestError::Version(other)),
    }
    for fact in Fact::ALL {
        let value = field(lines.next(), fact.name())
            .and_then(number)
            .ok_or(ManifestError::Format("a fact is missing or malformed"))?;
        manifest.set(fact, value);
    }
    if lines.next().is_some() {
        return Err(ManifestError::Format("lines after the last fact"));
    }
    // Every open hands out an id and records it, so no pentagrid writes a manifest without
    // one: an all-zero manifest with a valid checksum was made some other way.
    if manifest.get(Fact::LastId) == 0 {
        return Err(ManifestError::Format("no id was ever handed out"));
    }
    Ok(manifest)
}

/// What a file that is not a regular one is, in words.
fn kind_of(file_type: fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The manifest in `dir`, or `None` where there is none. Only a regular file (or a link to
/// one) is read: it is opened without blocking (a FIFO would otherwise hang the open), and
/// at most [`MAX_BYTES`] and one more byte are read of it (a device never ends).
pub fn read(dir: &Path) -> Result<Option<Manifest>, ManifestError> {
    let path = dir.join(FILE_NAME);
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(ManifestError::NotAFile(kind_of(metadata.file_type())));
    }
    if metadata.len() > MAX_BYTES {
        return Err(ManifestError::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(ManifestError::TooLarge(bytes.len() as u64));
    }
    decode(&bytes).map(Some)
}

/// Replaces the manifest in `dir` with `manifest`, atomically and durably.
pub fn write(dir: &Path, manifest: &Manifest) -> io::Result<()> {
    let path = dir.join(FILE_NAME);
    let temporary = dir.join(format!("{FILE_NAME}.tmp"));
    let mut file = File::create(&temporary)?;
    file.write_all(encode(manifest).as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, &path)?;
    // The rename is durable only once the directory is.
    File::open(dir)?.sync_all()
}

/// The store's side of the manifest: where it lives, what it last recorded, and the highest id
/// handed out (sled does not say).
pub(super) struct Keeper {
    pub(super) dir: PathBuf,
    pub(super) recorded: Mutex<Manifest>,
    /// Held for a whole commit (generation raised, flush, manifest written): the database's
    /// generation is then never more than one above the manifest's.
    pub(super) committing: Mutex<()>,
    pub(super) last_id: AtomicU64,
}

impl Keeper {
    pub(super) fn new(dir: &Path) -> Keeper {
        Keeper {
            dir: dir.to_owned(),
            recorded: Mutex::new(Manifest::default()),
            committing: Mutex::new(()),
            last_id: AtomicU64::new(0),
        }
    }

    /// Notes an id handed out.
    pub(super) fn handed_out(&self, id: u64) {
        self.last_id.fetch_max(id, Ordering::AcqRel);
    }

    /// What was last recorded.
    pub(super) fn recorded(&self) -> Manifest {
        *self.recorded.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records generation `generation` with `facts`, read before a flush that has since
    /// returned. Facts only grow, so a stale read cannot lower them.
    pub(super) fn record(&self, generation: u64, facts: Facts) -> Result<(), ManifestWriteError> {
        let mut recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        let next = Manifest {
            identity: recorded.identity,
            generation,
            facts: recorded.facts.max(facts),
        };
        self.replace(&mut recorded, next)
    }

    /// Writes `manifest` as it is, even below what was recorded (at open).
    pub(super) fn rewrite(&self, manifest: Manifest) -> Result<(), ManifestWriteError> {
        let mut recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        self.replace(&mut recorded, manifest)
    }

    fn replace(
        &self,
        recorded: &mut Manifest,
        manifest: Manifest,
    ) -> Result<(), ManifestWriteError> {
        write(&self.dir, &manifest).map_err(|source| ManifestWriteError {
            path: self.dir.join(FILE_NAME),
            source,
        })?;
        *recorded = manifest;
        Ok(())
    }
}

/// The manifest could not be written (the store reports it as a durability failure).
#[derive(Debug, thiserror::Error)]
#[error("could not write the integrity manifest {}: {source}", path.display())]
pub struct ManifestWriteError {
    /// The manifest file.
    pub path: std::path::PathBuf,
    /// Why.
    pub source: io::Error,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Manifest {
        let mut manifest = Manifest {
            identity: Some(Identity(0x0123_4567_89ab_cdef_0011_2233_4455_6677)),
            generation: 42,
            facts: Facts::default(),
        };
        for (i, fact) in Fact::ALL.into_iter().enumerate() {
            manifest.set(fact, (i as u64 + 1) * 1000 + 7);
        }
        manifest
    }

    /// `body` with its checksum line.
    fn signed(body: &str) -> String {
        format!("{body}crc32 {:08x}\n", crc32fast::hash(body.as_bytes()))
    }

    #[test]
    fn the_format_is_stable() {
        let mut manifest = sample();
        manifest.set(Fact::Results, 70);
        manifest.set(Fact::LastId, u64::MAX);
        let text = encode(&manifest);
        assert!(text.starts_with(
            "pentagrid-manifest 2\nidentity 0123456789abcdef0011223344556677\n\
             generation 42\nresults 70\ngames 2007\n"
        ));
        assert!(text.contains("\nlast_id 18446744073709551615\ncrc32 "));
        assert_eq!(decode(text.as_bytes()).unwrap(), manifest);
    }

    #[test]
    fn version_1_manifests_still_read_without_identity_or_generation() {
        let mut body = "pentagrid-manifest 1\n".to_owned();
        for fact in Fact::ALL {
            body.push_str(&format!("{} 5\n", fact.name()));
        }
        let read = decode(signed(&body).as_bytes()).unwrap();
        assert_eq!((read.identity, read.generation), (None, 0));
        assert_eq!(read.get(Fact::LastId), 5);
        let old = Manifest {
            identity: None,
            ..read
        };
        assert_eq!(encode(&old), signed(&body));
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
        let later = signed("pentagrid-manifest 3\n");
        assert!(matches!(
            decode(later.as_bytes()),
            Err(ManifestError::Version(3))
        ));
        let short = signed("pentagrid-manifest 1\nresults 5\n");
        assert!(matches!(
            decode(short.as_bytes()),
            Err(ManifestError::Format(_))
        ));
    }

    #[test]
    fn all_zero_manifests_with_valid_checksums_are_refused() {
        for version in [1, 2] {
            let mut zero = Manifest {
                identity: (version == 2).then_some(Identity(1)),
                generation: 1,
                facts: Facts::default(),
            };
            let text = encode(&zero);
            assert!(
                matches!(decode(text.as_bytes()), Err(ManifestError::Format(_))),
                "version {version}"
            );
            zero.identity = zero.identity.map(|_| Identity(0));
            zero.set(Fact::LastId, 1);
            if version == 2 {
                let error = decode(encode(&zero).as_bytes()).unwrap_err();
                assert!(error.to_string().contains("identity is zero"), "{error}");
                zero.identity = Some(Identity(1));
                zero.generation = 0;
                let error = decode(encode(&zero).as_bytes()).unwrap_err();
                assert!(error.to_string().contains("generation is zero"), "{error}");
            }
        }
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
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        // A device that never ends, through a link.
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let error = read(dir.path()).unwrap_err();
        assert!(
            matches!(error, ManifestError::NotAFile("a character device")),
            "{error}"
        );
        fs::remove_file(&path).unwrap();
        // A FIFO with no writer: opening it must not wait for one.
        let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = read(dir.path()).unwrap_err();
        assert!(
            matches!(error, ManifestError::NotAFile("a FIFO")),
            "{error}"
        );
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        assert!(matches!(read(dir.path()), Err(ManifestError::NotAFile(_))));
    }

    #[test]
    fn shortfalls_name_each_fact_that_went_down() {
        let recorded = sample().facts;
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
    fn the_keeper_never_lowers_the_facts_it_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = Keeper::new(dir.path());
        keeper.rewrite(sample()).unwrap();
        let mut lower = sample().facts;
        lower.set(Fact::Games, 1);
        lower.set(Fact::Results, 5000);
        keeper.record(43, lower).unwrap();
        let written = read(dir.path()).unwrap().unwrap();
        assert_eq!(written.get(Fact::Games), sample().get(Fact::Games));
        assert_eq!(written.get(Fact::Results), 5000);
        assert_eq!(written.generation, 43);
        assert_eq!(written.identity, sample().identity);
    }

    proptest! {
        #[test]
        fn any_manifest_reads_back(
            values in proptest::array::uniform10(any::<u64>()),
            identity in 1..=u128::MAX,
            generation in 1..=u64::MAX,
        ) {
            let mut manifest = Manifest { identity: Some(Identity(identity)), generation, facts: Facts(values) };
            manifest.set(Fact::LastId, values[9].max(1));
            prop_assert_eq!(decode(encode(&manifest).as_bytes()).unwrap(), manifest);
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

    #[test]
    fn random_identities_differ_and_are_never_zero() {
        let (a, b) = (Identity::random(), Identity::random());
        assert_ne!(a, b);
        assert!(a.0 != 0 && b.0 != 0);
    }
}
