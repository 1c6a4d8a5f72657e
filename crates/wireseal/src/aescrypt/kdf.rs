//! Password key derivation: 8192 rounds of SHA-256 over the UTF-16LE
//! password (versions 0-2) and PBKDF2-HMAC-SHA512 over the UTF-8 password
//! (version 3). The public IV is the salt in both.

use super::header::{Header, Version};
use crate::primitives::{pbkdf2::pbkdf2_hmac_sha512, sha::sha256_parts};
use crate::secret::{Secret, SecretVec};
use zeroize::Zeroize;

/// Rounds of the legacy (versions 0-2) derivation.
const LEGACY_ROUNDS: usize = 8192;

/// The password as UTF-16LE bytes (versions 0-2 hash this encoding).
fn utf16le(password: &str) -> SecretVec {
    let mut v = Vec::with_capacity(password.len() * 2);
    for u in password.encode_utf16() {
        v.extend_from_slice(&u.to_le_bytes());
    }
    SecretVec::new(v)
}

crate::visibility::pub_if_hazmat! {
    /// The password key of versions 0-2: `d = IV || 0^16`, then 8192 times
    /// `d = SHA-256(d || UTF-16LE password)`.
    fn legacy_key(password: &str, public_iv: &[u8; 16]) -> Secret<32> {
        let pw = utf16le(password);
        let mut d = Secret::new([0u8; 32]);
        d.expose_mut()[..16].copy_from_slice(public_iv);
        for _ in 0..LEGACY_ROUNDS {
            let mut next = sha256_parts(&[d.expose(), pw.expose()]);
            d.expose_mut().copy_from_slice(&next);
            next.zeroize();
        }
        d
    }
}

crate::visibility::pub_if_hazmat! {
    /// The password key of version 3: PBKDF2-HMAC-SHA512(UTF-8 password,
    /// salt = public IV, `iterations`), 32 bytes.
    fn v3_key(password: &str, public_iv: &[u8; 16], iterations: u32) -> Secret<32> {
        pbkdf2_hmac_sha512::<32>(password.as_bytes(), public_iv, iterations)
    }
}

/// The password key for `version`.
pub(crate) fn derive(
    version: Version,
    password: &str,
    public_iv: &[u8; 16],
    iterations: u32,
) -> Secret<32> {
    match version {
        Version::V3 => v3_key(password, public_iv, iterations),
        _ => legacy_key(password, public_iv),
    }
}

/// The password key for `header`'s stream (its version, public IV and
/// rounds).
pub(crate) fn for_header(password: &str, header: &Header) -> Secret<32> {
    derive(
        header.version,
        password,
        &header.public_iv,
        header.iterations.unwrap_or(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16le_of_non_ascii() {
        // U+00E9 and U+1F600 (a surrogate pair).
        assert_eq!(
            utf16le("é😀").expose(),
            &[0xe9, 0x00, 0x3d, 0xd8, 0x00, 0xde]
        );
    }
}
