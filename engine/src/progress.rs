//! Progress reports and cancellation, shared by the reading and merging stages.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{EngineError, Result};

/// Reports are throttled to at most one per this interval.
pub const REPORT_INTERVAL: Duration = Duration::from_millis(50);

pub use crate::options::Stage;

// Python sees this very struct as `bpe_desktop.core.Progress` (its methods are in
// `python::progress`): one definition of a report for the engine and every consumer.
/// A snapshot of a running training (or counting), delivered to the progress callback:
/// frozen, compared by value. `Progress(stage, bytes_done=0, ...)` builds one.
#[cfg_attr(feature = "python", pyo3::pyclass(module = "bpe_desktop._engine", frozen, eq))]
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub stage: Stage,
    /// Bytes read of the corpus and its size (0 when unknown: in-memory texts, tables).
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Words counted so far (reading), or distinct words (merging).
    pub words: u64,
    pub merges_done: u64,
    /// The merge target when known (`merges` option or vocabulary room).
    pub merges_target: Option<u64>,
    /// The pair merged last and its count at that moment.
    pub pair: Option<(String, String)>,
    pub count: Option<u64>,
    /// Seconds since the run started.
    pub elapsed: f64,
    /// Counts of every merge since the previous report, in order (for live plots).
    pub new_counts: Vec<u64>,
    /// Parity-aware training: each language's development tokens now (else empty).
    pub language_tokens: Vec<u64>,
    /// Parity-aware training: the languages' codes and development lines, in the order
    /// of `language_tokens`. The trainer knows languages by index only: the caller that
    /// names them (the binding) fills these in.
    pub languages: Vec<String>,
    pub language_lines: Vec<u64>,
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
            languages: Vec::new(),
            language_lines: Vec::new(),
        }
    }

    /// Completion of the current stage in [0, 1], or None when unknown.
    pub fn fraction(&self) -> Option<f64> {
        match self.stage {
            Stage::Done => Some(1.0),
            Stage::Merging => match self.merges_target {
                Some(target) if target > 0 => Some((self.merges_done as f64 / target as f64).min(1.0)),
                _ => None,
            },
            _ if self.bytes_total > 0 => Some((self.bytes_done as f64 / self.bytes_total as f64).min(1.0)),
            _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_is_the_stage_measure_done_capped_at_one() {
        let merging = |done, target| Progress { merges_done: done, merges_target: target, ..Progress::at(Stage::Merging) };
        assert_eq!(merging(50, Some(200)).fraction(), Some(0.25));
        assert_eq!(merging(5, None).fraction(), None);
        assert_eq!(merging(0, Some(0)).fraction(), None);
        let reading = |done, total| Progress { bytes_done: done, bytes_total: total, ..Progress::at(Stage::Reading) };
        assert_eq!(reading(30, 120).fraction(), Some(0.25));
        assert_eq!(reading(130, 120).fraction(), Some(1.0));
        assert_eq!(reading(0, 0).fraction(), None);
        assert_eq!(Progress::at(Stage::Done).fraction(), Some(1.0));
    }
}
