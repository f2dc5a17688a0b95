//! `Progress` as Python sees it: the engine's own report (`crate::progress::Progress`),
//! handed over as it is, one class for every consumer (`bpe_desktop.core.Progress`).
//! Python code that reports a stage of its own (counting languages, recounting) builds
//! one with the same constructor.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::{config_error, engine, guard};
use crate::progress::{Progress, Stage};

#[pymethods]
impl Progress {
    /// A report of `stage` ("reading", "counting", "merging", "done"); every other field
    /// defaults to nothing counted. Sequences are given as lists or tuples.
    #[new]
    #[pyo3(signature = (stage, bytes_done=0, bytes_total=0, words=0, merges_done=0,
                        merges_target=None, pair=None, count=None, elapsed=0.0,
                        new_counts=Vec::new(), language_tokens=Vec::new(),
                        languages=Vec::new(), language_lines=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        stage: &str,
        bytes_done: u64,
        bytes_total: u64,
        words: u64,
        merges_done: u64,
        merges_target: Option<u64>,
        pair: Option<(String, String)>,
        count: Option<u64>,
        elapsed: f64,
        new_counts: Vec<u64>,
        language_tokens: Vec<u64>,
        languages: Vec<String>,
        language_lines: Vec<u64>,
    ) -> PyResult<Self> {
        guard(|| {
            if languages.len() != language_lines.len() {
                return config_error(py, "languages and language_lines must be as long as each other".into());
            }
            Ok(Progress {
                stage: engine(py, Stage::parse(stage))?,
                bytes_done,
                bytes_total,
                words,
                merges_done,
                merges_target,
                pair,
                count,
                elapsed,
                new_counts,
                language_tokens,
                languages,
                language_lines,
            })
        })
    }

    /// The stage's name: "reading", "counting", "merging" or "done".
    #[getter(stage)]
    fn stage_name(&self) -> &'static str {
        self.stage.name()
    }

    #[getter]
    fn bytes_done(&self) -> u64 {
        self.bytes_done
    }

    #[getter]
    fn bytes_total(&self) -> u64 {
        self.bytes_total
    }

    /// Words counted so far (reading), or distinct words (merging).
    #[getter]
    fn words(&self) -> u64 {
        self.words
    }

    #[getter]
    fn merges_done(&self) -> u64 {
        self.merges_done
    }

    /// The merge target when known (`merges` option or vocabulary room), else None.
    #[getter]
    fn merges_target(&self) -> Option<u64> {
        self.merges_target
    }

    /// The pair merged last, and its count at that moment (else None).
    #[getter]
    fn pair(&self) -> Option<(&str, &str)> {
        self.pair.as_ref().map(|(l, r)| (l.as_str(), r.as_str()))
    }

    #[getter]
    fn count(&self) -> Option<u64> {
        self.count
    }

    /// Seconds since the run started.
    #[getter]
    fn elapsed(&self) -> f64 {
        self.elapsed
    }

    /// Counts of every merge since the previous report, in order (for live plots).
    #[getter(new_counts)]
    fn py_new_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.new_counts)
    }

    /// Parity-aware training: each language's development tokens now (else empty).
    #[getter(language_tokens)]
    fn py_language_tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.language_tokens)
    }

    /// Parity-aware training: the languages' codes, as `language_tokens` (else empty).
    #[getter(languages)]
    fn py_languages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.languages)
    }

    /// Parity-aware training: each language's development lines (else empty).
    #[getter(language_lines)]
    fn py_language_lines<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.language_lines)
    }

    /// Completion of the current stage in [0, 1], or None when unknown.
    #[getter(fraction)]
    fn py_fraction(&self) -> Option<f64> {
        self.fraction()
    }

    /// Each language's development tokens per line now (empty for other runs).
    fn tokens_per_line<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for ((code, &tokens), &lines) in self.languages.iter().zip(&self.language_tokens).zip(&self.language_lines) {
            out.set_item(code, tokens as f64 / lines.max(1) as f64)?;
        }
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let pair = self.pair.clone().into_pyobject(py)?.repr()?;
        let mut text = format!(
            "Progress(stage={:?}, bytes_done={}, bytes_total={}, words={}, merges_done={}, merges_target={}, \
             pair={pair}, count={}, elapsed={}, new_counts={} counts",
            self.stage.name(),
            self.bytes_done,
            self.bytes_total,
            self.words,
            self.merges_done,
            self.merges_target.map_or("None".into(), |t| t.to_string()),
            self.count.map_or("None".into(), |c| c.to_string()),
            self.elapsed,
            self.new_counts.len(),
        );
        if !self.languages.is_empty() || !self.language_tokens.is_empty() {
            text += &format!(", language_tokens={:?}, languages={:?}", self.language_tokens, self.languages);
        }
        Ok(text + ")")
    }
}
