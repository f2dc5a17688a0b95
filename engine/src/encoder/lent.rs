//! Work lent to a pool's threads for the length of one call.
//!
//! The calling thread runs the work itself and asks `helpers` pool threads to run it too;
//! a helper that starts after the calling thread is done finds the loan closed and leaves
//! without touching it. So the call never waits for a helper that has not started — on a
//! busy machine one may get a core milliseconds late, after all the work is done (a rayon
//! scope would wait for it) — and waits only for helpers still inside the work.
//!
//! A helper that has run a loan stays awake for a moment ([`LINGER`]) watching for the next
//! one, as OpenMP's and rayon's workers do: waking a sleeping thread costs ~50 µs here, a
//! third of a 120 KB text's time on two threads. Each loan is also posted where such a
//! helper sees it (`OFFER`); seats bound how many helpers enter one loan.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::pool::Pool;

/// How long the calling thread, done with the work, spins while helpers finish theirs
/// before it sleeps: being woken takes longer than a helper's last step usually does.
const SPIN: Duration = Duration::from_micros(200);

/// How long a helper that ran a loan keeps watching for the next one before it returns to
/// the pool (where it sleeps until woken). The only spinning a helper does: it starts when
/// a loan ends, so an idle process burns no CPU, and it costs at most this much CPU per
/// call (a call in a loop of calls with ~1 ms of other work between them finds its helper
/// awake). It yields the core at every step, so other runnable threads go first.
pub const LINGER: Duration = Duration::from_millis(1);

/// The last loan posted, for helpers that linger (see the module's comment).
static OFFER: Mutex<Option<Arc<Loan>>> = Mutex::new(None);
/// Bumped after each post: lingering helpers poll this rather than the lock.
static OFFERS: AtomicU64 = AtomicU64::new(0);

/// The lent work and who is inside it.
struct Loan {
    /// The caller's `work`, its lifetime erased: called only between `enter` and `leave`,
    /// and `run_lent` returns only once the loan is closed with no helper inside.
    work: *const (dyn Fn() + Sync + 'static),
    /// How many helpers may enter, in all (the spawned ones and lingering ones together).
    seats: usize,
    state: Mutex<State>,
    /// Helpers that entered while lingering after another loan.
    lingered: AtomicUsize,
    /// Helpers inside the work, read without the lock while spinning.
    inside: AtomicUsize,
    left: Condvar,
}

#[derive(Default)]
struct State {
    closed: bool,
    inside: usize,
    entered: usize,
}

// SAFETY: `work` points to a `Sync` closure that outlives every call through it (see
// `Loan::work`); the rest is `Send + Sync`.
unsafe impl Send for Loan {}
unsafe impl Sync for Loan {}

impl Loan {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Enter the work unless the loan is closed or its seats are taken.
    fn enter(&self) -> bool {
        let mut state = self.state();
        if state.closed || state.entered == self.seats {
            return false;
        }
        state.entered += 1;
        state.inside += 1;
        self.inside.fetch_add(1, Ordering::Release);
        true
    }

    fn leave(&self) {
        let mut state = self.state();
        state.inside -= 1;
        self.inside.fetch_sub(1, Ordering::Release);
        if state.inside == 0 {
            self.left.notify_all();
        }
    }

    /// Run the work as a helper if a seat is free; whether it ran.
    fn help(&self, lingering: bool) -> bool {
        if !self.enter() {
            return false;
        }
        if lingering {
            self.lingered.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: entered an open loan: the caller has not returned (see `close`).
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (*self.work)() }));
        self.leave();
        true
    }

    /// Close the loan and wait until no helper is inside the work.
    fn close(self: &Arc<Self>) {
        let start = Instant::now();
        while self.inside.load(Ordering::Acquire) > 0 && start.elapsed() < SPIN {
            std::hint::spin_loop();
        }
        let mut state = self.state();
        state.closed = true;
        while state.inside > 0 {
            state = self.left.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        drop(state);
        let mut offer = OFFER.lock().unwrap_or_else(PoisonError::into_inner);
        if offer.as_ref().is_some_and(|posted| Arc::ptr_eq(posted, self)) {
            *offer = None;
        }
    }
}

fn post(loan: &Arc<Loan>) {
    *OFFER.lock().unwrap_or_else(PoisonError::into_inner) = Some(loan.clone());
    OFFERS.fetch_add(1, Ordering::Release);
}

/// After running a loan: help with each loan posted within `linger` of the last one run,
/// then return (to the pool, which puts the thread to sleep when it has nothing queued).
fn linger(linger: Duration) {
    let mut seen = None;
    let mut since = Instant::now();
    while since.elapsed() < linger {
        let offers = OFFERS.load(Ordering::Acquire);
        if seen != Some(offers) {
            seen = Some(offers);
            let posted = OFFER.lock().unwrap_or_else(PoisonError::into_inner).clone();
            if posted.is_some_and(|loan| loan.help(true)) {
                since = Instant::now();
            }
            continue;
        }
        std::thread::yield_now();
    }
}

