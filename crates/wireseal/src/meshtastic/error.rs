//! Errors of the Meshtastic module.

use thiserror::Error;

/// What went wrong with a Meshtastic packet. `Auth` is deliberately opaque.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The tag did not verify: wrong key, or the packet was modified.
    #[error("authentication failed (wrong key, or the packet was modified)")]
    Auth,
    /// Fewer bytes than the smallest valid encoding.
    #[error("truncated: {len} bytes, need at least {min}")]
    Truncated {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        min: usize,
    },
    /// More bytes than a LoRa frame can carry.
    #[error("too long: {len} bytes, at most {max}")]
    TooLong {
        /// Bytes given.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The caller's output buffer is too small.
    #[error("output buffer too small: need {required} bytes")]
    BufferTooSmall {
        /// Bytes needed.
        required: usize,
    },
    /// The peer's public key is of low order or otherwise unusable.
    #[error("weak or invalid peer public key")]
    WeakPublicKey,
    /// This (from, id) pair was already accepted: a replayed packet.
    #[error("replayed packet (from {from:#010x}, id {id:#010x})")]
    Replay {
        /// Sender node number.
        from: u32,
        /// Packet id.
        id: u32,
    },
    /// A channel pre-shared key of an unusable length (over 32 bytes).
    #[error("invalid channel PSK length {len} (0, 1, up to 16, or up to 32 bytes)")]
    InvalidPsk {
        /// Bytes given.
        len: usize,
    },
    /// An MQTT envelope or a `Data` message that is not valid protobuf, or
    /// lacks a required part.
    #[error("malformed {what}")]
    Malformed {
        /// What could not be parsed.
        what: &'static str,
    },
    /// A protobuf field of an impossible length (a public key that is not
    /// 32 bytes, a ciphertext longer than a LoRa frame, ...).
    #[error("field {field} has an invalid length {len}")]
    FieldLength {
        /// Which field.
        field: &'static str,
        /// Its length.
        len: usize,
    },
    /// A header field out of range (hop counts are 3 bits).
    #[error("header field {field} out of range")]
    HeaderField {
        /// Which field.
        field: &'static str,
    },
}

crate::error::from_crypto_errors!(Error);
