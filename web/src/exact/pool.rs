//! The solver pool: a fixed number of blocking threads that run the engine's exact solver for
//! the analysis board, fed by a short queue.
//!
//! The request threads never solve: they hand a position to the pool and await its answer. A
//! request that finds every thread busy and the queue full is refused at once ([`Busy`]) rather
//! than queued without bound, so a flood of distinct positions costs at most `threads` solves at
//! a time and `threads + queue` solves in all until some finish.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use pentago::{MID_MIN_STONES, Move, Position, SolveLimits, SolveMethod, Solver, Value};
use serde::Serialize;
use tokio::sync::oneshot;

/// How the pool runs the solver.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SolverSettings {
    /// Threads that solve (at most this many solves run at once).
    pub threads: usize,
    /// Positions that may wait for a thread; one more is refused.
    pub queue: usize,
    /// The budget of one alpha-beta solve (positions below the midsolver's stones); the
    /// midsolver's cost depends only on the stone count.
    pub limits: SolveLimits,
    /// Each thread's transposition table holds `2^table_bits` entries of 16 bytes.
    pub table_bits: u32,
}

impl Default for SolverSettings {
    /// One thread, four waiting, 20 million nodes or 10 seconds, a 16 MiB table.
    fn default() -> SolverSettings {
        SolverSettings {
            threads: 1,
            queue: 4,
            limits: SolveLimits {
                max_nodes: 20_000_000,
                max_time: Some(Duration::from_secs(10)),
            },
            table_bits: 20,
        }
    }
}

/// What one solve found.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverRun {
    /// Every legal move (in legal order) with its value for the mover, `None` where the budget
    /// ran out first.
    pub moves: Vec<(Move, Option<Value>)>,
    /// Which algorithm ran.
    pub method: SolveMethod,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The pool was full: every thread busy and the queue full.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the exact solver is busy: {running} solves running and {queued} waiting, the most it takes"
)]
pub struct Busy {
    /// Solves running.
    pub running: usize,
    /// Positions waiting.
    pub queued: usize,
}

/// The pool's counters: what runs now and what ran since it started.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SolverStats {
    /// Threads that solve.
    pub threads: usize,
    /// Positions that may wait.
    pub queue: usize,
    /// Solves running now (a thread holding a position counts).
    pub running: usize,
    /// Positions waiting now.
    pub queued: usize,
    /// The most solves that ever ran at once.
    pub peak_running: usize,
    /// Positions taken (queued or handed to a thread).
    pub accepted: u64,
    /// Solves finished.
    pub finished: u64,
    /// Positions refused because the pool was full.
    pub refused: u64,
    /// Positions dropped unsolved because every asker had gone.
    pub abandoned: u64,
}

