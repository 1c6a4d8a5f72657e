//! The AES Crypt error type.

crate::error::format_error! {
    /// Everything that can go wrong in the sans-IO AES Crypt core. Reading
    /// and writing files, streams and sinks fail with
    /// [`io::Error`](super::io::Error), which holds either this error or the
    /// `std::io::Error`.
    ///
    /// The shared variants, as this module uses them: [`Error::Auth`], the
    /// body HMAC failed (versions 1-3: the password was right, the data was
    /// damaged or modified; version 0: either); [`Error::Truncated`], the
    /// stream ended after `len` bytes where at least `min` are needed
    /// (counted from the stream's first byte, wherever it ended: header,
    /// session block or trailer); [`Error::TooLong`], a header longer than
    /// [`Limits::max_header_len`](super::Limits::max_header_len);
    /// [`Error::BufferTooSmall`], an `*_into` buffer is too small;
    /// [`Error::Poisoned`], an earlier call on this
    /// [`Encryptor`](super::Encryptor) or [`Decryptor`](super::Decryptor)
    /// failed.
    ///
    /// Two authentication failures are told apart, because the format itself
    /// separates them: versions 1-3 authenticate the session block with a key
    /// derived from the password, so a wrong password fails there
    /// ([`Error::WrongPassword`], of kind
    /// [`ErrorKind::Auth`](crate::error::ErrorKind::Auth)) before any body
    /// byte is used, while the body HMAC at the end ([`Error::Auth`]) fails
    /// only when the data was damaged or modified. Version 0 has one HMAC, so
    /// both look like [`Error::Auth`]. Neither carries any detail beyond
    /// that.
    #[derive(Copy)]
    pub enum Error {
        /// An earlier failure poisoned this state; start again.
        #[error("poisoned by an earlier failure")]
        Poisoned => Poisoned,
        /// The session block's HMAC failed (versions 1-3): the password is
        /// wrong (or that block was altered, which is indistinguishable).
        #[error("wrong password")]
        WrongPassword => Auth,
        /// The data does not start with the `AES` magic.
        #[error("not an AES Crypt stream (no \"AES\" magic)")]
        NotAesCrypt => Malformed,
        /// A version octet this library does not know.
        #[error("unsupported AES Crypt stream version {0}")]
        UnsupportedVersion(u8) => Unsupported,
        /// Versions 0 and 1 can be read but not written.
        #[error("AES Crypt version {0} can be read but not written (write 2 or 3)")]
        CannotWriteVersion(u8) => Unsupported,
        /// A structural rule of the format is broken.
        #[error("malformed AES Crypt stream: {0}")]
        Malformed(&'static str) => Malformed,
        /// The header has more extensions than the configured limit.
        #[error("AES Crypt header has more than {limit} extensions")]
        TooManyExtensions {
            /// The limit.
            limit: usize,
        } => Limit,
        /// The encrypted body is not a whole number of 16-byte AES blocks:
        /// bytes were cut off or appended (the length alone can't tell
        /// which).
        #[error("AES Crypt stream length is not a whole number of 16-byte blocks (truncated, or extra bytes appended)")]
        PartialBlock => Truncated,
        /// A version 3 stream asks for more PBKDF2 iterations than allowed.
        #[error("AES Crypt stream asks for {iterations} PBKDF2 iterations (limit {limit})")]
        TooManyIterations {
            /// What the stream asks for.
            iterations: u32,
            /// The configured limit.
            limit: u32,
        } => Limit,
        /// Version 3 padding is invalid although the HMAC matched (a broken
        /// writer).
        #[error("invalid padding in an authenticated AES Crypt stream")]
        BadPadding => Malformed,
        /// A [`ReleasePass`](super::ReleasePass) (and so a
        /// [`SeekDecryptor`](super::io::SeekDecryptor)) found that its
        /// input changed between the verification pass and the read pass;
        /// the changed chunk was not released. A `SeekDecryptor` reports it
        /// inside an `std::io::Error` of kind `InvalidData` (see
        /// [`std::io::Error::get_ref`]).
        #[error("the AES Crypt input changed after it was verified; nothing from the changed part was released")]
        InputChanged => Malformed,
        /// An extension cannot be encoded (too long, or a NUL in its
        /// identifier).
        #[error("invalid AES Crypt extension: {0}")]
        InvalidExtension(&'static str) => InvalidInput,
        /// An iteration count of zero was requested.
        #[error("PBKDF2 iteration count must be at least 1")]
        InvalidIterations => InvalidInput,
    }
}
