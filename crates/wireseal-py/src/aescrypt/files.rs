//! AES Crypt files from Python: encrypt and decrypt whole files in Rust
//! with the GIL released, through the library's
//! [`PartialFile`](wireseal_io::PartialFile) (the output appears
//! only when complete and fsynced; partial files of killed runs, of this
//! package or of the command line, are removed), and the verifying
//! streaming `Reader`.

use super::failures::{error, from_io, io_error, raised, ReadFailed};
use super::keys::Password;
use super::options::{limits, options};
use crate::buffers::{batch_or_default, bytes_with, default_batch, Batch};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use wireseal::aescrypt::io::{
    decrypt_into_sink_with, encrypt_stream, Error as IoError, SeekDecryptor,
};
use wireseal::aescrypt::Encryptor as REncryptor;
use wireseal_io::{PartialFile, Replace};

/// The input file, counting what was read for `progress(done, total)` (an
/// exception from it stops the work) and keeping its first bytes.
struct Input<'a> {
    file: File,
    progress: Option<&'a Py<PyAny>>,
    done: u64,
    total: u64,
    first: Vec<u8>,
}

impl<'a> Input<'a> {
    fn open(path: &Path, progress: Option<&'a Py<PyAny>>) -> PyResult<Self> {
        let file = File::open(path).map_err(|e| os_error("cannot read input", &e))?;
        let total = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(Self {
            file,
            progress,
            done: 0,
            total,
            first: Vec::new(),
        })
    }
}

impl Read for Input<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self
            .file
            .read(buf)
            .map_err(|e| std::io::Error::other(ReadFailed(e)))?;
        if self.first.len() < 64 * 1024 {
            let take = (64 * 1024 - self.first.len()).min(n);
            self.first.extend_from_slice(&buf[..take]);
        }
        self.done += n as u64;
        if let (Some(cb), true) = (self.progress, n > 0) {
            Python::with_gil(|py| cb.call1(py, (self.done, self.total)).map(drop))
                .map_err(raised)?;
        }
        Ok(n)
    }
}

fn os_error(what: &str, e: &dyn std::fmt::Display) -> PyErr {
    pyo3::exceptions::PyOSError::new_err(format!("{what}: {e}"))
}

/// The output's partial file (an existing output is replaced, as
/// pyAesCrypt does) and the paths of the leftovers it removed.
fn output(path: &Path) -> PyResult<(PartialFile, Vec<String>)> {
    let part = PartialFile::create(path, Replace::Allow)
        .map_err(|e| os_error("cannot write output", &e))?;
    let removed = part
        .leftovers()
        .removed
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    Ok((part, removed))
}

fn persist(part: PartialFile) -> PyResult<()> {
    part.persist()
        .map_err(|e| os_error("cannot write output", &e))
}

/// Encrypts the file `infile` into `outfile` (written through a partial
/// file, fsynced and renamed into place when complete), with the GIL
/// released; `progress(done, total)` is called after each read. Returns
/// the partial files of interrupted runs it removed from the folder.
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
) -> PyResult<Vec<String>> {
    let opts = options(version, iterations)?;
    let b = batch_or_default(batch);
    py.allow_threads(|| {
        let input = Input::open(&infile, progress.as_ref())?;
        let enc = REncryptor::new(password, &opts).map_err(error)?;
        let (part, removed) = output(&outfile)?;
        encrypt_stream(b, enc, input, &part).map_err(|e| io_error(e, &[]))?;
        persist(part)?;
        Ok(removed)
    })
}

/// Decrypts the file `infile` into `outfile` in one pass with the GIL
/// released. The plaintext goes to a partial file that becomes `outfile`
/// (fsynced) only after the HMAC matched; on any error it is deleted and
/// `outfile` is left as it was. `progress(done, total)` counts input bytes.
/// Returns the partial files of interrupted runs it removed.
#[pyfunction]
#[pyo3(signature = (infile, outfile, password, *, progress=None, batch=None, max_iterations=None))]
fn decrypt_file(
    py: Python<'_>,
    infile: PathBuf,
    outfile: PathBuf,
    password: Password,
    progress: Option<Py<PyAny>>,
    batch: Option<&Bound<'_, Batch>>,
    max_iterations: Option<u32>,
) -> PyResult<Vec<String>> {
    let b = batch_or_default(batch);
    let lim = limits(max_iterations);
    py.allow_threads(|| {
        let mut input = Input::open(&infile, progress.as_ref())?;
        let (mut part, removed) = output(&outfile)?;
        decrypt_into_sink_with(b, password.decryptor(&lim), &mut input, &mut part)
            .map_err(|e| io_error(e, &input.first))?;
        persist(part)?;
        Ok(removed)
    })
}

/// A file-like reader over an AES Crypt file that verifies the whole file
/// (password and HMAC) when opened, then decrypts as it is read, releasing
/// each chunk only after checking it is the chunk that was verified.
#[pyclass(module = "wireseal.aescrypt")]
pub struct Reader {
    inner: Option<SeekDecryptor<'static, File>>,
    /// Plaintext bytes handed out so far.
    pos: u64,
}

#[pymethods]
impl Reader {
    /// Opens and verifies `path` (GIL released while it reads the file).
    #[new]
    #[pyo3(signature = (path, password, *, max_iterations=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        password: Password,
        max_iterations: Option<u32>,
    ) -> PyResult<Self> {
        let lim = limits(max_iterations);
        let inner = py.allow_threads(|| {
            let f = File::open(&path).map_err(|e| os_error("cannot read input", &e))?;
            password
                .seek(default_batch(), f, &lim)
                .map_err(|e| io_error(e, &[]))
        })?;
        Ok(Self {
            inner: Some(inner),
            pos: 0,
        })
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
    /// `b""` at the end. Each chunk is decrypted straight into the result.
    #[pyo3(signature = (size=-1))]
    fn read<'py>(&mut self, py: Python<'py>, size: isize) -> PyResult<Bound<'py, PyBytes>> {
        let r = self.inner.as_mut().ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("I/O operation on closed reader")
        })?;
        let left = r.plaintext_len().saturating_sub(self.pos);
        let want = if size < 0 {
            left
        } else {
            (size as u64).min(left)
        };
        let want = usize::try_from(want)
            .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("more than fits in memory"))?;
        let out = bytes_with(py, want, |out| {
            let mut n = 0;
            while n < out.len() {
                match r.read(&mut out[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(read_error(e)),
                }
            }
            if n < out.len() {
                return Err(pyo3::exceptions::PyOSError::new_err(
                    "the input ended before the plaintext it was verified with",
                ));
            }
            Ok(())
        })?;
        self.pos += want as u64;
        Ok(out)
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

/// A failed read of a [`Reader`]: the format error it carries (the input
/// changed, or an earlier failure), or the I/O error.
fn read_error(e: std::io::Error) -> PyErr {
    match IoError::from(e) {
        IoError::Format(f) => error(f),
        IoError::Io(io) => from_io(io),
        _ => pyo3::exceptions::PyOSError::new_err("read failed"),
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
