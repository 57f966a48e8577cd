//! The peer-supplied labels and ids the edge parses once into typed values: a worker's id
//! ([`WorkerId`]) and name, a result's id ([`ResultId`]), and the two secrets that make a
//! worker id its holder's alone ([`WorkerKey`], [`Session`]). Ids and names end up in the
//! registry, in every `Status` answer and in the logs, so they are bounded and printable; the
//! secrets end up nowhere but the registry (their `Debug` hides them). The services take the
//! typed values and never check them again.

use std::fmt;

use thiserror::Error;

pub use pentagrid_model::limits::MAX_WORKER_ID_BYTES;

/// Longest worker name, in bytes.
pub const MAX_WORKER_NAME_BYTES: usize = 100;

/// Longest result id, in bytes.
pub const MAX_RESULT_ID_BYTES: usize = 200;

/// Why a peer-supplied label (a worker id or name) was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LabelError {
    /// It is empty where one is needed.
    #[error("is empty")]
    Empty,
    /// It is longer than allowed.
    #[error("is {len} bytes long; at most {max} are allowed")]
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The most allowed.
        max: usize,
    },
    /// It holds a character that could rewrite a terminal or a log line.
    #[error(
        "holds the control or formatting character {found:?} at byte {at}: use printable characters"
    )]
    Unprintable {
        /// The character.
        found: char,
        /// Its byte offset.
        at: usize,
    },
}

/// Control characters (newlines, ESC, DEL, C1) and the invisible formatting characters that
/// reorder or hide text (bidirectional overrides and isolates, zero-width marks).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Checks a label: at most `max` bytes, printable, and non-empty when `required`.
fn checked(text: &str, max: usize, required: bool) -> Result<&str, LabelError> {
    if required && text.is_empty() {
        return Err(LabelError::Empty);
    }
    if text.len() > max {
        return Err(LabelError::TooLong {
            len: text.len(),
            max,
        });
    }
    if let Some((at, found)) = text.char_indices().find(|&(_, c)| unprintable(c)) {
        return Err(LabelError::Unprintable { found, at });
    }
    Ok(text)
}

/// A worker's id: 1 to [`MAX_WORKER_ID_BYTES`] bytes of printable characters.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkerId(String);

/// Why a worker id was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad worker_id: it {0}")]
pub struct BadWorkerId(pub LabelError);

impl WorkerId {
    /// Checks peer-supplied text as a worker id.
    pub fn parse(text: &str) -> Result<WorkerId, BadWorkerId> {
        checked(text, MAX_WORKER_ID_BYTES, true)
            .map(|id| WorkerId(id.to_owned()))
            .map_err(BadWorkerId)
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for WorkerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A result's id, chosen by its worker and the same on every retry: 1 to
/// [`MAX_RESULT_ID_BYTES`] bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResultId(String);

/// Why a result id was refused: its length in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("result_id must be 1 to {MAX_RESULT_ID_BYTES} bytes, not {0}")]
pub struct BadResultId(pub usize);

impl ResultId {
    /// Checks peer-supplied text as a result id.
    pub fn parse(text: &str) -> Result<ResultId, BadResultId> {
        if text.is_empty() || text.len() > MAX_RESULT_ID_BYTES {
            return Err(BadResultId(text.len()));
        }
        Ok(ResultId(text.to_owned()))
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ResultId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Shortest worker key, in bytes: 16 bytes of text is at least 64 bits even as hex digits.
pub const MIN_WORKER_KEY_BYTES: usize = 16;

/// Longest worker key, in bytes.
pub const MAX_WORKER_KEY_BYTES: usize = 64;

/// Whether two secrets (tokens, keys, sessions) are equal, in time that does not depend on
/// where they differ (a peer that times refusals learns nothing of a secret byte by byte).
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The secret a worker process keeps for its life and says hello with: a later hello under
/// the same id must bring it, so nobody else can take a live worker's id. `None` when the
/// worker sent none (then the id is free again only once its session has gone silent).
#[derive(Clone, PartialEq, Eq)]
pub struct WorkerKey(Option<String>);

/// Why a worker key was refused: its length in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "worker_key must be empty or {MIN_WORKER_KEY_BYTES} to {MAX_WORKER_KEY_BYTES} bytes, not {0}"
)]
pub struct BadWorkerKey(pub usize);

impl WorkerKey {
    /// No key: the id is taken again only once its session has gone silent.
    pub const NONE: WorkerKey = WorkerKey(None);

    /// Checks peer-supplied text as a worker key (empty: none).
    pub fn parse(text: &str) -> Result<WorkerKey, BadWorkerKey> {
        match text.len() {
            0 => Ok(WorkerKey::NONE),
            len if (MIN_WORKER_KEY_BYTES..=MAX_WORKER_KEY_BYTES).contains(&len) => {
                Ok(WorkerKey(Some(text.to_owned())))
            }
            len => Err(BadWorkerKey(len)),
        }
    }

    /// Whether `other` proves to be the same worker: both have a key and the keys are equal.
    #[must_use]
    pub fn matches(&self, other: &WorkerKey) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => same_secret(a.as_bytes(), b.as_bytes()),
            _ => false,
        }
    }

