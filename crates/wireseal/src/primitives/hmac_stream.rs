//! Incremental HMAC-SHA256 (RustCrypto `hmac` over `sha2`, SHA-NI when the
//! CPU has it), for MACs over data too large to hold at once.
//!
//! Wiping: the keyed state (the SHA-256 states after `key ^ ipad` and
//! `key ^ opad`) is as good as the key. `hmac` 0.12 / `digest` 0.10 offer
//! no `zeroize` support and their state is opaque (the `reset` feature
//! only returns to the keyed state), so without `unsafe` it can't be
//! zeroed. As a best effort, dropping or finalizing an
//! [`HmacSha256Stream`] overwrites its state in place with the state of an
//! HMAC under an empty key; copies left behind by moves (and the state
//! inside `finalize`) are not wiped.

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
    pub fn finalize(mut self) -> [u8; 32] {
        let keyed = core::mem::replace(&mut self.inner, blank());
        keyed.finalize().into_bytes().into()
    }
}

/// An HMAC state under the empty key, to overwrite a keyed one (computed
/// once, then copied: wiping a clone costs a copy, not two compressions).
fn blank() -> Hmac<Sha256> {
    static BLANK: std::sync::OnceLock<Hmac<Sha256>> = std::sync::OnceLock::new();
    BLANK
        .get_or_init(|| {
            <Hmac<Sha256> as Mac>::new_from_slice(&[]).expect("HMAC takes any key length")
        })
        .clone()
}

impl Drop for HmacSha256Stream {
    /// Best-effort wipe (see the module docs): overwrite the keyed state.
    fn drop(&mut self) {
        self.inner = blank();
        core::hint::black_box(&self.inner);
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
