//! Worker pools whose threads can be kept off the core of the thread that wakes them.
//!
//! Encoding a batch and rewriting a large merge hand work to a pool thread while the
//! calling thread works too. Linux wakes a sleeping thread on an idle core, but on a
//! virtual machine an idle vCPU is halted and KVM reports it as preempted, so the
//! scheduler does not count it as idle and queues the woken thread on the caller's own
//! core — where it waits for the caller's time slice to end, 1–5 ms, ten times the
//! 0.2 ms a 120 KB text takes on two threads. Measured on 2 vCPUs (a job spawned after
//! 3 ms of sleep, the caller spinning): started after 0.9 ms at the median and 4.9 ms at
//! p90; kept off the caller's core, after 29 µs and 39 µs. So before such a hand-over the
//! caller calls [`Pool::keep_off_this_core`]: the pool's threads may then run on any core
//! the process may use but the caller's (a system call only when the caller has moved).
//! A pool whose work the caller only waits for (`install`) needs no such call.

use std::ops::Deref;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{EngineError, Result};

/// `Pool::kept_off` when the threads may use every core.
const EVERY_CORE: i32 = -1;

/// A rayon pool and its threads' ids, for setting where they may run.
pub struct Pool {
    threads: rayon::ThreadPool,
    placement: Arc<Placement>,
}

struct Placement {
    /// The pool's threads, as they start (rayon starts them in the background).
    tids: Mutex<Vec<i32>>,
    /// The core the threads are kept off, or [`EVERY_CORE`]; written under `tids`' lock.
    kept_off: AtomicI32,
    /// The cores the process could use when the pool was built.
    #[cfg(target_os = "linux")]
    allowed: Option<libc::cpu_set_t>,
}

impl Pool {
    pub fn new(threads: usize) -> Result<Pool> {
        let placement = Arc::new(Placement {
            tids: Mutex::new(Vec::with_capacity(threads)),
            kept_off: AtomicI32::new(EVERY_CORE),
            #[cfg(target_os = "linux")]
            allowed: this_threads_cores(),
        });
        let starting = placement.clone();
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .start_handler(move |_| {
                crate::priority::lower_this_thread();
                starting.register_this_thread()
            })
            .build()
            .map_err(|e| EngineError::Config(format!("cannot start {threads} worker threads: {e}")))?;
        Ok(Pool { threads, placement })
    }

    /// Before handing work to the pool that this thread does too: the pool's threads run
    /// on other cores than this thread's (see the module's comment). Costs a system call
    /// per pool thread when this thread has moved since the last call, nothing otherwise.
    pub fn keep_off_this_core(&self) {
        self.placement.keep_off(current_core());
    }
}

impl Deref for Pool {
    type Target = rayon::ThreadPool;

    fn deref(&self) -> &rayon::ThreadPool {
        &self.threads
    }
}

impl Placement {
    fn register_this_thread(&self) {
        let mut tids = self.tids.lock().unwrap_or_else(PoisonError::into_inner);
        let tid = this_thread_id();
        tids.push(tid);
        // A core set before this thread registered applies to it too.
        self.apply(tid, self.kept_off.load(Ordering::Relaxed));
    }

    fn keep_off(&self, core: i32) {
        if self.kept_off.load(Ordering::Relaxed) == core {
            return;
        }
        let tids = self.tids.lock().unwrap_or_else(PoisonError::into_inner);
        self.kept_off.store(core, Ordering::Relaxed);
        for &tid in tids.iter() {
            self.apply(tid, core);
        }
    }

    /// Let thread `tid` run on the allowed cores but `core`; on all of them when `core` is
    /// [`EVERY_CORE`] or the only one allowed. Best effort: a failure leaves it where it was.
    #[cfg(target_os = "linux")]
    fn apply(&self, tid: i32, core: i32) {
        let Some(mut cores) = self.allowed else { return };
        // SAFETY: plain bit operations on a `cpu_set_t` and a system call reading it.
        unsafe {
            if core >= 0 && (core as usize) < libc::CPU_SETSIZE as usize {
                let all = cores;
                libc::CPU_CLR(core as usize, &mut cores);
                if libc::CPU_COUNT(&cores) == 0 {
                    cores = all;
                }
            }
            libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &cores);
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn apply(&self, _tid: i32, _core: i32) {}
}

#[cfg(target_os = "linux")]
fn this_threads_cores() -> Option<libc::cpu_set_t> {
    // SAFETY: the set is written by the call; it is used only if the call succeeded.
    unsafe {
        let mut cores: libc::cpu_set_t = std::mem::zeroed();
        (libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut cores) == 0).then_some(cores)
    }
}

#[cfg(target_os = "linux")]
fn this_thread_id() -> i32 {
    // SAFETY: no arguments, cannot fail.
    unsafe { libc::gettid() }
}

#[cfg(not(target_os = "linux"))]
fn this_thread_id() -> i32 {
    0
}

#[cfg(target_os = "linux")]
fn current_core() -> i32 {
    // SAFETY: no arguments; -1 on failure, which leaves every core allowed.
    unsafe { libc::sched_getcpu() }
}

#[cfg(not(target_os = "linux"))]
fn current_core() -> i32 {
    EVERY_CORE
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn cores_of(tid: i32) -> Vec<usize> {
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) }, 0);
        (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
    }

    fn pool_tids(pool: &Pool, threads: usize) -> Vec<i32> {
        // The threads register as they start: wait for all of them.
        pool.broadcast(|_| ());
        let tids = pool.placement.tids.lock().unwrap().clone();
        assert_eq!(tids.len(), threads);
        tids
    }

    #[test]
    fn threads_are_kept_off_the_callers_core() {
        let allowed = cores_of(0);
        let pool = Pool::new(2).unwrap();
        let tids = pool_tids(&pool, 2);
        pool.keep_off_this_core();
        let core = pool.placement.kept_off.load(Ordering::Relaxed);
        for &tid in &tids {
            let expected: Vec<usize> = if allowed.len() > 1 {
                allowed.iter().copied().filter(|&c| c as i32 != core).collect()
            } else {
                allowed.clone() // one core only: nowhere else to go
            };
            assert_eq!(cores_of(tid), expected);
        }
        // Work still runs, and every core comes back.
        assert_eq!(pool.install(|| 6 * 7), 42);
        pool.placement.keep_off(EVERY_CORE);
        for &tid in &tids {
            assert_eq!(cores_of(tid), allowed);
        }
    }

    #[test]
    fn a_thread_that_starts_late_takes_the_cores_already_set() {
        let placement = Placement { tids: Mutex::new(Vec::new()), kept_off: AtomicI32::new(EVERY_CORE), allowed: this_threads_cores() };
        let allowed = cores_of(0);
        let core = *allowed.last().unwrap() as i32;
        placement.keep_off(core);
        let placement = Arc::new(placement);
        let p = placement.clone();
        let cores = std::thread::spawn(move || {
            p.register_this_thread();
            cores_of(0)
        })
        .join()
        .unwrap();
        let expected: Vec<usize> = if allowed.len() > 1 { allowed[..allowed.len() - 1].to_vec() } else { allowed.clone() };
        assert_eq!(cores, expected);
    }
}
