//! Errors of the BIP324 module.

use thiserror::Error;

/// What went wrong in a BIP324 handshake or session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Bip324Error {
    /// The caller's output buffer is too small; nothing was written and the
    /// state is unchanged.
    #[error("output buffer too small: {required} bytes required")]
    BufferTooSmall {
        /// Bytes the call needs.
        required: usize,
    },
    /// More than 4095 bytes of garbage were offered for sending.
    #[error("garbage of {len} bytes exceeds the 4095-byte limit")]
    TooMuchGarbage {
        /// Offered length.
        len: usize,
    },
    /// Contents too long for the 3-byte length field (sending side).
    #[error("packet contents of {len} bytes exceed the {max}-byte limit")]
    ContentsTooLarge {
        /// Offered length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The peer announced a packet larger than the receive limit; refused
    /// before any buffer of that size exists. The session is poisoned.
    #[error("peer announced {len} bytes of contents, over the {max}-byte limit")]
    OversizedPacket {
        /// Announced contents length.
        len: usize,
        /// The receive limit.
        max: usize,
    },
    /// The peer sent more than 4095 bytes of garbage without its terminator.
    #[error("no garbage terminator within 4095 bytes of garbage")]
    NoGarbageTerminator,
    /// A packet's tag did not verify (wrong key, modified, truncated or
    /// reordered data). The session is poisoned.
    #[error("packet authentication failed")]
    Decrypt,
    /// The buffer handed to `open` is not the announced packet.
    #[error("packet buffer is {got} bytes, the announced packet is {expected}")]
    WrongPacketLength {
        /// Bytes the announced packet occupies after its length field.
        expected: usize,
        /// Bytes given.
        got: usize,
    },
    /// `open` was called before `decrypt_length`, or `decrypt_length` twice.
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
