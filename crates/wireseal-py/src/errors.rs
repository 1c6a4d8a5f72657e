//! The exception hierarchy (`wireseal.Error` and one subclass per situation)
//! and the conversions from each library module's error type.
//!
//! `wireseal.Error` derives from `ValueError`, so code written for
//! pyAesCrypt (which raises `ValueError`) keeps working unchanged.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use wireseal::error::ErrorKind;

create_exception!(
    wireseal,
    Error,
    PyValueError,
    "Base class of every wireseal error (a subclass of ValueError)."
);
create_exception!(
    wireseal,
    AuthError,
    Error,
    "A tag, HMAC or password check failed: wrong key, wrong password, or the data was modified. Deliberately says nothing about where."
);
create_exception!(
    wireseal,
    TruncatedError,
    Error,
    "The input is shorter than the smallest valid encoding, or ended early."
);
create_exception!(
    wireseal,
    TooLongError,
    Error,
    "The input is longer than the format allows."
);
create_exception!(
    wireseal,
    BufferTooSmallError,
    Error,
    "A caller-supplied output buffer is too small."
);
create_exception!(
    wireseal,
    ReplayError,
    Error,
    "The packet or onion was accepted before: a replay."
);
create_exception!(
    wireseal,
    InvalidKeyError,
    Error,
    "A key is malformed, of the wrong length, weak or otherwise unusable."
);
create_exception!(
    wireseal,
    MalformedError,
    Error,
    "The input breaks a structural rule of its format."
);
create_exception!(
    wireseal,
    UnsupportedVersionError,
    MalformedError,
    "A version byte this library does not know or cannot write."
);
create_exception!(
    wireseal,
    LimitError,
    Error,
    "A configured or protocol limit was reached (iterations, header size, counters, sessions)."
);
create_exception!(
    wireseal,
    PolicyError,
    Error,
    "The input is well formed, but a policy refuses it (strict mode, below the encryption policy, not addressed to us)."
);
create_exception!(
    wireseal,
    InvalidInputError,
    Error,
    "An argument is out of range or unusable (a name, a number, a size)."
);
create_exception!(
    wireseal,
    StateError,
    Error,
    "The object is in the wrong state for this call (poisoned session, missing key, unknown peer)."
);

/// Registers every exception class on the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("AuthError", py.get_type::<AuthError>())?;
    m.add("TruncatedError", py.get_type::<TruncatedError>())?;
    m.add("TooLongError", py.get_type::<TooLongError>())?;
    m.add("BufferTooSmallError", py.get_type::<BufferTooSmallError>())?;
    m.add("ReplayError", py.get_type::<ReplayError>())?;
    m.add("InvalidKeyError", py.get_type::<InvalidKeyError>())?;
    m.add("MalformedError", py.get_type::<MalformedError>())?;
    m.add(
        "UnsupportedVersionError",
        py.get_type::<UnsupportedVersionError>(),
    )?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("StateError", py.get_type::<StateError>())?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
    Ok(())
}

/// `InvalidKeyError` for a key argument of the wrong length.
pub fn key_len(what: &str, want: usize, got: usize) -> PyErr {
    InvalidKeyError::new_err(format!("{what} must be {want} bytes, got {got}"))
}

/// Turns a 32-byte argument into an array or raises `InvalidKeyError`.
pub fn arr32(what: &str, b: &[u8]) -> PyResult<[u8; 32]> {
    b.try_into().map_err(|_| key_len(what, 32, b.len()))
}

/// The one table from the library's [`ErrorKind`] to an exception class.
/// Every library error reaches Python through it, so the same failure
/// raises the same class whichever module it came from, and the command
/// line's JSON `kind` names the same thing.
pub fn for_kind(kind: ErrorKind, msg: String) -> PyErr {
    match kind {
        ErrorKind::Auth => AuthError::new_err(msg),
        ErrorKind::Truncated => TruncatedError::new_err(msg),
        ErrorKind::TooLong => TooLongError::new_err(msg),
        ErrorKind::BufferTooSmall => BufferTooSmallError::new_err(msg),
        ErrorKind::InvalidKey => InvalidKeyError::new_err(msg),
        ErrorKind::Replay => ReplayError::new_err(msg),
        ErrorKind::Poisoned | ErrorKind::State => StateError::new_err(msg),
        ErrorKind::Exhausted | ErrorKind::Limit => LimitError::new_err(msg),
        ErrorKind::Unsupported => UnsupportedVersionError::new_err(msg),
        ErrorKind::Policy => PolicyError::new_err(msg),
        ErrorKind::InvalidInput => InvalidInputError::new_err(msg),
        ErrorKind::Io => pyo3::exceptions::PyOSError::new_err(msg),
        _ => MalformedError::new_err(msg),
    }
}

/// Meshtastic errors.
pub fn meshtastic(e: wireseal::meshtastic::Error) -> PyErr {
    for_kind(e.kind(), e.to_string())
}

/// MeshCore errors, with the library's finer reason as the exception's
/// `reason` attribute (`path_too_long`, `version`, ...; the `reason` the
/// command line's JSON errors carry).
pub fn meshcore(e: wireseal::meshcore::Error) -> PyErr {
    let err = for_kind(e.kind(), e.to_string());
    Python::with_gil(|py| {
        // Setting an attribute on a fresh exception instance does not fail.
        let _ = err.value(py).setattr("reason", e.reason());
    });
    err
}

/// Sphinx errors.
pub fn sphinx(e: wireseal::sphinx::Error) -> PyErr {
    for_kind(e.kind(), e.to_string())
}

/// peat errors.
pub fn peat(e: wireseal::peat::Error) -> PyErr {
    for_kind(e.kind(), e.to_string())
}

/// BIP324 errors.
pub fn bip324(e: wireseal::bip324::Error) -> PyErr {
    for_kind(e.kind(), e.to_string())
}

/// AES Crypt errors (the native names; `wireseal.aescrypt`'s pyAesCrypt
/// layer rewrites the messages to pyAesCrypt's).
pub fn aescrypt(e: wireseal::aescrypt::Error) -> PyErr {
    for_kind(e.kind(), e.to_string())
}
