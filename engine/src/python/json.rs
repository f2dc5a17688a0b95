//! `parse_json`: a model file's JSON parsed without the GIL (`crate::json`), its Python
//! objects then built with the GIL let go every millisecond, so a waiting GUI thread gets
//! it (Python's own parser holds it for the whole text: ~90 ms at 100,000 tokens).

use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};

use super::guard;
use crate::json::{parse, Value};

/// How long the objects are built before the GIL is let go for a moment.
const HOLD: Duration = Duration::from_millis(1);
/// How long the GIL is let go: long enough for a waiting thread to wake and take it.
/// (Let go and taken back at once, it stays here: a waiter only wakes after the taking
/// back, and as the GIL has changed hands meanwhile it does not ask for it to be handed
/// over, so it keeps waiting — measured: the main thread blocked for the whole 30 ms.)
const PAUSE: Duration = Duration::from_micros(100);
/// Objects built between two looks at the clock.
const CHECK_EVERY: u32 = 1024;

struct Builder<'py> {
    py: Python<'py>,
    since: Instant,
    built: u32,
}

impl<'py> Builder<'py> {
    fn breathe(&mut self) {
        self.built += 1;
        if self.built % CHECK_EVERY == 0 && self.since.elapsed() >= HOLD {
            self.py.detach(|| std::thread::sleep(PAUSE)); // a waiting thread takes the GIL
            self.since = Instant::now();
        }
    }

    fn build(&mut self, value: Value) -> PyResult<Bound<'py, PyAny>> {
        self.breathe();
        let py = self.py;
        Ok(match value {
            Value::Null => py.None().into_bound(py),
            Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
            Value::Int(i) => i.into_pyobject(py)?.into_any(),
            Value::Float(x) => PyFloat::new(py, x).into_any(),
            Value::Str(s) => PyString::new(py, &s).into_any(),
            Value::Array(items) => {
                let list = PyList::empty(py);
                for item in items {
                    list.append(self.build(item)?)?;
                }
                list.into_any()
            }
            Value::Object(members) => {
                let dict = PyDict::new(py);
                for (key, item) in members {
                    let item = self.build(item)?;
                    dict.set_item(PyString::new(py, &key), item)?;
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
        let Some(value) = py.detach(|| parse(text)) else { return Ok(None) };
        let mut builder = Builder { py, since: Instant::now(), built: 0 };
        Ok(Some((builder.build(value)?,)))
    })
}
