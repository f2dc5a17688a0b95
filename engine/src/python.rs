//! `bpe_desktop._engine`: the Python bindings. Work runs with the GIL released; the
//! progress callback briefly re-acquires it. Errors become the exception classes of
//! `bpe_desktop.core.errors`, so Python callers see one documented family of errors:
//! every entry point runs inside [`guard`], which turns a panic (a bug) into
//! `EngineError` instead of PyO3's `PanicException` (a `BaseException`), and arguments
//! of the wrong type or with lone surrogates become `ConfigError`, `CorpusError` or
//! `EncodeError`, never `TypeError` or `UnicodeEncodeError`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use rustc_hash::FxHashMap;

use crate::corpus::Source;
use crate::encoder::{Dropout, Encoder, SpecialRole};
use crate::error::{CorpusProblem, EngineError};
use crate::progress::{Progress, Reporter};
use crate::symbols::{WordTable, UNK};
use crate::text::{Boundary, Normalization, PreTokenizer, TextRules};
use crate::trainer::{MergeOptions, Ties};
use crate::{run_training, TrainSettings};

// -- errors -------------------------------------------------------------------------------

fn error_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("bpe_desktop.core.errors")?.getattr(name)
}

fn to_py_err(py: Python<'_>, err: EngineError) -> PyErr {
    let built = (|| -> PyResult<PyErr> {
        let simple = |class: &str, message: String| -> PyResult<PyErr> {
            Ok(PyErr::from_value(error_class(py, class)?.call1((message,))?))
        };
        match err {
            EngineError::Config(m) => simple("ConfigError", m),
            EngineError::Encode(m) => simple("EncodeError", m),
            EngineError::Internal(m) => simple("EngineError", format!("internal engine error: {m}")),
            EngineError::Cancelled => simple("TrainingCancelled", "training was cancelled".into()),
            EngineError::Corpus(fault) => {
                let kwargs = PyDict::new(py);
                // As a str (os.fsdecode of the bytes), the same value the caller passed.
                kwargs.set_item("path", fault.path.as_ref().map(|p| p.as_os_str()))?;
                kwargs.set_item("offset", fault.offset)?;
                kwargs.set_item("line", fault.line)?;
                let exc = error_class(py, "CorpusError")?.call((fault.message,), Some(&kwargs))?;
                exc.setattr("reason", fault.problem.name())?;
                Ok(PyErr::from_value(exc))
            }
        }
    })();
    built.unwrap_or_else(|e| e)
}

fn engine<T>(py: Python<'_>, r: crate::error::Result<T>) -> PyResult<T> {
    r.map_err(|e| to_py_err(py, e))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}

/// Run an entry point; a panic anywhere below it becomes `EngineError`.
fn guard<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(payload) => {
            let message = format!("{} (please report this bug)", panic_message(payload.as_ref()));
            Python::attach(|py| Err(to_py_err(py, EngineError::Internal(message))))
        }
    }
}

/// Extract `value` as `T`; failure is the error class `class` naming `what`.
fn extract<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(
    value: &Bound<'py, PyAny>,
    what: &str,
    class: &str,
) -> PyResult<T> {
    value.extract::<T>().map_err(|e| {
        let e: PyErr = e.into();
        let py = value.py();
        // A field of a derived extraction fails with its own error as the cause: one of
        // ours (an option value's ConfigError) passes through as it is.
        let mut innermost = e.clone_ref(py);
        while let Some(cause) = innermost.cause(py) {
            innermost = cause;
        }
        if let Ok(ours) = error_class(py, "BpeError") {
            if innermost.is_instance(py, &ours) {
                return innermost;
            }
        }
        let reason = if innermost.value(py).is(e.value(py)) {
            e.value(py).to_string()
        } else {
            format!("{}: {}", e.value(py), innermost.value(py))
        };
        match error_class(py, class).and_then(|c| c.call1((format!("{what}: {reason}"),))) {
            Ok(exc) => PyErr::from_value(exc),
            Err(other) => other,
        }
    })
}

/// Each item of a list, extracted one by one so that a failure names its index.
fn extract_items<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(
    value: &Bound<'py, PyAny>,
    what: &str,
    class: &str,
) -> PyResult<Vec<T>> {
    let list: Vec<Bound<'py, PyAny>> = extract(value, what, class)?;
    list.iter().enumerate().map(|(i, item)| extract(item, &format!("{what} {i}"), class)).collect()
}

