//! Known-answer and negative tests of ChaCha20-Poly1305 and the library's
//! XEdDSA inside the emulated Cortex-M4 (peat frames: `library.rs`).

use crate::vectors::*;
use chacha20poly1305::aead::AeadInPlace;
use chacha20poly1305::ChaCha20Poly1305;
use wireseal::hazmat::xeddsa::{XedSigningKey, XedVerifyingKey};
use wireseal_mcu::harness::group;

pub fn run() {
    chacha_wycheproof();
    xeddsa_peer();
    xeddsa_sign_verify();
}

fn chacha_wycheproof() {
    use chacha20poly1305::KeyInit as _;
    let mut g = group("wycheproof chacha20-poly1305 (12-byte nonces)");
    for v in WYCHEPROOF_CHACHA20_POLY1305 {
        let c = ChaCha20Poly1305::new((&v.key).into());
        let nonce: [u8; 12] = v.nonce.try_into().unwrap_or([0; 12]);
        let mut buf = [0u8; 1024];
        let buf = &mut buf[..v.msg.len()];
        if v.valid {
            buf.copy_from_slice(v.msg);
            let tag = c.encrypt_in_place_detached((&nonce).into(), v.aad, buf);
            g.check(tag.is_ok(), format_args!("tc {} seal failed", v.tc));
            g.check_bytes(format_args!("tc {} ct", v.tc), buf, v.ct);
            if let Ok(tag) = tag {
                g.check_bytes(format_args!("tc {} tag", v.tc), &tag, v.tag);
            }
        }
        let tag: [u8; 16] = v.tag.try_into().unwrap_or([0; 16]);
        let buf = &mut buf[..v.ct.len()];
        buf.copy_from_slice(v.ct);
        let r = c.decrypt_in_place_detached((&nonce).into(), v.aad, buf, (&tag).into());
        g.check(
            r.is_ok() == v.valid,
            format_args!("tc {}: open {:?}", v.tc, r.is_ok()),
        );
        if v.valid {
            g.check_bytes(format_args!("tc {} pt", v.tc), buf, v.msg);
        }
    }
    g.end();
}

fn xeddsa_peer() {
    let mut g = group("xeddsa signatures by libxeddsa verified, tampered refused");
    for (i, v) in XEDDSA_PEER.iter().enumerate() {
        let Some(k) = XedVerifyingKey::from_x25519(&v.public) else {
            g.check(false, format_args!("vector {i}: key refused"));
            continue;
        };
        g.check(
            k.verify(&[v.message], &v.signature),
            format_args!("vector {i}: refused"),
        );
        let mut bad = v.signature;
        bad[5] ^= 1;
        g.check(
            !k.verify(&[v.message], &bad),
            format_args!("vector {i}: bad R accepted"),
        );
        let mut m = [0u8; 64];
        let m = &mut m[..v.message.len()];
        m.copy_from_slice(v.message);
        m[0] ^= 1;
        g.check(
            !k.verify(&[&*m], &v.signature),
            format_args!("vector {i}: other message accepted"),
        );
    }
    g.check(
        XEDDSA_PEER.len() == 8,
        format_args!("{} peer vectors, want 8", XEDDSA_PEER.len()),
    );
    g.end();
}

fn xeddsa_sign_verify() {
    let mut g = group("xeddsa sign then verify (keys from x25519)");
    for seed in 0u8..4 {
        let private = [seed.wrapping_mul(37).wrapping_add(1); 32];
        let public = x25519_dalek::x25519(private, x25519_dalek::X25519_BASEPOINT_BYTES);
        let sig = XedSigningKey::from_x25519(&private).sign(&[b"hello world"], &[seed; 64]);
        match XedVerifyingKey::from_x25519(&public) {
            Some(k) => {
                g.check(
                    k.verify(&[b"hello world"], &sig),
                    format_args!("seed {seed}: refused"),
                );
                g.check(
                    !k.verify(&[b"hello worle"], &sig),
                    format_args!("seed {seed}: other message"),
                );
            }
            None => g.check(false, format_args!("seed {seed}: key refused")),
        }
    }
    g.end();
}
