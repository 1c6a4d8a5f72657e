//! The error of the `std::io` adapters: the format's, or the I/O's.

use crate::error::ErrorKind;

/// What went wrong reading, writing or moving an AES Crypt stream: the
/// stream itself ([`Error::Format`], a [`super::super::Error`]) or the I/O
/// ([`Error::Io`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The stream was refused (wrong password, damaged, truncated, ...).
    #[error(transparent)]
    Format(#[from] crate::aescrypt::Error),
    /// Reading, writing, syncing or renaming failed.
    #[error("{0}")]
    Io(std::io::Error),
}

/// An I/O error, or the format error an `InvalidData` I/O error carries
/// (what this module's [`Read`](std::io::Read) and
/// [`Write`](std::io::Write) implementations report).
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let carried = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<crate::aescrypt::Error>())
            .copied();
        match carried {
            Some(f) if e.kind() == std::io::ErrorKind::InvalidData => Error::Format(f),
            _ => Error::Io(e),
        }
    }
}

impl Error {
    /// The failure's kind: the format error's, or [`ErrorKind::Io`].
    pub const fn kind(&self) -> ErrorKind {
        match self {
            Error::Format(e) => e.kind(),
            Error::Io(_) => ErrorKind::Io,
        }
    }

    /// The format error, when it is one.
    pub fn format(&self) -> Option<crate::aescrypt::Error> {
        match self {
            Error::Format(e) => Some(*e),
            Error::Io(_) => None,
        }
    }
}

/// For [`std::io::Write`] and [`std::io::Read`] implementations: a format
/// error becomes an `InvalidData` I/O error that carries it
/// ([`std::io::Error::get_ref`]).
impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Format(f) => std::io::Error::new(std::io::ErrorKind::InvalidData, f),
            Error::Io(io) => io,
        }
    }
}