fn get<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    match d.get_item(key)? {
        Some(v) => extract(&v, &format!("option {key}"), "ConfigError"),
        None => Err(to_py_err(d.py(), EngineError::Config(format!("missing option {key}")))),
    }
}

fn config_error<T>(py: Python<'_>, message: String) -> PyResult<T> {
    Err(to_py_err(py, EngineError::Config(message)))
}

// -- options ------------------------------------------------------------------------------

/// Option values arrive as the names users write; a bad one is a ConfigError listing the
/// choices (from `crate::options`, where every option's values are stated once).
macro_rules! option_from_name {
    ($($t:ty),+) => { $(
        impl<'a, 'py> FromPyObject<'a, 'py> for $t {
            type Error = PyErr;
            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                let name: String = extract(&obj.to_owned(), <$t>::OPTION, "ConfigError")?;
                engine(obj.py(), <$t>::parse(&name))
            }
        }
    )+ };
}
option_from_name!(Normalization, PreTokenizer, Boundary, Ties, SpecialRole);

/// The text rules of a `TrainConfig`, read from its attributes.
#[derive(FromPyObject)]
struct RulesArg {
    #[pyo3(attribute("normalize"))]
    normalization: Normalization,
    #[pyo3(attribute)]
    lowercase: bool,
    #[pyo3(attribute)]
    pretokenizer: PreTokenizer,
    #[pyo3(attribute)]
    boundary: Boundary,
}

/// A `SpecialToken`, read from its attributes.
#[derive(FromPyObject)]
struct SpecialArg {
    #[pyo3(attribute)]
    piece: String,
    #[pyo3(attribute)]
    role: SpecialRole,
}

/// The merge options of a `TrainConfig`, read from its attributes.
#[derive(FromPyObject)]
struct MergeArg {
    #[pyo3(attribute)]
    min_frequency: u64,
    #[pyo3(attribute)]
    vocab_size: Option<u64>,
    #[pyo3(attribute)]
    merges: Option<u64>,
    #[pyo3(attribute)]
    ties: Ties,
    #[pyo3(attribute)]
    character_coverage: f64,
    #[pyo3(attribute)]
    initial_alphabet: String,
    #[pyo3(attribute)]
    special_tokens: Vec<SpecialArg>,
    #[pyo3(attribute)]
    effective_threads: usize,
}

fn text_rules(config: &Bound<'_, PyAny>) -> PyResult<TextRules> {
    let r: RulesArg = extract(config, "training options", "ConfigError")?;
    Ok(TextRules { normalization: r.normalization, lowercase: r.lowercase, pretokenizer: r.pretokenizer, boundary: r.boundary })
}

/// A `TrainConfig` as the engine's settings, plus the unknown token's piece.
fn train_settings(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<(TrainSettings, Option<String>)> {
    let m: MergeArg = extract(config, "training options", "ConfigError")?;
    let unk_piece = m.special_tokens.iter().find(|t| t.role == SpecialRole::Unk).map(|t| t.piece.clone());
    let settings = TrainSettings {
        rules: text_rules(config)?,
        merge: MergeOptions {
            min_frequency: m.min_frequency,
            vocab_size: m.vocab_size,
            max_merges: m.merges,
            ties: m.ties,
            specials: m.special_tokens.into_iter().map(|t| t.piece).collect(),
        },
        character_coverage: m.character_coverage,
        initial_alphabet: m.initial_alphabet,
        threads: m.effective_threads,
    };
    engine(py, settings.validate())?;
    Ok((settings, unk_piece))
}

fn parse_source(py: Python<'_>, source: &Bound<'_, PyDict>) -> PyResult<Source> {
    let kind: String = get(source, "kind")?;
    let item = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        match source.get_item(key)? {
            Some(v) => Ok(v),
            None => config_error(py, format!("missing corpus entry {key}")),
        }
    };
    Ok(match kind.as_str() {
        "files" => Source::Files {
            paths: extract_items::<PathBuf>(&item("paths")?, "corpus path", "ConfigError")?,
            word_counts: get::<String>(source, "format")? == "word-counts",
            lossy: get::<String>(source, "errors")? == "replace",
        },
        "texts" => Source::Texts(extract_items(&item("texts")?, "text", "CorpusError")?),
        "word-counts" => Source::WordCounts(extract_items(&item("items")?, "word count entry", "CorpusError")?),
        other => return config_error(py, format!("unknown corpus kind {other:?}")),
    })
}

