//! Blocking work off the async runtime: sled scans and walks, engine play and anything else
//! whose cost grows with the data run on tokio's blocking pool, so the runtime's few worker
//! threads stay free for heartbeats and leases.

/// Runs `work` on the blocking pool and waits for it; a panic inside it carries on here, as if
/// the work had run inline.
pub(crate) async fn blocking<T, F>(work: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        // A blocking task is cancelled only when the runtime shuts down, and then nothing
        // awaits it any more: what is left here is a panic.
        Err(error) => std::panic::resume_unwind(error.into_panic()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_runs_on_another_thread_and_its_panics_carry_on() {
        let here = std::thread::current().id();
        let there = blocking(|| std::thread::current().id()).await;
        assert_ne!(here, there);
        let panicked = tokio::spawn(blocking(|| panic!("inside the work"))).await;
        assert!(panicked.unwrap_err().is_panic());
    }
}
