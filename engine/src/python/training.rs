//! `train`: the training entry point, its cancellation flag, progress reports (the
//! engine's `Progress`, handed over as it is) and its typed result (`TrainOutput`).
//!
//! What merging learned stays in the engine (`TrainedModel`): the model is built from it
//! there, as a loaded model is, so a training's result is never a Python object per token,
//! merge or word. Only a model the file's rules refuse, or an extension, reads the tokens,
//! merges and kept words as Python lists.

use std::sync::atomic::{AtomicBool, Ordering};
use std::ffi::OsString;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use super::options::{apply_constraints, parse_source, train_settings};
use super::{config_error, engine, guard};
use super::model::PyModel;
use crate::model_file::Words;
use crate::parity::ParityTrace;
use crate::progress::{Progress, Reporter};
use crate::trained_model::{most_frequent, trained_vocabulary, TrainedLists};
use crate::trainer::{MergeRecord, Trained};
use crate::symbols::{AnyTable, UNK};
use crate::with_table;
use crate::{run_parity_training, run_training};

/// A cancellation flag shared between Python threads and the engine.
#[pyclass(module = "bpe_desktop._engine", frozen)]
pub(super) struct CancelFlag(pub(super) Arc<AtomicBool>);

#[pymethods]
impl CancelFlag {
    #[new]
    fn new() -> PyResult<Self> {
        guard(|| Ok(CancelFlag(Arc::new(AtomicBool::new(false)))))
    }
    fn cancel(&self) -> PyResult<()> {
        guard(|| {
            self.0.store(true, Ordering::Relaxed);
            Ok(())
        })
    }
    fn is_cancelled(&self) -> PyResult<bool> {
        guard(|| Ok(self.0.load(Ordering::Relaxed)))
    }
}

/// The training words with their final segmentation (kept in Rust; read on demand), and
/// the tokens their segmentations are made of (the alphabet, then every merge's result).
#[pyclass(module = "bpe_desktop._engine", frozen)]
pub(super) struct WordTableView {
    table: AnyTable,
    tokens: Vec<String>,
    /// How a character outside the alphabet is shown (the model's unknown token).
    unk_piece: String,
}

#[pymethods]
impl WordTableView {
    fn __len__(&self) -> PyResult<usize> {
        guard(|| Ok(self.table.len()))
    }

    /// The `n` most frequent words with their counts, ties in first-seen order.
    fn top(&self, py: Python<'_>, n: usize) -> PyResult<Vec<(&str, u64)>> {
        guard(|| {
            let (words, counts) = (self.table.words(), self.table.counts());
            // Selecting among millions of words takes tens of ms: without the GIL, so a
            // GUI thread waiting for it is not stalled.
            let order = py.detach(|| most_frequent(counts, n));
            Ok(order.into_iter().map(|i| (words.get(i), counts[i])).collect())
        })
    }

    /// How often each token occurs in the final segmentation of every training word (each
    /// word weighted by its count), by token index.
    fn final_counts(&self, py: Python<'_>) -> PyResult<Vec<u64>> {
        guard(|| Ok(py.detach(|| self.token_counts())))
    }

    /// (word, count, pieces) in first-seen order.
    #[pyo3(signature = (limit=None))]
    fn segmentations(&self, limit: Option<usize>) -> PyResult<Vec<(String, u64, Vec<String>)>> {
        guard(|| {
            let n = limit.unwrap_or(usize::MAX).min(self.table.len());
            let piece = |s: u32| if s == UNK { self.unk_piece.clone() } else { self.tokens[s as usize].clone() };
            Ok((0..n)
                .map(|w| {
                    let pieces = self.table.ids(w).into_iter().map(piece).collect();
                    (self.table.words().get(w).to_string(), self.table.counts()[w], pieces)
                })
                .collect())
        })
    }
}

impl WordTableView {
    /// How often each token occurs in the final segmentation (see `final_counts`).
    fn token_counts(&self) -> Vec<u64> {
        let mut counts = vec![0u64; self.tokens.len()];
        with_table!(&self.table, table => {
            for w in 0..table.len() {
                for s in table.ids(w) {
                    if s != UNK {
                        counts[s as usize] = counts[s as usize].saturating_add(table.counts[w]);
                    }
                }
            }
        });
        counts
    }

