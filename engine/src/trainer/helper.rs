//! A second thread that stays awake between merges, for merges too small to wake a pool
//! thread for.
//!
//! Waking a sleeping thread costs 12-42 µs on a virtual machine (see `tracking`), while a
//! merge touching a few hundred words takes tens of µs: handing half of it to a pool
//! thread costs more than it saves. A thread that polls between merges takes a job within
//! about a µs. It polls only while merges keep coming: idle for [`PARK_AFTER`] (a re-count,
//! a run of small merges) it sleeps until the next job, so it never competes for long with
//! the pool's threads or a window's GUI thread; and it runs at the pool's lowered priority.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long the helper polls for a job before it sleeps.
const PARK_AFTER: Duration = Duration::from_micros(200);

/// Polls between yields of the core: each is a pause instruction, about 10-100 ns.
const SPINS: u32 = 64;

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const DONE: u8 = 2;
const PARKED: u8 = 3;
const STOP: u8 = 4;

type Job = *mut (dyn FnMut() + Send);

struct Shared {
    state: AtomicU8,
    /// The posted job: written by the caller before `POSTED`, read by the helper after.
    job: UnsafeCell<Option<Job>>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `job` is handed over through `state` (release/acquire): only the caller writes
// it, while the state is IDLE or PARKED, and only the helper reads it, while POSTED. The
// job it points to is `Send`, and outlives the hand-over (see `Helper::join`).
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

pub(super) struct Helper {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Helper {
    /// Start the helper thread; None if the system refuses a thread (then work runs here).
    pub fn start() -> Option<Helper> {
        let shared = Arc::new(Shared { state: AtomicU8::new(IDLE), job: UnsafeCell::new(None), panic: Mutex::new(None) });
        let theirs = shared.clone();
        let thread = thread::Builder::new()
            .name("bpe-merge-helper".into())
            .spawn(move || {
                crate::priority::lower_this_thread();
                serve(&theirs)
            })
            .ok()?;
        Some(Helper { shared, thread: Some(thread) })
    }

    /// Run `theirs` on the helper thread and `ours` on this one; return when both have
    /// finished (also when either panics: the panic then goes on here).
    pub fn join<R>(&self, theirs: impl FnOnce() + Send, ours: impl FnOnce() -> R) -> R {
        let mut theirs = Some(theirs);
        let mut call = move || {
            if let Some(job) = theirs.take() {
                job()
            }
        };
        let job: &mut (dyn FnMut() + Send + '_) = &mut call;
        // SAFETY: the lifetime is erased for the hand-over only: `Finished` below waits
        // for the helper to be done with the job before `call` (and what it borrows) can
        // go, on every path out of this function, unwinding included.
        let job: Job = unsafe { std::mem::transmute::<&mut (dyn FnMut() + Send + '_), Job>(job) };
        // SAFETY: the state is IDLE or PARKED (every join waits for DONE and resets it),
        // so the helper is not reading `job`.
        unsafe { *self.shared.job.get() = Some(job) };
        if self.shared.state.swap(POSTED, Ordering::AcqRel) == PARKED {
            self.unpark();
        }
        let finished = Finished(self);
        let ours = ours();
        drop(finished);
        let panic = self.shared.panic.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(payload) = panic {
            panic::resume_unwind(payload);
        }
        ours
    }

    fn unpark(&self) {
        if let Some(thread) = &self.thread {
            thread.thread().unpark();
        }
    }
}

/// Waits, when dropped, until the helper has finished the posted job.
struct Finished<'h>(&'h Helper);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        let state = &self.0.shared.state;
        let mut polls = 0u32;
        while state.load(Ordering::Acquire) != DONE {
            polls += 1;
            if polls.is_multiple_of(SPINS) {
                thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        state.store(IDLE, Ordering::Release);
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        if self.shared.state.swap(STOP, Ordering::AcqRel) == PARKED {
            self.unpark();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The helper's loop: run posted jobs until told to stop.
fn serve(shared: &Shared) {
    let mut idle_since: Option<Instant> = None;
    let mut polls = 0u32;
    loop {
        match shared.state.load(Ordering::Acquire) {
            POSTED => {
                // SAFETY: POSTED was stored after the job (release, acquired above), and
                // the caller waits for DONE before the job goes.
                let job = unsafe { (*shared.job.get()).take() };
                if let Some(job) = job {
                    // SAFETY: see `Helper::join`: the job lives until DONE.
                    let outcome = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*job)() }));
                    if let Err(payload) = outcome {
                        *shared.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(payload);
                    }
                }
                shared.state.store(DONE, Ordering::Release);
                idle_since = None;
                polls = 0;
            }
            STOP => return,
            PARKED => thread::park(), // woken early: look again
            _ => {
                polls += 1;
                if !polls.is_multiple_of(SPINS) {
                    std::hint::spin_loop();
                    continue;
                }
                thread::yield_now();
                let now = Instant::now();
                if now.duration_since(*idle_since.get_or_insert(now)) >= PARK_AFTER
                    && shared.state.compare_exchange(IDLE, PARKED, Ordering::AcqRel, Ordering::Acquire).is_ok()
                {
                    thread::park();
                    idle_since = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_run_and_their_writes_are_seen() {
        let helper = Helper::start().unwrap();
        for round in 0..1000u64 {
            let (mut left, mut right) = (vec![0u64; 64], vec![0u64; 64]);
            let sum = helper.join(
                || left.iter_mut().enumerate().for_each(|(i, x)| *x = i as u64 + round),
                || {
                    right.iter_mut().enumerate().for_each(|(i, x)| *x = 2 * i as u64);
                    right.iter().sum::<u64>()
                },
            );
            assert_eq!(sum, 2 * (0..64).sum::<u64>());
            assert_eq!(left[63], 63 + round);
        }
    }

    #[test]
    fn a_sleeping_helper_wakes_for_the_next_job() {
        let helper = Helper::start().unwrap();
        for _ in 0..5 {
            thread::sleep(PARK_AFTER * 5);
            let mut done = false;
            helper.join(|| done = true, || ());
            assert!(done);
        }
    }

    #[test]
    fn a_panic_on_the_helper_reaches_the_caller_and_the_helper_goes_on() {
        let helper = Helper::start().unwrap();
        let caught = panic::catch_unwind(AssertUnwindSafe(|| helper.join(|| panic!("in the helper"), || 1)));
        let payload = caught.expect_err("the helper's panic goes on in the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"in the helper"));
        let mut ran = false;
        helper.join(|| ran = true, || ());
        assert!(ran);
    }

    #[test]
    fn a_panic_here_still_waits_for_the_helper() {
        let helper = Helper::start().unwrap();
        let mut written = 0u64;
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            helper.join(
                || {
                    thread::sleep(Duration::from_millis(20));
                    written = 7;
                },
                || panic!("here"),
            )
        }));
        assert!(caught.is_err());
        assert_eq!(written, 7, "the helper finished before the borrow ended");
    }
}
