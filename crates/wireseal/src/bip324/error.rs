//! Errors of the BIP324 module.

crate::error::format_error! {
    /// What went wrong in a BIP324 handshake or session. Nothing here
    /// carries key material or plaintext.
    ///
    /// The shared variants, as this module uses them: [`Error::Auth`], a
    /// packet's tag did not verify (the receiver is poisoned);
    /// [`Error::Truncated`], a sealed packet shorter than
    /// [`super::OVERHEAD`] or a body shorter than its announced length;
    /// [`Error::TooLong`], contents over [`super::MAX_CONTENTS_LEN`], a
    /// length field announcing more than the receive limit (refused before
    /// any buffer of that size exists), garbage over
    /// [`super::MAX_GARBAGE_LEN`]; [`Error::Poisoned`], an earlier failure
    /// poisoned this direction; [`Error::Exhausted`], the 64-bit rekey
    /// counter would wrap; [`Error::InvalidKey`], a private key was rejected.
    #[derive(Copy)]
    pub enum Error {
        /// The peer sent more than 4095 bytes of garbage without its terminator.
        #[error("no garbage terminator within 4095 bytes of garbage")]
        NoGarbageTerminator => Malformed,
        /// A packet body was opened before its length field was decrypted,
        /// or a length field was decrypted twice.
        #[error("packet length and packet calls out of order")]
        OutOfOrder => State,
    }
}
