//! Errors of the Meshtastic module.

crate::error::format_error! {
    /// What went wrong with a Meshtastic packet. [`Error::Auth`] is
    /// deliberately opaque.
    #[derive(Copy)]
    pub enum Error {
        /// A channel pre-shared key of an unusable length: over 32 bytes.
        #[error("invalid channel PSK length {len} (0, 1, up to 16, or up to 32 bytes)")]
        InvalidPsk {
            /// Bytes given.
            len: usize,
        } => InvalidKey,
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
    }
}
