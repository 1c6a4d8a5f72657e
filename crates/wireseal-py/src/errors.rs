//! The exception hierarchy (`wireseal.Error` and one subclass per situation)
//! and the conversions from each library module's error type.
//!
//! `wireseal.Error` derives from `ValueError`, so code written for
//! pyAesCrypt (which raises `ValueError`) keeps working unchanged.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

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

/// The exception for a library error: `Auth`, `Truncated` and
/// `BufferTooSmall` (the variants every module shares) to their classes,
/// then the module's own `pattern => class` arms, anything else to
/// `MalformedError`. The message is the error's `Display`.
macro_rules! exception_for {
    ($e:expr, $E:ident; $($pat:pat => $class:ty),* $(,)?) => {{
        let e = $e;
        let msg = e.to_string();
        match e {
            $E::Auth => AuthError::new_err(msg),
            $E::Truncated { .. } => TruncatedError::new_err(msg),
            $E::BufferTooSmall { .. } => BufferTooSmallError::new_err(msg),
            $($pat => <$class>::new_err(msg),)*
            _ => MalformedError::new_err(msg),
        }
    }};
}

/// Meshtastic errors.
pub fn meshtastic(e: wireseal::meshtastic::Error) -> PyErr {
    use wireseal::meshtastic::Error as E;
    exception_for!(e, E;
        E::TooLong { .. } => TooLongError,
        E::Replay { .. } => ReplayError,
        E::WeakPublicKey | E::InvalidPsk { .. } => InvalidKeyError,
    )
}

/// Sphinx errors.
pub fn sphinx(e: wireseal::sphinx::Error) -> PyErr {
    use wireseal::sphinx::Error as E;
    exception_for!(e, E;
        E::TooLong { .. } => TooLongError,
        E::Replay => ReplayError,
        E::UnknownVersion(_) => UnsupportedVersionError,
        E::BadEphemeralKey | E::BadPublicKey | E::KeyDerivation => InvalidKeyError,
    )
}

/// peat errors.
pub fn peat(e: wireseal::peat::Error) -> PyErr {
    use wireseal::peat::Error as E;
    exception_for!(e, E;
        E::Replay { .. } => ReplayError,
        E::WeakPublicKey => InvalidKeyError,
        E::CounterExhausted | E::SessionLimit { .. } => LimitError,
        E::NoMeshKey | E::NoSession { .. } | E::SessionExpired { .. } | E::OwnNodeId => StateError,
    )
}

/// BIP324 errors.
pub fn bip324(e: wireseal::bip324::Error) -> PyErr {
    use wireseal::bip324::Error as E;
    exception_for!(e, E; E::TooLong { .. } => TooLongError)
}

/// AES Crypt errors (the native names; `wireseal.aescrypt`'s pyAesCrypt
/// layer rewrites the messages to pyAesCrypt's). An I/O failure is an
/// `OSError`.
pub fn aescrypt(e: wireseal::aescrypt::Error) -> PyErr {
    use wireseal::aescrypt::Error as E;
    if let E::Io(io) = &e {
        return pyo3::exceptions::PyOSError::new_err(io.to_string());
    }
    exception_for!(e, E;
        E::WrongPassword => AuthError,
        E::PartialBlock => TruncatedError,
        E::TooLong { .. } => TooLongError,
        E::UnsupportedVersion(_) | E::CannotWriteVersion(_) => UnsupportedVersionError,
        E::TooManyExtensions { .. } | E::TooManyIterations { .. } => LimitError,
    )
}
