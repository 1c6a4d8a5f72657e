//! HKDF-SHA256 (RFC 5869) through RustCrypto's `hkdf`, extracted once and
//! expanded many times (a handshake deriving six keys pays for one extract).

use crate::secret::Secret;
use sha2::Sha256;

/// A pseudorandom key after HKDF-Extract, ready for any number of expands.
pub struct HkdfSha256(hkdf::Hkdf<Sha256>);

impl core::fmt::Debug for HkdfSha256 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HkdfSha256(redacted)")
    }
}

impl HkdfSha256 {
    /// HKDF-Extract(salt, ikm).
    pub fn extract(salt: &[u8], ikm: &[u8]) -> Self {
        Self(hkdf::Hkdf::<Sha256>::new(Some(salt), ikm))
    }

    /// HKDF-Expand(prk, info, N) into a zeroizing secret.
    pub fn expand<const N: usize>(&self, info: &[u8]) -> Secret<N> {
        let mut out = Secret::new([0u8; N]);
        self.0
            .expand(info, out.expose_mut())
            .expect("N is at most 255 * 32");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5869 test case 1, and agreement with the one-shot helper.
    #[test]
    fn rfc5869_case1() {
        let salt = hex::decode("000102030405060708090a0b0c").unwrap();
        let info = hex::decode("f0f1f2f3f4f5f6f7f8f9").unwrap();
        let h = HkdfSha256::extract(&salt, &[0x0bu8; 22]);
        assert_eq!(
            hex::encode(h.expand::<42>(&info).expose()),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        );
        assert_eq!(
            h.expand::<32>(b"x").expose(),
            crate::primitives::sha::hkdf_sha256::<32>(&salt, &[0x0bu8; 22], b"x").expose()
        );
    }
}
