//! Digests of the workers' keys, kept across restarts. Sessions live in memory, so without
//! these a coordinator restart would hand each worker id to whoever says hello first under it;
//! with them, the queue keeps each id for its own key for one lease period after a start (see
//! the job queue's registry). Only a digest is kept: the database never holds a key a worker
//! could be impersonated with.
//!
//! Stable format. `worker_keys`: key = the worker id's bytes; value = 32 bytes, the digest of
//! the worker's key (SHA-256 over a fixed label, the id, a zero byte and the key; see
//! the coordinator's `WorkerKey::digest`). A worker that says hello without a key has no
//! record. A database without the tree reads as having no digests.

use super::{Store, StoreError, corrupt};

/// A worker key's digest.
pub type KeyDigest = [u8; 32];

impl Store {
    /// Every stored key digest, by worker id.
    pub fn worker_key_digests(&self) -> Result<Vec<(String, KeyDigest)>, StoreError> {
        self.worker_keys
            .iter()
            .map(|entry| {
                let (key, value) = entry?;
                let id = String::from_utf8(key.to_vec()).map_err(|e| corrupt("worker key", e))?;
                let digest = KeyDigest::try_from(value.as_ref())
                    .map_err(|_| corrupt("worker key", "not 32 bytes"))?;
                Ok((id, digest))
            })
            .collect()
    }

    /// Stores (`Some`) or forgets (`None`) the key digest of `worker`; writes nothing when it
    /// is already stored that way (durable at the next flush).
    pub fn set_worker_key_digest(
        &self,
        worker: &str,
        digest: Option<&KeyDigest>,
    ) -> Result<(), StoreError> {
        let stored = self.worker_keys.get(worker.as_bytes())?;
        if stored.as_deref() == digest.map(<[u8; 32]>::as_slice) {
            return Ok(());
        }
        let _writing = self.writing();
        match digest {
            Some(digest) => self.worker_keys.insert(worker.as_bytes(), digest)?,
            None => self.worker_keys.remove(worker.as_bytes())?,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_stored_replaced_forgotten_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            store.set_worker_key_digest("a", Some(&[1; 32])).unwrap();
            store.set_worker_key_digest("b", Some(&[2; 32])).unwrap();
            store.set_worker_key_digest("b", Some(&[3; 32])).unwrap();
            store.set_worker_key_digest("c", Some(&[4; 32])).unwrap();
            store.set_worker_key_digest("c", None).unwrap();
            store.set_worker_key_digest("never", None).unwrap();
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(
            store.worker_key_digests().unwrap(),
            [("a".to_owned(), [1; 32]), ("b".to_owned(), [3; 32])]
        );
    }
}
