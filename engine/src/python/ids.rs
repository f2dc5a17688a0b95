//! Ids handed to Python without a copy: NumPy reads them through the buffer protocol
//! (`numpy.frombuffer`), and the array keeps this object, and so the ids, alive.

use std::ffi::{c_int, c_void};

use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;

/// Token ids as little-endian u32s, read-only.
#[pyclass(module = "bpe_desktop._engine", frozen, name = "Ids")]
pub(super) struct Ids(Vec<u32>);

impl Ids {
    pub(super) fn new(mut ids: Vec<u32>) -> Ids {
        if cfg!(target_endian = "big") {
            ids.iter_mut().for_each(|id| *id = id.to_le());
        }
        Ids(ids)
    }
}

#[pymethods]
impl Ids {
    /// How many ids.
    fn __len__(&self) -> usize {
        self.0.len()
    }

    /// # Safety
    /// `view` is the buffer Python asks to fill; `PyBuffer_FillInfo` keeps a reference to
    /// this object in it, so the ids outlive every view of them.
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("no buffer to fill"));
        }
        let ids = &slf.get().0;
        let bytes = std::mem::size_of_val(ids.as_slice()) as ffi::Py_ssize_t;
        // Read-only: a request for a writable buffer fails with BufferError.
        if unsafe { ffi::PyBuffer_FillInfo(view, slf.as_ptr(), ids.as_ptr() as *mut c_void, bytes, 1, flags) } == -1 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}
