//! Incremental HMAC-SHA256 (RustCrypto `hmac` over `sha2`, SHA-NI when the
//! CPU has it), for MACs over data too large to hold at once.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// An HMAC-SHA256 computation fed piece by piece.
#[derive(Clone)]
pub struct HmacSha256Stream {
    inner: Hmac<Sha256>,
}

impl HmacSha256Stream {
    /// Starts a MAC under `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        Self {
            inner: <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length"),
        }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The 32-byte tag.
    pub fn finalize(self) -> [u8; 32] {
        self.inner.finalize().into_bytes().into()
    }
}

impl core::fmt::Debug for HmacSha256Stream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HmacSha256Stream(redacted)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test case 2, fed in pieces.
    #[test]
    fn rfc4231_case2_incremental() {
        let mut m = HmacSha256Stream::new(b"Jefe");
        m.update(b"what do ya ");
        m.update(b"want for nothing?");
        assert_eq!(
            hex::encode(m.finalize()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
