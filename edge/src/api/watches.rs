//! How many job watches are open at once. Each watch is a task, a subscription to the job
//! events and an open response stream (about 130 KB with its buffers): without a bound, one
//! token (a read token handed to dashboards, or a leaked one) could pile up thousands of them
//! and the memory they hold. Slots are counted per grant, so one credential cannot take every
//! slot, and for the whole coordinator, so that all credentials together stay bounded too;
//! they are given back when the watch ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use thiserror::Error;

use super::roles::Grant;

/// Most watches one grant holds open at once (a person's terminals and a few dashboards fit
/// many times over).
pub const MAX_WATCHES_PER_GRANT: usize = 64;

/// Most watches the whole coordinator holds open at once, for every credential together
/// (about 20 MB of streams at most; below the per-grant bound times the grants that may
/// watch, so that it binds when several credentials are busy at once).
pub const MAX_WATCHES: usize = 160;

/// A watch refused because too many are open.
#[derive(Debug, Error)]
pub enum TooManyWatches {
    /// Its credential holds [`MAX_WATCHES_PER_GRANT`].
    #[error(
        "this token already holds {MAX_WATCHES_PER_GRANT} open job watches, the most one \
         token may hold at once: end one (or wait for its jobs to finish) and watch again"
    )]
    Grant,
    /// The coordinator holds [`MAX_WATCHES`].
    #[error(
        "the coordinator already holds {MAX_WATCHES} open job watches, the most it holds at \
         once for all tokens together: try again when one ends"
    )]
    Coordinator,
}

/// The open watches.
#[derive(Default)]
struct Open {
    /// By grant (`None`: a call that came past no authentication, as in tests of the bare
    /// service).
    by_grant: HashMap<Option<Grant>, usize>,
    /// Of every grant together.
    total: usize,
}

/// Open watches, per grant and in all.
#[derive(Clone, Default)]
pub(crate) struct WatchLimits {
    open: Arc<Mutex<Open>>,
}

/// One open watch's place in the counts, given back when dropped.
pub(crate) struct WatchSlot {
    limits: WatchLimits,
    grant: Option<Grant>,
}

impl WatchLimits {
    /// A slot for one more watch by `grant`, unless it holds [`MAX_WATCHES_PER_GRANT`] or
    /// the coordinator holds [`MAX_WATCHES`].
    pub(crate) fn take(&self, grant: Option<Grant>) -> Result<WatchSlot, TooManyWatches> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let held = open.by_grant.get(&grant).copied().unwrap_or(0);
        if held >= MAX_WATCHES_PER_GRANT {
            return Err(TooManyWatches::Grant);
        }
        if open.total >= MAX_WATCHES {
            return Err(TooManyWatches::Coordinator);
        }
        *open.by_grant.entry(grant).or_default() += 1;
        open.total += 1;
        Ok(WatchSlot {
            limits: self.clone(),
            grant,
        })
    }

    #[cfg(test)]
    fn held(&self, grant: Option<Grant>) -> (usize, usize) {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        (open.by_grant.get(&grant).copied().unwrap_or(0), open.total)
    }
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        let mut open = self.limits.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.by_grant.get_mut(&self.grant) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.by_grant.remove(&self.grant);
            }
            open.total = open.total.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::roles::Role;
    use super::*;

    #[test]
    fn each_grant_holds_at_most_its_share_and_gets_slots_back() {
        let limits = WatchLimits::default();
        let read = Some(Grant::Role(Role::Read));
        let mut slots: Vec<WatchSlot> = (0..MAX_WATCHES_PER_GRANT)
            .map(|_| limits.take(read).unwrap())
            .collect();
        assert!(limits.take(read).is_err());
        // Another credential is not held back by this one.
        let admin = limits.take(Some(Grant::Role(Role::Admin))).unwrap();
        slots.pop();
        assert_eq!(
            limits.held(read),
            (MAX_WATCHES_PER_GRANT - 1, MAX_WATCHES_PER_GRANT)
        );
        slots.push(limits.take(read).unwrap());
        drop(slots);
        drop(admin);
        assert_eq!(limits.held(read), (0, 0));
        assert!(
            limits.open.lock().unwrap().by_grant.is_empty(),
            "nothing kept per grant"
        );
    }

    #[test]
    fn the_coordinator_holds_at_most_its_bound_for_every_grant_together() {
        let limits = WatchLimits::default();
        let grants = [
            Some(Grant::Role(Role::Read)),
            Some(Grant::Role(Role::Admin)),
            Some(Grant::All),
            None,
        ];
        let mut slots = Vec::new();
        let mut refused = None;
        'fill: for grant in grants {
            for _ in 0..MAX_WATCHES_PER_GRANT {
                match limits.take(grant) {
                    Ok(slot) => slots.push(slot),
                    Err(error) => {
                        refused = Some((grant, error));
                        break 'fill;
                    }
                }
            }
        }
        let (last, error) = refused.expect("the bound binds before every grant is full");
        assert!(matches!(error, TooManyWatches::Coordinator), "{error}");
        assert_eq!(slots.len(), MAX_WATCHES);
        // Every grant is refused now, even one that holds none.
        assert!(matches!(
            limits.take(None),
            Err(TooManyWatches::Coordinator)
        ));
        // A slot given back by one grant makes room for another.
        let first = slots.remove(0);
        drop(first);
        let again = limits.take(last).unwrap();
        assert_eq!(limits.held(last).1, MAX_WATCHES);
        drop(again);
        drop(slots);
        assert_eq!(limits.held(None), (0, 0));
    }
}
