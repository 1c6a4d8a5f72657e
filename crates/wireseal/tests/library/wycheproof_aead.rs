//! Wycheproof through wireseal's own cipher wrappers (`wireseal::hazmat`):
//! ChaCha20-Poly1305, AES-256-CCM (8-byte tag, 13-byte nonce), the paired
//! CCM composition under it in the portable backend (every key size, nonce
//! and tag length) and AES-256-CBC with PKCS#7 padding done the way the AES
//! Crypt v3 reader does it. Every case is asserted, valid and invalid, or
//! refused by design with a reason.

use crate::wycheproof_common;

use aes::cipher::{BlockEncrypt, BlockSizeUser, KeyInit};
use wireseal::error::AeadError;
use wireseal::hazmat::aes_cbc::{aes256_cbc_decrypt_in_place, Aes256CbcEnc};
use wireseal::hazmat::aes_ccm::Aes256Ccm8;
use wireseal::hazmat::ccm::PairedCcm;
use wireseal::hazmat::chacha20poly1305::ChaChaKey;
use wycheproof_common::{Case, Suite};

const CHACHA_NONCE: &str =
    "nonce is not 12 bytes: the wrapper's nonce is [u8; 12] (RFC 8439), so no other length reaches it";

#[test]
fn chacha20_poly1305() {
    let mut suite = Suite::load("chacha20_poly1305_test.json");
    suite.run(|c| {
        let (key, iv, aad) = (c.hex("key"), c.hex("iv"), c.hex("aad"));
        let (msg, ct, tag) = (c.hex("msg"), c.hex("ct"), c.hex("tag"));
        let Ok(nonce) = <[u8; 12]>::try_from(iv.as_slice()) else {
            assert_eq!(c.result(), "invalid", "tc {}", c.id());
            return Some(CHACHA_NONCE);
        };
        let k = ChaChaKey::new(&key.try_into().expect("256-bit key"));
        let mut sealed = ct.clone();
        sealed.extend_from_slice(&tag);
        let mut buf = sealed.clone();
        let opened = k.open_in_place(&nonce, &aad, &mut buf);
        match c.result() {
            "valid" => {
                assert_eq!(opened.expect("valid case opens"), &msg[..], "tc {}", c.id());
                let mut out = msg.clone();
                let t = k.seal_in_place(&nonce, &aad, &mut out);
                assert_eq!((out, t.to_vec()), (ct, tag), "tc {} seal", c.id());
            }
            _ => {
                assert_eq!(opened.err(), Some(AeadError), "tc {}", c.id());
                assert!(buf.iter().all(|&b| b == 0), "tc {}: not wiped", c.id());
            }
        }
        None
    });
    suite.finish(&[(CHACHA_NONCE, 9)]);
}

const CCM_KEY: &str =
    "AES-128/192 key: the CCM wrapper takes a 32-byte key (Meshtastic PKC uses AES-256 only)";
const CCM_NONCE: &str =
    "nonce is not 13 bytes: the wrapper's nonce is [u8; 13] (Meshtastic's nonce layout)";
const CCM_TAG: &str = "tag is not 8 bytes: CCM binds the tag length into its first block; the wrapper is fixed at Meshtastic's 8";

/// Runs one CCM case through [`Aes256Ccm8`] when it has the wrapper's shape.
fn ccm_case(c: &Case) -> Option<&'static str> {
    let (key, iv, aad) = (c.hex("key"), c.hex("iv"), c.hex("aad"));
    let (msg, ct, tag) = (c.hex("msg"), c.hex("ct"), c.hex("tag"));
    let Ok(key) = <[u8; 32]>::try_from(key.as_slice()) else {
        return Some(CCM_KEY);
    };
    let Ok(nonce) = <[u8; 13]>::try_from(iv.as_slice()) else {
        return Some(CCM_NONCE);
    };
    let Ok(tag) = <[u8; 8]>::try_from(tag.as_slice()) else {
        return Some(CCM_TAG);
    };
    let k = Aes256Ccm8::new(&key);
    let mut buf = ct.clone();
    let opened = k.open_in_place(&nonce, &aad, &mut buf, &tag);
    if c.result() == "valid" {
        opened.expect("valid case opens");
        assert_eq!(buf, msg, "tc {}", c.id());
        let mut out = msg.clone();
        let t = k.seal_in_place(&nonce, &aad, &mut out).expect("in range");
        assert_eq!((out, t), (ct.clone(), tag), "tc {} seal", c.id());
        // Every single-bit forgery of the tag, and one of the ciphertext and
        // the AAD, is refused and wipes the buffer.
        for bit in 0..64 {
            let mut bad = tag;
            bad[bit / 8] ^= 1 << (bit % 8);
            let mut b = ct.clone();
            assert_eq!(k.open_in_place(&nonce, &aad, &mut b, &bad), Err(AeadError));
            assert!(b.iter().all(|&x| x == 0));
        }
        if !ct.is_empty() {
            let mut b = ct.clone();
            b[0] ^= 0x80;
            assert_eq!(k.open_in_place(&nonce, &aad, &mut b, &tag), Err(AeadError));
        }
        let mut aad2 = aad.clone();
        aad2.push(0);
        let mut b = ct;
        assert_eq!(k.open_in_place(&nonce, &aad2, &mut b, &tag), Err(AeadError));
    } else {
        assert_eq!(opened, Err(AeadError), "tc {}", c.id());
        assert!(buf.iter().all(|&b| b == 0), "tc {}: not wiped", c.id());
    }
    None
}

