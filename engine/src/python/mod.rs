//! `bpe_desktop._engine`: the Python bindings. Work runs with the GIL released; the
//! progress callback briefly re-acquires it. Errors become the exception classes of
//! `bpe_desktop.core.errors`, so Python callers see one documented family of errors:
//! every entry point runs inside [`guard`], which turns a panic (a bug) into
//! `EngineError` instead of PyO3's `PanicException` (a `BaseException`), and arguments
//! of the wrong type or with lone surrogates become `ConfigError`, `CorpusError` or
//! `EncodeError`, never `TypeError` or `UnicodeEncodeError`.
//!
//! This file holds the module and the error helpers every binding uses; the bindings
//! themselves are in [`options`] (reading a `TrainConfig`), [`training`] (with
//! [`progress`] and [`extending`]), [`tokenizer`], [`model`] and [`counting`].

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{CorpusProblem, EngineError};

mod counting;
mod extending;
mod ids;
mod json;
mod model;
mod options;
mod progress;
mod tokenizer;
mod training;

use counting::{count_lines, count_words, WordCountTable};
use tokenizer::{pretokenize, PyTokenizer};
use training::{train, CancelFlag, WordTableView};

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

fn config_error<T>(py: Python<'_>, message: String) -> PyResult<T> {
    Err(to_py_err(py, EngineError::Config(message)))
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

/// Threads the engine starts from now on run `steps` nice steps (0 to 19) below the thread
/// that starts them; threads that run Python are never lowered (see `priority`). Returns the
/// steps before.
#[pyfunction]
fn lower_engine_threads(py: Python<'_>, steps: i32) -> PyResult<i32> {
    guard(|| engine(py, crate::priority::set_lowered_by(steps)))
}

/// The corpus problems `CorpusError.reason` can name (for front ends and tests).
#[pyfunction]
fn _corpus_reasons() -> PyResult<Vec<&'static str>> {
    use CorpusProblem::*;
    let all = [Missing, NotAFile, Unreadable, Empty, Binary, OtherEncoding, NotUtf8, NulByte, Corrupt, Changed, LineTooLong, NoWords, BadLine];
    guard(|| Ok(all.iter().map(|p| p.name()).collect()))
}

/// Where the Encode tab cuts `text` into chunks of a little over `size` characters that
/// encode apart with the same ids under every setting: character offsets (the batch cut
/// rule, `encoder::batch::cut_points_in_chars`), the last one the text's length.
#[pyfunction]
fn encode_cut_points(py: Python<'_>, text: &str, size: usize) -> PyResult<Vec<usize>> {
    guard(|| Ok(py.detach(|| crate::encoder::batch::cut_points_in_chars(text, size))))
}

/// The word counts of a corpus sample for the memory estimate (`corpus::sample_words`):
/// (words, distinct words, their bytes, words and distinct words at about the middle).
/// Counted without the GIL on a thread of the engine's (lowered as `lower_engine_threads`
/// says): the window's estimate ran at its GUI thread's priority as a training started.
#[pyfunction]
fn sample_words(py: Python<'_>, sample: &[u8]) -> PyResult<(u64, u64, u64, u64, u64)> {
    guard(|| {
        let counted = py.detach(|| {
            let pool = crate::priority::worker_pool(1)?;
            Ok(pool.install(|| crate::corpus::sample_words::sample_words(sample)))
        });
        let s = engine(py, counted)?;
        Ok((s.words, s.distinct, s.distinct_bytes, s.half_words, s.half_distinct))
    })
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CancelFlag>()?;
    m.add_class::<WordTableView>()?;
    m.add_class::<training::TrainedModel>()?;
    m.add_class::<training::PyTrainOutput>()?;
    m.add_class::<crate::progress::Progress>()?;
    m.add_class::<crate::parity::ParityTrace>()?;
    m.add_class::<PyTokenizer>()?;
    m.add_class::<ids::Ids>()?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_function(wrap_pyfunction!(training::train_parity, m)?)?;
    m.add_function(wrap_pyfunction!(extending::train_extension, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize, m)?)?;
    m.add_class::<WordCountTable>()?;
    m.add_function(wrap_pyfunction!(count_words, m)?)?;
    m.add("WORD_COUNTS_HEADER", crate::corpus::table::HEADER)?;
    m.add("WORD_COUNTS_LANGUAGE_PREFIX", crate::corpus::table::LANGUAGE_PREFIX)?;
    m.add_function(wrap_pyfunction!(_debug_panic, m)?)?;
    m.add_function(wrap_pyfunction!(_corpus_reasons, m)?)?;
    m.add_function(wrap_pyfunction!(lower_engine_threads, m)?)?;
    m.add_function(wrap_pyfunction!(count_lines, m)?)?;
    m.add_function(wrap_pyfunction!(encode_cut_points, m)?)?;
    m.add_function(wrap_pyfunction!(sample_words, m)?)?;
    m.add_function(wrap_pyfunction!(json::parse_json, m)?)?;
    m.add_function(wrap_pyfunction!(model::read_model_file, m)?)?;
    m.add_class::<model::PyModelLists>()?;
    m.add_class::<model::PyModel>()?;
    m.add_function(wrap_pyfunction!(model::model_origins, m)?)?;
    m.add_function(wrap_pyfunction!(json::json_rows, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_THREADS", crate::MAX_THREADS)?;
    m.add("MAX_VOCAB", crate::MAX_VOCAB)?;
    // Where `encode_batch` starts sharing work between threads, and its smallest piece.
    m.add("ENCODE_SHARED_MIN_BYTES", crate::encoder::batch::MIN_SHARED_BYTES)?;
    m.add("ENCODE_PIECE_MIN_BYTES", crate::encoder::batch::MIN_PIECE_BYTES)?;
    let values = PyDict::new(m.py());
    for (option, names) in crate::options::all_option_values() {
        values.set_item(option, names.to_vec())?;
    }
    m.add("OPTION_VALUES", values)?;
    // The regex of each pre-tokenizer that is one (for HF `Split` and tiktoken `pat_str`).
    let patterns = PyDict::new(m.py());
    patterns.set_item("gpt4", crate::gpt4::CL100K_PATTERN)?;
    patterns.set_item("llama3", crate::gpt4::LLAMA3_PATTERN)?;
    patterns.set_item("gpt4o", crate::gpt4::O200K_PATTERN)?;
    m.add("PRETOKENIZER_PATTERNS", patterns)?;
    Ok(())
}
