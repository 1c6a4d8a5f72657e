//! Sphinx onion packets, Lightning BOLT #4: build, peel, failure onions,
//! onion messages and route blinding, byte-compatible with the specification
//! and its test vectors.
//!
//! * [`build`] wraps hop payloads for a route. Per-hop shared secrets are
//!   derived linearly ([`keys::session_secrets`]): the running ephemeral
//!   private key is multiplied by each blinding factor, so a hop costs one
//!   ECDH and one fixed-base multiplication, the floor for this format.
//! * [`Onion::peel`] is a consuming transition to [`Peeled::Forward`] or
//!   [`Peeled::Final`]; the HMAC is checked in constant time before the payload
//!   is decrypted or parsed, and a hop frame must end inside the payload area.
//!   [`ReplayLog`] lets the caller keep a replay log keyed by shared secret.
//! * [`failure`] creates, wraps and attributes failure packets.
//! * [`blinding`] builds and unblinds blinded paths (payments and onion
//!   messages); onion messages use [`MESSAGE_AREA_LARGE`] or [`PAYMENT_AREA`].
//! * [`peel_batch`] peels many onions across cores.
//!
//! Only TLV hop payloads are supported; the retired 65-byte "legacy" payload
//! (first byte 0) is rejected when peeled.

pub mod bigsize;
pub mod blinding;
pub mod failure;
pub mod keys;
pub mod tlv;

mod batch;
mod build;
mod packet;
mod peel;

pub use batch::{peel_batch, PeelItem};
pub use build::{build, build_into, Hop, Padding};
pub use keys::{HopSecrets, SharedSecret};
pub use packet::{onion_len, Onion, OVERHEAD};
pub use peel::{MemoryReplayLog, Peeled, ReplayLog, ReplayTag};

use thiserror::Error;

/// Packet version byte.
pub const VERSION: u8 = 0;
/// HMAC length.
pub const HMAC_LEN: usize = 32;
/// Payload area of a payment onion (and of a small onion message).
pub const PAYMENT_AREA: usize = 1300;
/// Payload area of a large onion message.
pub const MESSAGE_AREA_LARGE: usize = 32768;
/// Size of a payment onion (1366 bytes).
pub const PAYMENT_ONION_LEN: usize = onion_len(PAYMENT_AREA);

/// Why a Sphinx operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SphinxError {
    /// The packet has the wrong size.
    #[error("onion packet must be {expected} bytes, got {got}")]
    BadLength {
        /// Expected size.
        expected: usize,
        /// Size given.
        got: usize,
    },
    /// The version byte is not 0.
    #[error("unknown onion version {0}")]
    UnknownVersion(u8),
    /// The ephemeral key is not a valid curve point.
    #[error("onion ephemeral key is not a valid secp256k1 point")]
    BadEphemeralKey,
    /// A public key given to the library is invalid.
    #[error("invalid public key")]
    BadPublicKey,
    /// The packet HMAC did not verify (wrong key, wrong associated data, or
    /// tampered packet).
    #[error("onion HMAC did not verify")]
    BadHmac,
    /// The hop payload (or a TLV stream) is malformed.
    #[error("malformed hop payload")]
    BadPayload,
    /// The hop frame does not end inside the payload area.
    #[error("hop frame ends past the payload area")]
    FrameOverflow,
    /// The hop payloads do not fit in the payload area.
    #[error("hop payloads need {need} bytes, the payload area has {have}")]
    PayloadsTooLarge {
        /// Bytes the frames need.
        need: usize,
        /// Payload area size.
        have: usize,
    },
    /// A route needs at least one hop.
    #[error("a route needs at least one hop")]
    NoHops,
    /// The onion was seen before.
    #[error("replayed onion")]
    Replay,
    /// A derived scalar was out of range (negligible probability).
    #[error("key derivation produced an invalid scalar")]
    KeyDerivation,
    /// No hop's HMAC matched the failure packet.
    #[error("failure packet could not be attributed to any hop")]
    UnattributableFailure,
    /// A failure packet or failure message is malformed.
    #[error("malformed failure packet")]
    BadFailure,
    /// Encrypted recipient data did not authenticate.
    #[error("encrypted recipient data did not authenticate")]
    BadEncryptedData,
    /// The output buffer is too small.
    #[error("output buffer too small: {required} bytes required")]
    BufferTooSmall {
        /// Bytes required.
        required: usize,
    },
}
