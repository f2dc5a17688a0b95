//! Work lent to a pool's threads for the length of one call.
//!
//! The calling thread runs the work itself and asks `helpers` pool threads to run it too;
//! a helper that starts after the calling thread is done finds the loan closed and leaves
//! without touching it. So the call never waits for a helper that has not started — on a
//! busy machine one may get a core milliseconds late, after all the work is done (a rayon
//! scope would wait for it) — and waits only for helpers still inside the work.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long the calling thread, done with the work, spins while helpers finish theirs
/// before it sleeps: being woken takes longer than a helper's last step usually does.
const SPIN: Duration = Duration::from_micros(200);

/// The lent work and who is inside it.
struct Loan {
    /// The caller's `work`, its lifetime erased: called only between `enter` and `leave`,
    /// and `run_lent` returns only once the loan is closed with no helper inside.
    work: *const (dyn Fn() + Sync + 'static),
    /// (closed, helpers inside the work)
    state: Mutex<(bool, usize)>,
    /// Helpers inside the work, read without the lock while spinning.
    inside: AtomicUsize,
    left: Condvar,
}

// SAFETY: `work` points to a `Sync` closure that outlives every call through it (see
// `Loan::work`); the rest is `Send + Sync`.
unsafe impl Send for Loan {}
unsafe impl Sync for Loan {}

impl Loan {
    fn state(&self) -> MutexGuard<'_, (bool, usize)> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Enter the work unless the loan is closed.
    fn enter(&self) -> bool {
        let mut state = self.state();
        if state.0 {
            return false;
        }
        state.1 += 1;
        self.inside.fetch_add(1, Ordering::Release);
        true
    }

    fn leave(&self) {
        let mut state = self.state();
        state.1 -= 1;
        self.inside.fetch_sub(1, Ordering::Release);
        if state.1 == 0 {
            self.left.notify_all();
        }
    }

    /// Close the loan and wait until no helper is inside the work.
    fn close(&self) {
        let start = Instant::now();
        while self.inside.load(Ordering::Acquire) > 0 && start.elapsed() < SPIN {
            std::hint::spin_loop();
        }
        let mut state = self.state();
        state.0 = true;
        while state.1 > 0 {
            state = self.left.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Run `work` on this thread and on up to `helpers` threads of `pool` that start before
/// this thread's run of it returns; return once no thread runs it any more. `work` must
/// not panic (a helper's panic is caught and dropped; catch it inside if it matters).
pub fn run_lent(pool: &rayon::ThreadPool, helpers: usize, work: &(dyn Fn() + Sync)) {
    let work: *const (dyn Fn() + Sync + '_) = work;
    // SAFETY: only the lifetime changes; see `Loan::work` for why the pointer stays valid.
    let work = unsafe { std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(work) };
    let loan = Arc::new(Loan { work, state: Mutex::new((false, 0)), inside: AtomicUsize::new(0), left: Condvar::new() });
    for _ in 0..helpers {
        let loan = loan.clone();
        pool.spawn(move || {
            if loan.enter() {
                // SAFETY: entered an open loan: the caller has not returned (see `close`).
                let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (*loan.work)() }));
                loan.leave();
            }
        });
    }
    // The caller's own run: a panic here must still close the loan before unwinding.
    let own = catch_unwind(AssertUnwindSafe(|| unsafe { (*loan.work)() }));
    loan.close();
    if let Err(panic) = own {
        std::panic::resume_unwind(panic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_taken_once_and_late_helpers_touch_nothing() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for round in 0..200 {
            let items: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
            let next = AtomicUsize::new(0);
            let take = || {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    item.fetch_add(1, Ordering::Relaxed);
                    if round % 2 == 0 {
                        std::thread::sleep(Duration::from_micros(20));
                    }
                }
            };
            run_lent(&pool, 2, &take);
            assert!(items.iter().all(|i| i.load(Ordering::Relaxed) == 1));
            // `items` is dropped here while late helpers may still start: they must not run.
        }
    }

    #[test]
    fn a_panic_in_the_callers_run_closes_the_loan_first() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| run_lent(&pool, 1, &|| panic!("boom"))));
        assert!(result.is_err());
    }
}
