//! AES-256 in CBC mode without padding (AES Crypt bodies and session
//! blocks).
//!
//! Each direction runs on the implementation that measured fastest
//! (`docs/crypto-choices.md`): encryption through aws-lc-rs (its AES-NI
//! assembly, chosen at run time; the pure-Rust backend uses RustCrypto's
//! `cbc` over `aes`), decryption through RustCrypto's `cbc` over `aes`,
//! whose AES-NI code decrypts eight blocks at a time (also chosen at run
//! time).
//!
//! Only whole 16-byte blocks are processed; callers pad and unpad. CBC
//! encryption is serial by nature, so [`Aes256CbcEnc`] keeps the chaining
//! value between calls and encrypts in place (aws-lc-rs has no separate
//! output buffer, and a copy before it costs more than the cipher saves).
//! CBC decryption is parallel: any run of ciphertext blocks can be
//! decrypted given the ciphertext block before it, which is what
//! [`aes256_cbc_decrypt_b2b`] takes as its `iv`.
//!
//! In WebAssembly (`wasm32-unknown-unknown`), calls of `host::CBC_MIN`
//! bytes or more go to the host's AES when one is registered (the npm
//! package in Node: OpenSSL's AES-NI; see `crate::host`).

use aes::Aes256;
use cbc::cipher::inout::InOutBuf;
use cbc::cipher::{BlockDecryptMut, KeyIvInit};
#[cfg(wireseal_wasm_host)]
use zeroize::Zeroizing;

/// The AES block size in bytes.
pub const BLOCK: usize = 16;

/// Stateful AES-256-CBC encryption: the chaining value carries over between
/// calls, so a long stream can be encrypted piece by piece. The key
/// schedule is wiped on drop.
pub struct Aes256CbcEnc {
    #[cfg(wireseal_aws_lc)]
    key: aws_lc_rs::cipher::EncryptingKey,
    #[cfg(wireseal_aws_lc)]
    chain: [u8; BLOCK],
    #[cfg(not(wireseal_aws_lc))]
    inner: cbc::Encryptor<Aes256>,
    /// The host's side (WebAssembly): the key to hand it, and where the
    /// chain stands.
    #[cfg(wireseal_wasm_host)]
    host: HostChain,
}

/// What handing a CBC stream to the host needs: the key, the chaining value
/// after the last call, and whether `inner` fell behind it (the host ran
/// the last call).
#[cfg(wireseal_wasm_host)]
struct HostChain {
    key: Zeroizing<[u8; 32]>,
    chain: [u8; BLOCK],
    behind: bool,
}

impl Aes256CbcEnc {
    /// Starts a CBC stream under `key` with initial vector `iv`.
    #[cfg(wireseal_aws_lc)]
    pub fn new(key: &[u8; 32], iv: &[u8; 16]) -> Self {
        use aws_lc_rs::cipher::{EncryptingKey, UnboundCipherKey, AES_256};
        let key = UnboundCipherKey::new(&AES_256, key)
            .and_then(EncryptingKey::cbc)
            .expect("a 32-byte AES-256 key");
        Self { key, chain: *iv }
    }

    /// Starts a CBC stream under `key` with initial vector `iv`.
    #[cfg(not(wireseal_aws_lc))]
    pub fn new(key: &[u8; 32], iv: &[u8; 16]) -> Self {
        Self {
            inner: cbc::Encryptor::<Aes256>::new(key.into(), iv.into()),
            #[cfg(wireseal_wasm_host)]
            host: HostChain {
                key: Zeroizing::new(*key),
                chain: *iv,
                behind: false,
            },
        }
    }

    /// Encrypts the whole blocks of `buf` in place. A trailing partial
    /// block (a caller bug) is left untouched.
    #[cfg(wireseal_aws_lc)]
    pub fn encrypt_in_place(&mut self, buf: &mut [u8]) {
        use aws_lc_rs::cipher::EncryptionContext;
        let n = buf.len() / BLOCK * BLOCK;
        let Some(whole) = buf.get_mut(..n).filter(|b| !b.is_empty()) else {
            return;
        };
        // Whole blocks and a 16-byte IV: the only errors aws-lc-rs has.
        let _ = self
            .key
            .less_safe_encrypt(whole, EncryptionContext::Iv128(self.chain.into()))
            .expect("whole blocks and a 16-byte IV");
        self.chain.copy_from_slice(&whole[n - BLOCK..]);
    }

    /// Encrypts the whole blocks of `buf` in place. A trailing partial
    /// block (a caller bug) is left untouched.
    #[cfg(not(wireseal_aws_lc))]
    pub fn encrypt_in_place(&mut self, buf: &mut [u8]) {
        use cbc::cipher::BlockEncryptMut;
        #[cfg(wireseal_wasm_host)]
        if self.host_encrypt(buf) {
            return;
        }
        let (blocks, _tail) = InOutBuf::from(&mut *buf).into_chunks();
        self.inner.encrypt_blocks_inout_mut(blocks);
        #[cfg(wireseal_wasm_host)]
        self.host.advance(buf);
    }

