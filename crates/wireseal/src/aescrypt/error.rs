//! The AES Crypt error type.

use thiserror::Error;

/// Where in an AES Crypt stream something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Region {
    /// The plain header: magic, version, extensions, iteration count, IV.
    Header,
    /// The encrypted session IV and key with their HMAC (versions 1-3).
    SessionBlock,
    /// The encrypted body.
    Body,
    /// The size octet (versions 1-2) and the final HMAC.
    Trailer,
}

/// Everything that can go wrong reading or writing AES Crypt streams.
///
/// Two authentication failures are told apart, because the format itself
/// separates them: versions 1-3 authenticate the session block with a key
/// derived from the password, so a wrong password fails there
/// ([`Error::WrongPassword`]) before any body byte is used, while the body
/// HMAC at the end ([`Error::Auth`]) fails only when the data was damaged
/// or modified. Version 0 has one HMAC, so both look like [`Error::Auth`].
/// Neither carries any detail beyond that.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The body HMAC failed (versions 1-3: the password was right, the data
    /// was damaged or modified; version 0: either). Opaque.
    #[error("authentication failed: the encrypted data is corrupted or was modified (or, for a version 0 stream, the password is wrong)")]
    Auth,
    /// The stream ended early: `len` bytes were seen where the given region
    /// needs at least `min` bytes from the stream start.
    #[error(
        "AES Crypt stream truncated in the {region:?} region ({len} bytes, at least {min} needed)"
    )]
    Truncated {
        /// Bytes of the stream seen.
        len: usize,
        /// Bytes the stream needs at least.
        min: usize,
        /// The region the stream ended in.
        region: Region,
    },
    /// The header (extensions) is longer than the configured limit.
    #[error("AES Crypt header of at least {len} bytes is longer than the limit of {max} bytes")]
    TooLong {
        /// Header bytes the stream asks for (at least).
        len: usize,
        /// The limit in bytes.
        max: usize,
    },
    /// The caller's output buffer is too small.
    #[error("output buffer too small: {required} bytes required")]
    BufferTooSmall {
        /// Bytes needed.
        required: usize,
    },
    /// The session block's HMAC failed (versions 1-3): the password is
    /// wrong (or that block was altered, which is indistinguishable).
    #[error("wrong password")]
    WrongPassword,
    /// The data does not start with the `AES` magic.
    #[error("not an AES Crypt stream (no \"AES\" magic)")]
    NotAesCrypt,
    /// A version octet this library does not know.
    #[error("unsupported AES Crypt stream version {0}")]
    UnsupportedVersion(u8),
    /// Versions 0 and 1 can be read but not written.
    #[error("AES Crypt version {0} can be read but not written (write 2 or 3)")]
    CannotWriteVersion(u8),
    /// A structural rule of the format is broken.
    #[error("malformed AES Crypt stream: {0}")]
    Malformed(&'static str),
    /// The header has more extensions than the configured limit.
    #[error("AES Crypt header has more than {limit} extensions")]
    TooManyExtensions {
        /// The limit.
        limit: usize,
    },
    /// The encrypted body is not a whole number of 16-byte AES blocks: bytes
    /// were cut off or appended (the length alone can't tell which).
    #[error("AES Crypt stream length is not a whole number of 16-byte blocks (truncated, or extra bytes appended)")]
    PartialBlock,
    /// A version 3 stream asks for more PBKDF2 iterations than allowed.
    #[error("AES Crypt stream asks for {iterations} PBKDF2 iterations (limit {limit})")]
    TooManyIterations {
        /// What the stream asks for.
        iterations: u32,
        /// The configured limit.
        limit: u32,
    },
    /// Version 3 padding is invalid although the HMAC matched (a broken writer).
    #[error("invalid padding in an authenticated AES Crypt stream")]
    BadPadding,
    /// A [`SeekDecryptor`](super::io::SeekDecryptor) found that its input
    /// changed between the verification pass and the read pass; the changed
    /// chunk was not released. Reported inside an `std::io::Error` of kind
    /// `InvalidData` (see [`std::io::Error::get_ref`]).
    #[error("the AES Crypt input changed after it was verified; nothing from the changed part was released")]
    InputChanged,
    /// An extension cannot be encoded (too long, or a NUL in its identifier).
    #[error("invalid AES Crypt extension: {0}")]
    InvalidExtension(&'static str),
    /// An iteration count of zero was requested.
    #[error("PBKDF2 iteration count must be at least 1")]
    InvalidIterations,
    /// An earlier call on this [`Encryptor`](super::Encryptor) or
    /// [`Decryptor`](super::Decryptor) failed; it cannot be used further.
    #[error("an earlier AES Crypt operation on this state failed")]
    Poisoned,
    /// Reading the input or writing the output failed (the [`io`](super::io)
    /// adapters and [`ProvisionalSink`](super::ProvisionalSink)s only).
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// True for errors caused by the password or the stream's authenticity
    /// (as opposed to structure, limits or I/O).
    pub fn is_authentication_failure(&self) -> bool {
        matches!(self, Error::WrongPassword | Error::Auth)
    }
}
