//! The module's error type.

use thiserror::Error as ThisError;

/// Why a Sphinx operation failed. Never carries key material or payload
/// bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ThisError)]
#[non_exhaustive]
pub enum Error {
    /// An HMAC or tag did not verify: the onion HMAC (wrong key, wrong
    /// associated data or a tampered packet), a failure packet that no hop's
    /// HMAC matches (it cannot be attributed), or encrypted recipient data.
    /// Opaque on purpose.
    #[error("authentication failed: the HMAC or tag did not verify")]
    Auth,
    /// The input is shorter than the format allows.
    #[error("too short: {len} bytes, at least {min} needed")]
    Truncated {
        /// Bytes given.
        len: usize,
        /// Fewest bytes accepted.
        min: usize,
    },
    /// The input is longer than the format (or the payload area) allows.
    #[error("too long: {len} bytes, the packet or payload area allows at most {max}")]
    TooLong {
        /// Bytes given (for a route: the bytes its hop frames need).
        len: usize,
        /// Most bytes accepted (for a route: the payload area).
        max: usize,
    },
    /// The output buffer is too small.
    #[error("output buffer too small: {required} bytes required")]
    BufferTooSmall {
        /// Bytes required.
        required: usize,
    },
    /// An onion message is neither of the two sizes BOLT #4 recommends
    /// ([`super::PAYMENT_ONION_LEN`], [`super::MESSAGE_ONION_LEN_LARGE`]).
    #[error("onion message packets are 1366 or 32834 bytes, got {len}")]
    UnsupportedSize {
        /// Bytes given.
        len: usize,
    },
    /// The version byte is not 0.
    #[error("unknown onion version {0}")]
    UnknownVersion(u8),
    /// The ephemeral key is not a valid curve point.
    #[error("onion ephemeral key is not a valid secp256k1 point")]
    BadEphemeralKey,
    /// A public key given to the library (or found in a TLV) is invalid.
    #[error("invalid public key")]
    BadPublicKey,
    /// The hop payload (or a TLV stream or BigSize) is malformed.
    #[error("malformed hop payload")]
    BadPayload,
    /// The hop frame does not end inside the payload area.
    #[error("hop frame ends past the payload area")]
    FrameOverflow,
    /// A route needs at least one hop.
    #[error("a route needs at least one hop")]
    NoHops,
    /// The onion was seen before.
    #[error("replayed onion")]
    Replay,
    /// A derived scalar was out of range (negligible probability).
    #[error("key derivation produced an invalid scalar")]
    KeyDerivation,
    /// An authenticated failure packet is malformed inside (its lengths do
    /// not add up).
    #[error("malformed failure packet")]
    BadFailure,
}