    /// The `n` most frequent words (as `top`) of at most `max_chars` characters: the
    /// words a model keeps.
    fn kept_words(&self, n: usize, max_chars: usize) -> Option<Words> {
        let (words, counts) = (self.table.words(), self.table.counts());
        let mut kept = Words::default();
        for i in most_frequent(counts, n) {
            let word = words.get(i);
            if word.chars().count() <= max_chars {
                kept.text.push_str(word);
                kept.ends.push((u32::try_from(kept.text.len()).ok()?, counts[i]));
            }
        }
        Some(kept)
    }
}

/// What merging learned: the merges and the word table they segment, kept in the engine
/// until the model is built from them (`model`).
#[pyclass(module = "bpe_desktop._engine", frozen)]
pub(super) struct TrainedModel {
    alphabet_len: usize,
    merges: Vec<MergeRecord>,
    words: Py<WordTableView>,
}

#[pymethods]
impl TrainedModel {
    /// The training words with their final segmentation.
    #[getter]
    fn words(&self, py: Python<'_>) -> Py<WordTableView> {
        self.words.clone_ref(py)
    }

    /// How many of `tokens()` are the alphabet (the rest are merges' results).
    #[getter]
    fn alphabet_len(&self) -> usize {
        self.alphabet_len
    }

    /// The alphabet, then every token merges created, in creation order.
    fn tokens(&self) -> Vec<&str> {
        self.words.get().tokens.iter().map(String::as_str).collect()
    }

    /// Each merge as (left, right, count), its sides indices into `tokens()`.
    fn merges(&self) -> Vec<(u32, u32, u64)> {
        self.merges.iter().map(|m| (m.left, m.right, m.count)).collect()
    }

    /// The trained model held by the engine (`_engine.Model`): `protected` strings with
    /// their occurrences placed before the alphabet, the `keep_words` most frequent words
    /// of at most `max_word_chars` characters, each token's final count, the special
    /// tokens `(id, piece)` at their ids. None where the model file's rules would not
    /// take it (the caller builds it in Python, whose checks say why).
    fn model(
        &self,
        py: Python<'_>,
        keep_words: usize,
        max_word_chars: usize,
        protected: Vec<(String, u64)>,
        specials: Vec<(u32, String)>,
    ) -> PyResult<Option<PyModel>> {
        guard(|| {
            let view = self.words.get();
            // The kept words are chosen on a thread of their own meanwhile: the largest part.
            let built = py.detach(|| {
                std::thread::scope(|scope| {
                    let kept = scope.spawn(|| view.kept_words(keep_words, max_word_chars));
                    let final_counts = view.token_counts();
                    let trained = TrainedLists {
                        tokens: &view.tokens,
                        alphabet_len: self.alphabet_len,
                        merges: &self.merges,
                        final_counts: &final_counts,
                    };
                    let kept = kept.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                    trained_vocabulary(&trained, &protected, kept, specials)
                })
            });
            Ok(built.map(|v| PyModel(Arc::new(v))))
        })
    }
}

impl TrainedModel {
    /// The engine's trained lists as Python holds them; `unk_piece` shows a character
    /// outside the alphabet in the word table's segmentations.
    pub(super) fn new(py: Python<'_>, trained: Trained, unk_piece: String) -> PyResult<Py<Self>> {
        let words = WordTableView { table: trained.words, tokens: trained.tokens, unk_piece };
        Py::new(py, TrainedModel { alphabet_len: trained.alphabet_len, merges: trained.merges, words: Py::new(py, words)? })
    }
}

/// What a training run hands Python: what merging learned (`trained`), what reading the
/// corpus found, and for a parity-aware run its trace (else None).
#[pyclass(module = "bpe_desktop._engine", name = "TrainOutput", frozen, get_all)]
pub(super) struct PyTrainOutput {
    trained: Py<TrainedModel>,
    /// Each file read: (path, size in bytes, SHA-256 in hex).
    files: Vec<(OsString, u64, String)>,
    total_words: u128,
    characters: u128,
    unknown_characters: u128,
    count_seconds: f64,
    merge_seconds: f64,
    parity: Option<Py<ParityTrace>>,
}

impl PyTrainOutput {
    fn new(py: Python<'_>, out: crate::TrainOutput, unk_piece: String, parity: Option<ParityTrace>) -> PyResult<Self> {
        Ok(PyTrainOutput {
            trained: TrainedModel::new(py, out.trained, unk_piece)?,
            files: out.files.into_iter().map(|f| (f.path.into_os_string(), f.size, f.sha256)).collect(),
            total_words: out.total_words,
            characters: out.characters,
            unknown_characters: out.unknown_characters,
            count_seconds: out.count_seconds,
            merge_seconds: out.merge_seconds,
            parity: parity.map(|p| Py::new(py, p)).transpose()?,
        })
    }
}