    /// The digest of this key as worker `id`'s, the form in which it is stored (see
    /// [`pentagrid_store::worker_keys`]): SHA-256 over `pentagrid worker key`, a zero byte, the
    /// id, a zero byte and the key (stable). The id is in it so that one key used under two
    /// ids gives two unrelated digests. `None` without a key.
    #[must_use]
    pub fn digest(&self, id: &str) -> Option<[u8; 32]> {
        use sha2::{Digest, Sha256};
        let key = self.0.as_ref()?;
        let mut hasher = Sha256::new();
        for part in [b"pentagrid worker key".as_slice(), id.as_bytes()] {
            hasher.update(part);
            hasher.update([0]);
        }
        hasher.update(key.as_bytes());
        Some(hasher.finalize().into())
    }
}

/// Whether `digest` is that of `key` as worker `id`'s, compared in constant time.
#[must_use]
pub fn proves(key: &WorkerKey, id: &str, digest: &[u8; 32]) -> bool {
    key.digest(id)
        .is_some_and(|own| same_secret(&own, digest.as_slice()))
}

impl fmt::Debug for WorkerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "WorkerKey(..)"
        } else {
            "WorkerKey(none)"
        })
    }
}

/// A worker session's secret, drawn by the coordinator at each hello from the operating
/// system's randomness (128 bits, as 32 hex digits) and carried by every later worker call.
#[derive(Clone, PartialEq, Eq)]
pub struct Session(String);

impl Session {
    /// A fresh, unpredictable session secret.
    #[must_use]
    pub fn fresh() -> Session {
        use rand::RngExt;
        Session(format!("{:032x}", rand::rng().random::<u128>()))
    }

    /// The secret as a peer sent it (not checked: it either equals a session or it does not).
    #[must_use]
    pub fn presented(text: &str) -> Session {
        Session(text.to_owned())
    }

    /// Whether `other` is this session, compared in constant time.
    #[must_use]
    pub fn matches(&self, other: &Session) -> bool {
        !self.0.is_empty() && same_secret(self.0.as_bytes(), other.0.as_bytes())
    }

    /// The secret, for the hello answer only.
    #[must_use]
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Session(..)")
    }
}

