//! Errors of the Meshtastic module.

crate::error::format_error! {
    /// What went wrong with a Meshtastic packet. [`Error::Auth`] is
    /// deliberately opaque.
    #[derive(Copy)]
    pub enum Error {
        /// A key is malformed, weak (low order, all-zero shared secret)
        /// or of the wrong length.
        #[error("invalid or weak key")]
        InvalidKey => InvalidKey,
        /// The packet, frame or onion was accepted before.
        #[error("replayed: already accepted once")]
        Replay => Replay,
        /// A channel pre-shared key longer than a channel holds (32 bytes).
        #[error("invalid channel PSK length {len} (at most 32 bytes: 0 = no encryption, 1 = default-key index, 16 = AES-128, 32 = AES-256)")]
        InvalidPsk {
            /// Bytes given.
            len: usize,
        } => InvalidKey,
        /// Channel PSK text that cannot be read (the reason never repeats
        /// the text).
        #[error("{reason}")]
        PskText {
            /// What is wrong with it.
            reason: &'static str,
        } => InvalidKey,
        /// An X25519 private key that is not clamped as RFC 7748 prescribes:
        /// the firmware uses such a scalar unclamped, so it would derive
        /// another public key and shared secret than X25519 here does.
        #[error("the X25519 private key is not clamped (Meshtastic nodes only make clamped keys; the firmware would derive a different public key and shared secret from it)")]
        UnclampedKey => InvalidKey,
        /// An MQTT envelope or a `Data` message that is not valid protobuf,
        /// or lacks a required part.
        #[error("malformed {what}")]
        Malformed {
            /// What could not be parsed.
            what: &'static str,
        } => Malformed,
        /// A protobuf field of an impossible length (a public key that is
        /// not 32 bytes, a ciphertext longer than a LoRa frame, ...).
        #[error("field {field} has an invalid length {len}")]
        FieldLength {
            /// Which field.
            field: &'static str,
            /// Its length.
            len: usize,
        } => Malformed,
        /// A header field out of range (hop counts are 3 bits).
        #[error("header field {field} out of range")]
        HeaderField {
            /// Which field.
            field: &'static str,
        } => InvalidInput,
        /// The caller's random source failed while a nonce was drawn
        /// (nothing was sealed).
        #[error("the random source failed")]
        Rng => Io,
        /// A name that is not one of a setting's values (a signature
        /// policy).
        #[error("unknown {what} (expected one of: {expected})")]
        UnknownName {
            /// What was being named.
            what: &'static str,
            /// The accepted names.
            expected: &'static str,
        } => InvalidInput,
    }
    impl From<KeyError> => InvalidKey;
}
