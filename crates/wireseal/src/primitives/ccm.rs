//! CCM (NIST SP 800-38C) composed over a 128-bit block cipher, computing
//! the CBC-MAC chain and the counter blocks two at a time.
//!
//! The `aes` crate's constant-time fixsliced AES (every target without AES
//! instructions: Cortex-M, wasm32) computes two blocks per call on 32-bit
//! targets (four on 64-bit) whatever it is given, and the `ccm` crate
//! feeds its CBC-MAC one block per call: half of each of those calls is
//! thrown away. Here every call carries one CBC-MAC block and one counter
//! block, so a message of `n` blocks with no associated data costs `n + 1`
//! calls instead of `2n + 1`.
//!
//! - Sealing pairs the MAC of plaintext block `j` with counter block `j`
//!   (the block is read for the MAC before its keystream is applied); the
//!   first call pairs `B_0` with `A_0`, the tag mask.
//! - Opening runs the counter one block ahead of the MAC: block `j` is
//!   decrypted in the caller's buffer one call before the MAC reads it. The
//!   tag is compared in constant time (`subtle`) after the last block; on a
//!   mismatch the whole buffer is wiped before the error returns, so no
//!   unauthenticated plaintext reaches the caller.
//! - Every branch depends on lengths only (public), never on key, data or
//!   tag bytes.
//!
//! The composition is checked against NIST CAVP and Wycheproof AES-CCM
//! (every key size, nonce length and tag length) on the host and inside the
//! emulated Cortex-M4, and against the `ccm` crate by the differential fuzz
//! target `ccm_differential`.

use crate::error::AeadError;
use aes::cipher::consts::U16;
use aes::cipher::{
    Block, BlockBackend, BlockClosure, BlockEncrypt, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    Unsigned,
};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// One 16-byte block.
type B = [u8; 16];

/// A block cipher of 128-bit blocks with CCM's nonce and tag lengths.
#[derive(Clone)]
pub struct PairedCcm<C> {
    cipher: C,
    nonce_len: usize,
    tag_len: usize,
}

impl<C> core::fmt::Debug for PairedCcm<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PairedCcm")
            .field("nonce_len", &self.nonce_len)
            .field("tag_len", &self.tag_len)
            .finish_non_exhaustive()
    }
}

/// Encrypts `a` and `b` in one call of the cipher's backend when it
/// computes several blocks per call (fixsliced AES: 2 or 4), else one
/// after the other (AES-NI and other single-block backends).
struct Pair<'a> {
    a: &'a mut B,
    b: &'a mut B,
}

impl BlockSizeUser for Pair<'_> {
    type BlockSize = U16;
}

impl BlockClosure for Pair<'_> {
    #[inline(always)]
    fn call<K: BlockBackend + BlockSizeUser<BlockSize = U16>>(self, backend: &mut K) {
        let par = <K as ParBlocksSizeUser>::ParBlocksSize::USIZE;
        if (2..=4).contains(&par) {
            let mut blocks = ParBlocks::<K>::default();
            blocks[0] = (*self.a).into();
            blocks[1] = (*self.b).into();
            backend.proc_par_blocks((&mut blocks).into());
            self.a.copy_from_slice(&blocks[0]);
            self.b.copy_from_slice(&blocks[1]);
        } else {
            for x in [self.a, self.b] {
                let mut blk = Block::<K>::from(*x);
                backend.proc_block((&mut blk).into());
                x.copy_from_slice(&blk);
            }
        }
    }
}

fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

impl<C: BlockEncrypt + BlockSizeUser<BlockSize = U16>> PairedCcm<C> {
    /// CCM over `cipher` with `nonce_len`-byte nonces (7 to 13) and
    /// `tag_len`-byte tags (4, 6, 8, 10, 12, 14 or 16); `None` for other
    /// lengths.
    pub fn new(cipher: C, nonce_len: usize, tag_len: usize) -> Option<Self> {
        let ok = (7..=13).contains(&nonce_len) && (4..=16).contains(&tag_len) && tag_len % 2 == 0;
        ok.then_some(Self {
            cipher,
            nonce_len,
            tag_len,
        })
    }

    /// Bytes of the message-length field (`q`).
    #[inline(always)]
    fn q(&self) -> usize {
        15 - self.nonce_len
    }

    #[inline(always)]
    fn pair(&self, a: &mut B, b: &mut B) {
        self.cipher.encrypt_with_backend(Pair { a, b });
    }

    #[inline(always)]
    fn single(&self, a: &mut B) {
        self.cipher.encrypt_block(a.into());
    }

    /// Counter block `A_i`.
    #[inline(always)]
    fn counter(&self, nonce: &[u8], i: u64) -> B {
        let q = self.q();
        let mut a = [0u8; 16];
        a[0] = (q - 1) as u8;
        a[1..1 + self.nonce_len].copy_from_slice(nonce);
        a[16 - q..].copy_from_slice(&i.to_be_bytes()[8 - q..]);
        a
    }

