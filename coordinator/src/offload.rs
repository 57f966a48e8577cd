//! Blocking work off the async runtime: sled scans and walks, engine play and anything else
//! whose cost grows with the data run on tokio's blocking pool, so the runtime's few worker
//! threads stay free for heartbeats and leases. Background work that may take whole cores for
//! minutes (puzzle mining, book build rounds) can run on a pool of lower OS priority instead,
//! so that on a busy machine it waits for the CPU rather than the heartbeats do.

use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;

/// Threads of the low-priority background pool.
const BACKGROUND_THREADS: usize = 2;
/// The nice value of the background pool's threads (the runtime's are 0): a tenth of the CPU
/// share of a normal thread when both want it, all of an idle one.
const BACKGROUND_NICE: i32 = 10;

/// Where background work runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum BackgroundPriority {
    /// On the blocking pool, as the embedded cluster wants (its only worker runs in the same
    /// process, and nothing else waits on the runtime).
    #[default]
    Normal,
    /// On a pool of lower OS priority than the runtime: a standalone coordinator answering
    /// many workers, whose heartbeats must not wait behind mining for a CPU.
    Low,
}

/// The low-priority pool, started on first use (`None` if its threads could not start).
fn background_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(BACKGROUND_THREADS)
            .thread_name(|i| format!("pentagrid-background-{i}"))
            .start_handler(|_| lower_this_thread())
            .build()
            .map_err(|error| tracing::warn!(%error, "no low-priority pool: background work shares the blocking pool"))
            .ok()
    })
    .as_ref()
}

/// Raises the calling thread's nice value (Linux keeps one per thread).
#[cfg(target_os = "linux")]
fn lower_this_thread() {
    // SAFETY: setpriority reads no memory of ours; `who == 0` names the calling thread.
    let failed = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, BACKGROUND_NICE) } != 0;
    if failed {
        tracing::warn!(
            error = %std::io::Error::last_os_error(),
            "background thread keeps its priority"
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_this_thread() {}

/// Runs `work` as background work of `priority` and waits for it: on the low-priority pool
/// when asked (and it could start), else as [`blocking`]. A panic inside it carries on here.
pub(crate) async fn background<T, F>(priority: BackgroundPriority, work: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let pool = match priority {
        BackgroundPriority::Low => background_pool(),
        BackgroundPriority::Normal => None,
    };
    let Some(pool) = pool else {
        return blocking(work).await;
    };
    let (answer, answered) = tokio::sync::oneshot::channel();
    pool.spawn(move || {
        let _ = answer.send(std::panic::catch_unwind(AssertUnwindSafe(work)));
    });
    match answered.await {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // The pool lives as long as the process: the work never ran only if it is ending.
        Err(_) => panic!("the background pool stopped before the work ran"),
    }
}

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

    #[tokio::test]
    async fn background_work_runs_on_a_lower_priority_thread_and_its_panics_carry_on() {
        let low = BackgroundPriority::Low;
        let name = background(low, || std::thread::current().name().map(str::to_owned)).await;
        assert!(name.unwrap().starts_with("pentagrid-background-"));
        #[cfg(target_os = "linux")]
        {
            // SAFETY: getpriority reads no memory of ours.
            let nice = background(low, || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) });
            assert_eq!(nice.await, BACKGROUND_NICE);
        }
        let panicked = tokio::spawn(background(low, || panic!("inside the work"))).await;
        assert!(panicked.unwrap_err().is_panic());
    }
}
