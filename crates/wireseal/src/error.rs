//! Errors shared by every format.
//!
//! At the crypto boundary there is one opaque failure, [`AeadError`]: a tag or
//! MAC did not verify, and nothing more is said (which key, which byte) so the
//! error cannot serve as an oracle. Each format module defines its own
//! `#[non_exhaustive]` error enum above this, whose variants tell the caller
//! what to do.

use thiserror::Error;

/// Authentication failed: the tag or MAC did not verify. Opaque on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("authentication failed (wrong key, or the data was modified)")]
pub struct AeadError;

/// A key-agreement input was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
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

/// Implements `From<AeadError>` (as `Error::Auth`) and `From<KeyError>` (as
/// `Error::WeakPublicKey`) for a format module's `Error`, so `?` lifts a
/// crypto-boundary failure into the module's vocabulary.
macro_rules! from_crypto_errors {
    ($error:ident) => {
        impl From<$crate::error::AeadError> for $error {
            fn from(_: $crate::error::AeadError) -> Self {
                $error::Auth
            }
        }

        impl From<$crate::error::KeyError> for $error {
            fn from(_: $crate::error::KeyError) -> Self {
                $error::WeakPublicKey
            }
        }
    };
}
pub(crate) use from_crypto_errors;
