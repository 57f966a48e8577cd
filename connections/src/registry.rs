//! The open connections of one listener, in two sets: those that have not yet made a request
//! ("unproven": bounded in all and per address, the oldest closed first to make room) and
//! those that have (bounded by the cap, the longest idle closed to make room). A newcomer is
//! never refused: someone older and less useful makes way for it.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tokio::sync::oneshot;

use super::ConnectionLimits;

/// What one connection shares with the registry: whether it has made a request, and when it
/// last sent bytes.
#[derive(Debug)]
pub(super) struct Activity {
    epoch: Instant,
    proven: AtomicBool,
    /// Milliseconds from `epoch` to the last bytes read.
    last_read: AtomicU64,
}

impl Activity {
    fn new(epoch: Instant) -> Activity {
        let activity = Activity {
            epoch,
            proven: AtomicBool::new(false),
            last_read: AtomicU64::new(0),
        };
        activity.touch();
        activity
    }

    /// Notes bytes read now.
    pub(super) fn touch(&self) {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_read.store(now, Ordering::Relaxed);
    }

    /// When bytes were last read.
    pub(super) fn last_read(&self) -> Instant {
        self.epoch + std::time::Duration::from_millis(self.last_read.load(Ordering::Relaxed))
    }

    /// Whether the connection has made a request.
    pub(super) fn is_proven(&self) -> bool {
        self.proven.load(Ordering::Acquire)
    }
}

/// One registered connection.
struct Entry {
    address: IpAddr,
    closer: oneshot::Sender<()>,
    activity: Arc<Activity>,
}

impl Entry {
    fn close(self) {
        let _ = self.closer.send(());
    }
}

/// Why connections were closed to make room (each said once at WARN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Crowding {
    /// Too many unproven connections.
    Pending,
    /// Too many unproven connections from one address.
    Address,
    /// Too many connections that made requests.
    Full,
    /// Descriptors ran out.
    Descriptors,
}

impl Crowding {
    fn warning(self) -> &'static str {
        match self {
            Crowding::Pending => {
                "pending-connection limit reached: closing the oldest connection that has not made a request for each new one (--max-pending-connections)"
            }
            Crowding::Address => {
                "per-address limit reached: closing that address's oldest connection that has not made a request for each new one (--max-pending-per-address)"
            }
            Crowding::Full => {
                "connection limit reached: closing the longest-idle connection for each new one that makes a request (--max-connections)"
            }
            Crowding::Descriptors => {
                "out of file descriptors: closing the oldest connections that have not made a request, else the longest idle, and backing off (lower the connection limits or raise the descriptor limit)"
            }
        }
    }
}

/// The open connections of one listener.
pub(super) struct Registry {
    limits: ConnectionLimits,
    epoch: Instant,
    next_id: u64,
    /// Unproven connections, oldest first (ids grow with accepts).
    pending: BTreeMap<u64, Entry>,
    /// Unproven connections per address.
    pending_by_address: HashMap<IpAddr, usize>,
    proven: HashMap<u64, Entry>,
    warned: Vec<Crowding>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("pending", &self.pending.len())
            .field("proven", &self.proven.len())
            .finish_non_exhaustive()
    }
}

/// A registry shared by the accept loop and the connections.
pub(super) type SharedRegistry = Arc<Mutex<Registry>>;

/// Locks `registry`; a panic elsewhere leaves it usable (its sets stay consistent between
/// statements).
pub(super) fn lock(registry: &SharedRegistry) -> MutexGuard<'_, Registry> {
    registry
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A connection's place in the registry.
pub(super) struct Admitted {
    pub(super) id: u64,
    pub(super) evicted: oneshot::Receiver<()>,
    pub(super) activity: Arc<Activity>,
}

impl Registry {
    /// An empty registry under `limits`.
    pub(super) fn new(limits: ConnectionLimits) -> Registry {
        Registry {
            limits,
            epoch: Instant::now(),
            next_id: 0,
            pending: BTreeMap::new(),
            pending_by_address: HashMap::new(),
            proven: HashMap::new(),
            warned: Vec::new(),
        }
    }

