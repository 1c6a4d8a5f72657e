//! Bytes in and out: one-call `encrypt` / `decrypt`, and the streaming
//! `Encryptor` / `Decryptor` classes (a `Decryptor` keeps the ciphertext
//! it is fed and decrypts it only once its HMAC matched).

use super::failures::{error, error_at, past_prefix};
use super::keys::Password;
use super::options::{limits, options};
use crate::buffers::{batch_or_default, bytes_with, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;
use wireseal::aescrypt::{
    encrypt_into, encrypted_len, Encryptor as REncryptor, OwnedDecryptor, Unverified,
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

/// Decrypts a whole AES Crypt stream (any version 0-3), straight into the
/// returned `bytes` (the body HMAC checked beside the decryption). Nothing
/// is returned unless every HMAC matched.
#[pyfunction]
#[pyo3(signature = (password, data, *, batch=None, max_iterations=None))]
pub(super) fn decrypt<'py>(
    py: Python<'py>,
    password: Password,
    data: &[u8],
    batch: Option<&Bound<'_, Batch>>,
    max_iterations: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let b = batch_or_default(batch);
    let lim = limits(max_iterations);
    let stream = py
        .allow_threads(|| {
            let mut d = password.owned(&lim);
            d.update(data)?;
            d.finish()
        })
        .map_err(|e| error_at(e, past_prefix(data, data.len())))?;
    plaintext(py, b, stream)
}

/// The plaintext of a stream, decrypted straight into the returned `bytes`
/// (the HMAC already running while Python makes them), or the error. The
/// GIL is released for the whole job and taken back only to make the
/// `bytes`: with a batch of one thread the HMAC runs on this thread before
/// the decryption, and another Python thread runs meanwhile.
fn plaintext<'py, P: AsRef<[u8]> + Send>(
    py: Python<'py>,
    b: &wireseal::batch::Batch,
    stream: Unverified<P>,
) -> PyResult<Bound<'py, PyBytes>> {
    let made = py.allow_threads(|| {
        stream.decrypt_with(b, |len, fill| {
            // `fill` decrypts (GIL released) and wipes the bytes unless the
            // HMAC matched; its error drops them.
            Python::with_gil(|py| {
                PyBytes::new_with(py, len, |buf| py.allow_threads(|| fill(buf)).map_err(error))
                    .map(Bound::unbind)
            })
        })
    });
    Ok(made.map_err(error)??.into_bound(py))
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
/// `update(data)` feeds ciphertext (kept as given: a `bytes` piece is held,
/// not copied; any other buffer is copied), `finish()` checks the HMAC
/// beside decrypting straight into the `bytes` it returns only if the HMAC
/// matched.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Decryptor {
    inner: Option<OwnedDecryptor<PyBackedBytes>>,
    batch: Option<Py<Batch>>,
}

#[pymethods]
impl Decryptor {
    /// A decryptor for one stream encrypted with `password`.
    #[new]
    #[pyo3(signature = (password, *, batch=None, max_iterations=None))]
    fn new(password: Password, batch: Option<Py<Batch>>, max_iterations: Option<u32>) -> Self {
        Self {
            inner: Some(password.owned(&limits(max_iterations))),
            batch,
        }
    }

    /// Feeds the next ciphertext bytes (GIL released). A wrong password is
    /// reported as soon as the session block is in.
    fn update(&mut self, py: Python<'_>, data: PyBackedBytes) -> PyResult<()> {
        let d = self
            .inner
            .as_mut()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called or failed"))?;
        let r = py.allow_threads(|| d.update(data));
        if r.is_err() {
            self.inner = None;
        }
        r.map_err(error)
    }

    /// Ends the stream: checks its length and HMAC, then returns the whole
    /// plaintext.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = batch_or_default(self.batch.as_ref().map(|b| b.bind(py)));
        let d = self
            .inner
            .take()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called or failed"))?;
        let past_prefix = d.header().is_some();
        let stream = py
            .allow_threads(|| d.finish())
            .map_err(|e| error_at(e, past_prefix))?;
        plaintext(py, b, stream)
    }

    /// As `finish()`, as a list of pieces (one: the plaintext is decrypted
    /// straight into it, with no joined copy to spare).
    fn finish_chunks<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        Ok(vec![self.finish(py)?])
    }
}
