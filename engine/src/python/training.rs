//! `train`: the training entry point, its cancellation flag, progress reports and the
//! table of trained words.
//!
//! Large results are handed over packed (strings back to back with their ends, numbers as
//! native-endian bytes), built without the GIL: building 100,000 Python tuples here held
//! it for 20-30 ms, stalling a GUI thread that waited for it. Python unpacks them in
//! ordinary bytecode, which lets other threads in every switch interval.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use super::options::{apply_constraints, parse_source, train_settings};
use super::{engine, guard};
use super::model::PyModel;
use crate::model_file::Words;
use crate::progress::{Progress, Reporter};
use crate::trained_model::{trained_vocabulary, TrainedLists};
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

/// The training words with their final segmentation (kept in Rust; read on demand).
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

    /// The `n` most frequent words, ties in first-seen order, packed: (words, their ends
    /// in code points, counts as native-endian u64) — see `Packed`.
    fn top<'py>(&self, py: Python<'py>, n: usize) -> PyResult<PackedBytes<'py>> {
        guard(|| {
            let (words, counts) = (self.table.words(), self.table.counts());
            // Selecting among millions of words takes tens of ms: without the GIL, so a
            // GUI thread waiting for it is not stalled.
            let (words, counts) = py.detach(|| {
                let order = most_frequent(counts, n);
                let packed = Packed::strings(order.iter().map(|&i| words.get(i)));
                (packed, ne_bytes_u64(order.iter().map(|&i| counts[i])))
            });
            Ok((words.text_bytes(py), words.ends_bytes(py), PyBytes::new(py, &counts)))
        })
    }

    /// How often each token occurs in the final segmentation of every training word (each
    /// word weighted by its count), by engine token index, as native-endian u64 bytes.
    fn final_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guard(|| {
            let counts = py.detach(|| ne_bytes_u64(self.token_counts().into_iter()));
            Ok(PyBytes::new(py, &counts))
        })
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

/// What merging learned, kept in the engine until the model is built from it
/// (`TrainedModel.model`).
#[pyclass(module = "bpe_desktop._engine", frozen)]
pub(super) struct TrainedModel {
    tokens: Vec<String>,
    alphabet_len: usize,
    merges: Vec<MergeRecord>,
}

#[pymethods]
impl TrainedModel {
    /// The trained model held by the engine (`_engine.Model`): `protected` strings with
    /// their occurrences placed before the alphabet, the `keep_words` most frequent words
    /// of `words` of at most `max_word_chars` characters, each token's final count, the
    /// special tokens `(id, piece)` at their ids. None where the model file's rules would
    /// not take it (the caller builds it in Python, whose checks say why).
    fn model(
        &self,
        py: Python<'_>,
        words: PyRef<'_, WordTableView>,
        keep_words: usize,
        max_word_chars: usize,
        protected: Vec<(String, u64)>,
        specials: Vec<(u32, String)>,
    ) -> PyResult<Option<PyModel>> {
        guard(|| {
            let view: &WordTableView = &words;
            let built = py.detach(|| {
                let final_counts = view.token_counts();
                let trained = TrainedLists {
                    tokens: &self.tokens,
                    alphabet_len: self.alphabet_len,
                    merges: &self.merges,
                    final_counts: &final_counts,
                };
                let kept = view.kept_words(keep_words, max_word_chars)?;
                trained_vocabulary(&trained, &protected, kept, specials)
            });
            Ok(built.map(|v| PyModel(Arc::new(v))))
        })
    }
}

/// The indices of the `n` largest counts, largest first, ties by index. A heap of `n`
/// instead of an index per word: on a table of 100 M words that is 800 MB less at the
/// end of training.
fn most_frequent(counts: &[u64], n: usize) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Keys order better words higher; the heap's top is the worst of the best n so far.
    let key = |i: usize| (counts[i], Reverse(i));
    let mut best: BinaryHeap<Reverse<(u64, Reverse<usize>)>> = BinaryHeap::with_capacity(n.min(counts.len()) + 1);
    for i in 0..counts.len() {
        if best.len() < n {
            best.push(Reverse(key(i)));
        } else if best.peek().is_some_and(|Reverse(worst)| key(i) > *worst) {
            best.pop();
            best.push(Reverse(key(i)));
        }
    }
    let mut order: Vec<usize> = best.into_iter().map(|Reverse((_, Reverse(i)))| i).collect();
    order.sort_unstable_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
    order
}

