//! Errors shared by every format.
//!
//! At the crypto boundary there is one opaque failure, [`AeadError`]: a tag or
//! MAC did not verify, and nothing more is said (which key, which byte) so the
//! error cannot serve as an oracle. Each format module declares its own
//! `#[non_exhaustive]` `Error` above this with the private `format_error!`
//! macro, which puts the variants every format shares first (one
//! declaration, one message each) and the format's own after them, and gives
//! every variant an [`ErrorKind`].
//!
//! [`ErrorKind`] is what drivers speak: the command line prints it as the
//! `kind` of a JSON error, the Python package picks its exception class from
//! it, and the C ABI returns it as an error code. The same failure has the
//! same kind in every driver.

use core::fmt;

/// Authentication failed: the tag or MAC did not verify. Opaque on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("authentication failed (wrong key, or the data was modified)")]
pub struct AeadError;

/// A key-agreement input was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The peer's public key is malformed, of low order, or yields an
    /// all-zero shared secret.
    #[error("weak or invalid peer public key")]
    WeakPublicKey,
    /// Our private key is malformed.
    #[error("invalid private key")]
    InvalidPrivateKey,
}

/// What kind of failure an error is, the same in every format and driver.
///
/// Every format `Error` has a `kind()` method. The first four kinds are the
/// variants every format's `Error` has, under the same name; the rest group
/// a format's own variants (a format has a variant of a kind only where one
/// of its calls can return it: `InvalidKey`, `Replay`, `Poisoned` and
/// `Exhausted` are variants of those names where they occur).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A tag, HMAC or password check failed. Opaque.
    Auth,
    /// The input is shorter than the format allows.
    Truncated,
    /// The input is longer than the format allows.
    TooLong,
    /// The caller's output buffer is too small.
    BufferTooSmall,
    /// A key is malformed, weak, or of the wrong length.
    InvalidKey,
    /// The packet, frame or onion was accepted before.
    Replay,
    /// An earlier failure poisoned the state; it cannot be used further.
    Poisoned,
    /// A counter or key-usage limit is used up; re-key.
    Exhausted,
    /// The input breaks a structural rule of its format.
    Malformed,
    /// A version, size or feature this library does not handle.
    Unsupported,
    /// A configured limit was reached (sessions, iterations, extensions).
    Limit,
    /// The state does not allow this call (no session, no key, out of order).
    State,
    /// The input is well formed but a policy refuses it.
    Policy,
    /// An argument the caller gave is out of range or unusable.
    InvalidInput,
    /// Reading or writing failed (drivers), or the caller's random source
    /// reported a failure (the core's `*_with_rng` calls).
    Io,
}

impl ErrorKind {
    /// How many kinds there are.
    pub const COUNT: usize = 15;

    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; Self::COUNT] = [
        ErrorKind::Auth,
        ErrorKind::Truncated,
        ErrorKind::TooLong,
        ErrorKind::BufferTooSmall,
        ErrorKind::InvalidKey,
        ErrorKind::Replay,
        ErrorKind::Poisoned,
        ErrorKind::Exhausted,
        ErrorKind::Malformed,
        ErrorKind::Unsupported,
        ErrorKind::Limit,
        ErrorKind::State,
        ErrorKind::Policy,
        ErrorKind::InvalidInput,
        ErrorKind::Io,
    ];

    /// The kind's position in [`ErrorKind::ALL`]: a table of
    /// [`ErrorKind::COUNT`] entries indexed by it covers every kind, so a
    /// driver's mapping (the C ABI's status codes) needs no catch-all and
    /// stops compiling when a kind is added.
    pub const fn index(self) -> usize {
        match self {
            ErrorKind::Auth => 0,
            ErrorKind::Truncated => 1,
            ErrorKind::TooLong => 2,
            ErrorKind::BufferTooSmall => 3,
            ErrorKind::InvalidKey => 4,
            ErrorKind::Replay => 5,
            ErrorKind::Poisoned => 6,
            ErrorKind::Exhausted => 7,
            ErrorKind::Malformed => 8,
            ErrorKind::Unsupported => 9,
            ErrorKind::Limit => 10,
            ErrorKind::State => 11,
            ErrorKind::Policy => 12,
            ErrorKind::InvalidInput => 13,
            ErrorKind::Io => 14,
        }
    }

    /// The kind's stable name (`snake_case`), as the command line's JSON and
    /// the C ABI's documentation spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Auth => "auth",
            ErrorKind::Truncated => "truncated",
            ErrorKind::TooLong => "too_long",
            ErrorKind::BufferTooSmall => "buffer_too_small",
            ErrorKind::InvalidKey => "invalid_key",
            ErrorKind::Replay => "replay",
            ErrorKind::Poisoned => "poisoned",
            ErrorKind::Exhausted => "exhausted",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Limit => "limit",
            ErrorKind::State => "state",
            ErrorKind::Policy => "policy",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Io => "io",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Declares a format module's `Error`: the variants every format shares
