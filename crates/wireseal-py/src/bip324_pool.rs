//! `wireseal.bip324.KeyPool`: pre-generated ElligatorSwift keys for
//! [`crate::bip324::Connection`], with counters of what was taken.

use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicU64, Ordering};
use wireseal::bip324 as b2;
use wireseal::keys::EllSwiftKeypair;

/// Pre-generated ElligatorSwift keys (each encoded with fresh auxiliary
/// randomness), so that a new connection does not wait for key generation.
#[pyclass(module = "wireseal.bip324", frozen)]
pub struct KeyPool {
    inner: b2::KeyPool,
    taken: AtomicU64,
    misses: AtomicU64,
    generated: AtomicU64,
}

impl KeyPool {
    /// A key from stock, or a fresh one (counted as a miss) when empty.
    pub(crate) fn take(&self, py: Python<'_>) -> EllSwiftKeypair {
        self.taken.fetch_add(1, Ordering::Relaxed);
        self.inner.try_take().unwrap_or_else(|| {
            self.misses.fetch_add(1, Ordering::Relaxed);
            py.allow_threads(EllSwiftKeypair::generate)
        })
    }

    fn top_up(&self, py: Python<'_>) -> usize {
        let n = py.allow_threads(|| self.inner.fill());
        self.generated.fetch_add(n as u64, Ordering::Relaxed);
        n
    }
}

#[pymethods]
impl KeyPool {
    /// A pool holding up to `capacity` keys (at most 65536), filled now
    /// (GIL released).
    #[new]
    #[pyo3(signature = (capacity=32))]
    fn new(py: Python<'_>, capacity: usize) -> PyResult<Self> {
        if capacity > 1 << 16 {
            return Err(errors::LimitError::new_err(
                "a key pool holds at most 65536 keys",
            ));
        }
        let pool = Self {
            inner: b2::KeyPool::new(capacity.max(1)),
            taken: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            generated: AtomicU64::new(0),
        };
        pool.top_up(py);
        Ok(pool)
    }

    /// Keys ready.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The most keys the pool holds.
    #[getter]
    fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Tops the pool up (GIL released); returns the keys added.
    fn fill(&self, py: Python<'_>) -> usize {
        self.top_up(py)
    }

    /// Counters since the pool was made: `ready` (keys in stock),
    /// `capacity`, `generated` (keys made by filling), `taken` (keys handed
    /// to connections) and `misses` (connections that found the pool empty
    /// and generated their key on the spot).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("ready", self.inner.len())?;
        d.set_item("capacity", self.inner.capacity())?;
        d.set_item("generated", self.generated.load(Ordering::Relaxed))?;
        d.set_item("taken", self.taken.load(Ordering::Relaxed))?;
        d.set_item("misses", self.misses.load(Ordering::Relaxed))?;
        Ok(d)
    }
}