    /// `B_0`, or `None` when the lengths do not fit CCM's fields.
    #[inline(always)]
    fn first_block(&self, nonce: &[u8], aad: &[u8], len: usize) -> Option<B> {
        let q = self.q();
        if nonce.len() != self.nonce_len || (q < 8 && (len as u64) >> (8 * q) != 0) {
            return None;
        }
        let mut b = [0u8; 16];
        b[0] = (u8::from(!aad.is_empty()) << 6)
            | ((((self.tag_len - 2) / 2) as u8) << 3)
            | (q - 1) as u8;
        b[1..1 + self.nonce_len].copy_from_slice(nonce);
        b[16 - q..].copy_from_slice(&(len as u64).to_be_bytes()[8 - q..]);
        Some(b)
    }

    /// Runs the associated data through the MAC chain `x` (its length
    /// encoding first, zero-padded to whole blocks); `with_each` is called
    /// once per block with `x` ready to be encrypted, and encrypts it.
    #[inline(always)]
    fn mac_aad(&self, x: &mut B, aad: &[u8], mut with_each: impl FnMut(&mut B)) {
        if aad.is_empty() {
            return;
        }
        let mut head = [0u8; 10];
        let n = aad.len() as u64;
        let head_len = if n < 0xff00 {
            head[..2].copy_from_slice(&(n as u16).to_be_bytes());
            2
        } else if n <= u64::from(u32::MAX) {
            head[..2].copy_from_slice(&[0xff, 0xfe]);
            head[2..6].copy_from_slice(&(n as u32).to_be_bytes());
            6
        } else {
            head[..2].copy_from_slice(&[0xff, 0xff]);
            head[2..10].copy_from_slice(&n.to_be_bytes());
            10
        };
        // The first block: the length encoding, then the data's start.
        let first = aad.len().min(16 - head_len);
        xor_into(&mut x[..head_len], &head[..head_len]);
        xor_into(&mut x[head_len..head_len + first], &aad[..first]);
        with_each(x);
        for chunk in aad[first..].chunks(16) {
            xor_into(x, chunk);
            with_each(x);
        }
    }

