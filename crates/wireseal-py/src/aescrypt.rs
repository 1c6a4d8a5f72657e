//! `wireseal._wireseal.aescrypt`: AES Crypt streams v0-v3 (read) and v2/v3
//! (write). The pyAesCrypt-compatible functions are in the Python module
//! `wireseal.aescrypt`, on top of these. Errors carry pyAesCrypt's messages
//! where pyAesCrypt has a counterpart.

use crate::buffers::{batch_or_default, bytes_with, default_batch, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use wireseal::aescrypt::{
    self as ac, io::SeekDecryptor, Decryptor as RDecryptor, EncryptOptions,
    Encryptor as REncryptor, Error as AError, Limits, ProvisionalSink, Region,
};

/// pyAesCrypt's message for an error it also reports, the library's
/// otherwise, with the matching exception class.
pub fn error(e: AError) -> PyErr {
    const CORRUPT: &str = "File is corrupted.";
    const BAD_HMAC: &str = "Bad HMAC (file is corrupted).";
    match &e {
        AError::NotAesCrypt => errors::MalformedError::new_err(
            "File is corrupted or not an AES Crypt (or pyAesCrypt) file.",
        ),
        AError::UnsupportedVersion(v) => errors::UnsupportedVersionError::new_err(format!(
            "pyAesCrypt is only compatible with version 2 of the AES Crypt file format. \
             (wireseal reads versions 0-3; this stream says version {v}.)"
        )),
        AError::Truncated {
            region: Region::Header | Region::SessionBlock,
            ..
        } => errors::TruncatedError::new_err(CORRUPT),
        AError::Truncated { .. } | AError::PartialBlock => {
            errors::TruncatedError::new_err(BAD_HMAC)
        }
        AError::WrongPassword => {
            errors::AuthError::new_err("Wrong password (or file is corrupted).")
        }
        AError::Auth => errors::AuthError::new_err(BAD_HMAC),
        _ => errors::aescrypt(e),
    }
}

fn options(version: u8, iterations: Option<u32>) -> PyResult<EncryptOptions> {
    match version {
        2 => Ok(EncryptOptions::v2()),
        3 => EncryptOptions::v3(iterations.unwrap_or(ac::DEFAULT_V3_ITERATIONS)).map_err(error),
        v => Err(errors::UnsupportedVersionError::new_err(format!(
            "AES Crypt version {v} cannot be written (write 2 or 3)"
        ))),
    }
}

fn limits(max_iterations: Option<u32>) -> Limits {
    let mut l = Limits::default();
    if let Some(m) = max_iterations {
        l.max_iterations = m;
    }
    l
}

/// Encrypts `data` in one call. Version 2 (pyAesCrypt, AES Crypt 3.x) by
/// default; version 3 (AES Crypt 4.x) stretches the password with
/// `iterations` rounds of PBKDF2-HMAC-SHA512.
#[pyfunction]
#[pyo3(signature = (password, data, *, version=2, iterations=None, batch=None))]
fn encrypt<'py>(
    py: Python<'py>,
    password: &str,
    data: &[u8],
    version: u8,
    iterations: Option<u32>,
    batch: Option<&Bound<'_, Batch>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = options(version, iterations)?;
    let b = batch_or_default(batch);
    bytes_with(py, opts.encrypted_len(data.len()), |out| {
        ac::encrypt_into(b, password, data, &opts, out)
            .map(|_| ())
            .map_err(error)
    })
}

/// Decrypts a whole AES Crypt stream (any version 0-3). Nothing is returned
/// unless every HMAC matched.
#[pyfunction]
#[pyo3(signature = (password, data, *, batch=None, max_iterations=None))]
fn decrypt<'py>(
    py: Python<'py>,
    password: &str,
    data: &[u8],
    batch: Option<&Bound<'_, Batch>>,
    max_iterations: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let b = batch_or_default(batch);
    let lim = limits(max_iterations);
    let v = py
        .allow_threads(|| ac::decrypt_to_vec(b, password, data, &lim))
        .map_err(error)?;
    bytes_with(py, v.len(), |out| {
        out.copy_from_slice(&v);
        Ok(())
    })
}

/// A streaming encryptor: `update(data)` returns the ciphertext that is
/// ready (the header first), `finish()` the rest with the trailer.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Encryptor {
    inner: Option<REncryptor>,
    batch: Option<Py<Batch>>,
}

fn vec_to_bytes(py: Python<'_>, v: Vec<u8>) -> PyResult<Bound<'_, PyBytes>> {
    bytes_with(py, v.len(), |out| {
        out.copy_from_slice(&v);
        Ok(())
    })
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
        })
    }

    /// Encrypts `data`; returns the ciphertext ready so far.
    fn update<'py>(&mut self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let b = batch_or_default(self.batch.as_ref().map(|b| b.bind(py)));
        let e = self
            .inner
            .as_mut()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called"))?;
        let mut out = Vec::with_capacity(data.len() + 512);
        py.allow_threads(|| e.update(b, data, &mut out));
        vec_to_bytes(py, out)
    }

    /// Pads and encrypts what is left; returns it with the trailer.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let e = self
            .inner
            .take()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called"))?;
        let mut out = Vec::new();
        py.allow_threads(|| e.finish(&mut out));
        vec_to_bytes(py, out)
    }
}

