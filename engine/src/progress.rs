//! Progress reports and cancellation, shared by the reading and merging stages.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{EngineError, Result};

/// Reports are throttled to at most one per this interval.
pub const REPORT_INTERVAL: Duration = Duration::from_millis(50);

pub use crate::options::Stage;

#[derive(Debug, Clone)]
pub struct Progress {
    pub stage: Stage,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub words: u64,
    pub merges_done: u64,
    pub merges_target: Option<u64>,
    pub pair: Option<(String, String)>,
    pub count: Option<u64>,
    pub elapsed: f64,
    pub new_counts: Vec<u64>,
    /// Parity-aware training: each language's development tokens now (else empty).
    pub language_tokens: Vec<u64>,
}

impl Progress {
    /// A report of `stage` with nothing counted yet.
    pub fn at(stage: Stage) -> Self {
        Progress {
            stage,
            bytes_done: 0,
            bytes_total: 0,
            words: 0,
            merges_done: 0,
            merges_target: None,
            pair: None,
            count: None,
            elapsed: 0.0,
            new_counts: Vec::new(),
            language_tokens: Vec::new(),
        }
    }
}

/// The callback returns false to ask the engine to stop.
pub type Callback<'a> = &'a mut dyn FnMut(&Progress) -> bool;

/// Throttles reports and checks the cancel flag.
pub struct Reporter<'a> {
    callback: Option<Callback<'a>>,
    cancel: Option<&'a AtomicBool>,
    started: Instant,
    last: Option<Instant>,
}

impl<'a> Reporter<'a> {
    pub fn new(callback: Option<Callback<'a>>, cancel: Option<&'a AtomicBool>) -> Self {
        Reporter { callback, cancel, started: Instant::now(), last: None }
    }

    pub fn silent() -> Reporter<'static> {
        Reporter { callback: None, cancel: None, started: Instant::now(), last: None }
    }

    pub fn check_cancel(&self) -> Result<()> {
        match self.cancel {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(EngineError::Cancelled),
            _ => Ok(()),
        }
    }

    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// True when a report is due (cheap: call it as often as you like).
    pub fn due(&self) -> bool {
        self.callback.is_some() && self.last.is_none_or(|t| t.elapsed() >= REPORT_INTERVAL)
    }

    /// Send a report now (the caller checked `due`, or it is a stage change).
    pub fn send(&mut self, mut progress: Progress) -> Result<()> {
        self.check_cancel()?;
        progress.elapsed = self.elapsed();
        if let Some(cb) = self.callback.as_mut() {
            self.last = Some(Instant::now());
            if !cb(&progress) {
                return Err(EngineError::Cancelled);
            }
        }
        Ok(())
    }
}
