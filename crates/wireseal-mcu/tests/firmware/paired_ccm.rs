//! Measurement experiment, not a backend: AES-256-CCM opening (8-byte tag,
//! 13-byte nonce) that feeds the fixsliced AES two blocks per call, one
//! CBC-MAC block and one counter block, instead of `ccm`'s schedule (counter
//! blocks in pairs, then every CBC-MAC block alone, which wastes half of each
//! MAC call). It checks against the same CAVP and Meshtastic vectors as
//! `ccm`, to size what a paired schedule in the `ccm` crate would save.
//!
//! Schedule for `h` header blocks (B0 and the AAD blocks) and `n` payload
//! blocks: call `s` encrypts MAC input `s` together with the next unused
//! counter block (A1..An, then A0), so keystream block `j` is ready at call
//! `j − 1`, before MAC step `h + j − 1` needs plaintext block `j`. In all,
//! `h + n` calls instead of `⌈n/2⌉ + h + n + 1`.

use crate::vectors::{CAVP_CCM_AES256_8_13, MESH_PKC};
use aes::cipher::generic_array::GenericArray;
use aes::cipher::BlockEncrypt;
use aes::Aes256Enc;
use ccm::aead::AeadInPlace;
use subtle::ConstantTimeEq;
use wireseal_mcu::harness::group;
use wireseal_mcu::ops::meshtastic as mesh;

const NONCE_LEN: usize = 13;
const TAG_LEN: usize = 8;

fn counter_block(nonce: &[u8; NONCE_LEN], i: u16) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 1; // L − 1 with L = 2
    a[1..14].copy_from_slice(nonce);
    a[14..].copy_from_slice(&i.to_be_bytes());
    a
}

/// Header block `i` of the MAC input: B0, then `LEN16(aad) || aad` padded.
fn header_block(nonce: &[u8; NONCE_LEN], aad: &[u8], len: usize, i: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    if i == 0 {
        let adata = if aad.is_empty() { 0 } else { 64 };
        b[0] = adata | (((TAG_LEN as u8 - 2) / 2) << 3) | 1;
        b[1..14].copy_from_slice(nonce);
        b[14..].copy_from_slice(&(len as u16).to_be_bytes());
        return b;
    }
    // Byte k of the AAD stream is the length prefix, then the AAD.
    for (k, out) in b.iter_mut().enumerate() {
        let pos = 16 * (i - 1) + k;
        *out = match pos {
            0 => (aad.len() >> 8) as u8,
            1 => aad.len() as u8,
            p if p - 2 < aad.len() => aad[p - 2],
            _ => 0,
        };
    }
    b
}

/// Decrypts `buf` in place and checks `tag`; on failure wipes `buf`.
/// AAD shorter than 0xFF00 bytes and payloads up to 0xFFFF bytes only.
pub fn open(
    cipher: &Aes256Enc,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8; TAG_LEN],
) -> bool {
    if aad.len() >= 0xff00 || buf.len() > 0xffff {
        return false;
    }
    let h = 1 + if aad.is_empty() {
        0
    } else {
        (aad.len() + 2).div_ceil(16)
    };
    let n = buf.len().div_ceil(16);
    let mut x = [0u8; 16];
    let mut s0 = [0u8; 16];
    let mut next_ctr = 1usize; // counter blocks 1..=n, then 0, then none
    for s in 0..h + n {
        let mut input = if s < h {
            header_block(nonce, aad, buf.len(), s)
        } else {
            let j = s - h; // payload block j (0-based), already decrypted
            let chunk = &buf[16 * j..buf.len().min(16 * j + 16)];
            let mut b = [0u8; 16];
            b[..chunk.len()].copy_from_slice(chunk);
            b
        };
        for (i, v) in input.iter_mut().enumerate() {
            *v ^= x[i];
        }
        let partner = match next_ctr {
            c if c <= n => Some(c),
            c if c == n + 1 => Some(0),
            _ => None,
        };
        match partner {
            Some(c) => {
                let mut blocks = [
                    GenericArray::from(input),
                    GenericArray::from(counter_block(nonce, c as u16)),
                ];
                cipher.encrypt_blocks(&mut blocks);
                x = blocks[0].into();
                let ks: [u8; 16] = blocks[1].into();
                if c == 0 {
                    s0 = ks;
                } else {
                    let j = c - 1;
                    let end = buf.len().min(16 * j + 16);
                    for (b, k) in buf[16 * j..end].iter_mut().zip(ks) {
                        *b ^= k;
                    }
                }
                next_ctr += 1;
            }
            None => {
                let mut block = GenericArray::from(input);
                cipher.encrypt_block(&mut block);
                x = block.into();
            }
        }
    }
    let mut full = [0u8; TAG_LEN];
    for i in 0..TAG_LEN {
        full[i] = x[i] ^ s0[i];
    }
    if bool::from(full.ct_eq(tag)) {
        true
    } else {
        buf.iter_mut().for_each(|b| *b = 0);
        false
    }
}

/// The experiment on the CAVP and Meshtastic vectors, lengths around block
/// boundaries against `ccm`, and a tampered tag.
pub fn check() {
    use aes::cipher::KeyInit as _;
    let mut g = group("paired-schedule ccm experiment: cavp and pkc vectors, tamper");
    for v in CAVP_CCM_AES256_8_13 {
        let c = aes::Aes256Enc::new((&v.key).into());
        let nonce: [u8; 13] = v.nonce.try_into().unwrap_or([0; 13]);
        let tag: [u8; 8] = v.tag.try_into().unwrap_or([0; 8]);
        let mut buf = [0u8; 64];
        let buf = &mut buf[..v.ct.len()];
        buf.copy_from_slice(v.ct);
        let ok = open(&c, &nonce, v.aad, buf, &tag);
        g.check(ok == v.valid, format_args!("tc {}: open gave {ok}", v.tc));
        if v.valid {
            g.check_bytes(format_args!("tc {} pt", v.tc), buf, v.msg);
            let mut bad = tag;
            bad[7] ^= 1;
            buf.copy_from_slice(v.ct);
            let ok = open(&c, &nonce, v.aad, buf, &bad);
            g.check(
                !ok && buf.iter().all(|&b| b == 0),
                format_args!("tc {}: bad tag", v.tc),
            );
        }
    }
    let v = &MESH_PKC;
    let key = mesh::shared_key(&v.our_private, &v.sender_public).unwrap_or([0; 32]);
    let c = aes::Aes256Enc::new((&key).into());
    let n = v.payload.len() - mesh::PKC_OVERHEAD;
    let mut buf = [0u8; 64];
    buf[..n].copy_from_slice(&v.payload[..n]);
    let tag: [u8; 8] = v.payload[n..n + 8].try_into().unwrap_or([0; 8]);
    let ok = open(&c, &v.nonce, b"", &mut buf[..n], &tag);
    g.check(ok, format_args!("pkc vector refused"));
    g.check_bytes(format_args!("pkc plaintext"), &buf[..n], v.plaintext);
    // Lengths around block boundaries agree with `ccm`.
    let ccm = mesh::ccm(&key);
    for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 200] {
        let mut sealed = [0x5au8; 256];
        let t = ccm
            .encrypt_in_place_detached((&v.nonce).into(), b"", &mut sealed[..len])
            .map(<[u8; 8]>::from)
            .unwrap_or([0; 8]);
        let ok = open(&c, &v.nonce, b"", &mut sealed[..len], &t);
        g.check(
            ok && sealed[..len].iter().all(|&b| b == 0x5a),
            format_args!("length {len}"),
        );
    }
    g.end();
}
