//! `count_words`: counting a corpus's words without training, into a `WordCountTable`.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use pyo3::prelude::*;

use super::options::{parse_source, text_rules};
use super::training::{reporting, CancelFlag};
use super::{config_error, engine, guard};

/// Counted words in first-seen order (kept in Rust; written out in slices).
#[pyclass(module = "bpe_desktop._engine", frozen)]
pub(super) struct WordCountTable(pub(super) crate::corpus::WordCounts);

#[pymethods]
impl WordCountTable {
    fn __len__(&self) -> PyResult<usize> {
        guard(|| Ok(self.0.len()))
    }

    /// Sum of all counts (a Python int: it may exceed 2^64).
    fn total(&self) -> PyResult<u128> {
        guard(|| Ok(self.0.counts.iter().map(|&c| c as u128).sum()))
    }

    /// (path, size, sha256) of each file read.
    fn files(&self) -> PyResult<Vec<(PathBuf, u64, String)>> {
        guard(|| Ok(self.0.files.iter().map(|f| (f.path.clone(), f.size, f.sha256.clone())).collect()))
    }

    /// (word, count) of entries `start..stop`.
    fn items(&self, start: usize, stop: usize) -> PyResult<Vec<(String, u64)>> {
        guard(|| {
            let stop = stop.min(self.0.len());
            Ok((start.min(stop)..stop).map(|i| (self.0.words.get(i).to_string(), self.0.counts[i])).collect())
        })
    }

    /// Entries `start..stop` as escaped table lines, the header first when `header`.
    fn lines(&self, py: Python<'_>, start: usize, stop: usize, header: bool) -> PyResult<String> {
        guard(|| Ok(py.detach(|| crate::corpus::table::escaped_lines(&self.0, start, stop, header))))
    }
}

/// The lines of a text file, gzip-compressed or not (a last line without a newline
/// counts), or -1 once `cancel` is set: counted without the GIL, on a thread of the
/// engine's (lowered as `lower_engine_threads` says).
#[pyfunction]
#[pyo3(signature = (path, cancel=None))]
pub(super) fn count_lines(py: Python<'_>, path: PathBuf, cancel: Option<Py<CancelFlag>>) -> PyResult<i64> {
    guard(|| {
        let flag: Option<Arc<AtomicBool>> = cancel.map(|c| c.get().0.clone());
        let counted = py.detach(|| {
            let pool = crate::priority::worker_pool(1)?;
            pool.install(|| crate::corpus::lines::count_lines(&path, flag.as_deref(), crate::corpus::lines::BUFFER))
        });
        Ok(engine(py, counted)?.map_or(-1, |n| n as i64))
    })
}

/// Count the words of `source`, a `Corpus` (as training would, with the text rules of `config`, a
/// `TrainConfig`), on `threads` threads, without training. Progress and cancellation as
/// for `train`.
#[pyfunction]
#[pyo3(signature = (source, config, threads, progress=None, cancel=None))]
pub(super) fn count_words(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    config: &Bound<'_, PyAny>,
    threads: usize,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<WordCountTable> {
    guard(|| {
        let source = parse_source(py, source)?;
        let rules = text_rules(config)?;
        if !(1..=crate::MAX_THREADS).contains(&threads) {
            return config_error(py, format!("threads must be from 1 to {}; got {threads}", crate::MAX_THREADS));
        }
        let result = reporting(py, progress, cancel, |reporter| {
            let pool = crate::priority::worker_pool(threads)?;
            crate::corpus::count_words(source, &rules, &pool, reporter)
        })?;
        Ok(WordCountTable(engine(py, result)?))
    })
}
