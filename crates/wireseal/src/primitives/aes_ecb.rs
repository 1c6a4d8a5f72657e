//! AES-128 in ECB mode over whole 16-byte blocks, through RustCrypto `aes`
//! (AES-NI or ARMv8 AES when the CPU has them, bitsliced otherwise).
//!
//! ECB leaks equal blocks; it is here only because MeshCore's wire format
//! uses it, and the format module authenticates every ciphertext first.

use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;

/// An expanded AES-128 key (the key schedule is wiped on drop).
#[derive(Clone)]
pub struct Aes128Ecb(Aes128);

impl core::fmt::Debug for Aes128Ecb {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Aes128Ecb(redacted)")
    }
}

impl Aes128Ecb {
    /// Expands `key`.
    pub fn new(key: &[u8; 16]) -> Self {
        Self(Aes128::new(key.into()))
    }

    /// Encrypts `buf` in place. Its length must be a multiple of 16 bytes:
    /// a trailing partial block is left as it is.
    pub fn encrypt_blocks(&self, buf: &mut [u8]) {
        for block in buf.chunks_exact_mut(16) {
            self.0.encrypt_block(block.into());
        }
    }

    /// Decrypts `buf` in place. Its length must be a multiple of 16 bytes:
    /// a trailing partial block is left as it is.
    pub fn decrypt_blocks(&self, buf: &mut [u8]) {
        for block in buf.chunks_exact_mut(16) {
            self.0.decrypt_block(block.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS-197 appendix C.1.
    #[test]
    fn fips197_c1() {
        let key: [u8; 16] = hex::decode("000102030405060708090a0b0c0d0e0f")
            .unwrap()
            .try_into()
            .unwrap();
        let mut block = hex::decode("00112233445566778899aabbccddeeff").unwrap();
        let ecb = Aes128Ecb::new(&key);
        ecb.encrypt_blocks(&mut block);
        assert_eq!(hex::encode(&block), "69c4e0d86a7b0430d8cdb78070b4c55a");
        ecb.decrypt_blocks(&mut block);
        assert_eq!(hex::encode(&block), "00112233445566778899aabbccddeeff");
    }
}