    /// Encrypts `buf` in place and writes the tag to `tag`.
    ///
    /// # Errors
    /// [`AeadError`], changing nothing, when `nonce` or `tag` has the wrong
    /// length or `buf` is too long for the length field.
    pub fn seal_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), AeadError> {
        if tag.len() != self.tag_len {
            return Err(AeadError);
        }
        let mut x = self.first_block(nonce, aad, buf.len()).ok_or(AeadError)?;
        let mut s0 = self.counter(nonce, 0);
        self.pair(&mut x, &mut s0);
        self.mac_aad(&mut x, aad, |x| self.single(x));
        for (j, chunk) in buf.chunks_mut(16).enumerate() {
            xor_into(&mut x, chunk);
            let mut ks = self.counter(nonce, j as u64 + 1);
            self.pair(&mut x, &mut ks);
            xor_into(chunk, &ks);
        }
        xor_into(&mut x, &s0);
        tag.copy_from_slice(&x[..self.tag_len]);
        x.zeroize();
        s0.zeroize();
        Ok(())
    }

    /// Decrypts `buf` in place and verifies `tag` in constant time. On
    /// failure the buffer is wiped: no unauthenticated plaintext escapes.
    ///
    /// # Errors
    /// [`AeadError`] when the tag does not verify (buffer wiped), or when
    /// `nonce` or `tag` has the wrong length or `buf` is too long for the
    /// length field (buffer unchanged).
    pub fn open_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), AeadError> {
        if tag.len() != self.tag_len {
            return Err(AeadError);
        }
        let mut x = self.first_block(nonce, aad, buf.len()).ok_or(AeadError)?;
        let blocks = buf.len().div_ceil(16);
        // Counter blocks in the order the MAC needs them: A_1 .. A_n, then
        // A_0 (the tag mask). `next` counts those computed so far; block
        // `j` of `buf` is plaintext once `next > j`.
        let mut next = 0usize;
        let mut s0 = [0u8; 16];
        let mut step = |x: &mut B, buf: &mut [u8], next: &mut usize| {
            if *next < blocks {
                let mut ks = self.counter(nonce, *next as u64 + 1);
                self.pair(x, &mut ks);
                let end = buf.len().min(16 * *next + 16);
                xor_into(&mut buf[16 * *next..end], &ks);
            } else if *next == blocks {
                s0 = self.counter(nonce, 0);
                self.pair(x, &mut s0);
            } else {
                self.single(x);
            }
            *next += 1;
        };
        step(&mut x, buf, &mut next);
        self.mac_aad(&mut x, aad, |x| step(x, buf, &mut next));
        for j in 0..blocks {
            let end = buf.len().min(16 * j + 16);
            xor_into(&mut x, &buf[16 * j..end]);
            step(&mut x, buf, &mut next);
        }
        // `1 + aad blocks + blocks` steps computed all `blocks + 1`
        // counter blocks, `A_0` (into `s0`) last.
        xor_into(&mut x, &s0);
        let ok = x[..self.tag_len].ct_eq(tag);
        x.zeroize();
        s0.zeroize();
        if bool::from(ok) {
            Ok(())
        } else {
            buf.zeroize();
            Err(AeadError)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::KeyInit;
    use aes::{Aes128Enc, Aes256Enc};
    use ccm::aead::AeadInPlace;
    use ccm::consts::{U10, U13, U16 as T16, U4, U7, U8};

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// SP 800-38C Appendix C, examples 1 and 2.
    #[test]
    fn sp800_38c_examples() {
        let key = h("404142434445464748494a4b4c4d4e4f");
        let c = |n, t| PairedCcm::new(Aes128Enc::new_from_slice(&key).unwrap(), n, t).unwrap();
        for (n, t, nonce, aad, pt, ct) in [
            (
                7,
                4,
                "10111213141516",
                "0001020304050607",
                "20212223",
                "7162015b4dac255d",
            ),
            (
                8,
                6,
                "1011121314151617",
                "000102030405060708090a0b0c0d0e0f",
                "202122232425262728292a2b2c2d2e2f",
                "d2a1f0e051ea5f62081a7792073d593d1fc64fbfaccd",
            ),
        ] {
            let ccm = c(n, t);
            let mut buf = h(pt);
            let mut tag = vec![0u8; t];
            ccm.seal_in_place(&h(nonce), &h(aad), &mut buf, &mut tag)
                .unwrap();
            buf.extend_from_slice(&tag);
            assert_eq!(hex::encode(&buf), ct);
            let (body, tag) = buf.split_at_mut(h(pt).len());
            ccm.open_in_place(&h(nonce), &h(aad), body, tag).unwrap();
            assert_eq!(hex::encode(body), pt);
        }
    }

    macro_rules! against_ccm_crate {
        ($name:ident, $cipher:ty, $key:expr, $m:ty, $n:ty) => {
            #[test]
            fn $name() {
                let key = [7u8; $key];
                let theirs = ccm::Ccm::<$cipher, $m, $n>::new((&key).into());
                let ours = PairedCcm::new(
                    <$cipher>::new((&key).into()),
                    <$n as Unsigned>::USIZE,
                    <$m as Unsigned>::USIZE,
                )
                .unwrap();
                let nonce = vec![3u8; <$n as Unsigned>::USIZE];
                for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 200] {
                    for aad_len in [0usize, 1, 13, 14, 15, 16, 30, 100] {
                        let pt: Vec<u8> = (0..len).map(|i| i as u8).collect();
                        let aad: Vec<u8> = (0..aad_len).map(|i| (i * 3) as u8).collect();
                        let mut a = pt.clone();
                        let t = theirs
                            .encrypt_in_place_detached(nonce.as_slice().into(), &aad, &mut a)
                            .unwrap();
                        let mut b = pt.clone();
                        let mut tag = vec![0u8; t.len()];
                        ours.seal_in_place(&nonce, &aad, &mut b, &mut tag).unwrap();
                        assert_eq!((&a, &t[..]), (&b, &tag[..]), "{len} {aad_len}");
                        ours.open_in_place(&nonce, &aad, &mut b, &tag).unwrap();
                        assert_eq!(b, pt);
                        if len > 0 {
                            a[len - 1] ^= 1;
                            assert!(ours.open_in_place(&nonce, &aad, &mut a, &tag).is_err());
                            assert!(a.iter().all(|&x| x == 0), "wiped");
                        }
                    }
                }
            }
        };
    }
    against_ccm_crate!(aes256_tag8_nonce13, Aes256Enc, 32, U8, U13);
    against_ccm_crate!(aes128_tag16_nonce7, Aes128Enc, 16, T16, U7);
    against_ccm_crate!(aes256_tag4_nonce10, Aes256Enc, 32, U4, U10);

    #[test]
    fn lengths_are_checked() {
        let c = || Aes128Enc::new(&[0u8; 16].into());
        assert!(PairedCcm::new(c(), 6, 8).is_none());
        assert!(PairedCcm::new(c(), 14, 8).is_none());
        assert!(PairedCcm::new(c(), 13, 5).is_none());
        assert!(PairedCcm::new(c(), 13, 18).is_none());
        let ccm = PairedCcm::new(c(), 13, 8).unwrap();
        let mut tag = [0u8; 8];
        let mut big = vec![5u8; 0x1_0000];
        assert!(ccm
            .seal_in_place(&[0; 13], b"", &mut big, &mut tag)
            .is_err());
        assert!(big.iter().all(|&b| b == 5), "unchanged");
        assert!(ccm
            .seal_in_place(&[0; 12], b"", &mut [0; 4], &mut tag)
            .is_err());
        assert!(ccm
            .seal_in_place(&[0; 13], b"", &mut [0; 4], &mut [0; 7])
            .is_err());
        let mut buf = [9u8; 4];
        assert!(ccm.open_in_place(&[0; 12], b"", &mut buf, &tag).is_err());
        assert_eq!(buf, [9; 4], "unchanged when the lengths are wrong");
    }
}