/// Run `work` on this thread and on up to `helpers` threads of `pool` that start before
/// this thread's run of it returns, or that linger after a previous loan (see the module's
/// comment); return once no thread runs it any more. `work` must not panic (a helper's
/// panic is caught and dropped; catch it inside if it matters).
pub fn run_lent(pool: &Pool, helpers: usize, work: &(dyn Fn() + Sync)) {
    let _ = run_lent_lingering(pool, helpers, work, LINGER);
}

/// [`run_lent`], its helpers lingering `linger_for`; how many helpers entered while
/// lingering after another loan.
fn run_lent_lingering(pool: &Pool, helpers: usize, work: &(dyn Fn() + Sync), linger_for: Duration) -> usize {
    let work: *const (dyn Fn() + Sync + '_) = work;
    // SAFETY: only the lifetime changes; see `Loan::work` for why the pointer stays valid.
    let work = unsafe { std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(work) };
    let loan = Arc::new(Loan {
        work,
        seats: helpers,
        state: Mutex::default(),
        lingered: AtomicUsize::new(0),
        inside: AtomicUsize::new(0),
        left: Condvar::new(),
    });
    post(&loan);
    // A helper woken now must not queue behind this thread (see `pool`).
    pool.keep_off_this_core();
    // Spawned even when a helper lingers: one that stops lingering just now may miss the
    // post. A spawned job that finds the seats taken or the loan closed returns at once.
    for _ in 0..helpers {
        let loan = loan.clone();
        pool.spawn(move || {
            if loan.help(false) {
                linger(linger_for);
            }
        });
    }
    // The caller's own run: a panic here must still close the loan before unwinding.
    let own = catch_unwind(AssertUnwindSafe(|| unsafe { (*loan.work)() }));
    loan.close();
    if let Err(panic) = own {
        std::panic::resume_unwind(panic);
    }
    loan.lingered.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_taken_once_and_late_helpers_touch_nothing() {
        let pool = Pool::new(2).unwrap();
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
        let pool = Pool::new(1).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| run_lent(&pool, 1, &|| panic!("boom"))));
        assert!(result.is_err());
    }

    /// Work that, on the calling thread, waits (up to 10 s, a failure) until a helper has
    /// run it; on a helper marks that it did.
    fn helped_once(caller: std::thread::ThreadId, helped: &std::sync::atomic::AtomicBool) -> impl Fn() + Sync + '_ {
        move || {
            if std::thread::current().id() != caller {
                helped.store(true, Ordering::Release);
                return;
            }
            let start = Instant::now();
            while !helped.load(Ordering::Acquire) && start.elapsed() < Duration::from_secs(10) {
                std::thread::yield_now();
            }
        }
    }

    #[test]
    fn a_helper_that_ran_a_loan_takes_the_next_one_while_it_lingers() {
        use std::sync::atomic::AtomicBool;
        // One pool thread: while it lingers in the first loan's job, the second loan's
        // spawned job cannot start, so only the lingering helper can enter the second loan.
        let pool = Pool::new(1).unwrap();
        let caller = std::thread::current().id();
        let linger_for = Duration::from_millis(300); // far longer than between the two calls
        let (first, second) = (AtomicBool::new(false), AtomicBool::new(false));
        assert_eq!(run_lent_lingering(&pool, 1, &helped_once(caller, &first), linger_for), 0);
        assert!(first.load(Ordering::Acquire));
        assert_eq!(run_lent_lingering(&pool, 1, &helped_once(caller, &second), linger_for), 1);
        assert!(second.load(Ordering::Acquire));
    }

    #[test]
    fn lingering_ends_and_frees_the_pool_thread() {
        use std::sync::atomic::AtomicBool;
        let pool = Pool::new(1).unwrap();
        let helped = AtomicBool::new(false);
        run_lent(&pool, 1, &helped_once(std::thread::current().id(), &helped));
        assert!(helped.load(Ordering::Acquire));
        // Returns once the helper has stopped lingering (after `LINGER`); never if it spun on.
        assert_eq!(pool.install(|| 7), 7);
    }

    #[test]
    fn no_more_helpers_enter_a_loan_than_it_has_seats() {
        let pool = Pool::new(3).unwrap();
        let caller = std::thread::current().id();
        for seats in [1, 2, 1, 3, 1] {
            for _ in 0..20 {
                let entered = Mutex::new(std::collections::HashSet::new());
                let work = || {
                    if std::thread::current().id() != caller {
                        entered.lock().unwrap().insert(std::thread::current().id());
                    }
                    std::thread::sleep(Duration::from_micros(300));
                };
                run_lent(&pool, seats, &work);
                assert!(entered.lock().unwrap().len() <= seats);
            }
        }
    }
}