/// (`Auth`, `Truncated`, `TooLong`, `BufferTooSmall`), then the module's
/// own, each followed by `=> Kind` (an [`ErrorKind`] variant); a module
/// lists only variants one of its calls can return. Generates the enum
/// (`Debug`, `Clone`, `PartialEq`, `Eq`, `thiserror::Error`,
/// `#[non_exhaustive]`), its `kind()` method, `From<AeadError>`, and, after
/// a trailing `impl From<KeyError> => Variant;`, `From<KeyError>`.
///
/// ```ignore
/// crate::error::format_error! {
///     /// What went wrong.
///     #[derive(Copy)]
///     pub enum Error {
///         /// The first byte is unknown.
///         #[error("unknown marker {0:#04x}")]
///         UnknownMarker(u8) => Malformed,
///     }
/// }
/// ```
macro_rules! format_error {
    (
        $(#[$meta:meta])*
        pub enum Error {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $( ( $($tuple:tt)* ) )? $( { $($field:tt)* } )? => $kind:ident
            ),* $(,)?
        }
        $( impl From<KeyError> => $key_variant:ident; )?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
        #[non_exhaustive]
        pub enum Error {
            /// A tag, HMAC or password check failed: wrong key, or the data
            /// was modified. Opaque on purpose: nothing says which byte.
            #[error("authentication failed (wrong key, or the data was modified)")]
            Auth,
            /// The input is shorter than the format allows.
            #[error("truncated: {len} bytes, at least {min} needed")]
            Truncated {
                /// Bytes given.
                len: usize,
                /// Fewest bytes accepted.
                min: usize,
            },
            /// The input is longer than the format allows.
            #[error("too long: {len} bytes, at most {max} allowed")]
            TooLong {
                /// Bytes given (or announced).
                len: usize,
                /// Most bytes accepted.
                max: usize,
            },
            /// The caller's output buffer is too small; nothing was written.
            #[error("output buffer too small: {required} bytes needed")]
            BufferTooSmall {
                /// Bytes the call needs.
                required: usize,
            },
            $(
                $(#[$vmeta])*
                $variant $( ( $($tuple)* ) )? $( { $($field)* } )?,
            )*
        }

        impl Error {
            /// The failure's kind, the same in every format and driver.
            pub const fn kind(&self) -> $crate::error::ErrorKind {
                use $crate::error::ErrorKind as K;
                match self {
                    Error::Auth => K::Auth,
                    Error::Truncated { .. } => K::Truncated,
                    Error::TooLong { .. } => K::TooLong,
                    Error::BufferTooSmall { .. } => K::BufferTooSmall,
                    $( Error::$variant { .. } => K::$kind, )*
                }
            }
        }

        impl From<$crate::error::AeadError> for Error {
            fn from(_: $crate::error::AeadError) -> Self {
                Error::Auth
            }
        }

        $(
            impl From<$crate::error::KeyError> for Error {
                fn from(_: $crate::error::KeyError) -> Self {
                    Error::$key_variant
                }
            }
        )?
    };
}
pub(crate) use format_error;
