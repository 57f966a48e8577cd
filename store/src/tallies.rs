//! The analysis cross-check's sign tallies, kept across restarts: how often each worker's
//! sampled analyses scored above and below the coordinator's own search of the same position.
//! Held only in memory, a coordinator restart would start every tally again, and a worker
//! that leans would only have to wait for restarts to stay below the sign test's bound.
//!
//! Stable format. `sign_tallies`: key = the worker id's bytes; value = 16 bytes, the tosses its
//! score came out above and then below (two u64, big-endian). A database without the tree
//! reads as having no tallies.

use super::{Store, StoreError, corrupt};

/// One worker's stored tally: (above, below).
pub type SignTally = (u64, u64);

/// A tally's stored bytes.
fn encode((above, below): SignTally) -> [u8; 16] {
    let mut bytes = [0; 16];
    bytes[..8].copy_from_slice(&above.to_be_bytes());
    bytes[8..].copy_from_slice(&below.to_be_bytes());
    bytes
}

/// A tally from its stored bytes, if they are one.
pub(super) fn decode(bytes: &[u8]) -> Option<SignTally> {
    let bytes: &[u8; 16] = bytes.try_into().ok()?;
    let half = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    Some((half(0), half(8)))
}

impl Store {
    /// Every stored tally, by worker id.
    pub fn sign_tallies(&self) -> Result<Vec<(String, SignTally)>, StoreError> {
        self.sign_tallies
            .iter()
            .map(|entry| {
                let (key, value) = entry?;
                let id = String::from_utf8(key.to_vec()).map_err(|e| corrupt("sign tally", e))?;
                let tally = decode(&value).ok_or_else(|| corrupt("sign tally", "not 16 bytes"))?;
                Ok((id, tally))
            })
            .collect()
    }

    /// Stores `worker`'s tally (durable at the next flush, as the result that moved it is).
    pub fn put_sign_tally(&self, worker: &str, tally: SignTally) -> Result<(), StoreError> {
        let _writing = self.writing();
        self.sign_tallies
            .insert(worker.as_bytes(), &encode(tally))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_survive_reopening_in_their_stable_form() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.sign_tallies().unwrap().is_empty());
            store.put_sign_tally("liar", (29, 0)).unwrap();
            store.put_sign_tally("honest", (3, 4)).unwrap();
            store.put_sign_tally("liar", (30, 0)).unwrap();
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(
            store.sign_tallies().unwrap(),
            [("honest".to_owned(), (3, 4)), ("liar".to_owned(), (30, 0))]
        );
        let bytes = encode((1, u64::MAX));
        assert_eq!(bytes[..8], [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(decode(&bytes), Some((1, u64::MAX)));
        assert_eq!(decode(&bytes[1..]), None);
    }
}
