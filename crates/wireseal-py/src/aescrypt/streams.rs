//! Python file objects as `std::io` readers, writers and sinks, so the
//! stream and file functions run the library's one-pass paths
//! (`aescrypt::io::encrypt_stream`, `decrypt_into_sink`) with the GIL
//! released: the GIL is taken only for the caller's own `read` and `write`
//! calls, which overlap the cipher on the batch's threads.
//!
//! Errors raised by Python (in `read`, `write` or a progress callback)
//! travel inside the `std::io::Error` and are raised again unchanged.

use super::failures::{io_error, raised};
use super::keys::Password;
use super::options::{limits, options};
use crate::buffers::{batch_or_default, Batch};
use crate::errors;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;
use std::io::{self, Read, Write};
use wireseal::aescrypt::io::{self as aio, decrypt_into_sink_with, encrypt_stream};
use wireseal::aescrypt::{Encryptor as REncryptor, ProvisionalSink};

/// A Python object's `read(n)` as a [`Read`]; keeps a copy of the stream's
/// first bytes, to tell a stream cut before its body from one cut after.
pub(crate) struct PyReader {
    obj: Py<PyAny>,
    pub(crate) first: Vec<u8>,
}

/// First bytes kept: enough for any header within the default limits'
/// common case (a header longer than this is judged as cut before its
/// body).
const FIRST: usize = 64 * 1024;

impl PyReader {
    pub(crate) fn new(obj: Py<PyAny>) -> Self {
        Self {
            obj,
            first: Vec::new(),
        }
    }
}

/// What a Python `read` returned, held without a copy when it is `bytes`
/// (any other buffer is copied once into `bytes`).
fn held(r: &Bound<'_, PyAny>) -> PyResult<PyBackedBytes> {
    if r.is_instance_of::<PyBytes>() {
        r.extract()
    } else if r.is_none() {
        Err(pyo3::exceptions::PyBlockingIOError::new_err(
            "read() returned None (non-blocking input)",
        ))
    } else {
        // bytearray, memoryview, any other buffer: as bytes.
        r.py()
            .get_type::<PyBytes>()
            .call1((r,))
            .map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err("read() must return a bytes-like object")
            })?
            .extract()
    }
}

impl Read for PyReader {
    /// The caller's `read` with the GIL; the copy into `buf` without it
    /// (so another Python thread runs meanwhile).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let data = Python::with_gil(|py| {
            let r = self
                .obj
                .bind(py)
                .call_method1(intern!(py, "read"), (buf.len(),))?;
            held(&r)
        })
        .map_err(raised)?;
        let n = data.len();
        buf.get_mut(..n)
            .ok_or_else(|| {
                raised(pyo3::exceptions::PyValueError::new_err(
                    "read() returned too much",
                ))
            })?
            .copy_from_slice(&data);
        if self.first.len() < FIRST {
            let take = (FIRST - self.first.len()).min(n);
            self.first.extend_from_slice(&buf[..take]);
        }
        Ok(n)
    }
}

/// A Python object's `write(b)` as a [`Write`] (each piece handed over as
/// one `bytes`, as pyAesCrypt does).
pub(crate) struct PyWriter {
    obj: Py<PyAny>,
}

impl PyWriter {
    pub(crate) fn new(obj: Py<PyAny>) -> Self {
        Self { obj }
    }
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        Python::with_gil(|py| {
            // The copy into the new `bytes` without the GIL (nothing else
            // sees them yet); the caller's `write` with it.
            let b = PyBytes::new_with(py, buf.len(), |dst| {
                py.allow_threads(|| dst.copy_from_slice(buf));
                Ok(())
            })?;
            self.obj.bind(py).call_method1(intern!(py, "write"), (b,))?;
            Ok(buf.len())
        })
        .map_err(raised)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The pyAesCrypt-compatible sink of `decryptStream`: plaintext goes to
/// `fOut` **before** the HMAC is known (the Python layer truncates a
/// seekable `fOut` back on failure).
struct PySink(PyWriter);

impl ProvisionalSink for PySink {
    type Error = aio::Error;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), aio::Error> {
        Ok(self.0.write_all(plaintext)?)
    }

    fn commit(&mut self) -> Result<(), aio::Error> {
        Ok(())
    }

    fn discard(&mut self) {}
}

/// Encrypts the binary stream `fin` into `fout` in one pass with the GIL
/// released, except for `fin.read` and `fout.write` (which overlap the
/// cipher).
#[pyfunction]
#[pyo3(signature = (fin, fout, password, *, version=2, iterations=None, batch=None))]
#[allow(clippy::too_many_arguments)]
fn encrypt_stream_into(
    py: Python<'_>,
    fin: Py<PyAny>,
    fout: Py<PyAny>,
    password: &str,
    version: u8,
    iterations: Option<u32>,
    batch: Option<&Bound<'_, Batch>>,
) -> PyResult<()> {
    let opts = options(version, iterations)?;
    let b = batch_or_default(batch);
    let enc = py
        .allow_threads(|| REncryptor::new(password, &opts))
        .map_err(errors::aescrypt)?;
    let (r, w) = (PyReader::new(fin), PyWriter::new(fout));
    py.allow_threads(|| encrypt_stream(b, enc, r, w).map(drop))
        .map_err(|e| io_error(e, &[]))
}

/// Decrypts the AES Crypt stream `fin` (any version) into `fout` in one
/// pass with the GIL released, except for `fin.read` and `fout.write`.
/// **Writes unverified plaintext** to `fout` (pyAesCrypt's behaviour).
#[pyfunction]
#[pyo3(signature = (fin, fout, password, *, batch=None, max_iterations=None))]
fn decrypt_stream_into(
    py: Python<'_>,
    fin: Py<PyAny>,
    fout: Py<PyAny>,
    password: Password,
    batch: Option<&Bound<'_, Batch>>,
    max_iterations: Option<u32>,
) -> PyResult<()> {
    let b = batch_or_default(batch);
    let lim = limits(max_iterations);
    let mut r = PyReader::new(fin);
    let mut sink = PySink(PyWriter::new(fout));
    let dec = password.decryptor(&lim);
    let res = py.allow_threads(|| decrypt_into_sink_with(b, dec, &mut r, &mut sink));
    res.map(drop).map_err(|e| io_error(e, &r.first))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encrypt_stream_into, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_stream_into, m)?)?;
    Ok(())
}