    /// Unproven and proven connections open.
    #[cfg(test)]
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.pending.len(), self.proven.len())
    }

    fn warn_once(&mut self, why: Crowding) {
        if !self.warned.contains(&why) {
            self.warned.push(why);
            tracing::warn!("{}", why.warning());
        }
    }

    /// Removes the unproven connection `id`, keeping the per-address counts.
    fn take_pending(&mut self, id: u64) -> Option<Entry> {
        let entry = self.pending.remove(&id)?;
        if let Some(count) = self.pending_by_address.get_mut(&entry.address) {
            *count -= 1;
            if *count == 0 {
                self.pending_by_address.remove(&entry.address);
            }
        }
        Some(entry)
    }

    /// Closes the oldest unproven connection (from `address` only, if given); whether there
    /// was one.
    fn close_oldest_pending(&mut self, address: Option<IpAddr>) -> bool {
        let oldest = self
            .pending
            .iter()
            .find(|(_, entry)| address.is_none_or(|a| entry.address == a))
            .map(|(id, _)| *id);
        match oldest.and_then(|id| self.take_pending(id)) {
            Some(entry) => {
                entry.close();
                true
            }
            None => false,
        }
    }

    /// Closes the proven connection that has been silent longest, other than `keep`; whether
    /// there was one.
    fn close_longest_idle(&mut self, keep: Option<u64>) -> bool {
        let idlest = self
            .proven
            .iter()
            .filter(|(id, _)| Some(**id) != keep)
            .min_by_key(|(id, entry)| (entry.activity.last_read.load(Ordering::Relaxed), **id))
            .map(|(id, _)| *id);
        match idlest.and_then(|id| self.proven.remove(&id)) {
            Some(entry) => {
                entry.close();
                true
            }
            None => false,
        }
    }

    /// Registers a new connection from `address`, first closing the oldest unproven ones
    /// past the per-address and the pending bounds.
    pub(super) fn admit(&mut self, address: IpAddr) -> Admitted {
        let from_address = self.pending_by_address.get(&address).copied();
        if from_address.unwrap_or(0) >= self.limits.max_pending_per_address {
            self.warn_once(Crowding::Address);
            self.close_oldest_pending(Some(address));
        }
        if self.pending.len() >= self.limits.max_pending {
            self.warn_once(Crowding::Pending);
            self.close_oldest_pending(None);
        }
        let id = self.next_id;
        self.next_id += 1;
        let (closer, evicted) = oneshot::channel();
        let activity = Arc::new(Activity::new(self.epoch));
        let entry = Entry {
            address,
            closer,
            activity: activity.clone(),
        };
        self.pending.insert(id, entry);
        *self.pending_by_address.entry(address).or_insert(0) += 1;
        Admitted {
            id,
            evicted,
            activity,
        }
    }

    /// Counts connection `id` as one that made a request; past the cap, the longest-idle
    /// other one is closed. Nothing for a connection already proven or gone.
    pub(super) fn prove(&mut self, id: u64) {
        let Some(entry) = self.take_pending(id) else {
            return;
        };
        entry.activity.proven.store(true, Ordering::Release);
        self.proven.insert(id, entry);
        if self.proven.len() > self.limits.max_connections {
            self.warn_once(Crowding::Full);
            self.close_longest_idle(Some(id));
        }
    }

    /// Forgets connection `id` (it ended).
    pub(super) fn remove(&mut self, id: u64) {
        if self.take_pending(id).is_none() {
            self.proven.remove(&id);
        }
    }

    /// Descriptors ran out: closes up to `most` unproven connections, oldest first, or if
    /// there are none the longest-idle proven one; how many were closed.
    pub(super) fn free_descriptors(&mut self, most: usize) -> usize {
        self.warn_once(Crowding::Descriptors);
        let closed = (0..most)
            .take_while(|_| self.close_oldest_pending(None))
            .count();
        if closed > 0 {
            closed
        } else {
            usize::from(self.close_longest_idle(None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 2,
            max_pending: 3,
            max_pending_per_address: 2,
            ..ConnectionLimits::default()
        }
    }

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    /// Whether the connection was told to close.
    fn evicted(admitted: &mut Admitted) -> bool {
        admitted.evicted.try_recv().is_ok()
    }

    #[test]
    fn past_the_pending_bound_the_oldest_unproven_connection_is_closed() {
        let mut registry = Registry::new(limits());
        let mut first = registry.admit(ip(1));
        let mut second = registry.admit(ip(2));
        registry.prove(second.id);
        let mut third = registry.admit(ip(3));
        let mut fourth = registry.admit(ip(4));
        assert_eq!(registry.counts(), (3, 1));
        let mut fifth = registry.admit(ip(5));
        assert!(evicted(&mut first), "the oldest unproven goes");
        assert!(
            !evicted(&mut second),
            "a proven one is never closed for a newcomer"
        );
        assert!(!evicted(&mut third) && !evicted(&mut fourth) && !evicted(&mut fifth));
        assert_eq!(registry.counts(), (3, 1));
    }

    #[test]
    fn one_address_only_crowds_out_its_own_connections() {
        let mut registry = Registry::new(limits());
        let mut other = registry.admit(ip(9));
        let mut first = registry.admit(ip(1));
        let mut second = registry.admit(ip(1));
        let mut third = registry.admit(ip(1));
        assert!(evicted(&mut first), "the address's oldest goes");
        assert!(!evicted(&mut other), "another address's connection stays");
        assert!(!evicted(&mut second) && !evicted(&mut third));
        assert_eq!(registry.counts(), (3, 0));
    }

    #[test]
    fn past_the_cap_the_longest_idle_proven_connection_is_closed() {
        let mut registry = Registry::new(limits());
        let mut idle = registry.admit(ip(1));
        let mut busy = registry.admit(ip(2));
        registry.prove(idle.id);
        registry.prove(busy.id);
        // The busy one reads later than the idle one.
        std::thread::sleep(std::time::Duration::from_millis(5));
        busy.activity.touch();
        let mut newcomer = registry.admit(ip(3));
        assert!(!evicted(&mut idle), "admitting closes no proven connection");
        registry.prove(newcomer.id);
        assert!(evicted(&mut idle), "the longest idle goes");
        assert!(!evicted(&mut busy) && !evicted(&mut newcomer));
        assert_eq!(registry.counts(), (0, 2));
        assert!(newcomer.activity.is_proven());
    }

    #[test]
    fn running_out_of_descriptors_closes_unproven_first_then_the_idlest() {
        let mut registry = Registry::new(limits());
        let mut proven = registry.admit(ip(1));
        registry.prove(proven.id);
        let mut a = registry.admit(ip(2));
        let mut b = registry.admit(ip(3));
        assert_eq!(registry.free_descriptors(8), 2);
        assert!(evicted(&mut a) && evicted(&mut b) && !evicted(&mut proven));
        assert_eq!(registry.free_descriptors(8), 1);
        assert!(evicted(&mut proven));
        assert_eq!(registry.free_descriptors(8), 0);
    }

    #[test]
    fn removed_connections_free_their_places() {
        let mut registry = Registry::new(limits());
        let first = registry.admit(ip(1));
        let second = registry.admit(ip(1));
        registry.remove(first.id);
        registry.prove(second.id);
        registry.remove(second.id);
        registry.prove(second.id);
        assert_eq!(registry.counts(), (0, 0));
        assert!(registry.pending_by_address.is_empty());
    }
}
