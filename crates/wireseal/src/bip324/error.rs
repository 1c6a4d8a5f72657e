//! Errors of the BIP324 module.

use thiserror::Error as ThisError;

/// What went wrong in a BIP324 handshake or session. Nothing here carries
/// key material or plaintext.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ThisError)]
#[non_exhaustive]
pub enum Error {
    /// A packet's tag did not verify (wrong key, modified, truncated or
    /// reordered data). Opaque by design. The receiver is poisoned.
    #[error("packet authentication failed")]
    Auth,
    /// Input shorter than the format needs: a sealed packet shorter than
    /// [`super::OVERHEAD`], or a packet body shorter than its announced
    /// length. A receiver that saw it is poisoned.
    #[error("input of {len} bytes is shorter than the {min} bytes required")]
    Truncated {
        /// Bytes given.
        len: usize,
        /// Bytes required.
        min: usize,
    },
    /// Input longer than allowed: contents over [`super::MAX_CONTENTS_LEN`]
    /// (sending), a length field announcing more than the receive limit
    /// (refused before any buffer of that size exists; the receiver is
    /// poisoned), garbage over [`super::MAX_GARBAGE_LEN`], or a packet body
    /// longer than its announced length.
    #[error("{len} bytes exceed the {max}-byte limit")]
    TooLong {
        /// Offered or announced length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The caller's output buffer is too small; nothing was written and the
    /// state is unchanged.
    #[error("output buffer too small: {required} bytes required")]
    BufferTooSmall {
        /// Bytes the call needs.
        required: usize,
    },
    /// The peer sent more than 4095 bytes of garbage without its terminator.
    #[error("no garbage terminator within 4095 bytes of garbage")]
    NoGarbageTerminator,
    /// A packet body was opened before its length field was decrypted, or a
    /// length field was decrypted twice.
    #[error("packet length and packet calls out of order")]
    OutOfOrder,
    /// An earlier failure poisoned this direction of the session.
    #[error("session poisoned by an earlier failure")]
    Poisoned,
    /// The 64-bit rekey counter would wrap (after 224 * 2^64 packets).
    #[error("packet counter exhausted")]
    CounterExhausted,
    /// A private key was rejected.
    #[error("invalid private key")]
    InvalidKey,
}