/// Wycheproof's AES-CCM file has no group with Meshtastic's parameters
/// (256-bit key, 13-byte nonce, 8-byte tag), so every case is refused by
/// design; the file is still walked so that a future group with that shape
/// runs. The wrapper's own shape is covered by `ccm_cavp_aes256_tag8_nonce13`.
#[test]
fn aes_ccm() {
    let mut suite = Suite::load("aes_ccm_test.json");
    suite.run(ccm_case);
    suite.finish(&[(CCM_KEY, 368), (CCM_NONCE, 178), (CCM_TAG, 6)]);
}

/// NIST CAVP CCM vectors with exactly the wrapper's parameters (AES-256,
/// 8-byte tag, 13-byte nonce), plus every one-bit tag forgery of each.
#[test]
fn ccm_cavp_aes256_tag8_nonce13() {
    let mut suite = Suite::load("cavp_ccm_aes256_8_13.json");
    suite.run(ccm_case);
    suite.finish(&[]);
}

/// One CCM case through [`PairedCcm`] over the AES of the case's key size;
/// lengths CCM does not define must be refused by the constructor, and
/// Wycheproof marks every such case invalid.
fn paired_case<C>(c: &Case, cipher: C) -> Option<&'static str>
where
    C: BlockEncrypt + BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
{
    let (iv, aad) = (c.hex("iv"), c.hex("aad"));
    let (msg, ct, tag) = (c.hex("msg"), c.hex("ct"), c.hex("tag"));
    let Some(k) = PairedCcm::new(cipher, iv.len(), tag.len()) else {
        assert_eq!(c.result(), "invalid", "tc {}: lengths refused", c.id());
        return None;
    };
    let mut buf = ct.clone();
    let opened = k.open_in_place(&iv, &aad, &mut buf, &tag);
    if c.result() == "valid" {
        opened.expect("valid case opens");
        assert_eq!(buf, msg, "tc {}", c.id());
        let (mut out, mut t) = (msg.clone(), vec![0u8; tag.len()]);
        k.seal_in_place(&iv, &aad, &mut out, &mut t)
            .expect("in range");
        assert_eq!((out, t), (ct.clone(), tag.clone()), "tc {} seal", c.id());
        for bit in 0..8 * tag.len() {
            let mut bad = tag.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let mut b = ct.clone();
            assert_eq!(k.open_in_place(&iv, &aad, &mut b, &bad), Err(AeadError));
            assert!(b.iter().all(|&x| x == 0), "tc {}: not wiped", c.id());
        }
        for i in 0..ct.len() {
            let mut b = ct.clone();
            b[i] ^= 1;
            assert_eq!(k.open_in_place(&iv, &aad, &mut b, &tag), Err(AeadError));
        }
    } else {
        assert_eq!(opened, Err(AeadError), "tc {}", c.id());
        assert!(buf.iter().all(|&b| b == 0), "tc {}: not wiped", c.id());
    }
    None
}

fn paired_by_key(c: &Case) -> Option<&'static str> {
    let key = c.hex("key");
    match key.len() {
        16 => paired_case(c, aes::Aes128Enc::new_from_slice(&key).unwrap()),
        24 => paired_case(c, aes::Aes192Enc::new_from_slice(&key).unwrap()),
        32 => paired_case(c, aes::Aes256Enc::new_from_slice(&key).unwrap()),
        n => panic!("tc {}: {n}-byte key", c.id()),
    }
}

/// Every Wycheproof AES-CCM case (128/192/256-bit keys, nonces of 0 to
/// 268 bytes, tags of 2 to 16 bytes) through the paired composition.
#[test]
fn aes_ccm_paired() {
    let mut suite = Suite::load("aes_ccm_test.json");
    suite.run(paired_by_key);
    suite.finish(&[]);
}

/// The NIST CAVP AES-256 vectors through the paired composition.
#[test]
fn ccm_cavp_paired() {
    let mut suite = Suite::load("cavp_ccm_aes256_8_13.json");
    suite.run(paired_by_key);
    suite.finish(&[]);
}

const CBC_KEY: &str =
    "AES-128/192 key: the CBC wrapper takes a 32-byte key (AES Crypt uses AES-256 only)";

/// PKCS#7 unpadding as the AES Crypt v3 reader applies it: at least one
/// block, last byte 1..=16, every padding byte equal to it.
fn pkcs7_unpad(buf: &[u8]) -> Option<&[u8]> {
    let n = *buf.last()? as usize;
    if buf.len() % 16 != 0 || n == 0 || n > 16 || n > buf.len() {
        return None;
    }
    let (body, pad) = buf.split_at(buf.len() - n);
    pad.iter().all(|&b| b as usize == n).then_some(body)
}

#[test]
fn aes_cbc_pkcs5() {
    let mut suite = Suite::load("aes_cbc_pkcs5_test.json");
    suite.run(|c| {
        let (key, iv) = (c.hex("key"), c.hex("iv"));
        let (msg, ct) = (c.hex("msg"), c.hex("ct"));
        let Ok(key) = <[u8; 32]>::try_from(key.as_slice()) else {
            return Some(CBC_KEY);
        };
        let iv: [u8; 16] = iv.try_into().expect("16-byte IV");
        let mut plain = ct.clone();
        aes256_cbc_decrypt_in_place(&key, &iv, &mut plain);
        let unpadded = pkcs7_unpad(&plain);
        if c.result() == "valid" {
            assert_eq!(unpadded, Some(&msg[..]), "tc {}", c.id());
            let n = 16 - msg.len() % 16;
            let mut padded = msg.clone();
            padded.resize(msg.len() + n, n as u8);
            Aes256CbcEnc::new(&key, &iv).encrypt_in_place(&mut padded);
            assert_eq!(padded, ct, "tc {} encrypt", c.id());
        } else {
            assert_eq!(unpadded, None, "tc {}: bad padding accepted", c.id());
        }
        None
    });
    suite.finish(&[(CBC_KEY, 144)]);
}
