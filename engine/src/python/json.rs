//! `parse_json`: a model file's JSON parsed without the GIL (`crate::json`), its Python
//! objects then built with the GIL let go every millisecond, so a waiting GUI thread gets
//! it (Python's own parser holds it for the whole text: ~90 ms at 100,000 tokens).

use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString};

use super::guard;
use crate::json::{parse, Item, Parsed};

/// How long the objects are built before the GIL is let go for a moment.
const HOLD: Duration = Duration::from_millis(1);
/// How long the GIL is let go: long enough for a waiting thread to wake and take it.
/// (Let go and taken back at once, it stays here: a waiter only wakes after the taking
/// back, and as the GIL has changed hands meanwhile it does not ask for it to be handed
/// over, so it keeps waiting for the whole call.)
const PAUSE: Duration = Duration::from_micros(100);
/// Objects built between two looks at the clock.
const CHECK_EVERY: usize = 1024;

pub(super) struct Builder<'py, 'a> {
    py: Python<'py>,
    parsed: &'a Parsed,
    pub(super) at: usize,
    since: Instant,
}

impl<'py, 'a> Builder<'py, 'a> {
    /// A builder of the values from item `at` on.
    pub(super) fn new(py: Python<'py>, parsed: &'a Parsed, at: usize) -> Self {
        Builder { py, parsed, at, since: Instant::now() }
    }

    fn breathe(&mut self) {
        if self.at % CHECK_EVERY == 0 && self.since.elapsed() >= HOLD {
            self.py.detach(|| std::thread::sleep(PAUSE)); // a waiting thread takes the GIL
            self.since = Instant::now();
        }
    }

    fn string(&self, start: u32, end: u32) -> Bound<'py, PyAny> {
        PyString::new(self.py, self.parsed.str(start, end)).into_any()
    }

    /// The value at `at`, and what follows that belongs to it.
    pub(super) fn build(&mut self) -> PyResult<Bound<'py, PyAny>> {
        self.breathe();
        let py = self.py;
        let item = self.parsed.items[self.at];
        self.at += 1;
        Ok(match item {
            Item::Null => py.None().into_bound(py),
            Item::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
            Item::Int(i) => i.into_pyobject(py)?.into_any(),
            Item::Float(x) => PyFloat::new(py, x).into_any(),
            Item::Str(start, end) => self.string(start, end),
            Item::Array(n) => {
                let list = PyList::empty(py);
                for _ in 0..n {
                    list.append(self.build()?)?;
                }
                list.into_any()
            }
            Item::Object(n) => {
                let dict = PyDict::new(py);
                for _ in 0..n {
                    let key = self.build()?; // a string: the parser reads keys only so
                    dict.set_item(key, self.build()?)?;
                }
                dict.into_any()
            }
        })
    }
}

/// `(json.loads(text),)`, or None when the fast parser does not take the text (then
/// Python's parser runs and reports what is wrong; see `crate::json`). In a tuple, so
/// that the text `null` is told from a text not taken.
#[pyfunction]
pub(super) fn parse_json<'py>(py: Python<'py>, text: &Bound<'py, PyString>) -> PyResult<Option<(Bound<'py, PyAny>,)>> {
    guard(|| {
        // A string with an unpaired surrogate has no UTF-8 form: Python's parser takes it.
        let Ok(text) = text.to_str() else { return Ok(None) };
        let Some(parsed) = py.detach(|| parse(text)) else { return Ok(None) };
        let value = Builder::new(py, &parsed, 0).build()?;
        py.detach(move || drop(parsed));
        Ok(Some((value,)))
    })
}

/// The rows of one of a model file's long lists as Python's JSON encoder writes them,
/// joined by `",\n" + pad` and encoded as UTF-8 (`crate::json_write::rows`), built without
/// the GIL: `per_row` strings a row (`text` and `ends` as `BPEModel.packed_merges` gives
/// them), then the row's count, from `counts` (native-endian unsigned 64-bit, one a row)
/// and `known` (one byte a row; 0: an unknown count, written `null`). None when the text
/// has an unpaired surrogate.
#[pyfunction]
pub(super) fn json_rows<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
    ends: &[u8],
    per_row: usize,
    counts: &[u8],
    known: &[u8],
    pad: &str,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    guard(|| {
        let Ok(text) = text.to_str() else { return Ok(None) };
        let lines = py.detach(|| -> Result<String, String> {
            let parts = super::tokenizer::unpack_strings(text, ends)?;
            let rows = counts.len() / 8;
            if per_row == 0 || counts.len() % 8 != 0 || parts.len() != rows * per_row || known.len() != rows {
                return Err(format!("{} parts ({per_row} a row) for {} bytes of counts and {} of flags", parts.len(), counts.len(), known.len()));
            }
            let counts: Vec<Option<u64>> = counts
                .chunks_exact(8)
                .zip(known)
                .map(|(b, &known)| (known != 0).then(|| u64::from_ne_bytes(b.try_into().expect("8 bytes"))))
                .collect();
            Ok(crate::json_write::rows(&parts, per_row, &counts, pad))
        });
        match lines {
            Ok(lines) => Ok(Some(PyBytes::new(py, lines.as_bytes()))),
            Err(message) => Err(pyo3::exceptions::PyValueError::new_err(message)),
        }
    })
}