// -- training -----------------------------------------------------------------------------

/// A cancellation flag shared between Python threads and the engine.
#[pyclass(module = "bpe_desktop._engine", frozen)]
struct CancelFlag(Arc<AtomicBool>);

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
struct WordTableView {
    table: WordTable,
    tokens: Vec<String>,
    /// How a character outside the alphabet is shown (the model's unknown token).
    unk_piece: String,
}

#[pymethods]
impl WordTableView {
    fn __len__(&self) -> PyResult<usize> {
        guard(|| Ok(self.table.len()))
    }

    /// The `n` most frequent words as (word, count); ties in first-seen order.
    fn top(&self, py: Python<'_>, n: usize) -> PyResult<Vec<(String, u64)>> {
        guard(|| {
            let table = &self.table;
            // Selecting among ~1M words takes tens of ms: without the GIL, so a GUI thread
            // waiting for it is not stalled. The order is total (ties by index), so an
            // unstable selection and sort give the same list as a stable sort.
            let order = py.detach(|| {
                let by_count = |a: &usize, b: &usize| table.counts[*b].cmp(&table.counts[*a]).then(a.cmp(b));
                let mut order: Vec<usize> = (0..table.len()).collect();
                if n < order.len() {
                    order.select_nth_unstable_by(n, by_count);
                    order.truncate(n);
                }
                order.sort_unstable_by(by_count);
                order
            });
            Ok(order.into_iter().map(|i| (table.words.get(i).to_string(), table.counts[i])).collect())
        })
    }

    /// (word, count, pieces) in first-seen order.
    #[pyo3(signature = (limit=None))]
    fn segmentations(&self, limit: Option<usize>) -> PyResult<Vec<(String, u64, Vec<String>)>> {
        guard(|| {
            let n = limit.unwrap_or(usize::MAX).min(self.table.len());
            Ok((0..n)
                .map(|w| {
                    let pieces = self
                        .table
                        .symbols(w)
                        .iter()
                        .map(|&s| if s == UNK { self.unk_piece.clone() } else { self.tokens[s as usize].clone() })
                        .collect();
                    (self.table.words.get(w).to_string(), self.table.counts[w], pieces)
                })
                .collect())
        })
    }
}

fn progress_dict<'py>(py: Python<'py>, p: &Progress) -> PyResult<Bound<'py, PyDict>> {
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
    Ok(d)
}

/// Train a model. Returns a dict: alphabet, merges [(left, right, count)], words, stats.
#[pyfunction]
#[pyo3(signature = (source, config, progress=None, cancel=None))]
fn train<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyDict>,
    config: &Bound<'py, PyAny>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| train_guarded(py, source, config, progress, cancel))
}

fn train_guarded<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyDict>,
    config: &Bound<'py, PyAny>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = parse_source(py, source)?;
    let (settings, unk_piece) = train_settings(py, config)?;
    let unk_piece = unk_piece.unwrap_or_else(|| "\u{fffd}".into());
    let flag: Option<Arc<AtomicBool>> = cancel.map(|c| c.get().0.clone());
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let result = py.detach(|| {
        let mut call = |p: &Progress| -> bool {
            let Some(cb) = progress.as_ref() else { return true };
            Python::attach(|py| {
                let outcome = progress_dict(py, p).and_then(|d| cb.call1(py, (d,)));
                match outcome {
                    Ok(_) => true,
                    Err(e) => {
                        *callback_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        false
                    }
                }
            })
        };
        let mut reporter = Reporter::new(Some(&mut call), flag.as_deref());
        run_training(source, &settings, &mut reporter)
    });
    if let Some(err) = callback_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(err); // the callback raised: propagate its exception
    }
    let out = engine(py, result)?;
    let trained = out.trained;
    let tokens = &trained.tokens;
    let d = PyDict::new(py);
    d.set_item("alphabet", &tokens[..trained.alphabet_len])?;
    let merges: Vec<(&str, &str, u64)> = trained
        .merges
        .iter()
        .map(|m| (tokens[m.left as usize].as_str(), tokens[m.right as usize].as_str(), m.count))
        .collect();
    d.set_item("merges", merges)?;
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
    d.set_item("distinct_words", trained.words.len())?;
    d.set_item("characters", out.characters)?;
    d.set_item("unknown_characters", out.unknown_characters)?;
    d.set_item("count_seconds", out.count_seconds)?;
    d.set_item("merge_seconds", out.merge_seconds)?;
    let view = WordTableView { table: trained.words, tokens: trained.tokens, unk_piece };
    d.set_item("words", Py::new(py, view)?)?;
    Ok(d)
}

