//! Bytes in and out without extra copies, and the `Batch` class that every
//! parallel call takes.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::OnceLock;

/// Allocates a `bytes` object of `len` bytes and fills it with `fill`, with
/// the GIL released while `fill` runs (no copy of the output).
pub fn bytes_with<'py, F>(py: Python<'py>, len: usize, fill: F) -> PyResult<Bound<'py, PyBytes>>
where
    F: FnOnce(&mut [u8]) -> PyResult<()> + Send,
{
    let mut res: PyResult<()> = Ok(());
    let out = PyBytes::new_with(py, len, |buf| {
        // `PyErr` is `Send`; the closure only touches Rust data.
        res = py.allow_threads(|| fill(buf));
        Ok(())
    })?;
    res.map(|()| out)
}

/// A copy of `v` as `bytes`.
pub fn to_bytes<'py>(py: Python<'py>, v: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, v)
}

/// A pool of worker threads for the batch calls (`open_batch`,
/// `peel_batch`, ...). Results always equal doing the items one at a time,
/// in input order.
#[pyclass(module = "wireseal", frozen)]
pub struct Batch {
    pub(crate) inner: wireseal::batch::Batch,
}

#[pymethods]
impl Batch {
    /// A batch on `threads` worker threads (1 to 1024; all cores when
    /// `None`).
    #[new]
    #[pyo3(signature = (threads=None))]
    fn new(threads: Option<usize>) -> PyResult<Self> {
        let inner = match threads {
            Some(n) if n > 1024 => {
                return Err(crate::errors::LimitError::new_err(
                    "a batch has at most 1024 threads",
                ))
            }
            Some(n) => wireseal::batch::Batch::with_threads(n.max(1)),
            None => wireseal::batch::Batch::all_cores(),
        };
        Ok(Self { inner })
    }

    /// Number of worker threads.
    #[getter]
    fn threads(&self) -> usize {
        self.inner.threads()
    }

    fn __repr__(&self) -> String {
        format!("Batch(threads={})", self.inner.threads())
    }
}

/// The shared all-cores batch used when a call is given no `batch`.
pub fn default_batch() -> &'static wireseal::batch::Batch {
    static B: OnceLock<wireseal::batch::Batch> = OnceLock::new();
    B.get_or_init(wireseal::batch::Batch::all_cores)
}

/// The caller's batch or the shared default.
pub fn batch_or_default<'a>(b: Option<&'a Bound<'_, Batch>>) -> &'a wireseal::batch::Batch {
    match b {
        Some(b) => &b.get().inner,
        None => default_batch(),
    }
}
