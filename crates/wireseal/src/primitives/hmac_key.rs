//! HMAC-SHA256 with the key's inner and outer states computed once, for a
//! key that authenticates many short messages (a channel or a peer's shared
//! secret tried against every packet): each MAC then costs the message's
//! compressions plus two, not four.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// A keyed HMAC-SHA256 state, cloned for each message.
#[derive(Clone)]
pub struct HmacSha256Key(Hmac<Sha256>);

impl core::fmt::Debug for HmacSha256Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HmacSha256Key(redacted)")
    }
}

impl HmacSha256Key {
    /// Keys the state with `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        Self(<Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length"))
    }

    /// HMAC-SHA256 of the concatenation of `parts`.
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut m = self.0.clone();
        for p in parts {
            m.update(p);
        }
        m.finalize().into_bytes().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test case 2, and the state reused for a second message.
    #[test]
    fn rfc4231_case2_twice() {
        let key = HmacSha256Key::new(b"Jefe");
        let want = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
        assert_eq!(
            hex::encode(key.mac(&[b"what do ya want ", b"for nothing?"])),
            want
        );
        assert_eq!(
            hex::encode(key.mac(&[b"what do ya want for nothing?"])),
            want
        );
    }
}
