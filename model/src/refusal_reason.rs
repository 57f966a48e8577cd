//! Why a coordinator refused a call, in domain form: the reasons its callers branch on (retry,
//! say hello again, give up), never the wording of a message. The wire carries them as
//! `ErrorReason` in a status's details.

/// The typed reason a coordinator gave for refusing a call.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RefusalReason {
    /// No reason given, or one this client does not know (and every failure that is not a
    /// refusal).
    Unspecified,
    /// The request is malformed or out of range.
    InvalidArgument,
    /// The worker id is not known to this coordinator process.
    UnknownWorker,
    /// The caller speaks another protocol version.
    ProtocolMismatch,
    /// The token is missing or wrong.
    Unauthenticated,
    /// The lease of a submitted result is not held by the caller.
    LeaseNotHeld,
    /// The submitted result fails validation against its job.
    InvalidResult,
    /// The result id was used before for another job.
    ResultIdReused,
    /// The match, build or other named thing does not exist.
    NotFound,
    /// The coordinator's storage failed.
    Storage,
    /// The token's role may not call this method.
    Forbidden,
    /// The worker is quarantined.
    Quarantined,
    /// The request is over a size limit.
    TooLarge,
    /// The coordinator is at a capacity limit: try again later.
    AtCapacity,
    /// A worker call's session is not its worker id's current one: say hello again.
    WrongSession,
    /// Another live session holds the worker id.
    WorkerIdInUse,
    /// The match (or other thing) has already finished, so it cannot be changed.
    Finished,
}
