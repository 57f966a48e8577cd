//! The worker's standing with its coordinator: its hello (id, name, threads, engines and the
//! key only this process knows) and the session secret its latest hello was given. The lease
//! loop, the heartbeats and the submissions share it: every worker call carries the current
//! session, and any of them says hello again — with the same key, so the id stays this
//! worker's — when the coordinator has forgotten the worker or replaced its session.

use std::sync::{Mutex, MutexGuard};

use pentagrid_proto::{Client, v2};

/// The hello a worker says and the session it holds.
pub(crate) struct Standing {
    client: Client,
    hello: v2::HelloRequest,
    session: Mutex<String>,
}

impl Standing {
    /// The standing of a worker that says `hello` (its key included) to `client`; no
    /// session until the first hello.
    pub(crate) fn new(client: Client, hello: v2::HelloRequest) -> Standing {
        Standing {
            client,
            hello,
            session: Mutex::new(String::new()),
        }
    }

    fn held(&self) -> MutexGuard<'_, String> {
        // A plain string: a panic elsewhere leaves nothing half-done here.
        self.session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The session secret to send with a worker call (empty before the first hello).
    pub(crate) fn session(&self) -> String {
        self.held().clone()
    }

    /// The worker's id.
    pub(crate) fn worker_id(&self) -> &str {
        &self.hello.worker_id
    }

    /// Says hello and keeps the session the coordinator gives.
    pub(crate) async fn hello(&self) -> Result<v2::HelloResponse, tonic::Status> {
        let reply = self
            .client
            .clone()
            .hello(self.hello.clone())
            .await?
            .into_inner();
        self.held().clone_from(&reply.session);
        Ok(reply)
    }
}

/// A fresh worker key: 128 bits from a generator seeded by the operating system, as 32 hex
/// digits.
pub(crate) fn fresh_key() -> String {
    use rand::RngExt;
    format!("{:032x}", rand::rng().random::<u128>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_32_hex_digits_and_fresh() {
        let (a, b) = (fresh_key(), fresh_key());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