/// One position to solve and where its answer goes.
struct Job {
    position: Position,
    reply: oneshot::Sender<SolverRun>,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    stats: SolverStats,
    /// Holds in force (see [`SolverPool::hold`]).
    holds: usize,
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a job arrives, a hold ends or the pool closes.
    wake: Condvar,
    settings: SolverSettings,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every update is a few counter steps under the lock: the state stays consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.wake
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Closes the pool (its threads end after their current solve) when the last handle goes.
struct Owner(Arc<Shared>);

impl Drop for Owner {
    fn drop(&mut self) {
        self.0.state().closed = true;
        self.0.wake.notify_all();
    }
}

/// A handle on the pool; clones share it.
#[derive(Clone)]
pub struct SolverPool {
    owner: Arc<Owner>,
}

impl SolverPool {
    /// Starts `settings.threads` solver threads (at least one).
    ///
    /// # Errors
    /// When the system refuses a thread.
    pub fn start(settings: SolverSettings) -> std::io::Result<SolverPool> {
        let settings = SolverSettings {
            threads: settings.threads.max(1),
            ..settings
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                stats: SolverStats {
                    threads: settings.threads,
                    queue: settings.queue,
                    ..SolverStats::default()
                },
                ..State::default()
            }),
            wake: Condvar::new(),
            settings,
        });
        let pool = SolverPool {
            owner: Arc::new(Owner(Arc::clone(&shared))),
        };
        for index in 0..settings.threads {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("exact-solver-{index}"))
                .spawn(move || work(&shared))?;
        }
        Ok(pool)
    }

    fn shared(&self) -> &Shared {
        &self.owner.0
    }

    /// Hands `position` (an ongoing game) to the pool; the answer comes on the receiver (which
    /// closes without one only if the solver failed).
    ///
    /// # Errors
    /// [`Busy`] when every thread is busy and the queue is full.
    pub fn submit(&self, position: Position) -> Result<oneshot::Receiver<SolverRun>, Busy> {
        let shared = self.shared();
        let mut state = shared.state();
        let SolverSettings { threads, queue, .. } = shared.settings;
        let stats = &mut state.stats;
        if stats.running + stats.queued >= threads + queue {
            stats.refused += 1;
            return Err(Busy {
                running: stats.running,
                queued: stats.queued,
            });
        }
        stats.queued += 1;
        stats.accepted += 1;
        let (reply, answer) = oneshot::channel();
        state.jobs.push_back(Job { position, reply });
        drop(state);
        shared.wake.notify_one();
        Ok(answer)
    }

    /// The counters now.
    #[must_use]
    pub fn stats(&self) -> SolverStats {
        self.shared().state().stats
    }

    /// Holds the threads: each takes its next position (it counts as running) but waits before
    /// solving it until every hold has been dropped. For tests and maintenance: with the
    /// threads held, what the pool takes and refuses does not depend on how fast it solves.
    #[must_use = "the hold ends when the guard is dropped"]
    pub fn hold(&self) -> SolverHold {
        self.shared().state().holds += 1;
        SolverHold {
            owner: Arc::clone(&self.owner),
        }
    }
}

/// Keeps the solver threads waiting until dropped (see [`SolverPool::hold`]).
pub struct SolverHold {
    owner: Arc<Owner>,
}

impl Drop for SolverHold {
    fn drop(&mut self) {
        let shared = &self.owner.0;
        let mut state = shared.state();
        state.holds = state.holds.saturating_sub(1);
        drop(state);
        shared.wake.notify_all();
    }
}

/// One solver thread: takes positions until the pool closes.
fn work(shared: &Shared) {
    let settings = shared.settings;
    let mut solver = Solver::new(settings.table_bits);
    while let Some(job) = next_job(shared) {
        let run = if job.reply.is_closed() {
            None
        } else {
            let started = Instant::now();
            // The solver does not panic on an ongoing position; should it ever, this thread
            // keeps serving with a fresh table and the askers get "failed", not a hang.
            catch_unwind(AssertUnwindSafe(|| {
                solver.solve_moves(&job.position, settings.limits)
            }))
            .map_err(|_| solver = Solver::new(settings.table_bits))
            .ok()
            .map(|moves| SolverRun {
                moves,
                method: if job.position.stone_count() >= MID_MIN_STONES {
                    SolveMethod::Midsolver
                } else {
                    SolveMethod::AlphaBeta
                },
                seconds: started.elapsed().as_secs_f64(),
            })
        };
        let mut state = shared.state();
        state.stats.running -= 1;
        match run {
            Some(run) => {
                state.stats.finished += 1;
                drop(state);
                // The asker may have gone meanwhile: nothing to do then.
                let _ = job.reply.send(run);
            }
            None if job.reply.is_closed() => state.stats.abandoned += 1,
            None => state.stats.finished += 1,
        }
    }
}

/// The next position to solve, once no hold is in force (`None` when the pool closed).
fn next_job(shared: &Shared) -> Option<Job> {
    let mut state = shared.state();
    let job = loop {
        if state.closed {
            return None;
        }
        if let Some(job) = state.jobs.pop_front() {
            break job;
        }
        state = shared.wait(state);
    };
    let stats = &mut state.stats;
    stats.queued -= 1;
    stats.running += 1;
    stats.peak_running = stats.peak_running.max(stats.running);
    while state.holds > 0 && !state.closed {
        state = shared.wait(state);
    }
    Some(job)
}