/// Packed words, their ends and their counts (see `Packed`).
type PackedBytes<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

/// Strings packed for Python: their UTF-8 text back to back and each one's end, counted in
/// code points (native-endian u64), so that Python decodes the text once and slices it.
struct Packed {
    text: String,
    ends: Vec<u8>,
}

impl Packed {
    fn strings<'a>(items: impl Iterator<Item = &'a str>) -> Self {
        let mut text = String::new();
        let mut ends = Vec::new();
        let mut chars = 0u64;
        for item in items {
            text.push_str(item);
            chars += item.chars().count() as u64;
            ends.extend_from_slice(&chars.to_ne_bytes());
        }
        Packed { text, ends }
    }

    fn text_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.text.as_bytes())
    }

    fn ends_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.ends)
    }
}

fn ne_bytes_u64(values: impl Iterator<Item = u64>) -> Vec<u8> {
    values.flat_map(u64::to_ne_bytes).collect()
}

fn ne_bytes_u32(values: impl Iterator<Item = u32>) -> Vec<u8> {
    values.flat_map(u32::to_ne_bytes).collect()
}

pub(super) fn progress_dict<'py>(py: Python<'py>, p: &Progress) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("stage", p.stage.name())?;
    d.set_item("bytes_done", p.bytes_done)?;
    d.set_item("bytes_total", p.bytes_total)?;
    d.set_item("words", p.words)?;
    d.set_item("merges_done", p.merges_done)?;
    d.set_item("merges_target", p.merges_target)?;
    d.set_item("pair", p.pair.clone())?;
    d.set_item("count", p.count)?;
    d.set_item("elapsed", p.elapsed)?;
    d.set_item("new_counts", PyList::new(py, &p.new_counts)?)?;
    if !p.language_tokens.is_empty() {
        d.set_item("language_tokens", PyList::new(py, &p.language_tokens)?)?;
    }
    Ok(d)
}

/// Train a model. Returns a dict: `trained` (a `TrainedModel`, from which the engine-held
/// model is built), the tokens packed (`tokens`, `token_ends`: the alphabet first,
/// `alphabet_len` of them) and the merges as token indices and counts (`merge_left`,
/// `merge_right`: native-endian u32; `merge_counts`: u64) for a model built in Python,
/// `words`, stats.
#[pyfunction]
#[pyo3(signature = (source, config, progress=None, cancel=None, constraints=None))]
pub(super) fn train<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyDict>,
    config: &Bound<'py, PyAny>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
    constraints: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| train_guarded(py, source, config, progress, cancel, constraints))
}

fn train_guarded<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyDict>,
    config: &Bound<'py, PyAny>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
    constraints: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = parse_source(py, source)?;
    let (mut settings, unk_piece) = train_settings(py, config)?;
    if let Some(given) = &constraints {
        apply_constraints(py, &mut settings, given)?;
    }
    let unk_piece = unk_piece.unwrap_or_else(|| "\u{fffd}".into());
    let result = reporting(py, progress, cancel, |reporter| run_training(source, &settings, reporter))?;
    let out = engine(py, result)?;
    output_dict(py, out, unk_piece)
}

