//! The PKC payload's layout on the wire: `ciphertext | tag(8) |
//! extraNonce(4)`, and the lengths it implies. Read by the engine
//! ([`super::pkc`]) and by the key forms ([`super::pkc_keys`]).

use super::{Error, MAX_PAYLOAD_LEN};
use crate::primitives::aes_ccm;

/// Tag length on the wire.
pub const TAG_LEN: usize = aes_ccm::TAG_LEN;
/// extraNonce length on the wire.
pub const EXTRA_NONCE_LEN: usize = 4;
/// Bytes a PKC payload adds to its plaintext.
pub const OVERHEAD: usize = TAG_LEN + EXTRA_NONCE_LEN;
/// Largest plaintext that fits a LoRa frame.
pub const MAX_PLAINTEXT_LEN: usize = MAX_PAYLOAD_LEN - OVERHEAD;

/// Size of the payload that sealing `plaintext_len` bytes produces.
pub const fn sealed_len(plaintext_len: usize) -> usize {
    plaintext_len + OVERHEAD
}

/// Size of the plaintext that opening a `sealed_len`-byte payload yields.
///
/// # Errors
/// [`Error::Truncated`] below [`OVERHEAD`] bytes; [`Error::TooLong`] above
/// [`MAX_PAYLOAD_LEN`].
pub const fn opened_len(sealed_len: usize) -> Result<usize, Error> {
    if sealed_len < OVERHEAD {
        return Err(Error::Truncated {
            len: sealed_len,
            min: OVERHEAD,
        });
    }
    if sealed_len > MAX_PAYLOAD_LEN {
        return Err(Error::TooLong {
            len: sealed_len,
            max: MAX_PAYLOAD_LEN,
        });
    }
    Ok(sealed_len - OVERHEAD)
}
