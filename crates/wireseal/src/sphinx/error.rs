//! The module's error type.

crate::error::format_error! {
    /// Why a Sphinx operation failed. Never carries key material or payload
    /// bytes.
    ///
    /// [`Error::Auth`] covers the onion HMAC (wrong key, wrong associated
    /// data or a tampered packet), a failure packet that no hop's HMAC
    /// matches, and encrypted recipient data. [`Error::InvalidKey`] covers
    /// an ephemeral key or public key that is not a valid curve point.
    /// [`Error::TooLong`] for a route gives the bytes its hop frames need and
    /// the payload area.
    #[derive(Copy)]
    pub enum Error {
        /// A key is malformed, weak (low order, all-zero shared secret)
        /// or of the wrong length.
        #[error("invalid or weak key")]
        InvalidKey => InvalidKey,
        /// The packet, frame or onion was accepted before.
        #[error("replayed: already accepted once")]
        Replay => Replay,
        /// An onion message is neither of the two sizes BOLT #4 recommends
        /// ([`super::PAYMENT_ONION_LEN`], [`super::MESSAGE_ONION_LEN_LARGE`]).
        #[error("onion message packets are 1366 or 32834 bytes, got {len}")]
        UnsupportedSize {
            /// Bytes given.
            len: usize,
        } => Unsupported,
        /// The version byte is not 0.
        #[error("unknown onion version {0}")]
        UnknownVersion(u8) => Unsupported,
        /// The hop payload (or a TLV stream or BigSize) is malformed.
        #[error("malformed hop payload")]
        BadPayload => Malformed,
        /// The hop frame does not end inside the payload area.
        #[error("hop frame ends past the payload area")]
        FrameOverflow => Malformed,
        /// A hop payload to build is empty (its zero length prefix would be
        /// the retired legacy marker, which no peer peels).
        #[error("hop {hop}: empty payload (a hop payload is a TLV stream of at least one record)")]
        EmptyPayload {
            /// The hop, counted from 1.
            hop: usize,
        } => InvalidInput,
        /// A route needs at least one hop.
        #[error("a route needs at least one hop")]
        NoHops => InvalidInput,
        /// A derived scalar was out of range (negligible probability).
        #[error("key derivation produced an invalid scalar")]
        KeyDerivation => InvalidKey,
        /// An authenticated failure packet is malformed inside (its lengths
        /// do not add up).
        #[error("malformed failure packet")]
        BadFailure => Malformed,
        /// A payload area other than the two BOLT #4 defines.
        #[error("the payload area is `payment` (1300 bytes) or `message-large` (32768 bytes)")]
        UnknownArea => InvalidInput,
        /// A padding name other than `deterministic` and `random`.
        #[error("padding is `deterministic` or `random`")]
        UnknownPadding => InvalidInput,
        /// An attribution status other than `valid`, `absent` and `broken`.
        #[error("attribution is `valid`, `absent` or `broken`")]
        UnknownAttribution => InvalidInput,
        /// An incoming-HTLC name other than `unblinded` and `blinded`.
        #[error("the incoming HTLC is `unblinded` or `blinded`")]
        UnknownIncoming => InvalidInput,
        /// A blinded tail longer than the route.
        #[error("a blinded tail of {blinded} hops on a route of {hops}")]
        BlindedTail {
            /// Hops said to be inside the blinded path.
            blinded: usize,
            /// Hops on the route.
            hops: usize,
        } => InvalidInput,
        /// A TLV stream holds an even type this library does not know (BOLT #1:
        /// it must not be ignored).
        #[error("unknown even TLV type {0}")]
        UnknownEvenType(u64) => Unsupported,
        /// A `fulfillment_payload_tlvs` stream to seal already holds a
        /// `padding` record (type 1): the library adds it.
        #[error("the fulfillment payload's records hold a padding record (type 1); padding is added when sealing")]
        PaddingGiven => InvalidInput,
    }
    impl From<KeyError> => InvalidKey;
}