// -- encoding -----------------------------------------------------------------------------

/// Encoder and decoder over a full vocabulary (ids as in the model file).
#[pyclass(module = "bpe_desktop._engine", frozen, name = "Tokenizer")]
struct PyTokenizer(Arc<Encoder>);

fn ids_bytes<'py>(py: Python<'py>, ids: &[u32]) -> Bound<'py, PyBytes> {
    let mut raw = Vec::with_capacity(ids.len() * 4);
    for id in ids {
        raw.extend_from_slice(&id.to_le_bytes());
    }
    PyBytes::new(py, &raw)
}

fn text_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    extract(value, what, "EncodeError")
}

#[pymethods]
impl PyTokenizer {
    #[new]
    fn new(
        py: Python<'_>,
        config: &Bound<'_, PyAny>,
        pieces: &Bound<'_, PyAny>,
        merges: &Bound<'_, PyAny>,
        unk: &Bound<'_, PyAny>,
        specials: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        guard(|| {
            let rules = text_rules(config)?;
            let pieces: Vec<String> = extract_items(pieces, "piece", "ConfigError")?;
            let merges: Vec<(u32, u32, u32)> = extract_items(merges, "merge", "ConfigError")?;
            let unk: Option<u32> = extract(unk, "unknown token id", "ConfigError")?;
            let roles: FxHashMap<u32, SpecialRole> = extract(specials, "special tokens", "ConfigError")?;
            let fuse_unk: bool = extract(&config.getattr("fuse_unk")?, "fuse_unk", "ConfigError")?;
            // Building the merge tables takes ~90 ms at 100k tokens: not with the GIL held.
            let enc = engine(py, py.detach(move || Encoder::new(rules, pieces, &merges, unk, roles, fuse_unk)))?;
            Ok(PyTokenizer(Arc::new(enc)))
        })
    }