    /// Hands `buf`'s whole blocks to the host when they reach
    /// `host::CBC_MIN` and one is registered (`true`: done); otherwise
    /// brings `inner` up to the chain the host left, for the caller to run.
    #[cfg(wireseal_wasm_host)]
    fn host_encrypt(&mut self, buf: &mut [u8]) -> bool {
        let n = buf.len() / BLOCK * BLOCK;
        let h = &mut self.host;
        if let Some(host) = crate::host::for_len(n, crate::host::CBC_MIN) {
            let whole = &mut buf[..n];
            if host
                .aes256_cbc_encrypt(
                    crate::host::CbcKey {
                        key: &h.key,
                        iv: &h.chain,
                    },
                    whole,
                )
                .is_ok()
            {
                h.advance(whole);
                h.behind = true;
                return true;
            }
        }
        if h.behind {
            self.inner = cbc::Encryptor::<Aes256>::new((&*h.key).into(), (&h.chain).into());
            h.behind = false;
        }
        false
    }
}

#[cfg(wireseal_wasm_host)]
impl HostChain {
    /// Notes the chaining value after `encrypted`: its last whole block.
    fn advance(&mut self, encrypted: &[u8]) {
        let n = encrypted.len() / BLOCK * BLOCK;
        if let Some(last) = n.checked_sub(BLOCK).and_then(|at| encrypted.get(at..n)) {
            self.chain.copy_from_slice(last);
        }
    }
}

impl core::fmt::Debug for Aes256CbcEnc {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Aes256CbcEnc(redacted)")
    }
}

/// Decrypts the whole blocks of `input` into `output` (same length; the
/// shorter length rounded down to whole blocks otherwise). `iv` is the
/// initial vector, or the ciphertext block that precedes `input`.
pub fn aes256_cbc_decrypt_b2b(key: &[u8; 32], iv: &[u8; 16], input: &[u8], output: &mut [u8]) {
    let n = input.len().min(output.len()) / BLOCK * BLOCK;
    #[cfg(wireseal_wasm_host)]
    if let Some(host) = crate::host::for_len(n, crate::host::CBC_MIN) {
        if host
            .aes256_cbc_decrypt(
                crate::host::CbcKey { key, iv },
                &input[..n],
                &mut output[..n],
            )
            .is_ok()
        {
            return;
        }
    }
    let Ok(buf) = InOutBuf::new(&input[..n], &mut output[..n]) else {
        return;
    };
    let (blocks, _tail) = buf.into_chunks();
    cbc::Decryptor::<Aes256>::new(key.into(), iv.into()).decrypt_blocks_inout_mut(blocks);
}

/// Decrypts the whole blocks of `buf` in place (see [`aes256_cbc_decrypt_b2b`]).
pub fn aes256_cbc_decrypt_in_place(key: &[u8; 32], iv: &[u8; 16], buf: &mut [u8]) {
    #[cfg(wireseal_wasm_host)]
    {
        let n = buf.len() / BLOCK * BLOCK;
        if let Some(host) = crate::host::for_len(n, crate::host::CBC_MIN) {
            let ct = buf[..n].to_vec();
            if host
                .aes256_cbc_decrypt(crate::host::CbcKey { key, iv }, &ct, &mut buf[..n])
                .is_ok()
            {
                return;
            }
            // The host may have written part of it: start again from the
            // ciphertext.
            buf[..n].copy_from_slice(&ct);
        }
    }
    let (blocks, _tail) = InOutBuf::from(buf).into_chunks();
    cbc::Decryptor::<Aes256>::new(key.into(), iv.into()).decrypt_blocks_inout_mut(blocks);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NIST SP 800-38A F.2.5 / F.2.6 (CBC-AES256), all four blocks.
    #[test]
    fn nist_sp800_38a_cbc_aes256() {
        let key: [u8; 32] =
            hex::decode("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
                .unwrap()
                .try_into()
                .unwrap();
        let iv: [u8; 16] = hex::decode("000102030405060708090a0b0c0d0e0f")
            .unwrap()
            .try_into()
            .unwrap();
        let pt = hex::decode(concat!(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
            "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
        ))
        .unwrap();
        let ct = concat!(
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d",
            "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b"
        );
        // In two pieces, to exercise the carried chaining value.
        let mut buf = pt.clone();
        let mut enc = Aes256CbcEnc::new(&key, &iv);
        let (a, b) = buf.split_at_mut(16);
        enc.encrypt_in_place(a);
        enc.encrypt_in_place(b);
        assert_eq!(hex::encode(&buf), ct);
        // In one call, and block by block with a partial block left alone.
        let mut one = pt.clone();
        Aes256CbcEnc::new(&key, &iv).encrypt_in_place(&mut one);
        assert_eq!(hex::encode(&one), ct);
        let mut by_block = pt.clone();
        by_block.push(0xaa);
        let mut enc = Aes256CbcEnc::new(&key, &iv);
        for b in by_block[..64].chunks_mut(16) {
            enc.encrypt_in_place(b);
        }
        enc.encrypt_in_place(&mut by_block[64..]);
        enc.encrypt_in_place(&mut []);
        assert_eq!(hex::encode(&by_block[..64]), ct);
        assert_eq!(by_block[64], 0xaa);
        // Decrypt the second half alone, chained from the first half's last block.
        let mut tail = vec![0u8; 32];
        let prev: [u8; 16] = buf[16..32].try_into().unwrap();
        aes256_cbc_decrypt_b2b(&key, &prev, &buf[32..], &mut tail);
        assert_eq!(tail, pt[32..]);
        aes256_cbc_decrypt_in_place(&key, &iv, &mut buf);
        assert_eq!(buf, pt);
    }
}
