//! The store's side of the integrity [`manifest`](super::manifest): the facts it records, the
//! database's identity and write generation kept in `meta`, each commit (generation raised,
//! flush, manifest written), and the check at open.
//!
//! Generations: every flush first stores generation `g + 1` in `meta`, after every write it
//! makes durable, then flushes, then writes the manifest with `g + 1`; commits are serialised.
//! sled recovers a prefix of its log, so a database that still holds generation `g + 1` holds
//! every write acknowledged by that flush, of whatever kind (a cancellation changes no count,
//! but it raises the generation). At open the database's generation must be the manifest's,
//! or one above it (a crash between a flush and its manifest: nothing of it was acknowledged).
//! Below it, acknowledged writes were lost; more than one above it, the manifest is older than
//! the database (copied over it) and cannot vouch for what it holds.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::manifest::{self, Fact, Facts, Identity, Keeper, Manifest, ManifestError, OpenCheck};
use super::{Store, StoreError, corrupt, id_of};

/// The `meta` key of the database's [`Identity`] (16 big-endian bytes).
pub(super) const IDENTITY: &[u8] = b"identity";
/// The `meta` key of the database's write generation (8 big-endian bytes).
pub(super) const GENERATION: &[u8] = b"generation";

/// The identity and generation a database holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    identity: Option<Identity>,
    generation: u64,
}

/// What a commit needs of the store, owned, so that it runs on the blocking pool.
pub(super) struct Committer {
    db: sled::Db,
    meta: sled::Tree,
    keeper: Arc<Keeper>,
}

impl Committer {
    /// One commit, blocking: raises the generation, flushes, records it in the manifest with
    /// `facts` (read before the flush: the manifest never claims more than sled made
    /// durable). Serialised with every other commit.
    pub(super) fn commit(&self, facts: Facts) -> Result<(), StoreError> {
        let keeper = &self.keeper;
        let _committing = keeper.committing.lock().unwrap_or_else(|e| e.into_inner());
        let generation = keeper
            .recorded()
            .generation
            .checked_add(1)
            .ok_or_else(|| corrupt("write generation", "every generation has been used"))?;
        // Written after every write this flush makes durable: holding it after a recovery
        // means holding them.
        self.meta.insert(GENERATION, &generation.to_be_bytes())?;
        self.db.flush()?;
        Ok(keeper.record(generation, facts)?)
    }
}

impl Store {
    /// The committer of this store.
    pub(super) fn handle(&self) -> Committer {
        Committer {
            db: self.db.clone(),
            meta: self.meta.clone(),
            keeper: self.manifest.clone(),
        }
    }

    /// The facts as the store holds them now, as the manifest would record them; cheap (one
    /// read, four last keys, two counters), so that it runs before every flush.
    pub fn facts(&self) -> Result<Facts, StoreError> {
        let totals = self.totals()?;
        let mut facts = Facts::default();
        facts.set(Fact::Results, totals.results);
        facts.set(Fact::Games, totals.games);
        facts.set(Fact::Playouts, totals.playouts);
        // Positions that ever had a playout table: a purge that removes one (see
        // `super::contributions`) must not read as a loss.
        let ever = totals
            .playout_positions
            .saturating_add(totals.purged_positions);
        facts.set(Fact::PlayoutPositions, ever);
        let ever = totals
            .game_positions
            .saturating_add(totals.purged_game_positions);
        facts.set(Fact::GamePositions, ever);
        facts.set(Fact::Puzzles, self.stored_puzzles());
        let jobs = last_id(&self.jobs, "job")?.max(last_id(&self.quarantine, "job")?);
        facts.set(Fact::LastJob, jobs);
        facts.set(Fact::LastMatch, last_id(&self.matches, "match")?);
        facts.set(Fact::LastBuild, last_id(&self.builds, "build")?);
        facts.set(Fact::LastId, self.manifest.last_id.load(Ordering::Acquire));
        Ok(facts)
    }

    /// The database's identity, if it has one yet.
    pub fn identity(&self) -> Result<Option<Identity>, StoreError> {
        Ok(self.held()?.identity)
    }

    fn held(&self) -> Result<Held, StoreError> {
        let identity = match self.meta.get(IDENTITY)? {
            None => None,
            Some(bytes) => Some(
                <[u8; 16]>::try_from(bytes.as_ref())
                    .map(u128::from_be_bytes)
                    .ok()
                    .filter(|v| *v != 0)
                    .map(Identity)
                    .ok_or_else(|| corrupt("database identity", "not 16 bytes, or zero"))?,
            ),
        };
        let generation = super::read_u64(&self.meta, GENERATION, "write generation")?;
        Ok(Held {
            identity,
            generation,
        })
    }

