//! The engine's own threads, run at a lower CPU priority than the threads that call it,
//! when the front end asks (a desktop window whose GUI thread must wake promptly).
//!
//! Only the threads the engine starts are lowered (worker pools, the corpus reader): they
//! never hold Python's GIL. A thread that runs Python keeps its priority, because a
//! lowered thread that holds the GIL waits for a core while every other thread waits for
//! it (the GUI thread would wait behind a niced job building a model's tables).

use std::sync::atomic::{AtomicI32, Ordering};

use crate::error::{EngineError, Result};

/// How many nice steps the engine's threads run below the thread that starts them.
static LOWERED_BY: AtomicI32 = AtomicI32::new(0);

/// From now on, threads the engine starts run `steps` nice steps (0 to 19) below their
/// creator; 0, the default, leaves them as their creator is. Returns the steps before.
pub fn set_lowered_by(steps: i32) -> Result<i32> {
    if !(0..=19).contains(&steps) {
        return Err(EngineError::Config(format!("the priority step must be from 0 to 19; got {steps}")));
    }
    Ok(LOWERED_BY.swap(steps, Ordering::Relaxed))
}

pub fn lowered_by() -> i32 {
    LOWERED_BY.load(Ordering::Relaxed)
}

/// Called first thing by each thread the engine starts. Best effort: a system that does
/// not allow it leaves the thread as it is.
pub fn lower_this_thread() {
    let steps = lowered_by();
    #[cfg(target_os = "linux")]
    if steps > 0 {
        // SAFETY: system calls on this thread's id; a failure changes nothing. On Linux
        // a nice value belongs to one thread, and threads it starts inherit it.
        unsafe {
            let tid = libc::gettid() as libc::id_t;
            *libc::__errno_location() = 0;
            let nice = libc::getpriority(libc::PRIO_PROCESS, tid);
            if *libc::__errno_location() == 0 {
                libc::setpriority(libc::PRIO_PROCESS, tid, (nice + steps).min(19));
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = steps;
}

/// A rayon pool of `threads` threads, each lowered as [`set_lowered_by`] says.
pub fn worker_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| lower_this_thread())
        .build()
        .map_err(|e| EngineError::Config(format!("cannot start {threads} worker threads: {e}")))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn nice_of_this_thread() -> i32 {
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    #[test]
    fn pool_threads_run_lowered_and_the_caller_keeps_its_priority() {
        // On a thread of its own: the steps are global, and other tests' pools may start
        // meanwhile (lowered too, which changes nothing they check).
        std::thread::spawn(|| {
            let caller = nice_of_this_thread();
            assert!(set_lowered_by(20).is_err());
            let before = set_lowered_by(3).unwrap();
            let pool = worker_pool(2).unwrap();
            let seen: Vec<i32> = pool.broadcast(|_| nice_of_this_thread());
            let reader = std::thread::spawn(|| {
                lower_this_thread();
                nice_of_this_thread()
            });
            let read = reader.join().unwrap();
            assert_eq!(set_lowered_by(0).unwrap(), 3);
            assert_eq!(seen, vec![(caller + 3).min(19); 2]);
            assert_eq!(read, (caller + 3).min(19));
            assert_eq!(nice_of_this_thread(), caller);
            let unlowered = worker_pool(1).unwrap().broadcast(|_| nice_of_this_thread());
            assert_eq!(unlowered, vec![caller]);
            set_lowered_by(before).unwrap();
        })
        .join()
        .unwrap();
    }
}