    /// Ids as little-endian u32 bytes (wrapped as a NumPy array on the Python side).
    /// With `dropout` above 0, a BPE-dropout sample drawn from `seed` (merges mode only).
    #[pyo3(signature = (text, greedy, dropout=0.0, seed=0))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        greedy: bool,
        dropout: f64,
        seed: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guard(|| {
            let enc = self.0.clone();
            let text = text_arg(text, "text")?;
            let mut sampler = engine(py, Dropout::new(dropout, seed))?;
            let ids = py.detach(move || enc.encode_sampled(&text, greedy, &mut sampler));
            Ok(ids_bytes(py, &engine(py, ids)?))
        })
    }

    #[pyo3(signature = (texts, greedy, threads=0))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        greedy: bool,
        threads: usize,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        guard(|| {
            use rayon::prelude::*;
            if threads > crate::MAX_THREADS {
                return config_error(py, format!("threads must be from 0 to {}; got {threads}", crate::MAX_THREADS));
            }
            let texts: Vec<String> = extract_items(texts, "text", "EncodeError")?;
            let enc = self.0.clone();
            let results: crate::error::Result<Vec<Vec<u32>>> = py.detach(move || {
                let run = || texts.par_iter().map(|t| enc.encode(t, greedy)).collect();
                if threads == 0 {
                    run()
                } else {
                    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                        Ok(pool) => pool.install(run),
                        Err(e) => Err(EngineError::Config(format!("cannot start {threads} worker threads: {e}"))),
                    }
                }
            });
            Ok(engine(py, results)?.iter().map(|ids| ids_bytes(py, ids)).collect())
        })
    }

    /// (word, ids) for each word of the text, as the pre-tokenizer cuts it.
    #[pyo3(signature = (text, greedy, dropout=0.0, seed=0))]
    fn encode_words(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        greedy: bool,
        dropout: f64,
        seed: u64,
    ) -> PyResult<Vec<(String, Vec<u32>)>> {
        guard(|| {
            let text = text_arg(text, "text")?;
            let enc = self.0.clone();
            let mut sampler = engine(py, Dropout::new(dropout, seed))?;
            let words = py.detach(move || {
                let mut out = Vec::new();
                enc.for_each_word_with(&text, greedy, Some(&mut sampler), &mut |w, ids| out.push((w.to_string(), ids.to_vec())))
                    .map(|_| out)
            });
            engine(py, words)
        })
    }

    #[allow(clippy::type_complexity)]
    fn merge_steps(
        &self,
        py: Python<'_>,
        word: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(Option<(String, String)>, Option<u32>, Vec<String>)>> {
        guard(|| {
            let word = text_arg(word, "word")?;
            let steps = engine(py, self.0.merge_steps(&word))?;
            let p = self.0.pieces();
            Ok(steps
                .into_iter()
                .map(|(pair, rank, syms)| {
                    (
                        pair.map(|(a, b)| (p[a as usize].clone(), p[b as usize].clone())),
                        rank,
                        syms.iter().map(|&s| p[s as usize].clone()).collect(),
                    )
                })
                .collect())
        })
    }

    /// Ids with the index after each word's last id: see `Encoder::decode_words`.
    fn decode_words(&self, py: Python<'_>, ids: &Bound<'_, PyAny>, ends: &Bound<'_, PyAny>) -> PyResult<String> {
        guard(|| {
            let ids: Vec<u32> = extract_items(ids, "id", "EncodeError")?;
            let ends: Vec<usize> = extract_items(ends, "word end", "EncodeError")?;
            let enc = self.0.clone();
            engine(py, py.detach(move || enc.decode_words(&ids, &ends)))
        })
    }

    fn decode(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<String> {
        guard(|| {
            let ids: Vec<u32> = extract_items(ids, "id", "EncodeError")?;
            let enc = self.0.clone();
            engine(py, py.detach(move || enc.decode(&ids)))
        })
    }
}

/// The pre-tokens of `text` under a pre-tokenizer (before byte mapping): for tests.
#[pyfunction]
fn pretokenize(py: Python<'_>, text: &Bound<'_, PyAny>, pretokenizer: &str) -> PyResult<Vec<String>> {
    guard(|| {
        let text = text_arg(text, "text")?;
        let rules = TextRules {
            normalization: Normalization::None,
            lowercase: false,
            pretokenizer: engine(py, PreTokenizer::parse(pretokenizer))?,
            boundary: Boundary::None,
        };
        let mut out = Vec::new();
        rules.split_words(&text, &mut |w| out.push(w.to_string()));
        Ok(out)
    })
}

/// For tests only: panic on purpose, so that a test can check that a panic reaches
/// Python as `EngineError`. `place`: "here" (holding the GIL), "released" (GIL
/// released), "worker" (on a rayon worker thread). Touches no state.
#[pyfunction]
fn _debug_panic(py: Python<'_>, place: &str) -> PyResult<()> {
    guard(|| match place {
        "here" => panic!("deliberate test panic (here)"),
        "released" => py.detach(|| panic!("deliberate test panic (released)")),
        "worker" => py.detach(|| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("one thread");
            pool.install(|| panic!("deliberate test panic (worker)"))
        }),
        other => config_error(py, format!("unknown place {other:?}")),
    })
}

/// The corpus problems `CorpusError.reason` can name (for front ends and tests).
#[pyfunction]
fn _corpus_reasons() -> PyResult<Vec<&'static str>> {
    use CorpusProblem::*;
    let all = [Missing, NotAFile, Unreadable, Empty, Binary, OtherEncoding, NotUtf8, NulByte, Corrupt, Changed, LineTooLong, NoWords, BadLine];
    guard(|| Ok(all.iter().map(|p| p.name()).collect()))
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CancelFlag>()?;
    m.add_class::<WordTableView>()?;
    m.add_class::<PyTokenizer>()?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize, m)?)?;
    m.add_function(wrap_pyfunction!(_debug_panic, m)?)?;
    m.add_function(wrap_pyfunction!(_corpus_reasons, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_THREADS", crate::MAX_THREADS)?;
    m.add("MAX_VOCAB", crate::MAX_VOCAB)?;
    let values = PyDict::new(m.py());
    for (option, names) in crate::options::all_option_values() {
        values.set_item(option, names.to_vec())?;
    }
    m.add("OPTION_VALUES", values)?;
    Ok(())
}