/// Train a model on `source` (a `Corpus`) with `config` (a `TrainConfig`) and, when given,
/// `constraints` (`Constraints`): a `TrainOutput` (what merging learned, from which the
/// engine-held model is built, and what reading the corpus found).
#[pyfunction]
#[pyo3(signature = (source, config, progress=None, cancel=None, constraints=None))]
pub(super) fn train<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    config: &Bound<'py, PyAny>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
    constraints: Option<Bound<'py, PyAny>>,
) -> PyResult<PyTrainOutput> {
    guard(|| {
        let source = parse_source(py, source)?;
        let (mut settings, unk_piece) = train_settings(py, config)?;
        if let Some(given) = &constraints {
            apply_constraints(py, &mut settings, given)?;
        }
        let result = reporting(py, progress, cancel, |reporter| run_training(source, &settings, reporter))?;
        PyTrainOutput::new(py, engine(py, result)?, unk_piece_or_default(unk_piece), None)
    })
}

/// How a training shows a character outside the alphabet when the configuration names
/// no unknown token.
pub(super) fn unk_piece_or_default(unk_piece: Option<String>) -> String {
    unk_piece.unwrap_or_else(|| "\u{fffd}".into())
}

/// Run `body` without the GIL, with a reporter that calls `progress` (taking the GIL for
/// each report) and watches `cancel`. An exception raised by `progress` is the error.
pub(super) fn reporting<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
    body: impl FnOnce(&mut Reporter) -> crate::error::Result<T> + Send,
) -> PyResult<crate::error::Result<T>> {
    reporting_languages(py, progress, cancel, &[], body)
}

/// `reporting` for a run over `languages` (code, development lines): reports that carry
/// each language's development tokens name the languages too.
fn reporting_languages<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
    languages: &[(String, u64)],
    body: impl FnOnce(&mut Reporter) -> crate::error::Result<T> + Send,
) -> PyResult<crate::error::Result<T>> {
    let flag: Option<Arc<AtomicBool>> = cancel.map(|c| c.get().0.clone());
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let result = py.detach(|| {
        let mut call = |p: &Progress| -> bool {
            let Some(cb) = progress.as_ref() else { return true };
            let mut report = p.clone();
            if !report.language_tokens.is_empty() {
                report.languages = languages.iter().map(|(code, _)| code.clone()).collect();
                report.language_lines = languages.iter().map(|&(_, lines)| lines).collect();
            }
            Python::attach(|py| match Py::new(py, report).and_then(|r| cb.call1(py, (r,))) {
                Ok(_) => true,
                Err(e) => {
                    *callback_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    false
                }
            })
        };
        let mut reporter = Reporter::new(Some(&mut call), flag.as_deref());
        body(&mut reporter)
    });
    if let Some(err) = callback_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(err); // the callback raised: propagate its exception
    }
    Ok(result)
}

/// Parity-aware training (see `crate::parity`): `tables` (per language, its balanced
/// word counts as (word, count)), `dev` (per language, its development words as (word,
/// count)), the `measure` and moving `window` (0: none), `languages` (per language, its
/// code and development lines, for the progress reports), and `train`'s options,
/// progress and cancel flag. The result is `train`'s, with its `parity` trace.
#[pyfunction]
#[pyo3(signature = (tables, config, dev, measure, window, languages, progress=None, cancel=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn train_parity<'py>(
    py: Python<'py>,
    tables: Vec<Vec<(String, u64)>>,
    config: &Bound<'py, PyAny>,
    dev: Vec<Vec<(String, u64)>>,
    measure: String,
    window: usize,
    languages: Vec<(String, u64)>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<PyTrainOutput> {
    guard(|| {
        let (settings, unk_piece) = train_settings(py, config)?;
        if languages.len() != dev.len() {
            return config_error(py, format!("{} languages named for {} development sets", languages.len(), dev.len()));
        }
        let measure = engine(py, crate::options::ParityMeasure::parse(&measure))?;
        let rule = crate::parity::ParityRule { measure, window };
        let result = reporting_languages(py, progress, cancel, &languages, |reporter| {
            run_parity_training(tables, &settings, &dev, rule, reporter)
        })?;
        let (out, trace) = engine(py, result)?;
        PyTrainOutput::new(py, out, unk_piece_or_default(unk_piece), Some(trace))
    })
}
