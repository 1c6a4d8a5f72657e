//! `wireseal.aescrypt.StretchedKeys`: one password's keys, stretched once
//! per salt and shared by every decryption given it in place of the
//! password; and [`Password`], what the decrypting calls accept.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use std::io::{Read, Seek};
use std::sync::Arc;
use wireseal::aescrypt::io::{self as aio, SeekDecryptor};
use wireseal::aescrypt::{self as ac, Decryptor, Limits, OwnedDecryptor};
use wireseal::batch::Batch;
use zeroize::Zeroizing;

/// One password's keys, stretched once per salt and iteration count and
/// shared: pass it as the password of `decryptFile`, `decryptStream`,
/// `decrypt`, `Decryptor` or `open`, from any thread. The files one run of
/// `wireseal aescrypt encrypt --out-dir` wrote share a salt, so reading
/// them back costs one stretch (PBKDF2's 300,000 rounds for version 3)
/// instead of one per file. At most 64 keys are kept; the password and the
/// keys are wiped when it is freed.
#[pyclass(module = "wireseal.aescrypt", frozen)]
pub struct StretchedKeys {
    inner: Arc<ac::StretchedKeys>,
}

#[pymethods]
impl StretchedKeys {
    /// The keys of `password` (nothing is stretched yet).
    #[new]
    fn new(password: &str) -> Self {
        Self {
            inner: Arc::new(ac::StretchedKeys::new(password)),
        }
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

/// A decrypting call's password: the text, or shared keys.
pub(crate) enum Password {
    Text(Zeroizing<String>),
    Keys(Arc<ac::StretchedKeys>),
}

impl<'py> FromPyObject<'py> for Password {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(k) = ob.downcast::<StretchedKeys>() {
            return Ok(Self::Keys(Arc::clone(&k.get().inner)));
        }
        match ob.extract::<String>() {
            Ok(s) => Ok(Self::Text(Zeroizing::new(s))),
            Err(_) => Err(PyTypeError::new_err(
                "password must be a str or a wireseal.aescrypt.StretchedKeys",
            )),
        }
    }
}

impl Password {
    /// A one-pass reader for one stream.
    pub(crate) fn decryptor(&self, limits: &Limits) -> Decryptor {
        match self {
            Self::Text(p) => Decryptor::new(p, limits),
            Self::Keys(k) => Decryptor::with_keys(Arc::clone(k), limits),
        }
    }

    /// A reader that keeps the caller's pieces.
    pub(crate) fn owned<P: AsRef<[u8]>>(&self, limits: &Limits) -> OwnedDecryptor<P> {
        match self {
            Self::Text(p) => OwnedDecryptor::new(p, limits),
            Self::Keys(k) => OwnedDecryptor::with_keys(Arc::clone(k), limits),
        }
    }

    /// Verifies the seekable stream `r` and returns its reader.
    pub(crate) fn seek<'b, R: Read + Seek>(
        &self,
        batch: &'b Batch,
        r: R,
        limits: &Limits,
    ) -> Result<SeekDecryptor<'b, R>, aio::Error> {
        match self {
            Self::Text(p) => SeekDecryptor::new(batch, r, p, limits),
            Self::Keys(k) => SeekDecryptor::with_keys(batch, r, Arc::clone(k), limits),
        }
    }
}