/// A worker name: up to [`MAX_WORKER_NAME_BYTES`] bytes of printable characters.
pub fn worker_name(name: &str) -> Result<&str, LabelError> {
    checked(name, MAX_WORKER_NAME_BYTES, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn key_digests_are_stable_and_bound_to_their_id() {
        let key = WorkerKey::parse("the-owners-key-0123456789").unwrap();
        let digest = key.digest("w").unwrap();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        // SHA-256 of "pentagrid worker key\0w\0the-owners-key-0123456789": the stored form.
        assert_eq!(
            hex,
            "7fbfdbc2f13584ad43fb71009340958324c99768398b015a0125f83fab93138a"
        );
        assert!(proves(&key, "w", &digest));
        assert!(!proves(&key, "w2", &digest));
        assert!(!proves(&WorkerKey::NONE, "w", &digest));
        assert_eq!(WorkerKey::NONE.digest("w"), None);
    }

    fn worker_id(text: &str) -> Result<String, LabelError> {
        WorkerId::parse(text).map(|id| id.0).map_err(|e| e.0)
    }

    #[test]
    fn ids_and_names_are_bounded_and_printable() {
        assert_eq!(worker_id("host-1234-ab").as_deref(), Ok("host-1234-ab"));
        assert_eq!(worker_id("ünï cödé 工人").as_deref(), Ok("ünï cödé 工人"));
        assert_eq!(worker_id(""), Err(LabelError::Empty));
        assert_eq!(worker_name(""), Ok(""));
        assert_eq!(
            worker_id(&"x".repeat(201)),
            Err(LabelError::TooLong { len: 201, max: 200 })
        );
        assert_eq!(
            worker_name(&"é".repeat(51)),
            Err(LabelError::TooLong { len: 102, max: 100 })
        );
        for (bad, found, at) in [
            ("a\nINFO forged", '\n', 1),
            ("\u{1b}[2J", '\u{1b}', 0),
            ("ab\u{7f}", '\u{7f}', 2),
            ("x\u{202e}gpj", '\u{202e}', 1),
            ("\u{85}", '\u{85}', 0),
        ] {
            assert_eq!(worker_name(bad), Err(LabelError::Unprintable { found, at }));
            assert_eq!(worker_id(bad), Err(LabelError::Unprintable { found, at }));
        }
        let message = WorkerId::parse("a\u{1b}").unwrap_err().to_string();
        assert!(message.contains("'\\u{1b}'"), "{message}");
    }

    #[test]
    fn result_ids_are_1_to_200_bytes() {
        assert_eq!(ResultId::parse("r-1").unwrap().as_str(), "r-1");
        assert_eq!(ResultId::parse(""), Err(BadResultId(0)));
        assert_eq!(
            ResultId::parse(&"é".repeat(100)).unwrap().as_str().len(),
            200
        );
        assert_eq!(ResultId::parse(&"x".repeat(201)), Err(BadResultId(201)));
    }

    #[test]
    fn keys_match_only_when_both_are_given_and_equal() {
        let key = WorkerKey::parse("0123456789abcdef").unwrap();
        let other = WorkerKey::parse("0123456789abcdeX").unwrap();
        let none = WorkerKey::parse("").unwrap();
        assert!(key.matches(&key.clone()));
        assert!(!key.matches(&other));
        assert!(!none.matches(&none), "no key proves nothing");
        assert!(!key.matches(&none));
        assert_eq!(WorkerKey::parse("short"), Err(BadWorkerKey(5)));
        assert_eq!(WorkerKey::parse(&"k".repeat(65)), Err(BadWorkerKey(65)));
        assert_eq!(
            format!("{key:?}"),
            "WorkerKey(..)",
            "a key never reaches a log"
        );
    }

    #[test]
    fn sessions_are_fresh_and_match_only_themselves() {
        let a = Session::fresh();
        let b = Session::fresh();
        assert_ne!(a, b);
        assert_eq!(a.reveal().len(), 32);
        assert!(a.matches(&Session::presented(a.reveal())));
        assert!(!a.matches(&b));
        assert!(!a.matches(&Session::presented("")));
        assert!(!Session::presented("").matches(&Session::presented("")));
        assert_eq!(format!("{a:?}"), "Session(..)");
    }

    proptest! {
        #[test]
        fn an_accepted_label_has_no_control_character_and_fits(text in any::<String>()) {
            if let Ok(id) = worker_id(&text) {
                prop_assert!(!id.is_empty() && id.len() <= MAX_WORKER_ID_BYTES);
                prop_assert!(!id.chars().any(char::is_control));
            }
        }
    }
}
