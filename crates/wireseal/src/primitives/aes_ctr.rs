//! AES-128/256 in counter mode with a 32-bit big-endian block counter in the
//! last four bytes of the counter block (Meshtastic channel packets), through
//! RustCrypto's `ctr` over AES-NI.

use aes::{Aes128, Aes256};
use ctr::cipher::{KeyIvInit, StreamCipher};

type Ctr128 = ctr::Ctr32BE<Aes128>;
type Ctr256 = ctr::Ctr32BE<Aes256>;

/// XORs the AES-CTR keystream for `key` (16 or 32 bytes) and the initial
/// counter block `iv` into `buf`. Returns `false` for any other key length.
#[must_use]
pub fn apply_keystream(key: &[u8], iv: &[u8; 16], buf: &mut [u8]) -> bool {
    match key.len() {
        16 => {
            let mut c = Ctr128::new(key.into(), iv.into());
            c.apply_keystream(buf);
            true
        }
        32 => {
            let mut c = Ctr256::new(key.into(), iv.into());
            c.apply_keystream(buf);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NIST SP 800-38A F.5.1 (CTR-AES128.Encrypt), first two blocks.
    #[test]
    fn nist_sp800_38a_ctr_aes128() {
        let key = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
        let iv: [u8; 16] = hex::decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
            .unwrap()
            .try_into()
            .unwrap();
        let mut buf =
            hex::decode("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
                .unwrap();
        assert!(apply_keystream(&key, &iv, &mut buf));
        assert_eq!(
            hex::encode(buf),
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
        );
    }

    #[test]
    fn rejects_odd_key_lengths() {
        assert!(!apply_keystream(&[0u8; 24], &[0u8; 16], &mut [0u8; 4]));
    }
}