/// A streaming decryptor that never hands out unverified plaintext:
/// `update(data)` feeds ciphertext (plaintext is held inside, in memory),
/// `finish()` checks the HMAC and only then returns the plaintext.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Decryptor {
    inner: Option<RDecryptor>,
    held: Vec<u8>,
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
            held: Vec::new(),
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
            .ok_or_else(|| errors::StateError::new_err("finish() was already called"))?;
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
        let d = self
            .inner
            .take()
            .ok_or_else(|| errors::StateError::new_err("finish() was already called or failed"))?;
        let held = &mut self.held;
        py.allow_threads(|| d.finish(held)).map_err(error)?;
        let v = std::mem::take(&mut self.held);
        vec_to_bytes(py, v)
    }
}

/// Plaintext goes to a private temporary file beside the destination,
/// renamed into place on commit and deleted on discard.
struct TempFileSink {
    file: Option<File>,
    tmp: PathBuf,
    dest: PathBuf,
}

impl TempFileSink {
    fn create(dest: &Path) -> std::io::Result<Self> {
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        for _ in 0..16 {
            let mut r = [0u8; 8];
            getrandom::getrandom(&mut r).map_err(std::io::Error::other)?;
            let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
            let tmp = dir.join(format!(".{name}.{hex}.wireseal-partial"));
            match opts.open(&tmp) {
                Ok(file) => {
                    return Ok(Self {
                        file: Some(file),
                        tmp,
                        dest: dest.to_path_buf(),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("cannot create a temporary file"))
    }
}

impl ProvisionalSink for TempFileSink {
    fn write_unverified(&mut self, plaintext: &[u8]) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.write_all(plaintext),
            None => Err(std::io::Error::other("sink closed")),
        }
    }

    fn commit(&mut self) -> std::io::Result<()> {
        if let Some(f) = self.file.take() {
            f.sync_all()?;
        }
        std::fs::rename(&self.tmp, &self.dest)
    }

    fn discard(&mut self) {
        self.file = None;
        let _ = std::fs::remove_file(&self.tmp);
    }
}

impl Drop for TempFileSink {
    fn drop(&mut self) {
        if self.file.is_some() {
            self.discard();
        }
    }
}

/// Calls `progress(done, total)` when given; an exception stops the work.
fn report(progress: Option<&Py<PyAny>>, done: u64, total: u64) -> PyResult<()> {
    match progress {
        Some(cb) => Python::with_gil(|py| cb.call1(py, (done, total)).map(|_| ())),
        None => Ok(()),
    }
}

fn io_err(what: &str, e: std::io::Error) -> PyErr {
    pyo3::exceptions::PyOSError::new_err(format!("{what}: {e}"))
}

/// Encrypts the file `infile` into `outfile` (written through a temporary
/// file, renamed into place when complete), with the GIL released;
/// `progress(done, total)` is called after each chunk.
#[pyfunction]
#[pyo3(signature = (infile, outfile, password, *, version=2, iterations=None, progress=None, batch=None))]
#[allow(clippy::too_many_arguments)]
fn encrypt_file(
    py: Python<'_>,
    infile: PathBuf,
    outfile: PathBuf,
    password: &str,
    version: u8,
    iterations: Option<u32>,
    progress: Option<Py<PyAny>>,
    batch: Option<&Bound<'_, Batch>>,
) -> PyResult<()> {
    let opts = options(version, iterations)?;
    let b = batch_or_default(batch);
    py.allow_threads(|| {
        let mut input = File::open(&infile).map_err(|e| io_err("cannot read input", e))?;
        let total = input.metadata().map(|m| m.len()).unwrap_or(0);
        let mut sink = TempFileSink::create(&outfile).map_err(|e| io_err("cannot write output", e))?;
        let mut enc = REncryptor::new(password, &opts).map_err(error)?;
        let mut buf = vec![0u8; ac::CHUNK];
        let mut out = Vec::with_capacity(ac::CHUNK + 1024);
        let mut done = 0u64;
        loop {
            let n = read_full(&mut input, &mut buf).map_err(|e| io_err("cannot read input", e))?;
            if n == 0 {
                break;
            }
            enc.update(b, &buf[..n], &mut out);
            sink.write_unverified(&out)
                .map_err(|e| io_err("cannot write output", e))?;
            out.clear();
            done += n as u64;
            report(progress.as_ref(), done, total)?;
        }
        enc.finish(&mut out);
        sink.write_unverified(&out)
            .map_err(|e| io_err("cannot write output", e))?;
        sink.commit().map_err(|e| io_err("cannot write output", e))
    })
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Decrypts the file `infile` into `outfile` in one pass with the GIL
/// released. The plaintext goes to a private temporary file that becomes
/// `outfile` only after the HMAC matched; on any error it is deleted and
/// `outfile` is left as it was. `progress(done, total)` counts input bytes.
#[pyfunction]
#[pyo3(signature = (infile, outfile, password, *, progress=None, batch=None, max_iterations=None))]
fn decrypt_file(
    py: Python<'_>,
    infile: PathBuf,
    outfile: PathBuf,
    password: &str,
    progress: Option<Py<PyAny>>,
    batch: Option<&Bound<'_, Batch>>,
    max_iterations: Option<u32>,
) -> PyResult<()> {
    let b = batch_or_default(batch);
    let lim = limits(max_iterations);
    py.allow_threads(|| {
        let mut input = File::open(&infile).map_err(|e| io_err("cannot read input", e))?;
        let total = input.metadata().map(|m| m.len()).unwrap_or(0);
        let mut sink = TempFileSink::create(&outfile).map_err(|e| io_err("cannot write output", e))?;
        let mut dec = RDecryptor::new(password, &lim);
        let mut buf = vec![0u8; ac::CHUNK];
        let mut done = 0u64;
        loop {
            let n = match read_full(&mut input, &mut buf) {
                Ok(n) => n,
                Err(e) => {
                    sink.discard();
                    return Err(io_err("cannot read input", e));
                }
            };
            if n == 0 {
                break;
            }
            dec.update(b, &buf[..n], &mut sink).map_err(error)?;
            done += n as u64;
            if let Err(e) = report(progress.as_ref(), done, total) {
                sink.discard();
                return Err(e);
            }
        }
        dec.finish(&mut sink).map(|_| ()).map_err(error)
    })
}

/// A file-like reader over an AES Crypt file that verifies the whole file
/// (password and HMAC) when opened, then decrypts as it is read, releasing
/// each chunk only after checking it is the chunk that was verified.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Reader {
    inner: Option<SeekDecryptor<'static, File>>,
}

#[pymethods]
impl Reader {
    /// Opens and verifies `path` (GIL released while it reads the file).
    #[new]
    #[pyo3(signature = (path, password, *, max_iterations=None))]
    fn new(py: Python<'_>, path: PathBuf, password: &str, max_iterations: Option<u32>) -> PyResult<Self> {
        let lim = limits(max_iterations);
        let inner = py.allow_threads(|| {
            let f = File::open(&path).map_err(|e| io_err("cannot read input", e))?;
            SeekDecryptor::new(default_batch(), f, password, &lim).map_err(error)
        })?;
        Ok(Self { inner: Some(inner) })
    }

    /// Length of the plaintext in bytes.
    #[getter]
    fn plaintext_len(&self) -> PyResult<u64> {
        Ok(self.get()?.plaintext_len())
    }

    /// The stream's version (0-3).
    #[getter]
    fn version(&self) -> PyResult<u8> {
        Ok(self.get()?.header().version.as_u8())
    }

    /// Reads up to `size` bytes (all that is left when `size` is negative);
    /// `b""` at the end.
    #[pyo3(signature = (size=-1))]
    fn read<'py>(&mut self, py: Python<'py>, size: isize) -> PyResult<Bound<'py, PyBytes>> {
        let r = self
            .inner
            .as_mut()
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("I/O operation on closed reader"))?;
        let mut out = Vec::new();
        let res = py.allow_threads(|| {
            if size < 0 {
                r.read_to_end(&mut out).map(|_| ())
            } else {
                out.resize(size as usize, 0);
                let n = read_full(r, &mut out)?;
                out.truncate(n);
                Ok(())
            }
        });
        if let Err(e) = res {
            return Err(match e.into_inner() {
                Some(inner) => match inner.downcast::<AError>() {
                    Ok(ae) => error(*ae),
                    Err(other) => pyo3::exceptions::PyOSError::new_err(other.to_string()),
                },
                None => pyo3::exceptions::PyOSError::new_err("read failed"),
            });
        }
        vec_to_bytes(py, out)
    }

    /// Closes the file.
    fn close(&mut self) {
        self.inner = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &mut self,
        _t: Option<&Bound<'_, PyAny>>,
        _v: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }
}

impl Reader {
    fn get(&self) -> PyResult<&SeekDecryptor<'static, File>> {
        self.inner
            .as_ref()
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("I/O operation on closed reader"))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Encryptor>()?;
    m.add_class::<Decryptor>()?;
    m.add_class::<Reader>()?;
    m.add_function(wrap_pyfunction!(encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_file, m)?)?;
    m.add("CHUNK", ac::CHUNK)?;
    m.add("DEFAULT_V3_ITERATIONS", ac::DEFAULT_V3_ITERATIONS)?;
    Ok(())
}
