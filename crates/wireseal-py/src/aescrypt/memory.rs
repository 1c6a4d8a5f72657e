//! Bytes in and out: one-call `encrypt` / `decrypt`, and the streaming
//! `Encryptor` / `Decryptor` classes (the plaintext a `Decryptor` holds back
//! until its HMAC matched).

use super::failures::{error, error_at, past_prefix};
use super::options::{limits, options};
use crate::buffers::{batch_or_default, bytes_with, Batch};
use crate::errors;
use crate::held::HeldChunks;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::aescrypt::{
    encrypt_into, encrypted_len, Decryptor as RDecryptor, Encryptor as REncryptor,
};

/// Encrypts `data` in one call, straight into the returned `bytes`.
/// Version 2 (pyAesCrypt, AES Crypt 3.x) by default; version 3 (AES Crypt
/// 4.x) stretches the password with `iterations` rounds of
/// PBKDF2-HMAC-SHA512.
#[pyfunction]
#[pyo3(signature = (password, data, *, version=2, iterations=None, batch=None))]
pub(super) fn encrypt<'py>(
    py: Python<'py>,
    password: &str,
    data: &[u8],
    version: u8,
    iterations: Option<u32>,
    batch: Option<&Bound<'_, Batch>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = options(version, iterations)?;
    let b = batch_or_default(batch);
    bytes_with(py, encrypted_len(&opts, data.len()), |out| {
        encrypt_into(b, password, data, &opts, out)
            .map(drop)
            .map_err(error)
    })
}

/// Decrypts a whole AES Crypt stream (any version 0-3). Nothing is returned
/// unless every HMAC matched.
#[pyfunction]
#[pyo3(signature = (password, data, *, batch=None, max_iterations=None))]
pub(super) fn decrypt<'py>(
    py: Python<'py>,
    password: &str,
    data: &[u8],
    batch: Option<&Bound<'_, Batch>>,
    max_iterations: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let b = batch_or_default(batch);
    let lim = limits(max_iterations);
    let mut held = HeldChunks::default();
    py.allow_threads(|| {
        let mut d = RDecryptor::new(password, &lim);
        d.update(b, data, &mut held)?;
        d.finish(&mut held)
    })
    .map_err(|e| error_at(e, past_prefix(data, data.len())))?;
    bytes_with(py, held.len(), |out| {
        held.copy_to(out);
        Ok(())
    })
}

/// A streaming encryptor: `update(data)` returns the ciphertext that is
/// ready (the header first, then whole chunks), `finish()` the rest with
/// the trailer. The ciphertext is made in a buffer reused across calls
/// (its memory stays warm) and copied once into the returned `bytes`.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Encryptor {
    inner: Option<REncryptor>,
    batch: Option<Py<Batch>>,
    out: Vec<u8>,
}

#[pymethods]
impl Encryptor {
    /// Derives the password key (GIL released) for a stream of `version`.
    #[new]
    #[pyo3(signature = (password, *, version=2, iterations=None, batch=None))]
    fn new(
        py: Python<'_>,
        password: &str,
        version: u8,
        iterations: Option<u32>,
        batch: Option<Py<Batch>>,
    ) -> PyResult<Self> {
        let opts = options(version, iterations)?;
        let e = py
            .allow_threads(|| REncryptor::new(password, &opts))
            .map_err(error)?;
        Ok(Self {
            inner: Some(e),
            batch,
            out: Vec::new(),
        })
    }

    /// Encrypts `data`; returns the ciphertext ready so far.
    fn update<'py>(&mut self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let b = batch_or_default(self.batch.as_ref().map(|b| b.bind(py)));
        let e = self
            .inner
            .as_mut()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called"))?;
        let out = &mut self.out;
        out.clear();
        py.allow_threads(|| e.update(b, data, out));
        Ok(PyBytes::new(py, out))
    }

    /// Pads and encrypts what is left; returns it with the trailer.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let e = self
            .inner
            .take()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called"))?;
        let out = &mut self.out;
        out.clear();
        py.allow_threads(|| e.finish(out));
        Ok(PyBytes::new(py, out))
    }
}

/// A streaming decryptor that never hands out unverified plaintext:
/// `update(data)` feeds ciphertext (plaintext is held inside, in memory),
/// `finish()` checks the HMAC and only then returns the plaintext.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Decryptor {
    inner: Option<RDecryptor>,
    held: HeldChunks,
    batch: Option<Py<Batch>>,
}

#[pymethods]
impl Decryptor {
    /// A decryptor for one stream encrypted with `password`.
    #[new]
    #[pyo3(signature = (password, *, batch=None, max_iterations=None))]
    fn new(password: &str, batch: Option<Py<Batch>>, max_iterations: Option<u32>) -> Self {
        Self {
            inner: Some(RDecryptor::new(password, &limits(max_iterations))),
            held: HeldChunks::default(),
            batch,
        }
    }

    /// Feeds the next ciphertext bytes (GIL released). A wrong password is
    /// reported as soon as the session block is in.
    fn update(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        let b = batch_or_default(self.batch.as_ref().map(|b| b.bind(py)));
        let d = self
            .inner
            .as_mut()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called or failed"))?;
        let held = &mut self.held;
        let r = py.allow_threads(|| d.update(b, data, held));
        if r.is_err() {
            self.inner = None;
        }
        r.map_err(error)
    }

    /// Ends the stream: checks its length and HMAC, then returns the whole
    /// plaintext.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let held = self.verify(py)?;
        bytes_with(py, held.len(), |out| {
            held.copy_to(out);
            Ok(())
        })
    }

    /// As `finish()`, returning the plaintext as a list of pieces (no
    /// joined copy).
    fn finish_chunks<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let held = self.verify(py)?;
        Ok(held.pieces().map(|c| PyBytes::new(py, c)).collect())
    }
}

impl Decryptor {
    fn verify(&mut self, py: Python<'_>) -> PyResult<HeldChunks> {
        let d = self
            .inner
            .take()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called or failed"))?;
        let past_prefix = d.header().is_some();
        let held = &mut self.held;
        py.allow_threads(|| d.finish(held))
            .map_err(|e| error_at(e, past_prefix))?;
        Ok(std::mem::take(&mut self.held))
    }
}