    /// Compares what sled recovered with the manifest as `check` says, then writes the
    /// manifest from what the store holds. `recorded` is the manifest as read before sled
    /// opened.
    pub(super) fn check_integrity(
        &self,
        check: OpenCheck,
        recorded: Result<Option<Manifest>, ManifestError>,
    ) -> Result<(), StoreError> {
        // The first id sled hands out now bounds every id it handed out before.
        let next = self.generate_id()?;
        let mut found = self.facts()?;
        found.set(Fact::LastId, next - 1);
        let held = self.held()?;
        let baseline = match self.compare(check, recorded, &found, held) {
            Ok(baseline) => baseline,
            Err(refusal) if check == OpenCheck::AcceptDataLoss => {
                tracing::warn!(db = %self.manifest.dir.display(), %refusal, "the loss accepted: going on with what the database holds; the rest is lost for good and the manifest is rewritten");
                0
            }
            Err(refusal) => return Err(refusal),
        };
        // A database without an identity (new, or from before identities) gets one now; a
        // restored one gets its own, never its source's.
        let (identity, generation) = match held.identity {
            Some(identity) if check != OpenCheck::Adopt => {
                (identity, held.generation.max(baseline).max(1))
            }
            _ => (Identity::random(), 1),
        };
        if Some(identity) != held.identity || generation != held.generation {
            self.meta.insert(IDENTITY, &identity.0.to_be_bytes())?;
            self.meta.insert(GENERATION, &generation.to_be_bytes())?;
            self.db.flush()?;
        }
        found.set(Fact::LastId, next);
        Ok(self.manifest.rewrite(Manifest {
            identity: Some(identity),
            generation,
            facts: found,
        })?)
    }

    /// The check itself: `Ok` with the manifest's generation (0 where there is none to
    /// keep), or the refusal.
    fn compare(
        &self,
        check: OpenCheck,
        recorded: Result<Option<Manifest>, ManifestError>,
        found: &Facts,
        held: Held,
    ) -> Result<u64, StoreError> {
        let dir = &self.manifest.dir;
        let path = dir.join(manifest::FILE_NAME);
        let recorded = match (check, recorded) {
            (OpenCheck::Adopt, _) => {
                tracing::info!(db = %dir.display(), "adopting the database as it is: its integrity manifest is written from what it holds");
                return Ok(0);
            }
            (_, Err(error)) => return Err(StoreError::Manifest { path, error }),
            (_, Ok(None)) if found.is_empty() => return Ok(0),
            (_, Ok(None)) => match held {
                // Its first manifest is written at open, before any commit raises the
                // generation past 1: past it, the manifest existed and was deleted.
                Held {
                    identity: Some(identity),
                    generation,
                } if generation > 1 => {
                    return Err(StoreError::MissingManifest {
                        path,
                        identity,
                        generation,
                    });
                }
                _ => {
                    tracing::warn!(db = %dir.display(), "the database has no integrity manifest (written by a pentagrid from before integrity manifests): adopting it as it is; from now on data loss is caught");
                    return Ok(0);
                }
            },
            (_, Ok(Some(recorded))) => recorded,
        };
        let foreign = |why: String| StoreError::ForeignManifest {
            path: path.clone(),
            why,
        };
        match (recorded.identity, held.identity) {
            (Some(theirs), Some(ours)) if theirs != ours => {
                return Err(foreign(format!(
                    "it belongs to database {theirs}, this database is {ours}"
                )));
            }
            // A version-1 manifest over a database that has an identity: written before the
            // upgrade, unless the upgrade itself was cut short (generation 1).
            (None, Some(ours)) if held.generation > 1 => {
                return Err(foreign(format!(
                    "it is of format version 1, older than database {ours} (at write \
                     generation {}), so it is an older manifest copied over it",
                    held.generation
                )));
            }
            _ => {}
        }
        let shortfalls = found.shortfalls(&recorded.facts);
        if !shortfalls.is_empty() {
            return Err(StoreError::DataLoss {
                dir: dir.clone(),
                shortfalls,
            });
        }
        // After the shortfalls: a database that lost everything lost its identity too, and
        // the shortfalls say more.
        if let (Some(theirs), None) = (recorded.identity, held.identity) {
            return Err(foreign(format!(
                "it belongs to database {theirs}, this database holds no identity (it lost its \
                 first records, or it is another database)"
            )));
        }
        if recorded.identity.is_some() {
            if held.generation < recorded.generation {
                return Err(StoreError::LostWrites {
                    dir: dir.clone(),
                    recorded: recorded.generation,
                    found: held.generation,
                });
            }
            if held.generation > recorded.generation + 1 {
                return Err(StoreError::StaleManifest {
                    path,
                    recorded: recorded.generation,
                    found: held.generation,
                });
            }
        }
        Ok(recorded.generation)
    }
}

/// The id of the last key of a tree keyed by id (or by id and more), 0 when it is empty.
fn last_id(tree: &sled::Tree, what: &'static str) -> Result<u64, StoreError> {
    match tree.last()? {
        Some((key, _)) => id_of(key.get(..8).unwrap_or(&key), what),
        None => Ok(0),
    }
}
