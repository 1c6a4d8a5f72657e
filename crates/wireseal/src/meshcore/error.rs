//! Errors of the MeshCore module.

use super::payload_type::PayloadType;

crate::error::format_error! {
    /// What is wrong with a MeshCore packet, key or argument. Every packet
    /// the firmware drops is refused with one of these (the firmware's own
    /// reason in each variant's docs); [`Error::Auth`] is deliberately
    /// opaque.
    #[derive(Copy)]
    pub enum Error {
        /// The header's payload version is not 0 (`PAYLOAD_VER_1`); the
        /// firmware drops it as an unsupported packet version.
        #[error("unsupported payload version {0} (MeshCore v1 packets have version 0)")]
        Version(u8) => Unsupported,
        /// The path length byte's hash size bits are `0b11`, which the
        /// firmware reserves and drops.
        #[error("reserved path hash size (path length byte {0:#04x})")]
        ReservedHashSize(u8) => Malformed,
        /// The path is longer than the firmware's 64 bytes.
        #[error("path of {len} bytes (at most 64)")]
        PathTooLong {
            /// Path bytes announced.
            len: usize,
        } => TooLong,
        /// The payload is longer than the firmware's 184 bytes.
        #[error("payload of {len} bytes (at most 184)")]
        PayloadTooLong {
            /// Payload bytes given.
            len: usize,
        } => TooLong,
        /// The payload is shorter than its type's smallest packet.
        #[error("{payload_type} payload of {len} bytes (at least {min})")]
        PayloadTooShort {
            /// The packet's payload type.
            payload_type: PayloadType,
            /// Payload bytes given.
            len: usize,
            /// Fewest bytes the firmware accepts for this type.
            min: usize,
        } => Truncated,
        /// A key of the wrong length or form (a channel key that is not 16
        /// or 32 bytes, an identity key that is not 32 or 64 bytes).
        #[error("invalid {what} length {len} (expected {expected})")]
        KeyLength {
            /// Which key.
            what: &'static str,
            /// Bytes given.
            len: usize,
            /// The accepted lengths.
            expected: &'static str,
        } => InvalidKey,
        /// A key the firmware refuses or that cannot be used: a public key
        /// that is not a curve point, a 64-byte private key whose scalar is
        /// not clamped, or an identity whose public key starts with `00`
        /// or `FF` (MeshCore reserves those hashes).
        #[error("invalid key: {reason}")]
        InvalidKey {
            /// Why.
            reason: &'static str,
        } => InvalidKey,
        /// Key text that cannot be read (the reason never repeats the text).
        #[error("{reason}")]
        KeyText {
            /// What is wrong with it.
            reason: &'static str,
        } => InvalidKey,
        /// A value to be sent that the format cannot carry (text over 160
        /// bytes, a latitude out of range, a path of the wrong size).
        #[error("{what} out of range: {reason}")]
        Argument {
            /// Which argument.
            what: &'static str,
            /// The rule it breaks.
            reason: &'static str,
        } => InvalidInput,
        /// A name that is not one of a setting's values.
        #[error("unknown {what} (expected one of: {expected})")]
        UnknownName {
            /// What was being named.
            what: &'static str,
            /// The accepted names.
            expected: &'static str,
        } => InvalidInput,
        /// The caller's random source failed (nothing was made).
        #[error("the random source failed")]
        Rng => Io,
    }
}

impl Error {
    /// The error's short reason name (`version`, `reserved_hash_size`,
    /// `path_too_long`, `truncated`, `payload_too_long`,
    /// `payload_too_short`, `invalid_key`, ...), finer than its
    /// [`kind`](Error::kind): what the command line's JSON and the
    /// gateway's drop counter call it.
    pub const fn reason(&self) -> &'static str {
        match self {
            Error::Version(_) => "version",
            Error::ReservedHashSize(_) => "reserved_hash_size",
            Error::PathTooLong { .. } => "path_too_long",
            Error::PayloadTooLong { .. } => "payload_too_long",
            Error::PayloadTooShort { .. } => "payload_too_short",
            Error::Truncated { .. } => "truncated",
            Error::TooLong { .. } => "too_long",
            other => other.kind().as_str(),
        }
    }
}
