//! PBKDF2-HMAC-SHA512 (RFC 8018) through RustCrypto's `pbkdf2` over `sha2`.
//!
//! In WebAssembly (`wasm32-unknown-unknown`), derivations of
//! `host::PBKDF2_MIN_ITERATIONS` rounds or more go to the host's PBKDF2
//! when one is registered (the npm package in Node: OpenSSL's; see
//! `crate::host`).

use crate::secret::Secret;
use sha2::Sha512;

/// PBKDF2-HMAC-SHA512 of `password` and `salt` with `iterations` rounds,
/// into an `N`-byte secret. `iterations` of 0 is treated as 1.
pub fn pbkdf2_hmac_sha512<const N: usize>(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
) -> Secret<N> {
    let mut out = Secret::new([0u8; N]);
    #[cfg(wireseal_wasm_host)]
    if let Some(host) =
        crate::host::for_len(iterations as usize, crate::host::PBKDF2_MIN_ITERATIONS)
    {
        if host
            .pbkdf2_hmac_sha512(password, salt, iterations.max(1), out.expose_mut())
            .is_ok()
        {
            return out;
        }
    }
    ::pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, iterations.max(1), out.expose_mut());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PBKDF2-HMAC-SHA512 of "password"/"salt", the widely published
    /// vectors (RFC 6070 inputs, SHA-512 outputs; also in Go's x/crypto tests).
    #[test]
    fn known_answers() {
        let one = pbkdf2_hmac_sha512::<64>(b"password", b"salt", 1);
        assert_eq!(
            hex::encode(one.expose()),
            "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce"
        );
        let two = pbkdf2_hmac_sha512::<64>(b"password", b"salt", 2);
        assert_eq!(
            hex::encode(two.expose()),
            "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefdb866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e04112754f27ccf4e"
        );
    }
}
