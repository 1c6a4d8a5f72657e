//! AES-128/256 in counter mode with a 32-bit big-endian block counter in the
//! last four bytes of the counter block (Meshtastic channel packets), through
//! RustCrypto's `ctr` over AES-NI.

use aes::{Aes128, Aes256};
use ctr::cipher::{InnerIvInit, KeyInit, KeyIvInit, StreamCipher, StreamCipherCoreWrapper};

type Ctr128 = ctr::Ctr32BE<Aes128>;
type Ctr256 = ctr::Ctr32BE<Aes256>;
type Core<C> = ctr::CtrCore<C, ctr::flavors::Ctr32BE>;

/// An AES-128 or AES-256 key expanded once, for many counter-mode calls
/// under it: the key schedule costs about as much as the keystream of a
/// 200-byte packet (more than half of it with AES-NI). `aes` zeroizes the
/// schedule when it is dropped.
// The variants differ by a quarter (960 and 704 bytes with run-time
// AES-NI detection): a key is held once per channel, and boxing would add an
// allocation, which the no-alloc build cannot make.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum CtrKey {
    /// A 16-byte key.
    Aes128(Aes128),
    /// A 32-byte key.
    Aes256(Aes256),
}

impl core::fmt::Debug for CtrKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CtrKey(redacted)")
    }
}

impl CtrKey {
    /// Expands `key` (16 or 32 bytes; `None` for any other length).
    pub fn new(key: &[u8]) -> Option<Self> {
        match key.len() {
            16 => Some(Self::Aes128(Aes128::new(key.into()))),
            32 => Some(Self::Aes256(Aes256::new(key.into()))),
            _ => None,
        }
    }

    /// XORs the keystream from the initial counter block `iv` into `buf`:
    /// the bytes of [`apply_keystream`] with the same key.
    pub fn apply_keystream(&self, iv: &[u8; 16], buf: &mut [u8]) {
        match self {
            Self::Aes128(c) => {
                let core = Core::<&Aes128>::inner_iv_init(c, iv.into());
                StreamCipherCoreWrapper::from_core(core).apply_keystream(buf);
            }
            Self::Aes256(c) => {
                let core = Core::<&Aes256>::inner_iv_init(c, iv.into());
                StreamCipherCoreWrapper::from_core(core).apply_keystream(buf);
            }
        }
    }
}

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
        assert!(CtrKey::new(&[0u8; 24]).is_none());
    }

    /// The expanded key gives the per-call function's bytes, for both key
    /// sizes, every length around the block size, and a counter that
    /// wraps its low 32 bits.
    #[test]
    fn expanded_key_matches_the_per_call_keystream() {
        for key_len in [16, 32] {
            let key: Vec<u8> = (0..key_len as u8).map(|b| b.wrapping_mul(29)).collect();
            let k = CtrKey::new(&key).unwrap();
            for iv in [[0x11u8; 16], [0xffu8; 16]] {
                for len in [0, 1, 15, 16, 17, 200, 257] {
                    let mut a: Vec<u8> = (0..len).map(|i| i as u8).collect();
                    let mut b = a.clone();
                    assert!(apply_keystream(&key, &iv, &mut a));
                    k.apply_keystream(&iv, &mut b);
                    assert_eq!(a, b, "key {key_len}, len {len}");
                }
            }
        }
    }
}
