//! AES Crypt files from Python: encrypt and decrypt whole files in Rust
//! with the GIL released (plaintext through a private temporary file), and
//! the verifying streaming `Reader`.

use crate::aescrypt::{error, limits, options, vec_to_bytes};
use crate::buffers::{batch_or_default, default_batch, Batch};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use wireseal::aescrypt::{
    self as ac, io::SeekDecryptor, Decryptor as RDecryptor, Encryptor as REncryptor,
    Error as AError, ProvisionalSink,
};

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
        let mut sink =
            TempFileSink::create(&outfile).map_err(|e| io_err("cannot write output", e))?;
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
        let mut sink =
            TempFileSink::create(&outfile).map_err(|e| io_err("cannot write output", e))?;
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
    fn new(
        py: Python<'_>,
        path: PathBuf,
        password: &str,
        max_iterations: Option<u32>,
    ) -> PyResult<Self> {
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
        let r = self.inner.as_mut().ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("I/O operation on closed reader")
        })?;
        let mut out = Vec::new();
        let res = py.allow_threads(|| {
            if size < 0 {
                r.read_to_end(&mut out).map(|_| ())
            } else {
                let cap = usize::try_from(r.plaintext_len()).unwrap_or(usize::MAX);
                out.resize((size as usize).min(cap), 0);
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
        self.inner.as_ref().ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("I/O operation on closed reader")
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Reader>()?;
    m.add_function(wrap_pyfunction!(encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_file, m)?)?;
    Ok(())
}
