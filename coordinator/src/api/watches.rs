//! How many job watches one credential holds open at once. Each watch is a task, a
//! subscription to the job events and an open response stream: without a bound, one token (a
//! read token handed to dashboards, or a leaked one) could pile up thousands of them and the
//! memory they hold. Slots are counted per grant and given back when the watch ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use thiserror::Error;

use super::roles::Grant;

/// Most watches one grant holds open at once (a person's terminals and a few dashboards fit
/// many times over).
pub const MAX_WATCHES_PER_GRANT: usize = 64;

/// A watch refused because its credential holds too many.
#[derive(Debug, Error)]
#[error(
    "this token already holds {MAX_WATCHES_PER_GRANT} open job watches, the most one token may \
     hold at once: end one (or wait for its jobs to finish) and watch again"
)]
pub struct TooManyWatches;

/// Open watches by grant (`None`: a call that came past no authentication, as in tests of the
/// bare service).
#[derive(Clone, Default)]
pub(crate) struct WatchLimits {
    open: Arc<Mutex<HashMap<Option<Grant>, usize>>>,
}

/// One open watch's place in its grant's count, given back when dropped.
pub(crate) struct WatchSlot {
    limits: WatchLimits,
    grant: Option<Grant>,
}

impl WatchLimits {
    /// A slot for one more watch by `grant`, unless it holds [`MAX_WATCHES_PER_GRANT`].
    pub(crate) fn take(&self, grant: Option<Grant>) -> Result<WatchSlot, TooManyWatches> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(grant).or_default();
        if *count >= MAX_WATCHES_PER_GRANT {
            return Err(TooManyWatches);
        }
        *count += 1;
        Ok(WatchSlot {
            limits: self.clone(),
            grant,
        })
    }

    #[cfg(test)]
    fn held(&self, grant: Option<Grant>) -> usize {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.get(&grant).copied().unwrap_or(0)
    }
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        let mut open = self.limits.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.grant) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.grant);
            }
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
        assert_eq!(limits.held(read), MAX_WATCHES_PER_GRANT - 1);
        slots.push(limits.take(read).unwrap());
        drop(slots);
        drop(admin);
        assert_eq!(limits.held(read), 0);
        assert!(
            limits.open.lock().unwrap().is_empty(),
            "nothing kept per grant"
        );
    }
}
