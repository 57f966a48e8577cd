//! How the worker meets a refused or failed call: what it does about it (decided by the typed
//! reason and the status code, never by the wording of a message), and how long it waits
//! before trying again.

use std::time::Duration;

use pentago::splitmix64;
use pentagrid_proto::reason_of;
use pentagrid_proto::v2::ErrorReason;
use tokio::sync::watch;
use tonic::Code;

/// Backoff between retries: doubling from 100 ms to 10 s, with ±50% jitter.
pub(crate) struct Backoff {
    attempt: u32,
    state: u64,
}

impl Backoff {
    pub(crate) fn new(seed: u64) -> Backoff {
        Backoff {
            attempt: 0,
            state: seed,
        }
    }

    pub(crate) fn next(&mut self) -> Duration {
        let base = 100u64.saturating_mul(1 << self.attempt.min(7)).min(10_000);
        self.attempt = self.attempt.saturating_add(1);
        self.state = splitmix64(self.state);
        let jitter = 0.5 + (self.state >> 11) as f64 / (1u64 << 53) as f64;
        Duration::from_millis((base as f64 * jitter) as u64)
    }

    pub(crate) fn reset(&mut self) {
        self.attempt = 0;
    }
}

/// What the worker does about a refused call, decided by the status code and the typed reason
/// in its details, never by the wording of its message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reaction {
    /// The coordinator does not know this worker (it restarted): say hello again.
    HelloAgain,
    /// Refused for good (wrong token, a token without the worker role, other protocol, a
    /// quarantined worker): stop.
    Stop,
    /// The coordinator is away or overloaded: back off and retry.
    Retry,
    /// This call's request is unwanted (a lost lease, an invalid result): drop it.
    Drop,
}

pub(crate) fn reaction(status: &tonic::Status) -> Reaction {
    match reason_of(status) {
        ErrorReason::UnknownWorker | ErrorReason::WrongSession => return Reaction::HelloAgain,
        // Another live session holds the id (this worker's last life, say): it frees up once
        // that session has been silent for a lease period.
        ErrorReason::WorkerIdInUse => return Reaction::Retry,
        ErrorReason::ProtocolMismatch
        | ErrorReason::Unauthenticated
        | ErrorReason::Forbidden
        | ErrorReason::Quarantined => {
            return Reaction::Stop;
        }
        _ => {}
    }
    match status.code() {
        Code::Unauthenticated | Code::PermissionDenied => Reaction::Stop,
        Code::Unavailable
        | Code::Unknown
        | Code::DeadlineExceeded
        | Code::Internal
        | Code::Cancelled
        | Code::Aborted => Reaction::Retry,
        _ => Reaction::Drop,
    }
}

/// Whether a refused result is an expected outcome rather than a fault: the lease is no longer
/// held because the job was cancelled (or the lease expired), which the coordinator logs with
/// the detail the worker lacks. Decided by the typed reason, never by the message.
pub(crate) fn expected_refusal(status: &tonic::Status) -> bool {
    reason_of(status) == ErrorReason::LeaseNotHeld
}

/// Sleeps `duration` unless shutdown comes first; true if shutting down.
pub(crate) async fn sleep_or_shutdown(
    duration: Duration,
    shutdown: &mut watch::Receiver<bool>,
) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(duration) => *shutdown.borrow(),
        _ = shutdown.changed() => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_proto::error_status;

    #[test]
    fn reactions_follow_the_typed_reason_whatever_the_message_says() {
        for message in ["", "banana", "say hello first", "incompatible protocol"] {
            let unknown = error_status(
                Code::FailedPrecondition,
                ErrorReason::UnknownWorker,
                message,
            );
            assert_eq!(reaction(&unknown), Reaction::HelloAgain, "{message:?}");
            let replaced = error_status(Code::PermissionDenied, ErrorReason::WrongSession, message);
            assert_eq!(reaction(&replaced), Reaction::HelloAgain, "{message:?}");
            let in_use = error_status(Code::AlreadyExists, ErrorReason::WorkerIdInUse, message);
            assert_eq!(reaction(&in_use), Reaction::Retry, "{message:?}");
            let protocol = error_status(
                Code::FailedPrecondition,
                ErrorReason::ProtocolMismatch,
                message,
            );
            assert_eq!(reaction(&protocol), Reaction::Stop, "{message:?}");
            // Even under a code that alone would mean "drop this call".
            let forbidden = error_status(Code::FailedPrecondition, ErrorReason::Forbidden, message);
            assert_eq!(reaction(&forbidden), Reaction::Stop, "{message:?}");
            let lost = error_status(Code::FailedPrecondition, ErrorReason::LeaseNotHeld, message);
            assert_eq!(reaction(&lost), Reaction::Drop, "{message:?}");
            // Without a reason, words in the message change nothing.
            let bare = tonic::Status::failed_precondition(message);
            assert_eq!(reaction(&bare), Reaction::Drop, "{message:?}");
        }
        assert_eq!(
            reaction(&tonic::Status::unavailable("connection refused")),
            Reaction::Retry
        );
        assert_eq!(
            reaction(&tonic::Status::unauthenticated("x")),
            Reaction::Stop
        );
    }

    #[test]
    fn only_a_lease_no_longer_held_is_an_expected_refusal_whatever_the_message_says() {
        for message in ["", "lease 40 is not held", "banana"] {
            let lost = error_status(Code::FailedPrecondition, ErrorReason::LeaseNotHeld, message);
            assert!(expected_refusal(&lost), "{message:?}");
            let bare = tonic::Status::failed_precondition(message);
            assert!(!expected_refusal(&bare), "{message:?}");
            let invalid = error_status(Code::InvalidArgument, ErrorReason::InvalidResult, message);
            assert!(!expected_refusal(&invalid), "{message:?}");
        }
    }

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let mut b = Backoff::new(1);
        let first = b.next();
        assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(150));
        let later: Vec<Duration> = (0..20).map(|_| b.next()).collect();
        assert!(later.iter().all(|d| *d <= Duration::from_millis(15_000)));
        assert!(later.last().unwrap() >= &Duration::from_millis(5_000));
        b.reset();
        assert!(b.next() <= Duration::from_millis(150));
    }
}