/// Run `body` without the GIL, with a reporter that calls `progress` (taking the GIL for
/// each report) and watches `cancel`. An exception raised by `progress` is the error.
pub(super) fn reporting<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
    body: impl FnOnce(&mut Reporter) -> crate::error::Result<T> + Send,
) -> PyResult<crate::error::Result<T>> {
    let flag: Option<Arc<AtomicBool>> = cancel.map(|c| c.get().0.clone());
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let result = py.detach(|| {
        let mut call = |p: &Progress| -> bool {
            let Some(cb) = progress.as_ref() else { return true };
            Python::attach(|py| match progress_dict(py, p).and_then(|d| cb.call1(py, (d,))) {
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

/// `train`'s result as the dict it returns: the trained tokens, merges and word table,
/// and what reading the corpus found.
fn output_dict(py: Python<'_>, out: crate::TrainOutput, unk_piece: String) -> PyResult<Bound<'_, PyDict>> {
    let d = trained_dict(py, out.trained, unk_piece)?;
    let files = PyList::empty(py);
    for f in &out.files {
        let fd = PyDict::new(py);
        fd.set_item("path", f.path.as_os_str())?;
        fd.set_item("size", f.size)?;
        fd.set_item("sha256", &f.sha256)?;
        files.append(fd)?;
    }
    d.set_item("files", files)?;
    d.set_item("total_words", out.total_words)?;
    d.set_item("characters", out.characters)?;
    d.set_item("unknown_characters", out.unknown_characters)?;
    d.set_item("count_seconds", out.count_seconds)?;
    d.set_item("merge_seconds", out.merge_seconds)?;
    Ok(d)
}

/// The trained tokens, merges and word table as the `train` dict hands them over.
pub(super) fn trained_dict<'py>(py: Python<'py>, trained: Trained, unk_piece: String) -> PyResult<Bound<'py, PyDict>> {
    let (tokens, left, right, counts) = py.detach(|| {
        let merges = &trained.merges;
        (
            Packed::strings(trained.tokens.iter().map(String::as_str)),
            ne_bytes_u32(merges.iter().map(|m| m.left)),
            ne_bytes_u32(merges.iter().map(|m| m.right)),
            ne_bytes_u64(merges.iter().map(|m| m.count)),
        )
    });
    let d = PyDict::new(py);
    d.set_item("tokens", tokens.text_bytes(py))?;
    d.set_item("token_ends", tokens.ends_bytes(py))?;
    d.set_item("alphabet_len", trained.alphabet_len)?;
    d.set_item("merge_left", PyBytes::new(py, &left))?;
    d.set_item("merge_right", PyBytes::new(py, &right))?;
    d.set_item("merge_counts", PyBytes::new(py, &counts))?;
    d.set_item("distinct_words", trained.words.len())?;
    let lists = TrainedModel { tokens: trained.tokens.clone(), alphabet_len: trained.alphabet_len, merges: trained.merges };
    d.set_item("trained", Py::new(py, lists)?)?;
    let view = WordTableView { table: trained.words, tokens: trained.tokens, unk_piece };
    d.set_item("words", Py::new(py, view)?)?;
    Ok(d)
}

/// Parity-aware training (see `crate::parity`): `tables` (per language, its balanced
/// word counts as (word, count)), `dev` (per language, its development words as (word,
/// count)), the `measure` and moving `window` (0: none), and `train`'s options, progress
/// and cancel flag. The result is `train`'s, plus `chosen` (per merge, the choosing
/// language's index), `dev_tokens_before`, `dev_tokens_after` and `dev_chars`.
#[pyfunction]
#[pyo3(signature = (tables, config, dev, measure, window, progress=None, cancel=None))]
pub(super) fn train_parity<'py>(
    py: Python<'py>,
    tables: Vec<Vec<(String, u64)>>,
    config: &Bound<'py, PyAny>,
    dev: Vec<Vec<(String, u64)>>,
    measure: String,
    window: usize,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let (settings, unk_piece) = train_settings(py, config)?;
        let unk_piece = unk_piece.unwrap_or_else(|| "\u{fffd}".into());
        let measure = engine(py, crate::options::ParityMeasure::parse(&measure))?;
        let rule = crate::parity::ParityRule { measure, window };
        let result = reporting(py, progress, cancel, |reporter| {
            run_parity_training(tables, &settings, &dev, rule, reporter)
        })?;
        let (out, trace) = engine(py, result)?;
        let d = output_dict(py, out, unk_piece)?;
        d.set_item("chosen", trace.chosen)?;
        d.set_item("dev_tokens_before", trace.dev_tokens_before)?;
        d.set_item("dev_tokens_after", trace.dev_tokens_after)?;
        d.set_item("dev_chars", trace.dev_chars)?;
        Ok(d)
    })
}
