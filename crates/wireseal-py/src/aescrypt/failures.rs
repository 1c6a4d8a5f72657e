//! How AES Crypt failures reach Python: pyAesCrypt's messages where it has
//! a counterpart, the exception class of each error's kind, a truncated
//! stream told apart by whether it reached its body, and Python exceptions
//! carried through `std::io` unchanged.

use crate::errors;
use pyo3::prelude::*;
use std::io;
use wireseal::aescrypt::io as aio;
use wireseal::aescrypt::{parse_header, Error as AError, Parse};

/// pyAesCrypt's message for an error it also reports, the library's
/// otherwise, with the exception class of the error's kind. A truncated
/// stream reads as pyAesCrypt says it: "File is corrupted." when it ends
/// before its body (`past_prefix` false), "Bad HMAC" after.
pub fn error_at(e: AError, past_prefix: bool) -> PyErr {
    const CORRUPT: &str = "File is corrupted.";
    const BAD_HMAC: &str = "Bad HMAC (file is corrupted).";
    let msg = match &e {
        AError::NotAesCrypt => {
            "File is corrupted or not an AES Crypt (or pyAesCrypt) file.".to_owned()
        }
        AError::UnsupportedVersion(v) => format!(
            "pyAesCrypt is only compatible with version 2 of the AES Crypt file format. \
             (wireseal reads versions 0-3; this stream says version {v}.)"
        ),
        AError::Truncated { .. } if !past_prefix => CORRUPT.to_owned(),
        AError::Truncated { .. } | AError::PartialBlock | AError::Auth => BAD_HMAC.to_owned(),
        AError::WrongPassword => "Wrong password (or file is corrupted).".to_owned(),
        _ => return errors::aescrypt(e),
    };
    errors::for_kind(e.kind(), msg)
}

/// As [`error_at`], for errors that are not a truncation (or come from a
/// stream known to have reached its body).
pub fn error(e: AError) -> PyErr {
    error_at(e, true)
}

/// A Python exception carried through `std::io`.
#[derive(Debug)]
pub(crate) struct Raised(pub(crate) PyErr);

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for Raised {}

/// An input that failed to be read (as opposed to an output).
#[derive(Debug)]
pub(crate) struct ReadFailed(pub(crate) io::Error);

impl std::fmt::Display for ReadFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read input: {}", self.0)
    }
}

impl std::error::Error for ReadFailed {}

pub(crate) fn raised(e: PyErr) -> io::Error {
    io::Error::other(Raised(e))
}

/// Whether a stream whose first bytes are `first` reached its body: the
/// header parses and `len` bytes cover it and the session block.
pub(crate) fn past_prefix(first: &[u8], len: usize) -> bool {
    let lim = wireseal::aescrypt::Limits::default();
    matches!(parse_header(first, &lim), Ok(Parse::Done(h)) if len >= h.prefix_len())
}

/// An `aescrypt::io::Error` as the Python exception to raise: the carried
/// Python exception itself, an `OSError` naming the side that failed
/// (`cannot read input` / `cannot write output`), or the format error with
/// pyAesCrypt's message (`first`: the stream's first bytes).
pub(crate) fn io_error(e: aio::Error, first: &[u8]) -> PyErr {
    match e {
        aio::Error::Format(f) => {
            let len = match f {
                wireseal::aescrypt::Error::Truncated { len, .. } => len,
                _ => 0,
            };
            error_at(f, past_prefix(first, len))
        }
        aio::Error::Io(io) => from_io(io),
        _ => pyo3::exceptions::PyOSError::new_err("I/O error"),
    }
}

/// A `std::io::Error` from a reader or writer of this module as Python's.
pub(crate) fn from_io(io: io::Error) -> PyErr {
    let read = io
        .get_ref()
        .is_some_and(|i| i.downcast_ref::<ReadFailed>().is_some());
    match io.into_inner().map(|i| i.downcast::<Raised>()) {
        Some(Ok(r)) => r.0,
        Some(Err(inner)) if read => pyo3::exceptions::PyOSError::new_err(inner.to_string()),
        Some(Err(inner)) => {
            pyo3::exceptions::PyOSError::new_err(format!("cannot write output: {inner}"))
        }
        None => pyo3::exceptions::PyOSError::new_err("cannot write output"),
    }
}
